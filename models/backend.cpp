/* Backend processes and snapshots. */
#include "models/backend.hpp"

#include <algorithm>

namespace pg {

namespace {

// std::binary_search without branches on the data: with hundreds of running xids, the
// mispredicted branches of the usual search cost more than its comparisons. The range
// [base, base + n] keeps holding the first element not less than xid.
bool sorted_contains(const std::vector<TransactionId>& sorted, TransactionId xid)
{
  if (sorted.empty()) return false;
  const TransactionId* base = sorted.data();
  std::size_t n             = sorted.size();
  while (n > 1) {
    const std::size_t half = n / 2;
    base                   = base[half] < xid ? base + half : base;
    n -= half;
  }
  return *base == xid || (*base < xid && base + 1 < sorted.data() + sorted.size() && base[1] == xid);
}

} // namespace

bool Snapshot::contains(TransactionId xid) const
{
  if (xid < xmin) return false;
  if (xid >= xmax) return true;
  return sorted_contains(xip, xid);
}

Backend::Backend(std::string name, int no, sim::Cpu& cpu, sim::Rng r)
    : proc(std::move(name), no, cpu), pgprocno(no), rng(std::move(r))
{
}

} // namespace pg
