/* Where processes spend their time, by wait event.
 *
 * The names are the models' (pg_stat_activity's "LWLock:WALInsert" and so on); sim/ only hands
 * out small integer ids and adds up time. Id 0 is reserved for "no wait event": running or
 * runnable, which pg_stat_activity shows as a NULL wait event and walsim reports as "CPU".
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

using WaitEventId          = std::uint16_t;
constexpr WaitEventId kCpu = 0;

class WaitEventNames {
public:
  WaitEventNames();
  /// The id for name, registering it on first use.
  WaitEventId intern(const std::string& name);
  const std::string& name(WaitEventId id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

private:
  std::vector<std::string> names_;
};

/// Seconds per wait event, split by whether the process counted as active (pg_stat_activity's
/// state = 'active') at the time.
struct WaitTimes {
  std::vector<double> all;
  std::vector<double> active;

  void add(WaitEventId id, bool is_active, double seconds);
  void merge(const WaitTimes& other);
  void clear();
};

} // namespace sim
