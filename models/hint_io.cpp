/* Hint-bit I/O policies. See hint_io.hpp. */
#include "models/hint_io.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pg {

namespace {
// Credit is a sum of fractions: without a little slack, twenty allocations at 5% could fall a
// rounding error short of one write.
constexpr double kSlack = 1e-9;
} // namespace

LimitHintBitWrites::LimitHintBitWrites(double limit) : limit_(limit)
{
  if (!(limit >= 0 && limit <= 1))
    throw std::invalid_argument("hint_bit_io_limit: expected a share in [0, 1], got " + std::to_string(limit));
}

void LimitHintBitWrites::on_buffer_alloc()
{
  credit_ = std::min(1.0, credit_ + limit_);
}

bool LimitHintBitWrites::write_hint_dirty_buffer()
{
  if (credit_ + kSlack < 1.0) return false;
  credit_ = std::max(0.0, credit_ - 1.0);
  return true;
}

std::unique_ptr<HintBitIoPolicy> make_hint_bit_io_policy(HintBitIo policy, double limit)
{
  if (policy == HintBitIo::Limited) return std::make_unique<LimitHintBitWrites>(limit);
  return std::make_unique<WriteAllDirtyBuffers>();
}

} // namespace pg
