/* The on-page size of a table's tuples, derived from its column types as heap_form_tuple lays
 * them out (src/backend/access/common/heaptuple.c, heap_compute_data_size; tupmacs.h att_align):
 * fixed-width columns aligned to their type's alignment, text values under 127 bytes stored with
 * a one-byte varlena header and no alignment, the tuple MAXALIGNed behind its 23-byte header.
 *
 * A text column built from random()::text gets the length float8out gives a random double:
 * with extra_float_digits <= 0 (the default before PostgreSQL 12) "%.*g" with 15 +
 * extra_float_digits significant digits; above 0 (the default since 12) the shortest text that
 * reads back exactly. Lengths vary from row to row, so the layout averages the tuple size over a
 * fixed sample of values (deterministic, independent of the run's seed).
 */
#pragma once

#include "models/scan_scenario.hpp"

#include <cstdint>

namespace pg {

struct TupleLayout {
  double data_bytes     = 0; // mean user data per tuple, alignment padding included
  int tuple_bytes       = 0; // mean MAXALIGNed heap tuple, header included, rounded to a byte
  int rows_per_page     = 0; // tuples an initial load puts on a page at the table's fillfactor
  std::uint32_t nblocks = 0;
  double table_bytes() const { return static_cast<double>(nblocks) * 8192.0; }
};

TupleLayout heap_layout(const TableSpec& table, int extra_float_digits);

/// Length of float8out's text for value.
int float8out_length(double value, int extra_float_digits);

} // namespace pg
