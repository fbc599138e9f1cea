/* Sweep plans: --vary parsing, value ranges, the cross product and the replication seeds. */
#include "models/cli/sweep_plan.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

namespace cli {

namespace {

// Far more than anyone sweeps by hand; catches "1..1e9:+1" before it eats the memory.
constexpr std::size_t kMaxValuesPerAxis = 10000;
constexpr std::size_t kMaxRuns          = 1000000;

std::vector<std::string> split(const std::string& text, char sep)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string format_number(double v)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

double range_number(const std::string& text, const std::string& item, const char* what, std::string& unit)
{
  double v = 0;
  if (!split_quantity(text, v, unit))
    throw PlanError("range \"" + item + "\": " + what + " \"" + text + "\" is not a number (with an optional unit)");
  return v;
}

void check_count(std::size_t n, const std::string& item)
{
  if (n > kMaxValuesPerAxis)
    throw PlanError("range \"" + item + "\" has more than " + std::to_string(kMaxValuesPerAxis) + " values");
}

std::vector<std::string> geometric(double lo, double hi, double factor, const std::string& unit,
                                   const std::string& item)
{
  if (!(factor > 1)) throw PlanError("range \"" + item + "\": the factor after 'x' must be greater than 1");
  if (!(lo > 0)) throw PlanError("range \"" + item + "\": a geometric range must start above 0");
  std::vector<std::string> values;
  for (double v = lo; v <= hi * (1 + 1e-12); v *= factor) {
    values.push_back(format_number(v) + unit);
    check_count(values.size(), item);
  }
  return values;
}

std::vector<std::string> arithmetic(double lo, double hi, double step, const std::string& unit, const std::string& item)
{
  if (!(step > 0)) throw PlanError("range \"" + item + "\": the step after '+' must be greater than 0");
  std::vector<std::string> values;
  // lo + i * step rather than a running sum, so 0.1 steps do not drift.
  for (std::size_t i = 0;; ++i) {
    const double v = lo + static_cast<double>(i) * step;
    if (v > hi + 1e-9 * step) break;
    values.push_back(format_number(v) + unit);
    check_count(values.size(), item);
  }
  return values;
}

} // namespace

bool split_quantity(const std::string& text, double& number, std::string& unit)
{
  if (text.empty()) return false;
  const char* begin = text.c_str();
  char* end         = nullptr;
  number            = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number)) return false;
  unit = std::string(end);
  for (char c : unit)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '/') return false;
  return true;
}

std::vector<std::string> expand_range(const std::string& item)
{
  const std::size_t dots  = item.find("..");
  const std::size_t colon = item.find(':', dots);
  if (dots == std::string::npos || colon == std::string::npos || colon + 1 >= item.size())
    throw PlanError("range \"" + item + "\": expected A..B:xF (geometric) or A..B:+S (arithmetic)");
  std::string lo_unit;
  std::string hi_unit;
  std::string step_unit;
  const double lo   = range_number(item.substr(0, dots), item, "start", lo_unit);
  const double hi   = range_number(item.substr(dots + 2, colon - dots - 2), item, "end", hi_unit);
  const char kind   = item[colon + 1];
  const double step = range_number(item.substr(colon + 2), item, "step", step_unit);
  if (lo_unit != hi_unit)
    throw PlanError("range \"" + item + "\": start and end have different units (\"" + lo_unit + "\", \"" + hi_unit +
                    "\")");
  if (lo > hi) throw PlanError("range \"" + item + "\": the start is greater than the end");
  if (kind == 'x') {
    if (!step_unit.empty()) throw PlanError("range \"" + item + "\": the factor after 'x' takes no unit");
    return geometric(lo, hi, step, lo_unit, item);
  }
  if (kind == '+') {
    if (step_unit != lo_unit)
      throw PlanError("range \"" + item + "\": the step must have the unit of the bounds (\"" + lo_unit + "\")");
    return arithmetic(lo, hi, step, lo_unit, item);
  }
  throw PlanError("range \"" + item + "\": expected 'x' (factor) or '+' (step) after ':'");
}

Axis parse_vary(const std::string& spec)
{
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw PlanError("--vary \"" + spec + "\": expected KEY=V1,V2,... (e.g. settings.NUM_XLOGINSERT_LOCKS=8..128:x2)");
  Axis axis;
  axis.key = spec.substr(0, eq);
  for (const auto& component : split(axis.key, '.'))
    if (component.empty()) throw PlanError("--vary \"" + spec + "\": the key \"" + axis.key + "\" has an empty part");
  if (axis.key == "run.seed") throw PlanError("--vary run.seed: use --seed and --repeat to choose the seeds");
  std::set<std::string> seen;
  for (const auto& item : split(spec.substr(eq + 1), ',')) {
    if (item.empty()) throw PlanError("--vary \"" + spec + "\": empty value (two commas, or a trailing comma?)");
    const auto values = item.find("..") == std::string::npos ? std::vector<std::string>{item} : expand_range(item);
    for (const auto& v : values) {
      if (!seen.insert(v).second) throw PlanError("--vary " + axis.key + ": the value " + v + " is given twice");
      axis.values.push_back(v);
    }
  }
  return axis;
}

Plan::Plan(std::vector<Axis> axes, int repeat, std::uint64_t base_seed)
    : axes_(std::move(axes)), repeat_(repeat), base_seed_(base_seed)
{
  if (axes_.empty()) throw PlanError("nothing to vary: give at least one --vary KEY=V1,V2,...");
  if (repeat_ < 1) throw PlanError("--repeat must be at least 1");
  const auto max_seed = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (base_seed_ > max_seed - static_cast<std::uint64_t>(repeat_ - 1))
    throw PlanError("--seed " + std::to_string(base_seed_) + " with --repeat " + std::to_string(repeat_) +
                    " goes beyond the largest seed, " + std::to_string(max_seed));
  std::set<std::string> keys;
  std::size_t total = 1;
  for (const auto& a : axes_) {
    if (!keys.insert(a.key).second) throw PlanError("--vary " + a.key + " is given twice; list all values in one");
    if (a.values.empty()) throw PlanError("--vary " + a.key + " has no values");
    total *= a.values.size();
    if (total * static_cast<std::size_t>(repeat_) > kMaxRuns)
      throw PlanError("the sweep has more than " + std::to_string(kMaxRuns) + " runs");
  }
  // Cross product, the first --vary outermost.
  for (std::size_t i = 0; i < total; ++i) {
    Point p;
    p.index        = i;
    std::size_t at = i;
    p.values.resize(axes_.size());
    for (std::size_t a = axes_.size(); a-- > 0;) {
      p.values[a] = axes_[a].values[at % axes_[a].values.size()];
      at /= axes_[a].values.size();
    }
    points_.push_back(std::move(p));
  }
  for (int r = 0; r < repeat_; ++r)
    for (const auto& p : points_) {
      char id[64];
      std::snprintf(id, sizeof id, "p%03zu-r%02d", p.index, r);
      runs_.push_back({p.index, r, seed_of(r), id});
    }
}

std::uint64_t Plan::seed_of(int replication) const
{
  return base_seed_ + static_cast<std::uint64_t>(replication);
}

std::vector<std::string> Plan::assignments(const Point& p) const
{
  std::vector<std::string> out;
  for (std::size_t a = 0; a < axes_.size(); ++a) out.push_back(axes_[a].key + "=" + p.values[a]);
  return out;
}

std::string Plan::describe(const Point& p) const
{
  std::string out;
  for (const auto& s : assignments(p)) out += (out.empty() ? "" : " ") + s;
  return out;
}

nlohmann::ordered_json Plan::to_json() const
{
  nlohmann::ordered_json j;
  for (const auto& a : axes_) j["vary"].push_back({{"key", a.key}, {"values", a.values}});
  j["repeat"]    = repeat_;
  j["base_seed"] = base_seed_;
  for (int r = 0; r < repeat_; ++r) j["seeds"].push_back(seed_of(r));
  j["points"] = points_.size();
  j["runs"]   = runs_.size();
  return j;
}

Plan Plan::from_json(const nlohmann::json& j)
{
  try {
    std::vector<Axis> axes;
    for (const auto& a : j.at("vary")) axes.push_back({a.at("key").get<std::string>(), a.at("values")});
    return Plan(std::move(axes), j.at("repeat").get<int>(), j.at("base_seed").get<std::uint64_t>());
  } catch (const nlohmann::json::exception& e) {
    throw PlanError(std::string("not a sweep plan: ") + e.what());
  }
}

} // namespace cli
