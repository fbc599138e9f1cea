/* One process's page table for shared memory it did not map itself (Linux's handling of a
 * MAP_SHARED region in a forked child, 5.x-6.x).
 *
 * A process forked after the postmaster created shared memory starts with no page-table entries
 * for it: its first access to each 4 kB page faults. A read fault maps the pages around it that
 * the page cache holds (do_fault_around(), fault_around_bytes) as well; a write fault on a shared
 * mapping (do_shared_fault()) maps one page. In a virtual machine whose host maps guest page
 * tables lazily, the first access through an entry that fault-around made costs time too, though
 * the guest counts no fault. Memory is divided into segments (PostgreSQL's WAL buffers, buffer
 * descriptors, buffer blocks), each indexed from 0 in 4 kB pages; the page cache holds every page
 * (the postmaster populated them).
 */
#pragma once

#include <cstdint>
#include <vector>

namespace sim {

struct PageFaultParams {
  double read        = 0;  // a read fault, fault-around's mapping included (seconds)
  double write       = 0;  // a write fault on a shared mapping (one page)
  double first_touch = 0;  // first access to a page fault-around mapped
  int fault_around   = 16; // pages a read fault maps, aligned (fault_around_bytes / 4 kB)
  bool enabled() const { return read > 0 || write > 0 || first_touch > 0; }
};

enum class PageAccess { Read, Write };

struct PageFaultStats {
  std::uint64_t read_faults = 0, write_faults = 0, first_touches = 0;
};

class PageTable {
public:
  PageTable(const PageFaultParams& params, int segments);
  /// The time an access to the 4 kB pages [first, last] of a segment costs in faults; maps them.
  double touch(int segment, std::uint64_t first, std::uint64_t last, PageAccess access);
  const PageFaultStats& stats() const { return stats_; }
  void reset_stats() { stats_ = PageFaultStats(); }

private:
  enum State : std::uint8_t { Unmapped, Prefaulted, Mapped };
  double touch_page(std::vector<std::uint8_t>& pages, std::uint64_t page, PageAccess access);

  PageFaultParams params_;
  std::vector<std::vector<std::uint8_t>> segments_; // grown as pages are touched
  PageFaultStats stats_;
};

} // namespace sim
