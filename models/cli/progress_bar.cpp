/* The sweep progress bar. */
#include "models/cli/progress_bar.hpp"

#include <cstdio>

namespace cli {

namespace {
constexpr int kWidth = 30;
}

ProgressBar::ProgressBar(bool enabled, std::size_t total, std::size_t already_done)
    : enabled_(enabled), total_(total), done_(already_done), start_(std::chrono::steady_clock::now())
{
  draw();
}

std::string ProgressBar::clock(double seconds)
{
  const long s = seconds > 0 ? static_cast<long>(seconds + 0.5) : 0;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string ProgressBar::render(std::size_t done, std::size_t total, std::size_t failed, double elapsed,
                                double eta_seconds)
{
  const int filled = total ? static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * kWidth) : kWidth;
  std::string bar  = "[";
  for (int i = 0; i < kWidth; ++i) bar += i < filled ? '=' : (i == filled ? '>' : ' ');
  bar += "] " + std::to_string(done) + "/" + std::to_string(total) + " runs";
  if (failed) bar += ", " + std::to_string(failed) + " failed";
  bar += ", elapsed " + clock(elapsed) + ", ETA " + (eta_seconds >= 0 ? clock(eta_seconds) : std::string("--:--"));
  return bar;
}

void ProgressBar::draw()
{
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta =
      session_done_ ? elapsed / static_cast<double>(session_done_) * static_cast<double>(total_ - done_) : -1;
  // \r and "erase to end of line": the bar redraws in place.
  std::fprintf(stderr, "\r%s\033[K", render(done_, total_, failed_, elapsed, eta).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::run_finished(bool failed)
{
  ++done_;
  ++session_done_;
  failed_ += failed;
  draw();
}

void ProgressBar::tick()
{
  draw();
}

void ProgressBar::message(const std::string& line)
{
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line.c_str());
  draw();
}

void ProgressBar::finish()
{
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\n");
  drawn_   = false;
  enabled_ = false;
}

} // namespace cli
