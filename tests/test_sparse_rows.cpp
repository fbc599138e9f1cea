/* Tests of pg::SparseRows, the index of a large table's touched rows: lookups after the index
 * grows, absent ids, and rows that stay where they are (the models keep references to them). */
#include "models/sparse_rows.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace {

struct Row {
  std::uint32_t id = 0;
};

} // namespace

TEST_CASE("SparseRows finds every row added, across growth, and nothing else", "[relation]")
{
  pg::SparseRows<Row> rows;
  CHECK(rows.find(1) == nullptr);
  std::vector<Row*> added;
  // Ids spread like a large table's random accesses, and consecutive ones, past several growths.
  for (std::uint32_t k = 0; k < 20000; k++) {
    const std::uint32_t id = k % 2 == 0 ? k * 7919u : 4000000000u - k;
    Row& row               = rows.add(id);
    row.id                 = id;
    added.push_back(&row);
  }
  for (std::uint32_t k = 0; k < 20000; k++) {
    const std::uint32_t id = k % 2 == 0 ? k * 7919u : 4000000000u - k;
    REQUIRE(rows.find(id) == added[k]); // the same object: references survive growth
    CHECK(rows.find(id)->id == id);
  }
  CHECK(rows.find(3) == nullptr);
  CHECK(rows.find(7919u * 3) == nullptr);
  CHECK(rows.find(4000000000u) == nullptr);
}

TEST_CASE("SparseRows takes id 0 like any other", "[relation]")
{
  pg::SparseRows<Row> rows;
  Row& zero = rows.add(0);
  CHECK(rows.find(0) == &zero);
  CHECK(rows.find(1) == nullptr);
}
