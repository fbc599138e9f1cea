/* Heap access as pgbench's statements exercise it, following PostgreSQL 15:
 * heapam_handler.c/heapam.c (heap_hot_search_buffer, heap_update with EvalPlanQual and row-lock
 * waits, heap_insert), pruneheap.c (heap_page_prune_opt), heapam_visibility.c
 * (HeapTupleSatisfiesMVCC, HeapTupleSatisfiesVacuum, SetHintBits) and the parts of bufmgr.c they
 * call (PinBuffer, LockBuffer, MarkBufferDirty, MarkBufferDirtyHint). */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"
#include "models/lmgr.hpp"
#include "models/procarray.hpp"
#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
#include "models/xlog.hpp"

#include <cstdint>
#include <string>

namespace pg {

/// Hint-bit counts: how often a hint could be set, and how often the flush rule refused it.
/// TM_Result (tableam.h), as far as pgbench's updates meet it.
enum class TM_Result {
  Ok,            // the version may be updated or locked
  BeingModified, // a running transaction updated or locked it: wait for it
  Updated,       // a committed transaction updated it: follow the update chain
};

class SharedBuffers;

struct HintStats {
  std::uint64_t set          = 0;
  std::uint64_t refused      = 0;
  std::uint64_t dirtied_page = 0; // MarkBufferDirtyHint found the page clean
  void reset() { *this = HintStats(); }
};

class Heapam {
public:
  Heapam(const Scenario& scenario, const WaitEvents& events, Xlog& xlog, Clog& clog, ProcArray& procarray,
         LockManager& locks);

  /// An index lookup of row rowid and the HOT chain walk to the version visible to
  /// me.snapshot; returns its sequence number in the row (or -1 if none is visible). With
  /// scan_pin, the scan keeps its pin on the visible version's page and says which page that is
  /// (nullptr if none): the caller releases it when the statement is done with the row.
  std::int64_t index_fetch(Backend& me, Relation& rel, std::uint32_t rowid, HeapPage** scan_pin = nullptr);
  /// UPDATE of row rowid through its primary key (ExecUpdate / heap_update).
  void update(Backend& me, Relation& rel, std::uint32_t rowid);
  /// INSERT of one tuple of the relation's size (heap_insert), plus its index entries.
  void insert(Backend& me, Relation& rel, int indexes);

  HintStats& hint_stats() { return hint_stats_; }
  /// Pages go through shared_buffers' residency once the tables outgrow it (server wiring).
  void set_shared_buffers(SharedBuffers* buffers) { buffers_ = buffers; }

  // heapam_visibility.c
  bool HeapTupleSatisfiesMVCC(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq);
  /// HeapTupleSatisfiesUpdate: may me update or lock version seq now?
  TM_Result HeapTupleSatisfiesUpdate(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq);
  /// HeapTupleSatisfiesVacuum: the version is dead to every snapshot (removable by pruning).
  bool HeapTupleIsRemovable(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq);
  void SetHintBits(Backend& me, Relation& rel, HeapPage& page, TupleVersion& tuple, std::uint8_t infomask,
                   TransactionId xid);

  // pruneheap.c
  void heap_page_prune_opt(Backend& me, Relation& rel, std::uint32_t block);

private:
  bool XidMayBeRunning(Backend& me, TransactionId xid);

  // bufmgr.c
  void PinBuffer(Backend& me, HeapPage& page);
  void UnpinBuffer(Backend& me, HeapPage& page);
  void visit_leaf(Backend& me, Relation& rel, std::uint32_t leaf);
  /// ReadBuffer and ReleaseBuffer of a page this backend may already hold pinned (held, the
  /// index scan's page): a second pin only counts in the backend's private reference count.
  void ReadBuffer(Backend& me, HeapPage& page, const HeapPage* held);
  void ReleaseBuffer(Backend& me, HeapPage& page, const HeapPage* held);
  void MarkBufferDirty(HeapPage& page) { page.dirty = true; }
  void MarkBufferDirtyHint(Backend& me, Relation& rel, HeapPage& page);
  XLogRecPtr BufferGetLSNAtomic(Backend& me, HeapPage& page);
  /// Inserts a WAL record about `pages` (one or two) of rel, adding a full-page image of each
  /// page whose LSN is not past the last checkpoint's redo pointer; sets their LSN.
  XLogRecPtr log_heap_change(Backend& me, double main_bytes, HeapPage* p1, HeapPage* p2 = nullptr);
  XLogRecPtr log_index_insert(Backend& me, Relation& rel, std::uint32_t key);
  bool needs_image(const HeapPage& page) const;

  bool heap_page_prune(Backend& me, Relation& rel, HeapPage& page, std::uint32_t block);
  std::int64_t heap_hot_search_buffer(Backend& me, Relation& rel, HeapRow& row, std::uint32_t block, std::uint32_t* seq,
                                      bool* all_dead, bool keep_pin);
  std::uint32_t target_page(Backend& me, Relation& rel, double need);
  bool heap_update(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq, const HeapPage* scan_page);
  bool place_new_version(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq, HeapPage& page,
                         std::uint32_t block, const HeapPage* scan_page);
  std::uint32_t heap_lock_tuple(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq,
                                const HeapPage* scan_page);
  void lock_version(Backend& me, Relation& rel, HeapRow& row, std::uint32_t seq, HeapPage& page);
  void wait_for_xmax(Backend& me, HeapRow& row, TransactionId xmax, bool* have_tuple_lock);

  const Scenario& scenario_;
  const Costs& costs_;
  const WaitEvents& ev_;
  Xlog& xlog_;
  Clog& clog_;
  ProcArray& procarray_;
  LockManager& locks_;
  HintStats hint_stats_;
  SharedBuffers* buffers_ = nullptr;
  int next_buffer_        = 0; // buffers handed out so far, to heap pages and index leaves
};

inline std::uint32_t newest_seq(const HeapRow& row)
{
  return row.first_seq + static_cast<std::uint32_t>(row.versions.size()) - 1;
}

/// Throws: the version asked for was pruned away, or never existed.
[[noreturn]] void version_gone(const HeapRow& row, std::uint32_t seq);

/// The version with sequence number seq (versions are numbered from the row's creation on, so
/// pruning the head of the chain does not renumber the others). Inline: chain walks and pruning
/// call it for every version they pass.
inline TupleVersion& version_at(HeapRow& row, std::uint32_t seq)
{
  if (seq < row.first_seq || seq - row.first_seq >= row.versions.size()) version_gone(row, seq);
  return row.versions[seq - row.first_seq];
}

} // namespace pg
