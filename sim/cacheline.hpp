/* A contended cache line: the shared word behind an atomic, a spinlock or an LWLock's state.
 *
 * Cores take the line in turn. An atomic read-modify-write pays the transfer of the line from
 * its previous writer (nothing on the same core, more from another socket), and waits while
 * other cores' operations hold it; each operation already waiting makes the hand-off dearer
 * (spinners steal the line from one another), so the cost grows with the number of contending
 * cores. Processes simulate their work lazily, so an operation may be booked at a process's
 * local time, ahead of the engine's clock: bookings are kept in time order, and an operation
 * takes the first gap at or after its own time, as it would in real time, instead of queueing
 * behind operations that happen later. Reads follow MESI: a core that read the line since its last write reads it
 * from its own cache, and the next write must take it back from the readers. Everything is
 * computed in O(1) at the operation's time, without simcalls: the operating process stalls for
 * the result.
 */
#pragma once

#include <cstdint>
#include <vector>

namespace sim {

class Proc;

class CacheLine {
public:
  /// An atomic operation by proc at its local time, followed by `hold` seconds of work while the
  /// line stays with it (the critical section of a spinlock; 0 for a plain atomic). The process
  /// stalls until done. Returns the time spent waiting for other cores' operations.
  double rmw(Proc& proc, double hold = 0);
  /// A plain read: free if this core still holds the line, else a transfer that leaves a shared
  /// copy here.
  /// A load; misses that the core overlaps with others (a loop of independent loads) cost
  /// 1/overlap of a transfer each.
  void read(Proc& proc, double overlap = 1);
  /// Operations asked for at or before t and not done by t.
  std::size_t contenders(double t) const;

private:
  struct Booking {
    double asked; // when the process asked for the line
    double start; // when it got it
    double done;
    int slot;
  };
  bool cached_here(int slot) const;
  void forget_done();

  int owner_   = -1; // slot of the last writer in time order
  int settled_ = -1; // slot of the last writer whose operation is done
  // Hardware threads that read the line since the last write (a bitset, allocated on the
  // first read by another core).
  std::vector<std::uint64_t> readers_;
  int a_reader_ = -1;    // one of them, to fetch the line from
  bool shared_  = false; // another core read it since the last write
  // Bookings not yet done, in time order (they never overlap), from booked_[head_] on. A vector
  // with a moving head rather than a std::deque: a deque allocates over half a kilobyte on
  // construction, and every buffer page has lines that are never contended.
  std::vector<Booking> booked_;
  std::size_t head_ = 0;
};

} // namespace sim
