/* Page faults of a process on shared memory (mm/memory.c, Linux 5.x-6.x). */
#include "sim/page_table.hpp"

#include <algorithm>

namespace sim {

PageTable::PageTable(const PageFaultParams& params, int segments)
    : params_(params), segments_(static_cast<std::size_t>(segments))
{
}

double PageTable::touch(int segment, std::uint64_t first, std::uint64_t last, PageAccess access)
{
  auto& pages    = segments_.at(static_cast<std::size_t>(segment));
  double seconds = 0;
  for (std::uint64_t page = first; page <= last; page++) seconds += touch_page(pages, page, access);
  return seconds;
}

double PageTable::touch_page(std::vector<std::uint8_t>& pages, std::uint64_t page, PageAccess access)
{
  const auto window = static_cast<std::uint64_t>(std::max(1, params_.fault_around));
  if (pages.size() <= page) pages.resize((page / window + 1) * window, Unmapped);
  std::uint8_t& state = pages[page];
  if (state == Mapped) return 0;
  if (state == Prefaulted) {
    state = Mapped;
    stats_.first_touches++;
    return params_.first_touch;
  }
  state = Mapped;
  if (access == PageAccess::Write) {
    stats_.write_faults++;
    return params_.write;
  }
  // do_fault_around(): the aligned window around the fault, skipping entries already present.
  const std::uint64_t from = page / window * window;
  for (std::uint64_t p = from; p < from + window; p++)
    if (pages[p] == Unmapped) pages[p] = Prefaulted;
  stats_.read_faults++;
  return params_.read;
}

} // namespace sim
