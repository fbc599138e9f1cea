/* walsim plot: charts of a sweep folder through gnuplot. */
#include "models/cli/cli.hpp"
#include "models/cli/plot_series.hpp"
#include "models/cli/result_store.hpp"

#include <boost/program_options.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace po = boost::program_options;
namespace fs = std::filesystem;

extern char** environ;

namespace cli {

namespace {

const char* kPlotUsage = "usage: walsim plot DIR [--metric M] [--x KEY]\n"
                         "\n"
                         "Draws a sweep's metric (default tps) against a varied key (default the first --vary),\n"
                         "one line per combination of the other varied keys: each point is the mean over the\n"
                         "replications, its bar the 95% confidence interval of the mean. Writes\n"
                         "DIR/plots/METRIC-vs-KEY.png and .svg through gnuplot (Debian: gnuplot-nox), with the\n"
                         "gnuplot script and data beside them. Exit status 1 when gnuplot is missing or fails.\n";

/// The first gnuplot on PATH, or "" when there is none.
std::string find_gnuplot()
{
  const char* path  = std::getenv("PATH");
  std::string dirs  = path ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end    = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "gnuplot";
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

int run_gnuplot(const std::string& gnuplot, const std::string& script)
{
  std::vector<char*> argv = {const_cast<char*>(gnuplot.c_str()), const_cast<char*>(script.c_str()), nullptr};
  pid_t pid               = 0;
  if (posix_spawn(&pid, gnuplot.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/// A file-name-safe version of a metric or key.
std::string slug(const std::string& text)
{
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ? c : '_';
  return out;
}

} // namespace

int plot_command(const std::vector<std::string>& args)
{
  po::options_description desc("plot options");
  desc.add_options()("metric,m", po::value<std::string>()->default_value("tps"),
                     "a column of results.csv: tps, latency_p95_ms, insert_lock_acquire_ms, wait.LWLock:WALWrite, ...")(
      "x", po::value<std::string>(),
      "the varied key on the x axis (default: the first --vary of the sweep)")("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("dir", po::value<std::string>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "walsim plot: " << e.what() << "\n" << kPlotUsage;
    return kBadInput;
  }
  if (vm.count("help")) {
    std::cout << kPlotUsage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("dir")) {
    std::cerr << "walsim plot: no sweep folder given\n" << kPlotUsage;
    return kBadInput;
  }
  const SweepDir dir(fs::absolute(vm["dir"].as<std::string>()).lexically_normal().string());
  const std::string metric = vm["metric"].as<std::string>();
  if (!known_metric(metric)) {
    std::cerr << "walsim plot: --metric " << metric << " is not a column of results.csv\n";
    return kBadInput;
  }
  std::optional<Plan> plan;
  Chart chart;
  nlohmann::json manifest;
  try {
    const auto m = read_manifest(dir.manifest());
    if (!m) throw std::runtime_error(dir.path() + " is not a sweep folder (no manifest.json)");
    manifest = *m;
    plan.emplace(Plan::from_json(manifest.at("plan")));
    const std::string x = vm.count("x") ? vm["x"].as<std::string>() : plan->axes().front().key;
    chart = make_chart(*plan, dir.load_records(*plan, manifest.at("walsim").get<std::string>()), metric, x);
  } catch (const std::exception& e) {
    std::cerr << "walsim plot: " << e.what() << "\n";
    return kBadInput;
  }

  const std::string gnuplot = find_gnuplot();
  const std::string base    = dir.path() + "/plots/" + slug(metric) + "-vs-" + slug(chart.x_key);
  const std::string title =
      fs::path(manifest.at("/scenario/file"_json_pointer).get<std::string>()).filename().string() + ": " + metric +
      " (mean and 95% CI of " + std::to_string(plan->repeat()) + " replications)";
  try {
    fs::create_directories(dir.path() + "/plots");
    write_file_atomically(base + ".dat", chart_data(chart));
    // gnuplot writes in place: it draws into temporary names that are renamed when complete.
    write_file_atomically(base + ".gp",
                          gnuplot_script(chart, title, base + ".dat", base + ".png.tmp", base + ".svg.tmp"));
    for (const char* ext : {".png", ".svg", ".png.tmp", ".svg.tmp"}) fs::remove(base + ext);
  } catch (const std::exception& e) {
    std::cerr << "walsim plot: " << e.what() << "\n";
    return kFailed;
  }
  if (gnuplot.empty()) {
    std::cerr << "walsim plot: gnuplot is not on PATH; install it (Debian: apt-get install gnuplot-nox). The data\n"
                 "and the script are ready: gnuplot "
              << base << ".gp\n";
    return kFailed;
  }
  if (const int rc = run_gnuplot(gnuplot, base + ".gp"); rc != 0) {
    std::cerr << "walsim plot: " << gnuplot << " " << base << ".gp failed (exit status " << rc << ")\n";
    return kFailed;
  }
  bool any = false;
  for (const char* ext : {".png", ".svg"}) {
    std::error_code ec;
    if (fs::exists(base + ext + ".tmp", ec)) {
      fs::rename(base + ext + ".tmp", base + ext, ec);
      std::cout << base << ext << "\n";
      any = true;
    } else {
      std::cerr << "walsim plot: this gnuplot has no " << (ext[1] == 'p' ? "png" : "svg") << " terminal; no " << ext
                << " written\n";
    }
  }
  return any ? kOk : kFailed;
}

} // namespace cli
