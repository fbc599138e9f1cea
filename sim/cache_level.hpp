/* One level of cache that processes' footprints compete for, in each of its domains: a core's
 * private cache, the last-level cache a socket's cores share (footprints: working sets in bytes),
 * or the address translations a socket keeps (footprints: pages).
 *
 * A process that comes back to a domain finds there what survived of its footprint since it last
 * came: the others that came meanwhile pushed their footprints through, and a random replacement
 * keeps each of its units with probability exp(-pushed / size); a least-recently-used one keeps
 * them while the others' footprints and its own fit in the size. After running elsewhere, nothing
 * survived. The address spaces a hypervisor keeps ready for a virtual CPU are such a level, with a
 * footprint of one per process and least-recently-used replacement.
 */
#pragma once

#include <list>
#include <vector>

namespace sim {

class Proc;

/// Where a process's working set last was at one level, and its place in that domain's history.
struct CacheResidence {
  int domain = -1;
  std::list<const Proc*>::iterator pos;
};

enum class Footprint { WorkingSet, TranslationSet, AddressSpace };
enum class Replacement { Random, LeastRecentlyUsed };

class CacheLevel {
public:
  CacheLevel(double size, int domains, Footprint footprint, Replacement replacement = Replacement::Random);
  bool enabled() const { return size_ > 0; }
  /// The fraction of proc's footprint lost from `domain` since it last came there; records that it
  /// comes there now.
  double lost_fraction(const Proc& proc, CacheResidence& where, int domain);

private:
  double size_;
  Footprint footprint_;
  Replacement replacement_;
  std::vector<std::list<const Proc*>> recent_; // by domain, most recent first
};

} // namespace sim
