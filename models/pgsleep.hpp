/* pg_usleep (src/port/pgsleep.c, PostgreSQL 15): select() with a timeout and no descriptors. */
#pragma once

#include "sim/wait_events.hpp"

namespace pg {

class Backend;
struct OsCosts;

/// How long a select() timeout of `timeout` seconds keeps a normal process asleep on Linux.
double select_sleep_seconds(const OsCosts& os, double timeout);

/// pg_usleep(seconds) under the given wait event (as PostgreSQL reports it around the call).
void pg_usleep(Backend& me, const OsCosts& os, double seconds, sim::WaitEventId event);

} // namespace pg
