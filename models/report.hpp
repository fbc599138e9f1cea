/* Presenting a run: a pgbench-style summary followed by the server's statistics, and the
 * machine-readable JSON of every result. */
#pragma once

#include "models/results.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace pg {

void print_summary(std::ostream& out, const RunResult& r);
/// Everything measured; host_measurements (wall time, memory) only when with_host is set,
/// since they are the only values that differ between two runs of the same scenario and seed.
nlohmann::ordered_json to_json(const RunResult& r, bool with_host);

} // namespace pg
