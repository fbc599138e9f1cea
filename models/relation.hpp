/* A heap relation as the models see it: pages with their free space, LSN, pins and content lock,
 * and rows with their chain of tuple versions (oldest first), each version carrying xmin, xmax and
 * the hint bits of its t_infomask (htup_details.h). Untouched rows are implicit: one frozen
 * version on their home page, as pgbench -i leaves them. Pages and rows are created on first use.
 */
#pragma once

#include "models/heap_geometry.hpp"
#include "models/lmgr.hpp"
#include "models/sparse_rows.hpp"
#include "models/types.hpp"
#include "sim/cacheline.hpp"
#include "sim/lwlock.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pg {

// t_infomask hint bits (htup_details.h).
constexpr std::uint8_t HEAP_XMIN_COMMITTED = 0x01;
constexpr std::uint8_t HEAP_XMIN_INVALID   = 0x02;
constexpr std::uint8_t HEAP_XMAX_COMMITTED = 0x04;
constexpr std::uint8_t HEAP_XMAX_INVALID   = 0x08;
constexpr std::uint8_t HEAP_XMIN_FROZEN    = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID;
// xmax only locks the tuple (heap_lock_tuple, or heap_update while it looks for another page):
// the tuple is not deleted, but other updaters must wait for the locker.
constexpr std::uint8_t HEAP_XMAX_LOCK_ONLY = 0x10;

// B-tree leaf pages of an int4 primary key at the default leaf fillfactor of 90.
constexpr std::uint32_t IndexEntriesPerLeaf = 366;

struct TupleVersion {
  TransactionId xmin    = FrozenTransactionId;
  TransactionId xmax    = InvalidTransactionId;
  std::uint32_t block   = 0;
  std::uint8_t infomask = HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID;
  bool pruned           = false; // removed by pruning: its line pointer redirects past it
};

/// One logical row. Its versions are numbered from the row's creation on ("seq"), so that
/// removing pruned versions from the front does not renumber the others.
struct HeapRow {
  std::vector<TupleVersion> versions; // oldest first; the last one is the newest
  std::uint32_t first_seq = 0;        // sequence number of versions.front()
  /// Index entries leading below this version are marked dead (kill_prior_tuple): index scans
  /// skip the chains they led to.
  std::uint32_t killed_before = 0;
  TupleLock tuple_lock;
};

struct HeapPage {
  HeapPage(const std::string& lock_name, sim::WaitEventId event, const sim::LWLockParams& params)
      : content_lock(lock_name, event, params)
  {
  }
  double free_bytes       = 0;                    // PageGetHeapFreeSpace
  XLogRecPtr lsn          = InvalidXLogRecPtr;    // PageGetLSN
  TransactionId prune_xid = InvalidTransactionId; // pd_prune_xid
  int pins                = 0;
  bool dirty              = false;
  std::vector<std::uint32_t> rows; // rows with a version on this page, for pruning
  std::uint32_t relnode = 0;       // the relation and block this page is (its BufferTag)
  std::uint32_t block   = 0;
  int buffer            = -1; // its shared buffer, numbered in the order pages are first pinned
  sim::LWLock content_lock;   // the buffer's content lock
  sim::CacheLine header;      // the buffer header's state word (pins, flags)
};

/// Counts per relation, for reports.
struct RelationStats {
  std::uint64_t hot_updates      = 0;
  std::uint64_t cold_updates     = 0; // updates that had to move the row to another page
  std::uint64_t inserts          = 0;
  std::uint64_t prunes           = 0; // heap_page_prune calls that removed something
  std::uint64_t pruned_tuples    = 0;
  std::uint64_t prune_skipped    = 0; // prunable page, but no cleanup lock
  std::uint64_t tuple_locks      = 0; // heap_lock_tuple before an EvalPlanQual recheck
  std::uint64_t versions_visited = 0;
  std::uint64_t extensions       = 0;
  void reset() { *this = RelationStats(); }
};

class Relation {
public:
  /// A table of nrows rows of tuple_bytes each (MAXALIGNed heap tuple, header included), filled
  /// to fillfactor percent as an initial load leaves it.
  Relation(std::string name, std::uint64_t nrows, int tuple_bytes, int fillfactor, bool logged,
           sim::WaitEventId content_event, sim::WaitEventId extend_event, const sim::LWLockParams& lock_params);
  /// Earlier runs pruned every page: each has room for `versions` more tuple versions.
  void set_spare_versions(int versions) { spare_versions_ = versions; }
  /// `transactions` earlier transactions, with the xids just before `end`, each updated
  /// `updates_per_transaction` rows of this table picked at random (as pgbench picks them): a row's
  /// first use finds the version its last updater left, its xmin not yet hinted.
  void set_history(TransactionId end, std::uint64_t transactions, double updates_per_transaction, std::uint64_t seed);

  const std::string& name() const { return name_; }
  /// The relfilenode shared_buffers knows this relation's pages by (0 until registered); its
  /// primary key's leaf pages go by relnode() + 1.
  std::uint32_t relnode() const { return relnode_; }
  void set_relnode(std::uint32_t relnode) { relnode_ = relnode; }
  bool permanent() const { return logged_; }
  int tuple_bytes() const { return tuple_bytes_; }
  int rows_per_page() const { return rows_per_page_; }
  /// Puts the rows on `pages` heap pages, evenly, instead of as pgbench -i packs them: the state
  /// earlier runs leave a small, hot table in, once non-HOT updates (made when a full page could
  /// not be pruned) have moved its rows to pages of their own. Fewer rows per page make longer HOT
  /// chains between two prunings of a page, and every index scan of a row walks its chain.
  void spread_over(std::uint32_t pages);
  std::uint32_t nblocks() const { return nblocks_; }
  /// The free space heap_page_prune_opt wants: Max(fillfactor target, BLCKSZ / 10).
  double prune_minfree() const;
  /// RelationGetTargetPageFreeSpace: space inserts leave free (fillfactor).
  double save_free_space() const;

  HeapRow& row(std::uint32_t id); // 1-based, as pgbench numbers them
  HeapPage& page(std::uint32_t block);
  /// The page if it was ever used, else nullptr (an untouched page is as pgbench -i left it).
  const HeapPage* find_page(std::uint32_t block) const;
  /// RelationGetBufferForTuple: a page with room for len bytes, extending the relation if
  /// needed; *extended says whether a new page was added.
  std::uint32_t target_block(double len, bool* extended);

  RelationStats& stats() { return stats_; }
  /// LWLOCK_STATS of the content locks of this relation's buffers, summed.
  sim::LWLockStats content_lock_stats() const;
  void reset_content_lock_stats();
  /// LSNs of the primary key's leaf pages that received an entry (for their full-page images).
  XLogRecPtr& index_leaf_lsn(std::uint32_t leaf);
  /// The shared buffer a leaf page of the primary key was first read into (-1 before that).
  int& index_leaf_buffer(std::uint32_t leaf);
  /// Leaf pages of the primary key over the rows of the initial load (pgbench's keys 1..nrows).
  std::uint32_t index_leaves() const { return static_cast<std::uint32_t>(nrows_ / IndexEntriesPerLeaf + 1); }
  sim::LWLock& extension_lock() { return extension_lock_; }

private:
  std::uint32_t home_block(std::uint32_t id) const;
  TupleVersion loaded_version(std::uint32_t id) const;
  std::uint64_t rows_on(std::uint32_t block) const; // at the start, before any update
  double initial_free(std::uint32_t block) const;

  std::string name_;
  std::uint64_t nrows_;
  int tuple_bytes_;
  int fillfactor_;
  bool logged_;
  int rows_per_page_;
  std::uint32_t nblocks_;
  std::uint32_t spread_pages_ = 0; // 0: as loaded
  std::uint32_t insert_target_;
  std::uint32_t relnode_ = 0;
  int spare_versions_    = 0;
  struct History {
    TransactionId end          = InvalidTransactionId;
    std::uint64_t transactions = 0;
    double log_untouched       = 0; // log of the chance that one transaction leaves a given row alone
    std::uint64_t seed         = 0;
  } history_;
  sim::WaitEventId content_event_;
  sim::LWLockParams lock_params_;
  // Rows of small tables are found by index; a large table's rows, few of them ever touched in a
  // run, by hash.
  std::vector<std::unique_ptr<HeapRow>> dense_rows_;
  SparseRows<HeapRow> sparse_rows_;
  std::vector<std::unique_ptr<HeapPage>> pages_;
  std::vector<XLogRecPtr> index_leaf_lsn_;
  std::vector<int> index_leaf_buffer_;
  sim::LWLock extension_lock_;
  RelationStats stats_;
};

} // namespace pg
