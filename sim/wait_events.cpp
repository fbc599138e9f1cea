/* Wait-event names and per-process time totals. */
#include "sim/wait_events.hpp"

namespace sim {

WaitEventNames::WaitEventNames() : names_{"CPU"} {}

WaitEventId WaitEventNames::intern(const std::string& name)
{
  for (std::size_t i = 0; i < names_.size(); i++)
    if (names_[i] == name) return static_cast<WaitEventId>(i);
  names_.push_back(name);
  return static_cast<WaitEventId>(names_.size() - 1);
}

void WaitTimes::add(WaitEventId id, bool is_active, double seconds)
{
  if (all.size() <= id) {
    all.resize(id + 1u, 0.0);
    active.resize(id + 1u, 0.0);
  }
  all[id] += seconds;
  if (is_active) active[id] += seconds;
}

void WaitTimes::merge(const WaitTimes& other)
{
  for (std::size_t i = 0; i < other.all.size(); i++) {
    add(static_cast<WaitEventId>(i), false, other.all[i]);
    active[i] += other.active[i];
  }
}

void WaitTimes::clear()
{
  all.assign(all.size(), 0.0);
  active.assign(active.size(), 0.0);
}

} // namespace sim
