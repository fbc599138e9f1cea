/* Heap relations' page geometry: rows as pgbench -i packs them, and spread by earlier runs
 * (pgbench.heap_pages). */
#include "models/relation.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>

namespace {

pg::Relation tellers(std::uint64_t rows)
{
  return pg::Relation("pgbench_tellers", rows, pg::heap_tuple_bytes(12, true), 100, true, 1, 2, sim::LWLockParams());
}

/// How many rows have each home page, touching every row once.
std::map<std::uint32_t, int> rows_per_block(pg::Relation& rel, std::uint32_t rows)
{
  std::map<std::uint32_t, int> count;
  for (std::uint32_t id = 1; id <= rows; id++) count[rel.row(id).versions.front().block]++;
  return count;
}

} // namespace

TEST_CASE("Relation: pgbench -i packs rows up to the fillfactor, and spread_over puts them evenly on more pages",
          "[relation]")
{
  pg::Relation packed = tellers(400);
  const int per_page  = packed.rows_per_page();
  REQUIRE(per_page == pg::loaded_rows_per_page(pg::heap_tuple_bytes(12, true), 100));
  CHECK(per_page > 100); // 48-byte tuples: about 150 to a page
  const auto packed_rows = rows_per_block(packed, 400);
  CHECK(packed_rows.size() == packed.nblocks());
  CHECK(packed_rows.at(0) == per_page);

  pg::Relation spread = tellers(400);
  spread.spread_over(23);
  CHECK(spread.nblocks() == 23);
  const auto spread_rows = rows_per_block(spread, 400);
  REQUIRE(spread_rows.size() == 23);
  for (const auto& [block, n] : spread_rows) {
    INFO("block " << block);
    CHECK((n == 17 || n == 18)); // 400 / 23 = 17.4
  }
  // A page's free space at the start is what its own rows leave.
  const double per_tuple = spread.tuple_bytes() + pg::ItemIdSize;
  CHECK(spread.page(0).free_bytes - spread.page(1).free_bytes ==
        Approx(per_tuple * (spread_rows.at(1) - spread_rows.at(0))));
}

TEST_CASE("Relation: spread_over refuses fewer pages than loaded, more pages than rows, or a table in use",
          "[relation]")
{
  pg::Relation rel = tellers(400);
  CHECK_THROWS_AS(rel.spread_over(rel.nblocks() - 1), std::invalid_argument);
  CHECK_THROWS_AS(rel.spread_over(401), std::invalid_argument);
  rel.row(1);
  CHECK_THROWS_AS(rel.spread_over(10), std::logic_error);
}

TEST_CASE("Relation: earlier transactions leave the rows they updated with their xid as xmin, unhinted", "[relation]")
{
  // 1,000 rows after 1,500 transactions of one update each: a row escapes all of them with
  // probability (1 - 1/1000)^1500, about 22%.
  constexpr std::uint32_t rows = 1000;
  const pg::TransactionId end  = 100000;
  auto history                 = [&](std::uint64_t seed) {
    pg::Relation rel = tellers(rows);
    rel.set_history(end, 1500, 1.0, seed);
    std::vector<pg::TupleVersion> first;
    for (std::uint32_t id = 1; id <= rows; id++) first.push_back(rel.row(id).versions.front());
    return first;
  };
  const auto a  = history(1);
  int untouched = 0, recent = 0;
  for (const pg::TupleVersion& v : a) {
    if (v.xmin == pg::FrozenTransactionId) {
      untouched++;
      CHECK(v.infomask == (pg::HEAP_XMIN_FROZEN | pg::HEAP_XMAX_INVALID));
      continue;
    }
    CHECK(v.xmin >= end - 1500);
    CHECK(v.xmin < end);
    CHECK(v.infomask == pg::HEAP_XMAX_INVALID); // xmin not hinted
    CHECK(v.xmax == pg::InvalidTransactionId);
    if (v.xmin >= end - 500) recent++;
  }
  CHECK(untouched > 170);
  CHECK(untouched < 270);
  // The last update is more likely recent: P(within 500) = (1 - 0.999^500) of all rows, about 39%.
  CHECK(recent > 340);
  CHECK(recent < 450);

  // The same seed gives the same rows, in whatever order they are first touched; another does not.
  pg::Relation backwards = tellers(rows);
  backwards.set_history(end, 1500, 1.0, 1);
  for (std::uint32_t id = rows; id >= 1; id--) CHECK(backwards.row(id).versions.front().xmin == a[id - 1].xmin);
  const auto b = history(2);
  int same     = 0;
  for (std::uint32_t i = 0; i < rows; i++) same += a[i].xmin == b[i].xmin ? 1 : 0;
  CHECK(same < 300);

  // No earlier transactions, or none that update this table: as pgbench -i left it.
  pg::Relation fresh = tellers(rows);
  fresh.set_history(end, 1500, 0.0, 1);
  CHECK(fresh.row(5).versions.front().xmin == pg::FrozenTransactionId);
}
