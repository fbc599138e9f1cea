/* Tuple sizes from column types (heaptuple.c). See tuple_layout.hpp. */
#include "models/tuple_layout.hpp"

#include "models/relation.hpp"
#include "sim/rng.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pg {

namespace {

constexpr int kSampleRows      = 4096;
constexpr int kMaxShortVarlena = 127; // VARATT_SHORT_MAX: header and data in one byte's count
constexpr double kUsable       = BLCKSZ - SizeOfPageHeaderData;

int align(int offset, int alignment)
{
  return (offset + alignment - 1) / alignment * alignment;
}

std::string format_g(double value, int digits)
{
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

/// One text value of column c for one row, drawing random() values from rng.
int text_length(const ColumnSpec& c, int extra_float_digits, sim::Rng& rng)
{
  if (c.value == "fixed") return c.length * c.repeat;
  int length = 0;
  for (int i = 0; i < c.repeat; i++) length += float8out_length(rng.uniform(), extra_float_digits);
  return length;
}

/// heap_compute_data_size for one row.
int row_data_bytes(const TableSpec& table, int extra_float_digits, sim::Rng& rng)
{
  int offset = 0;
  for (const ColumnSpec& c : table.columns) {
    if (c.type == "int4") {
      offset = align(offset, 4) + 4;
    } else if (c.type == "int8" || c.type == "float8") {
      offset = align(offset, 8) + 8;
    } else {
      const int len = text_length(c, extra_float_digits, rng);
      // A short varlena is stored unaligned behind a one-byte header; a longer one is aligned
      // like an int (text's typalign) behind a four-byte header.
      offset = len + 1 <= kMaxShortVarlena ? offset + 1 + len : align(offset, 4) + 4 + len;
    }
  }
  return offset;
}

} // namespace

int float8out_length(double value, int extra_float_digits)
{
  if (extra_float_digits <= 0) return static_cast<int>(format_g(value, 15 + extra_float_digits).size());
  for (int digits = 1; digits < 17; digits++) {
    const std::string text = format_g(value, digits);
    if (std::strtod(text.c_str(), nullptr) == value) return static_cast<int>(text.size());
  }
  return static_cast<int>(format_g(value, 17).size());
}

TupleLayout heap_layout(const TableSpec& table, int extra_float_digits)
{
  sim::Rng rng(0, "heap_layout random()");
  double data  = 0;
  double tuple = 0;
  for (int row = 0; row < kSampleRows; row++) {
    const int bytes = row_data_bytes(table, extra_float_digits, rng);
    data += bytes;
    tuple += heap_tuple_bytes(bytes, false);
  }
  TupleLayout l;
  l.data_bytes  = data / kSampleRows;
  l.tuple_bytes = static_cast<int>(std::lround(tuple / kSampleRows));
  // RelationGetBufferForTuple keeps adding tuples while the page keeps its fillfactor reserve.
  const double reserve = BLCKSZ * (100 - table.fillfactor) / 100.0;
  const double room    = kUsable - ItemIdSize - l.tuple_bytes - reserve;
  l.rows_per_page      = std::max(1, static_cast<int>(std::floor(room / (l.tuple_bytes + ItemIdSize))) + 1);
  l.nblocks            = static_cast<std::uint32_t>((table.rows + static_cast<std::uint64_t>(l.rows_per_page) - 1) /
                                         static_cast<std::uint64_t>(l.rows_per_page));
  return l;
}

} // namespace pg
