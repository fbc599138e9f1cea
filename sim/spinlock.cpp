/* Spinlocks: see spinlock.hpp. */
#include "sim/spinlock.hpp"

namespace sim {

double Spinlock::run(Proc& proc, double section)
{
  const double waited = line_.rmw(proc, section);
  stats_.exacq++;
  stats_.acquire_seconds += waited;
  if (waited > spin_delay_after_) stats_.spindelay++;
  return waited;
}

} // namespace sim
