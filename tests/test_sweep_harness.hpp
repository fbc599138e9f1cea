/* Helpers for the end-to-end tests of walsim sweep, compare, plot and merge: a scratch folder per
 * test, and commands run through the shell with their status and output captured. */
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace sweep_test {

inline const std::string kWalsim   = WALSIM_BINARY;
inline const std::string kScenario = std::string(WALSIM_SOURCE_DIR) + "/scenarios/local-pg15-tpcb.json";
/// Short runs: the tests check the machinery, not the model.
inline const std::string kShort = " -T 0.2s --set run.warmup=0s ";

inline std::string read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const std::string& path, const std::string& text)
{
  std::ofstream(path, std::ios::binary) << text;
}

inline std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> split_csv_line(const std::string& line)
{
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

/// For INFO(): what a failed check should show.
inline std::ostream& operator<<(std::ostream& os, const Result& r)
{
  return os << "status " << r.status << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
}

/// A fresh folder under the system's temporary directory, removed at the end of the test.
class Scratch {
public:
  Scratch()
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "walsim-sweep-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~Scratch()
  {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  Scratch(const Scratch&)            = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

  /// Runs a shell command in the scratch folder; the exit status as the shell reports it
  /// (128 + signal for a process killed by a signal).
  Result sh(const std::string& command) const
  {
    const std::string out = path_ + "/.out";
    const std::string err = path_ + "/.err";
    const int raw = std::system(("cd '" + path_ + "' && (" + command + ") > '" + out + "' 2> '" + err + "'").c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out    = read_file(out);
    r.err    = read_file(err);
    return r;
  }

  /// walsim with the given arguments.
  Result walsim(const std::string& args) const { return sh("'" + kWalsim + "' " + args); }

private:
  std::string path_;
};

inline std::size_t count_files(const std::string& dir, const std::string& suffix)
{
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    n += name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return n;
}

} // namespace sweep_test
