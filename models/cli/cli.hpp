/* The walsim command line: each subcommand is a function taking its own arguments. */
#pragma once

#include <string>
#include <vector>

namespace cli {

/// Exit statuses: 0 success, 1 a run failed, 2 bad input (usage or scenario), 3 internal error.
constexpr int kOk            = 0;
constexpr int kFailed        = 1;
constexpr int kBadInput      = 2;
constexpr int kInternalError = 3;

int run_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int plot_command(const std::vector<std::string>& args);
int merge_command(const std::vector<std::string>& args);
int reproduce_command(const std::vector<std::string>& args);

/// Writes text to path atomically (a temporary file renamed over it): never a half-written file.
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace cli
