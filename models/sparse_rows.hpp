/* The touched rows of a large table, by row id: an open-addressing hash index (linear probing)
 * over rows kept in a deque.
 *
 * A table of millions of rows has a small share of them touched in a run, so a dense array would
 * be mostly empty. std::unordered_map, used before, costs a division and three dependent cache
 * misses per lookup (the bucket, the node before the wanted one, the node) and an allocation per
 * row; it was 2-3% of a 64-client run. Here a lookup is a multiplication and usually one slot, and
 * rows are allocated a few at a time. References to rows stay valid as more are added, as
 * std::unordered_map's do: the models keep them across waits.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace pg {

template <class Row>
class SparseRows {
public:
  /// The row with this id, or nullptr if it was never added.
  Row* find(std::uint32_t id) const
  {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(id);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.row == nullptr) return nullptr;
      if (s.id == id) return s.row;
    }
  }

  /// Adds a default-constructed row with this id, which find() does not know yet.
  Row& add(std::uint32_t id)
  {
    // At most 70% of the slots full keeps probe sequences short.
    if (10 * (rows_.size() + 1) > 7 * slots_.size()) grow();
    Row& row = rows_.emplace_back();
    place(id, &row);
    return row;
  }

private:
  struct Slot {
    Row* row         = nullptr; // nullptr: the slot is empty
    std::uint32_t id = 0;
  };

  // Fibonacci hashing: the multiplication spreads consecutive ids, the top bits pick the slot.
  std::size_t home(std::uint32_t id) const
  {
    return static_cast<std::size_t>((id * std::uint64_t{0x9E3779B97F4A7C15}) >> shift_);
  }

  void place(std::uint32_t id, Row* row)
  {
    std::size_t i = home(id);
    while (slots_[i].row != nullptr) i = (i + 1) & mask_;
    slots_[i] = Slot{row, id};
  }

  void grow()
  {
    const std::size_t size = slots_.empty() ? 1024 : 2 * slots_.size();
    std::vector<Slot> old(size);
    old.swap(slots_);
    mask_  = size - 1;
    shift_ = 64;
    for (std::size_t n = size; n > 1; n /= 2) shift_--;
    for (const Slot& s : old)
      if (s.row != nullptr) place(s.id, s.row);
  }

  std::deque<Row> rows_;
  std::vector<Slot> slots_; // a power of two of them
  std::size_t mask_ = 0;
  int shift_        = 64;
};

} // namespace pg
