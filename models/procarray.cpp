/* ProcArray and transaction id assignment (procarray.c, varsup.c; PostgreSQL 15). */
#include "models/procarray.hpp"

#include "models/pgbench.hpp"
#include "models/transam.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace pg {

namespace {

// The smallest valid (non-zero) xmin, or bound if none is smaller. Hundreds of backends are
// scanned for every snapshot: subtracting one maps InvalidTransactionId (0) to the largest
// value, so a plain unsigned minimum skips it, and four running minima instead of one let the
// comparisons overlap. The minimum does not depend on the order, so neither does the result.
TransactionId oldest_xmin(const std::vector<TransactionId>& xmins, TransactionId bound)
{
  constexpr std::size_t kLanes = 4;
  std::uint32_t lane[kLanes]   = {bound - 1u, bound - 1u, bound - 1u, bound - 1u};
  const std::size_t n          = xmins.size();
  std::size_t i                = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t k = 0; k < kLanes; k++) lane[k] = std::min(lane[k], xmins[i + k] - 1u);
  for (; i < n; i++) lane[0] = std::min(lane[0], xmins[i] - 1u);
  return std::min(std::min(lane[0], lane[1]), std::min(lane[2], lane[3])) + 1u;
}

} // namespace

ProcArray::ProcArray(const Scenario& scenario, const WaitEvents& events, Clog& clog)
    : scenario_(scenario), ev_(events), clog_(clog),
      ProcArrayLock_("ProcArrayLock", events.ProcArray, scenario.policies.lwlock),
      XidGenLock_("XidGenLock", events.XidGen, scenario.policies.lwlock),
      nextXid_(static_cast<TransactionId>(FirstNormalTransactionId + prior_xids(scenario.pgbench)))
{
}

double ProcArray::scan_cost() const
{
  return scenario_.costs.snapshot + scenario_.costs.snapshot_per_proc * static_cast<double>(procs_.size());
}

TransactionId ProcArray::GetNewTransactionId(Backend& me)
{
  XidGenLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  const TransactionId xid = nextXid_++;
  // A transaction id that starts a new CLOG page must find that page zeroed.
  clog_.ExtendCLOG(me, xid);
  me.proc.work(scenario_.costs.xid_assign);
  me.xid = xid;
  running_.push_back(xid); // xids are handed out in order under XidGenLock: stays sorted
  XidGenLock_.release(me.proc);
  return xid;
}

void ProcArray::ProcArrayAdd(Backend* proc)
{
  const auto no = static_cast<std::size_t>(proc->pgprocno);
  for (const Backend* p : procs_)
    if (p->pgprocno == proc->pgprocno)
      throw std::logic_error("ProcArrayAdd: pgprocno " + std::to_string(proc->pgprocno) + " is taken");
  procs_.push_back(proc);
  if (xmins_.size() <= no) xmins_.resize(no + 1, InvalidTransactionId);
  xmins_[no] = proc->xmin;
}

void ProcArray::set_xmin(Backend& proc, TransactionId xmin)
{
  proc.xmin                                       = xmin;
  xmins_[static_cast<std::size_t>(proc.pgprocno)] = xmin;
}

void ProcArray::GetSnapshotData(Backend& me)
{
  ProcArrayLock_.acquire(me.proc, sim::LWLockMode::Shared);
  me.proc.work(scan_cost());
  Snapshot& snap = me.snapshot;
  snap.xmax      = nextXid_;
  snap.xmin      = running_.empty() ? nextXid_ : running_.front();
  snap.xip       = running_;
  if (me.xid != InvalidTransactionId) snap.xip.erase(std::lower_bound(snap.xip.begin(), snap.xip.end(), me.xid));
  const TransactionId globalxmin = oldest_xmin(xmins_, nextXid_);
  me.RecentXmin                  = snap.xmin;
  set_xmin(me, snap.xmin);
  me.GlobalXmin = std::min(globalxmin, snap.xmin);
  ProcArrayLock_.release(me.proc);
}

bool ProcArray::TransactionIdIsInProgress(Backend& me, TransactionId xid)
{
  // Anything older than the oldest xid running at our last snapshot cannot still run.
  if (xid < me.RecentXmin) return false;
  // Asked about it a moment ago and found it ended (a common case for a tuple's xmin and xmax).
  if (TransactionIdIsKnownCompleted(me, xid)) return false;
  if (xid == me.xid) return true;
  ProcArrayLock_.acquire(me.proc, sim::LWLockMode::Shared);
  me.proc.work(scan_cost());
  const bool running = holder_of(xid) != nullptr;
  ProcArrayLock_.release(me.proc);
  return running;
}

Backend* ProcArray::holder_of(TransactionId xid) const
{
  for (Backend* p : procs_)
    if (p->xid == xid) return p;
  return nullptr;
}

bool ProcArray::MinimumActiveBackends(const Backend* me, int min) const
{
  int count = 0;
  for (const Backend* p : procs_)
    if (p != me && p->xid != InvalidTransactionId && !p->waiting_on_lock && ++count >= min) return true;
  return min <= 0;
}

void ProcArray::ProcArrayEndTransactionInternal(Backend& proc)
{
  running_.erase(std::lower_bound(running_.begin(), running_.end(), proc.xid));
  proc.xid = InvalidTransactionId;
}

void ProcArray::ProcArrayEndTransaction(Backend& me)
{
  set_xmin(me, InvalidTransactionId);
  if (me.xid == InvalidTransactionId) return; // no xid: nothing others can see, no lock needed
  if (scenario_.policies.procarray_group_clear) {
    if (ProcArrayLock_.conditional_acquire(me.proc, sim::LWLockMode::Exclusive)) {
      me.proc.work(scenario_.costs.procarray_end);
      ProcArrayEndTransactionInternal(me);
      ProcArrayLock_.release(me.proc);
    } else {
      ProcArrayGroupClearXid(me);
    }
    return;
  }
  ProcArrayLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  me.proc.work(scenario_.costs.procarray_end);
  ProcArrayEndTransactionInternal(me);
  ProcArrayLock_.release(me.proc);
}

// ProcArrayGroupClearXid (9.6+): the first process to queue becomes the leader and clears
// every queued xid under one acquisition of ProcArrayLock.
void ProcArray::ProcArrayGroupClearXid(Backend& me)
{
  me.procArrayGroupMember = true;
  group_first_.rmw(me.proc);
  const bool leader = group_.empty();
  group_.push_back(&me);
  if (!leader) {
    while (me.procArrayGroupMember) me.proc.sleep(ev_.ProcArrayGroupUpdate);
    return;
  }
  ProcArrayLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  group_first_.rmw(me.proc);
  std::vector<Backend*> members;
  members.swap(group_);
  for (Backend* m : members) {
    me.proc.work(scenario_.costs.procarray_end);
    ProcArrayEndTransactionInternal(*m);
  }
  ProcArrayLock_.release(me.proc);
  // As in clog.c's group update: the xids are cleared only once the leader's accrued work has
  // run, so members are woken after it, each after the futex call that wakes it.
  me.proc.flush();
  for (Backend* m : members) {
    m->procArrayGroupMember = false;
    if (m != &me) {
      me.proc.stall(scenario_.hardware.os.futex_wake);
      me.proc.flush();
      m->proc.wake();
    }
  }
}

} // namespace pg
