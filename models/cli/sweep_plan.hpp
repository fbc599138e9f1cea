/* The plan of a sweep: which scenario keys vary over which values, how many replications, and
 * which seed each replication uses. A plan is pure data, independent of how its runs execute. */
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cli {

/// Bad --vary syntax, a bad range or an inconsistent plan; what() says what and where.
class PlanError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// One varied scenario key and its values, as written on the command line ("16", "200ms", "on").
struct Axis {
  std::string key;
  std::vector<std::string> values;
};

/// Parses "KEY=V1,V2,..." where each item is a value or a range: "A..B:xF" (A, A*F, A*F^2, ...
/// up to B) or "A..B:+S" (A, A+S, ... up to B). Range bounds may carry a unit suffix, the same
/// on all three numbers ("100ms..400ms:+100ms"). Throws PlanError.
Axis parse_vary(const std::string& spec);

/// Expands one range item ("1..128:x2") into its values. Throws PlanError.
std::vector<std::string> expand_range(const std::string& item);

/// A number with an optional unit suffix ("200ms" -> 200, "ms"); false when text is not one.
bool split_quantity(const std::string& text, double& number, std::string& unit);

struct Point {
  std::size_t index = 0;
  std::vector<std::string> values; // one per axis
};

struct PlannedRun {
  std::size_t point  = 0;
  int replication    = 0;
  std::uint64_t seed = 0;
  std::string id; // "p003-r01": the name of its files under runs/
};

class Plan {
public:
  /// Throws PlanError: no axis, a key varied twice, repeat < 1, seeds beyond the scenario's range.
  Plan(std::vector<Axis> axes, int repeat, std::uint64_t base_seed);

  const std::vector<Axis>& axes() const { return axes_; }
  int repeat() const { return repeat_; }
  std::uint64_t base_seed() const { return base_seed_; }
  const std::vector<Point>& points() const { return points_; }
  /// Replication-major order, so an interrupted sweep has covered every point evenly.
  const std::vector<PlannedRun>& runs() const { return runs_; }
  /// Replication r's seed: base + r, the same at every point (common random numbers).
  std::uint64_t seed_of(int replication) const;
  /// "--set" assignments that select a point: "KEY=VALUE" per axis.
  std::vector<std::string> assignments(const Point& p) const;
  /// "pgbench.clients=4 settings.synchronous_commit=off", for messages.
  std::string describe(const Point& p) const;

  nlohmann::ordered_json to_json() const;
  /// The plan a manifest recorded. Throws PlanError when the JSON is not a plan.
  static Plan from_json(const nlohmann::json& j);

private:
  std::vector<Axis> axes_;
  int repeat_;
  std::uint64_t base_seed_;
  std::vector<Point> points_;
  std::vector<PlannedRun> runs_;
};

} // namespace cli
