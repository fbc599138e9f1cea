/* The operating system's page cache in front of the data device, as PostgreSQL's data files see
 * it through md.c and fd.c (FileRead, FileWrite, FileSync; PostgreSQL 9.1 to 15 all use buffered
 * I/O): a read that finds the page cached costs a system call and a copy; a miss also waits for
 * the device; a write only copies into the cache and leaves the page dirty there; fsync writes a
 * file's dirty pages to the device and flushes its cache, and the caller waits for all of it.
 *
 * Assumptions, stated because the kernel is not PostgreSQL: the cache holds RAM less
 * shared_buffers, in 8kB pages, least recently used first out; a dirty page is written out only
 * by fsync or when it must be evicted (the kernel's background writeback starts at
 * dirty_background_ratio of RAM or after dirty_expire_centisecs, 30 s, neither of which a
 * sub-second scan of a table much smaller than RAM reaches); a file's dirty pages go to the device
 * in ascending block order, merged into requests of up to max_request bytes.
 */
#pragma once

#include "sim/nvme.hpp"
#include "sim/proc.hpp"

#include <cstdint>
#include <list>
#include <map>
#include <set>
#include <unordered_map>

namespace pg {

struct OsCacheParams {
  double capacity_bytes = 0;            // memory the page cache may use
  double read_syscall   = 0;            // seconds per read() of a cached page, besides the copy
  double read_per_kb    = 0;            // seconds to copy one kB out of the cache
  double write_syscall  = 0;            // seconds per write() into the cache, besides the copy
  double write_per_kb   = 0;            // seconds to copy one kB into the cache (and dirty the page)
  double fsync_cpu      = 0;            // seconds of CPU the kernel spends in fsync, besides the device
  double max_request    = 512.0 * 1024; // bytes the block layer merges into one device write
};

struct OsCacheStats {
  std::uint64_t hits = 0, misses = 0, writes = 0, fsyncs = 0, pages_written_back = 0, evictions = 0;
  void reset() { *this = OsCacheStats(); }
};

/// Wait events under which the system calls are reported.
struct OsCacheEvents {
  sim::WaitEventId read  = sim::kCpu; // IO:DataFileRead
  sim::WaitEventId write = sim::kCpu; // IO:DataFileWrite
  sim::WaitEventId sync  = sim::kCpu; // IO:DataFileSync
};

class OsPageCache {
public:
  OsPageCache(const OsCacheParams& params, const OsCacheEvents& events, sim::Nvme& device);

  /// pread() of one 8kB block of file; returns whether the page cache had it.
  bool read(sim::Proc& proc, std::uint32_t file, std::uint32_t block);
  /// pwrite() of one 8kB block of file: it is cached and dirty afterwards.
  void write(sim::Proc& proc, std::uint32_t file, std::uint32_t block);
  /// fsync() of file: its dirty pages are written and the device cache flushed; returns the
  /// number of pages written.
  std::uint64_t fsync(sim::Proc& proc, std::uint32_t file);

  /// The state a file is in after it was written and synced: its pages cached and clean (setup).
  void preload_clean(std::uint32_t file, std::uint32_t nblocks);
  bool cached(std::uint32_t file, std::uint32_t block) const;
  std::size_t dirty_pages(std::uint32_t file) const;
  std::size_t capacity_pages() const { return capacity_pages_; }
  OsCacheStats& stats() { return stats_; }

private:
  static std::uint64_t key(std::uint32_t file, std::uint32_t block)
  {
    return (static_cast<std::uint64_t>(file) << 32) | block;
  }
  void touch(std::uint64_t k);
  void insert(std::uint64_t k);
  void evict_one(sim::Proc* proc);
  double write_back(double t, const std::set<std::uint32_t>& blocks);

  OsCacheParams params_;
  OsCacheEvents events_;
  sim::Nvme& device_;
  std::size_t capacity_pages_;
  std::list<std::uint64_t> lru_; // front: most recently used
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
  std::map<std::uint32_t, std::set<std::uint32_t>> dirty_; // file -> dirty blocks
  OsCacheStats stats_;
};

} // namespace pg
