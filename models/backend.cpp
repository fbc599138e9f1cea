/* Backend processes and snapshots. */
#include "models/backend.hpp"

#include <algorithm>

namespace pg {

bool Snapshot::contains(TransactionId xid) const
{
  if (xid < xmin) return false;
  if (xid >= xmax) return true;
  return std::binary_search(xip.begin(), xip.end(), xid);
}

Backend::Backend(std::string name, int no, sim::Cpu& cpu, sim::Rng r)
    : proc(std::move(name), no, cpu), pgprocno(no), rng(std::move(r))
{
}

} // namespace pg
