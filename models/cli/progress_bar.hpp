/* A one-line progress bar on stderr for sweeps: runs done of the total, elapsed time and ETA.
 * Drawn only on a terminal; other messages go through it so they do not garble the line. */
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace cli {

class ProgressBar {
public:
  /// already_done: runs finished before this session (resumed), which the ETA leaves out.
  ProgressBar(bool enabled, std::size_t total, std::size_t already_done);
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&)            = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// A run finished in this session (successfully or not).
  void run_finished(bool failed);
  /// Redraws, for the elapsed time to move between completions.
  void tick();
  /// Prints a line to stderr above the bar.
  void message(const std::string& line);
  void finish();

  /// "1:05", "1:02:03"
  static std::string clock(double seconds);
  /// The bar's text, for tests: "[=====>    ] 12/40 runs, 1 failed, elapsed 0:12, ETA 0:40".
  static std::string render(std::size_t done, std::size_t total, std::size_t failed, double elapsed,
                            double eta_seconds);

private:
  void draw();

  bool enabled_;
  bool drawn_ = false;
  std::size_t total_;
  std::size_t done_;
  std::size_t session_done_ = 0;
  std::size_t failed_       = 0;
  std::chrono::steady_clock::time_point start_;
};

} // namespace cli
