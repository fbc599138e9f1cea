/* The fsync request queue (checkpointer.c, PostgreSQL 15; bgwriter.c, 9.1). See sync_queue.hpp. */
#include "models/sync_queue.hpp"

#include <map>
#include <stdexcept>
#include <string>

namespace pg {

CheckpointerRequestQueue::CheckpointerRequestQueue(int max_requests, bool compaction)
    : max_requests_(max_requests), compaction_(compaction)
{
  if (max_requests < 1)
    throw std::invalid_argument("fsync request queue: at least one entry, got " + std::to_string(max_requests));
  requests_.reserve(static_cast<std::size_t>(max_requests));
}

ForwardResult CheckpointerRequestQueue::Forward(const FileTag& tag)
{
  ForwardResult result = ForwardResult::Queued;
  if (num_requests() >= max_requests_) {
    if (!compaction_ || CompactCheckpointerRequestQueue() == 0) return ForwardResult::QueueFull;
    result = ForwardResult::QueuedAfterCompaction;
  }
  requests_.push_back(tag);
  return result;
}

// A request can go if a later identical one follows it: working forwards keeps the order of
// what remains, which matters once other request types (forget, filter) are in the queue.
int CheckpointerRequestQueue::CompactCheckpointerRequestQueue()
{
  std::map<FileTag, std::size_t> latest;
  std::vector<bool> skip(requests_.size(), false);
  int skipped = 0;
  for (std::size_t n = 0; n < requests_.size(); n++) {
    const auto [it, inserted] = latest.emplace(requests_[n], n);
    if (!inserted) {
      skip[it->second] = true;
      skipped++;
      it->second = n;
    }
  }
  if (skipped == 0) return 0;
  std::size_t preserve = 0;
  for (std::size_t n = 0; n < requests_.size(); n++)
    if (!skip[n]) requests_[preserve++] = requests_[n];
  requests_.resize(preserve);
  return skipped;
}

std::vector<FileTag> CheckpointerRequestQueue::Absorb()
{
  std::vector<FileTag> taken;
  taken.swap(requests_);
  requests_.reserve(static_cast<std::size_t>(max_requests_));
  return taken;
}

SyncRequestQueue::SyncRequestQueue(const SyncQueueParams& params, sim::WaitEventId lock_event,
                                   const sim::LWLockParams& lock_params)
    : params_(params), queue_(params.max_requests, params.compaction),
      CheckpointerCommLock_("CheckpointerCommLock", lock_event, lock_params)
{
}

bool SyncRequestQueue::ForwardSyncRequest(sim::Proc& me, const FileTag& tag)
{
  CheckpointerCommLock_.acquire(me, sim::LWLockMode::Exclusive);
  me.work(params_.forward_ns);
  const int before           = queue_.num_requests();
  const ForwardResult result = queue_.Forward(tag);
  if (before >= queue_.max_requests() && queue_.compaction()) {
    // The hash table over the whole queue is built whether or not anything can be dropped.
    me.work(params_.compact_ns * before);
    if (result != ForwardResult::QueueFull) {
      stats_.compactions++;
      stats_.compacted += static_cast<std::uint64_t>(before + 1 - queue_.num_requests());
    }
  }
  // SetLatch on a latch already set returns at once: only the first nudge signals.
  const bool nudge = result != ForwardResult::QueueFull && params_.wakeup == SyncQueueWakeup::HalfFull &&
                     queue_.too_full() && absorber_ != nullptr && !latch_set_;
  if (nudge) latch_set_ = true;
  CheckpointerCommLock_.release(me);
  if (result == ForwardResult::QueueFull) {
    stats_.backend_fsync++;
    return false;
  }
  stats_.requests++;
  if (nudge) {
    me.stall(params_.set_latch);
    me.flush();
    absorber_->wake();
    stats_.nudges++;
  }
  return true;
}

void SyncRequestQueue::AbsorbSyncRequests(sim::Proc& me)
{
  CheckpointerCommLock_.acquire(me, sim::LWLockMode::Exclusive);
  std::vector<FileTag> taken = queue_.Absorb();
  latch_set_                 = false;
  CheckpointerCommLock_.release(me);
  // RememberSyncRequest runs after the lock is released.
  me.work(params_.absorb_ns * static_cast<double>(taken.size()));
  for (const FileTag& tag : taken) pending_ops_.insert(tag);
  stats_.absorbed += taken.size();
  stats_.absorbs++;
}

} // namespace pg
