/* The geometry of heap pages and tuples (bufpage.h, htup_details.h, heaptuple.c): what a page
 * holds. Free of the simulation, so that the scenario readers can use it. */
#pragma once

#include "models/types.hpp"

namespace pg {

constexpr int SizeOfPageHeaderData  = 24;
constexpr int SizeofHeapTupleHeader = 23;
constexpr int ItemIdSize            = 4;

/// The on-page size of a tuple of `data_bytes` user data (MAXALIGN of header plus data).
int heap_tuple_bytes(int data_bytes, bool has_nulls);
/// Rows per heap page as pgbench -i loads a table (heap_insert up to the fillfactor).
int loaded_rows_per_page(int tuple_bytes, int fillfactor);

} // namespace pg
