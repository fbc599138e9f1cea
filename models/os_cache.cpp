/* The OS page cache in front of the data device. See os_cache.hpp. */
#include "models/os_cache.hpp"

#include "models/types.hpp"

#include "sim/clock.hpp"

#include <algorithm>
#include <stdexcept>

namespace pg {

namespace {
double now()
{
  return sim::now();
}
constexpr double kPageKb = BLCKSZ / 1024.0;
} // namespace

OsPageCache::OsPageCache(const OsCacheParams& params, const OsCacheEvents& events, sim::Nvme& device)
    : params_(params), events_(events), device_(device),
      capacity_pages_(static_cast<std::size_t>(std::max(0.0, params.capacity_bytes) / BLCKSZ))
{
  if (capacity_pages_ < 1) throw std::invalid_argument("OsPageCache: no memory left for the page cache");
}

bool OsPageCache::cached(std::uint32_t file, std::uint32_t block) const
{
  return where_.count(key(file, block)) > 0;
}

std::size_t OsPageCache::dirty_pages(std::uint32_t file) const
{
  const auto it = dirty_.find(file);
  return it == dirty_.end() ? 0 : it->second.size();
}

void OsPageCache::touch(std::uint64_t k)
{
  lru_.splice(lru_.begin(), lru_, where_.at(k));
}

void OsPageCache::insert(std::uint64_t k)
{
  lru_.push_front(k);
  where_[k] = lru_.begin();
}

// Evicts the least recently used page; a dirty one must reach the device first, and whoever
// needed the memory waits for it (direct reclaim).
void OsPageCache::evict_one(sim::Proc* proc)
{
  const std::uint64_t k = lru_.back();
  const auto file       = static_cast<std::uint32_t>(k >> 32);
  const auto block      = static_cast<std::uint32_t>(k & 0xffffffffu);
  const auto dirty      = dirty_.find(file);
  if (dirty != dirty_.end() && dirty->second.erase(block) > 0) {
    if (proc == nullptr) throw std::logic_error("OsPageCache: dirty page evicted during setup");
    proc->flush();
    proc->await_io(device_.write(now(), BLCKSZ), events_.write);
    stats_.pages_written_back++;
  }
  where_.erase(k);
  lru_.pop_back();
  stats_.evictions++;
}

bool OsPageCache::read(sim::Proc& proc, std::uint32_t file, std::uint32_t block)
{
  const std::uint64_t k = key(file, block);
  const bool hit        = where_.count(k) > 0;
  if (hit) {
    touch(k);
    stats_.hits++;
  } else {
    if (where_.size() >= capacity_pages_) evict_one(&proc);
    proc.flush();
    proc.await_io(device_.read(now(), BLCKSZ), events_.read);
    insert(k);
    stats_.misses++;
  }
  proc.syscall(params_.read_syscall + params_.read_per_kb * kPageKb, events_.read);
  return hit;
}

void OsPageCache::write(sim::Proc& proc, std::uint32_t file, std::uint32_t block)
{
  const std::uint64_t k = key(file, block);
  if (where_.count(k) > 0) {
    touch(k);
  } else {
    if (where_.size() >= capacity_pages_) evict_one(&proc);
    insert(k);
  }
  dirty_[file].insert(block);
  stats_.writes++;
  proc.syscall(params_.write_syscall + params_.write_per_kb * kPageKb, events_.write);
}

// Submits the dirty blocks as requests of consecutive blocks, each at most max_request bytes;
// returns when the last one completes.
double OsPageCache::write_back(double t, const std::set<std::uint32_t>& blocks)
{
  const auto per_request = static_cast<std::uint32_t>(std::max(1.0, params_.max_request / BLCKSZ));
  double done            = t;
  std::uint32_t run      = 0;
  std::uint32_t last     = 0;
  auto submit            = [&]() {
    if (run > 0) done = std::max(done, device_.write(t, static_cast<double>(run) * BLCKSZ));
    run = 0;
  };
  for (const std::uint32_t b : blocks) {
    if (run > 0 && (b != last + 1 || run >= per_request)) submit();
    last = b;
    run++;
  }
  submit();
  return done;
}

std::uint64_t OsPageCache::fsync(sim::Proc& proc, std::uint32_t file)
{
  proc.syscall(params_.fsync_cpu, events_.sync);
  proc.flush();
  std::set<std::uint32_t> blocks;
  const auto it = dirty_.find(file);
  if (it != dirty_.end()) blocks.swap(it->second);
  const double written = write_back(now(), blocks);
  // The device orders its cache flush after every write submitted before it.
  const double flushed = std::max(written, device_.flush(now()));
  proc.await_io(flushed, events_.sync);
  stats_.fsyncs++;
  stats_.pages_written_back += blocks.size();
  return blocks.size();
}

void OsPageCache::preload_clean(std::uint32_t file, std::uint32_t nblocks)
{
  for (std::uint32_t b = 0; b < nblocks; b++) {
    const std::uint64_t k = key(file, b);
    if (where_.count(k) > 0) {
      touch(k);
      continue;
    }
    if (where_.size() >= capacity_pages_) evict_one(nullptr);
    insert(k);
  }
}

} // namespace pg
