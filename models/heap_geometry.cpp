/* See heap_geometry.hpp. */
#include "models/heap_geometry.hpp"

#include <algorithm>
#include <cmath>

namespace pg {

namespace {
int maxalign(int n)
{
  return (n + 7) & ~7;
}
} // namespace

int heap_tuple_bytes(int data_bytes, bool has_nulls)
{
  // t_hoff is the MAXALIGNed header, with a null bitmap byte when a column is null.
  const int hoff = maxalign(SizeofHeapTupleHeader + (has_nulls ? 1 : 0));
  return maxalign(hoff + data_bytes);
}

int loaded_rows_per_page(int tuple_bytes, int fillfactor)
{
  // RelationGetBufferForTuple keeps adding tuples while the page keeps its fillfactor reserve.
  const double usable    = BLCKSZ - SizeOfPageHeaderData;
  const double per_tuple = tuple_bytes + ItemIdSize;
  const double room      = usable - ItemIdSize - tuple_bytes - BLCKSZ * (100 - fillfactor) / 100.0;
  return std::max(1, static_cast<int>(std::floor(room / per_tuple)) + 1);
}

} // namespace pg
