/* The walsim command line: each subcommand is a function taking its own arguments. */
#pragma once

#include <functional>
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

/// Runs a simulation and turns what it throws into an exit status, with the reason on stderr:
/// kFailed when the modelled server fails as PostgreSQL would (every buffer pinned) or memory runs
/// out, kBadInput for a bad --sg-cfg, kInternalError for a broken invariant; kOk if it returns.
int run_simulation(const std::function<void()>& simulate);

/// Writes text to path atomically (a temporary file renamed over it): never a half-written file.
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace cli
