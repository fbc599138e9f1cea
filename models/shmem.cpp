/* A backend's page faults on shared memory (see shmem.hpp). */
#include "models/shmem.hpp"

#include "models/backend.hpp"

namespace pg::shmem {

namespace {
constexpr std::uint64_t kOsPage           = 4096;
constexpr std::uint64_t kBufferDescriptor = 64; // BufferDescPadded: one cache line
} // namespace

double fault_seconds(Backend& me, Segment segment, std::uint64_t offset, std::uint64_t length, sim::PageAccess access)
{
  if (!me.page_table || length == 0) return 0;
  return me.page_table->touch(segment, offset / kOsPage, (offset + length - 1) / kOsPage, access);
}

void pin_buffer(Backend& me, int buffer)
{
  if (!me.page_table) return;
  const auto b = static_cast<std::uint64_t>(buffer);
  // The state word is updated with a compare-and-swap; the page header and line pointers are read
  // next, and the tuple lies anywhere in a full page.
  me.proc.stall(fault_seconds(me, BufferDescriptors, b * kBufferDescriptor, kBufferDescriptor, sim::PageAccess::Write) +
                fault_seconds(me, BufferBlocks, b * BLCKSZ, BLCKSZ, sim::PageAccess::Read));
}

std::uint64_t wal_offset(XLogRecPtr lsn, std::uint64_t pages)
{
  return lsn % (pages * XLOG_BLCKSZ);
}

} // namespace pg::shmem
