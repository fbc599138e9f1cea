/* Hint-bit I/O: whether a buffer dirtied only by hint bits is written out when it is evicted.
 *
 * Every released PostgreSQL writes out every dirty buffer it evicts (bufmgr.c, BufferAlloc ->
 * FlushBuffer), so the first scan of a freshly loaded table, which sets a hint bit on every tuple,
 * writes the whole table back ("unlimited"). The patch of the pgsql-hackers thread "limiting hint
 * bit I/O" (Robert Haas, January-February 2011; never committed) marks a buffer dirtied only by
 * hint bits as such and writes such buffers at a bounded rate: the others are evicted without
 * being written, their hint bits lost, to be set again by the next scan that reads the page;
 * VACUUM still dirties the pages it changes for real (MarkBufferDirty), and those are always
 * written ("limited").
 *
 * How this model bounds the rate: a backend earns `limit` of a hint-only write with each buffer
 * it allocates and may bank at most one, so while unhinted pages last a scan writes about `limit`
 * of the pages it reads, and the table's hint bits reach disk over about 1 / limit scans.
 * The thread's exact accounting is not reproduced here (see scenarios/hint-bit-io-2011.json).
 */
#pragma once

#include "models/scan_scenario.hpp"

#include <memory>
#include <string>

namespace pg {

/// One backend's hint-bit write policy (its budget is backend-local, as the patch's was).
class HintBitIoPolicy {
public:
  virtual ~HintBitIoPolicy() = default;
  /// BufferAlloc took a buffer for a new page.
  virtual void on_buffer_alloc() {}
  /// The victim buffer is dirty only by hint bits: write it (true) or drop its changes (false)?
  virtual bool write_hint_dirty_buffer() = 0;
  virtual std::string name() const       = 0;
};

class WriteAllDirtyBuffers final : public HintBitIoPolicy {
public:
  bool write_hint_dirty_buffer() override { return true; }
  std::string name() const override { return "unlimited"; }
};

class LimitHintBitWrites final : public HintBitIoPolicy {
public:
  /// limit: hint-only writes allowed per buffer allocation, in [0, 1].
  explicit LimitHintBitWrites(double limit);
  void on_buffer_alloc() override;
  bool write_hint_dirty_buffer() override;
  std::string name() const override { return "limited"; }
  double credit() const { return credit_; }

private:
  double limit_;
  double credit_ = 0;
};

std::unique_ptr<HintBitIoPolicy> make_hint_bit_io_policy(HintBitIo policy, double limit);

} // namespace pg
