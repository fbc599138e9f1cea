/* pg_usleep as Linux serves it: see pgsleep.hpp. */
#include "models/pgsleep.hpp"

#include "models/backend.hpp"
#include "models/scenario.hpp"

#include <algorithm>

namespace pg {

// select_estimate_accuracy() gives the timer a range: the process's timer slack, or a thousandth
// of the timeout if that is more. The hardware timer is programmed for the end of the range, and
// only another timer firing inside it ends the sleep sooner; walsim has no such timers, so every
// sleep runs to the end.
double select_sleep_seconds(const OsCosts& os, double timeout)
{
  if (timeout <= 0) return 0;
  return timeout + std::max(os.timer_slack, timeout / 1000);
}

void pg_usleep(Backend& me, const OsCosts& os, double seconds, sim::WaitEventId event)
{
  me.proc.block_until(me.proc.local_time() + select_sleep_seconds(os, seconds), event);
}

} // namespace pg
