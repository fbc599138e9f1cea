/* A cache level's domains and what survives in them: see cache_level.hpp. */
#include "sim/cache_level.hpp"

#include "sim/proc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sim {

CacheLevel::CacheLevel(double size, int domains, Footprint footprint, Replacement replacement)
    : size_(size), footprint_(footprint), replacement_(replacement), recent_(static_cast<std::size_t>(domains))
{
}

double CacheLevel::lost_fraction(const Proc& proc, CacheResidence& where, int domain)
{
  auto& here    = recent_[static_cast<std::size_t>(domain)];
  double pushed = 0;
  if (where.domain == domain) {
    // Beyond a few cache sizes nothing survives: no need to look further back.
    const double enough = 8 * size_;
    for (auto it = here.begin(); it != where.pos && pushed < enough; ++it) pushed += (*it)->footprint(footprint_);
    here.erase(where.pos);
  } else {
    if (where.domain >= 0) recent_[static_cast<std::size_t>(where.domain)].erase(where.pos);
    pushed = std::numeric_limits<double>::infinity();
  }
  here.push_front(&proc);
  where.domain = domain;
  where.pos    = here.begin();
  if (replacement_ == Replacement::Random) return -std::expm1(-pushed / size_);
  const double own = proc.footprint(footprint_);
  return own <= 0 ? 0 : 1 - std::clamp((size_ - pushed) / own, 0.0, 1.0);
}

} // namespace sim
