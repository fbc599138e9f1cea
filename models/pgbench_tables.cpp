/* See pgbench_tables.hpp. */
#include "models/pgbench_tables.hpp"

#include "models/heap_geometry.hpp"

namespace pg {

namespace {
constexpr int Int4 = 4;
}

// The filler columns of branches, tellers and history are left NULL by pgbench -i (a null
// bitmap, no data); pgbench_accounts.filler is char(84), stored as 84 blank-padded bytes behind a
// one-byte varlena header.
int branches_tuple_bytes()
{
  return heap_tuple_bytes(Int4 + Int4, true); // bid, bbalance
}

int tellers_tuple_bytes()
{
  return heap_tuple_bytes(Int4 + Int4 + Int4, true); // tid, bid, tbalance
}

int accounts_tuple_bytes()
{
  return heap_tuple_bytes(Int4 + Int4 + Int4 + 1 + 84, false); // aid, bid, abalance, filler
}

int history_tuple_bytes()
{
  return heap_tuple_bytes(4 * Int4 + 8, true); // tid, bid, aid, delta, mtime timestamp
}

} // namespace pg
