/* walsim reproduce: runs scripts/reproduce (the reproduction report, Python standard library
 * only) of the source tree this walsim was built from, with this walsim. */
#include "models/cli/cli.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace cli {

int reproduce_command(const std::vector<std::string>& args)
{
  const std::string script = std::string(WALSIM_SOURCE_DIR) + "/scripts/reproduce";
  if (access(script.c_str(), X_OK) != 0) {
    std::cerr << "walsim reproduce: " << script << " is missing or not executable (this walsim was built from "
              << WALSIM_SOURCE_DIR << "); run scripts/reproduce of a walsim source tree instead\n";
    return kBadInput;
  }
  std::vector<std::string> argv = {script};
  bool has_walsim               = false;
  for (const auto& a : args) has_walsim |= a == "--walsim" || a.rfind("--walsim=", 0) == 0;
  if (!has_walsim) argv.insert(argv.end(), {"--walsim", std::filesystem::read_symlink("/proc/self/exe").string()});
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  execv(script.c_str(), c_argv.data());
  std::cerr << "walsim reproduce: cannot run " << script << ": " << std::strerror(errno) << "\n";
  return kInternalError;
}

} // namespace cli
