/* Heap relations: page geometry of an initial load and lazily created pages and rows. */
#include "models/relation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pg {

namespace {
constexpr double kUsable = BLCKSZ - SizeOfPageHeaderData;

// splitmix64's finaliser: a row's history depends on its id and the seed alone, not on the order
// in which the run first touches rows.
std::uint64_t mix(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
} // namespace

Relation::Relation(std::string name, std::uint64_t nrows, int tuple_bytes, int fillfactor, bool logged,
                   sim::WaitEventId content_event, sim::WaitEventId extend_event, const sim::LWLockParams& lock_params)
    : name_(std::move(name)), nrows_(nrows), tuple_bytes_(tuple_bytes), fillfactor_(fillfactor), logged_(logged),
      content_event_(content_event), lock_params_(lock_params),
      extension_lock_(name_ + " extension", extend_event, lock_params)
{
  rows_per_page_ = loaded_rows_per_page(tuple_bytes, fillfactor);
  nblocks_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (nrows + rows_per_page_ - 1) / rows_per_page_));
  insert_target_ = nblocks_ - 1;
}

double Relation::save_free_space() const
{
  return BLCKSZ * (100 - fillfactor_) / 100.0;
}

double Relation::prune_minfree() const
{
  return std::max(save_free_space(), BLCKSZ / 10.0);
}

std::uint32_t Relation::home_block(std::uint32_t id) const
{
  if (spread_pages_ > 0) return static_cast<std::uint32_t>((id - 1ull) * spread_pages_ / nrows_);
  return (id - 1) / static_cast<std::uint32_t>(rows_per_page_);
}

std::uint64_t Relation::rows_on(std::uint32_t block) const
{
  if (spread_pages_ > 0) {
    // Rows i (0-based) with floor(i * P / N) == block: ceil((block + 1) N / P) - ceil(block N / P).
    const auto first_at = [this](std::uint64_t b) { return (b * nrows_ + spread_pages_ - 1) / spread_pages_; };
    return block >= spread_pages_ ? 0 : first_at(block + 1ull) - first_at(block);
  }
  const std::uint64_t first = static_cast<std::uint64_t>(block) * static_cast<std::uint64_t>(rows_per_page_);
  return first >= nrows_ ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(rows_per_page_), nrows_ - first);
}

double Relation::initial_free(std::uint32_t block) const
{
  const std::uint64_t rows = rows_on(block);
  const double free        = kUsable - static_cast<double>(rows) * (tuple_bytes_ + ItemIdSize);
  return rows == 0 ? free : free + spare_versions_ * (tuple_bytes_ + ItemIdSize);
}

void Relation::spread_over(std::uint32_t pages)
{
  if (pages < nblocks_ || pages > nrows_)
    throw std::invalid_argument(name_ + ": cannot spread " + std::to_string(nrows_) + " rows over " +
                                std::to_string(pages) + " pages");
  if (!pages_.empty() || !dense_rows_.empty()) throw std::logic_error(name_ + ": spread after first use");
  spread_pages_  = pages;
  nblocks_       = pages;
  insert_target_ = nblocks_ - 1;
}

HeapPage& Relation::page(std::uint32_t block)
{
  if (block >= pages_.size()) pages_.resize(std::max<std::size_t>(block + 1u, pages_.size() * 2));
  auto& slot = pages_[block];
  if (!slot) {
    slot             = std::make_unique<HeapPage>(name_, content_event_, lock_params_);
    slot->free_bytes = initial_free(block);
    slot->relnode    = relnode_;
    slot->block      = block;
  }
  return *slot;
}

const HeapPage* Relation::find_page(std::uint32_t block) const
{
  return block < pages_.size() ? pages_[block].get() : nullptr;
}

XLogRecPtr& Relation::index_leaf_lsn(std::uint32_t leaf)
{
  if (leaf >= index_leaf_lsn_.size())
    index_leaf_lsn_.resize(std::max<std::size_t>(leaf + 1u, index_leaf_lsn_.size() * 2), InvalidXLogRecPtr);
  return index_leaf_lsn_[leaf];
}

int& Relation::index_leaf_buffer(std::uint32_t leaf)
{
  if (leaf >= index_leaf_buffer_.size())
    index_leaf_buffer_.resize(std::max<std::size_t>(leaf + 1u, index_leaf_buffer_.size() * 2), -1);
  return index_leaf_buffer_[leaf];
}

HeapRow& Relation::row(std::uint32_t id)
{
  constexpr std::uint64_t kDenseRows = 4u << 20;
  HeapRow* r                         = nullptr;
  if (nrows_ <= kDenseRows) {
    if (id >= dense_rows_.size()) dense_rows_.resize(std::max<std::size_t>(id + 1u, dense_rows_.size() * 2));
    auto& slot = dense_rows_[id];
    if (slot) return *slot;
    slot = std::make_unique<HeapRow>();
    r    = slot.get();
  } else {
    if (HeapRow* known = sparse_rows_.find(id)) return *known;
    r = &sparse_rows_.add(id);
  }
  const TupleVersion v = loaded_version(id);
  r->versions.push_back(v);
  page(v.block).rows.push_back(id);
  return *r;
}

void Relation::set_history(TransactionId end, std::uint64_t transactions, double updates_per_transaction,
                           std::uint64_t seed)
{
  if (transactions == 0 || updates_per_transaction <= 0 || nrows_ == 0) return;
  history_.end           = end;
  history_.transactions  = transactions;
  history_.log_untouched = updates_per_transaction * std::log1p(-1.0 / static_cast<double>(nrows_));
  history_.seed          = seed;
}

// A row at its first use: as pgbench -i left it (one frozen version on its home page), or as the
// last of the earlier transactions to update it left it. Those were pruned away as HOT chains on
// the row's page, so one version remains there; its xmin is the updater's, unhinted, and its xmax
// invalid (heap_update's new tuple). The updater's age k, in transactions before `end`, has
// P(K > k) = q^k for q the chance that one transaction leaves the row alone; one uniform draw
// u gives k = ceil(log(1 - u) / log q), and a row no earlier transaction touched when k > n.
TupleVersion Relation::loaded_version(std::uint32_t id) const
{
  TupleVersion v;
  v.block = home_block(id);
  if (history_.transactions == 0) return v;
  const double u = static_cast<double>(mix(history_.seed ^ mix(id)) >> 11) * 0x1.0p-53;
  const double k = std::ceil(std::log1p(-u) / history_.log_untouched);
  if (!(k <= static_cast<double>(history_.transactions))) return v;
  v.xmin     = history_.end - static_cast<TransactionId>(std::max(1.0, k));
  v.infomask = HEAP_XMAX_INVALID;
  return v;
}

std::uint32_t Relation::target_block(double len, bool* extended)
{
  *extended = false;
  if (page(insert_target_).free_bytes - len - ItemIdSize >= save_free_space()) return insert_target_;
  insert_target_                  = nblocks_++;
  page(insert_target_).free_bytes = kUsable;
  stats_.extensions++;
  *extended = true;
  return insert_target_;
}

} // namespace pg

namespace pg {

sim::LWLockStats Relation::content_lock_stats() const
{
  sim::LWLockStats sum;
  for (const auto& p : pages_)
    if (p) sum.add(p->content_lock.stats());
  return sum;
}

void Relation::reset_content_lock_stats()
{
  for (auto& p : pages_)
    if (p) p->content_lock.stats() = sim::LWLockStats();
}

} // namespace pg
