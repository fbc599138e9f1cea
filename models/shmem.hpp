/* What a backend's first touches of PostgreSQL's shared memory cost (CreateSharedMemoryAndSemaphores
 * in ipci.c, PostgreSQL 15): the segments of it that sim::PageTable indexes, and the accesses the
 * models make. Only the parts every transaction touches are laid out; the rest (lock tables, the
 * proc array, the CLOG buffers) is small and mapped within a backend's first transactions. */
#pragma once

#include "models/types.hpp"
#include "sim/page_table.hpp"

#include <cstdint>

namespace pg {

class Backend;

namespace shmem {

enum Segment : int { WalBuffers, BufferDescriptors, BufferBlocks, kSegments };

/// The time a backend's faults cost as it touches bytes [offset, offset + length) of a segment
/// (0 for a process forked before shared memory was populated, whose mappings are all there).
double fault_seconds(Backend& me, Segment segment, std::uint64_t offset, std::uint64_t length, sim::PageAccess access);

/// PinBuffer: the buffer descriptor's state word is written, then the page is read.
void pin_buffer(Backend& me, int buffer);
/// Where the WAL byte at lsn lies in the WAL buffers, a ring of `pages` pages.
std::uint64_t wal_offset(XLogRecPtr lsn, std::uint64_t pages);

} // namespace shmem
} // namespace pg
