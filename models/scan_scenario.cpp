/* Reading the seqscan keys of a scenario. See scan_scenario.hpp. */
#include "models/scan_scenario.hpp"

namespace pg {

using sim::config::Object;

namespace {

constexpr double MB = 1024.0 * 1024;
constexpr double TB = 1024.0 * 1024 * MB;

ColumnSpec read_column(Object o)
{
  ColumnSpec c;
  c.name = o.string("name", std::nullopt);
  c.type = o.choice("type", std::nullopt, {"int4", "int8", "float8", "text"});
  if (c.type != "text") return c;
  c.value  = o.choice("value", std::nullopt, {"random()::text", "fixed"});
  c.repeat = static_cast<int>(o.integer("repeat", 1, 1, 1000));
  if (c.value == "fixed") c.length = static_cast<int>(o.integer("length", std::nullopt, 0, 1 << 20));
  return c;
}

TableSpec read_table(Object o)
{
  TableSpec t;
  t.name       = o.string("name", "s");
  t.rows       = static_cast<std::uint64_t>(o.integer("rows", std::nullopt, 1, 4000000000LL));
  t.fillfactor = static_cast<int>(o.integer("fillfactor", 100, 10, 100));
  for (Object column : o.objects("columns")) t.columns.push_back(read_column(column));
  if (t.columns.empty()) o.fail("columns", "expected at least one column");
  return t;
}

ScanCosts read_scan_costs(Object o)
{
  auto ns = [&o](const std::string& key) { return o.duration(key, std::nullopt, 0, 1e-2) * 1e9; };
  ScanCosts c{};
  c.seqscan_tuple        = ns("seqscan_tuple");
  c.heapgetpage          = ns("heapgetpage");
  c.visibility_unhinted  = ns("visibility_unhinted");
  c.buffer_lookup        = ns("buffer_lookup");
  c.buffer_alloc         = ns("buffer_alloc");
  c.flush_buffer         = ns("flush_buffer");
  c.forward_sync_request = ns("forward_sync_request");
  c.compact_per_request  = ns("compact_per_request");
  c.absorb_per_request   = ns("absorb_per_request");
  c.bgwriter_loop        = ns("bgwriter_loop");
  c.vacuum_page          = ns("vacuum_page");
  c.vacuum_tuple         = ns("vacuum_tuple");
  return c;
}

void read_series(Object o, ScanSpec& s)
{
  s.table        = read_table(o.object("table"));
  s.scans        = static_cast<int>(o.integer("scans", 1, 1, 100000));
  s.think_time   = o.duration("think_time", "1s", 0, 86400);
  s.vacuum_first = o.boolean("vacuum_first", false);
}

void read_scan_settings(Object o, ScanSpec& s)
{
  s.extra_float_digits       = static_cast<int>(o.integer("extra_float_digits", 1, -15, 3));
  s.bgwriter_delay           = o.duration("bgwriter_delay", "200ms", 0.01, 10);
  s.fsync_request_queue_size = static_cast<int>(o.integer("fsync_request_queue_size", -1, -1, 1 << 30));
  if (s.fsync_request_queue_size == 0)
    o.fail("fsync_request_queue_size", "expected -1 (NBuffers) or at least 1, got 0");
}

void read_scan_policies(Object o, ScanSpec& s)
{
  const bool limited = o.choice("hint_bit_io", "unlimited", {"unlimited", "limited"}) == "limited";
  s.hint_bit_io      = limited ? HintBitIo::Limited : HintBitIo::Unlimited;
  // The limit has no default: it is the policy's one parameter, and the scenario must say it.
  if (limited || o.has("hint_bit_io_limit")) s.hint_bit_io_limit = o.number("hint_bit_io_limit", std::nullopt, 0, 1);
  s.fsync_queue_compaction = o.boolean("fsync_queue_compaction", true);
  s.fsync_queue_wakeup     = o.choice("fsync_queue_wakeup", "half_full", {"bgwriter_delay", "half_full"}) == "half_full"
                                 ? SyncQueueWakeup::HalfFull
                                 : SyncQueueWakeup::BgWriterDelay;
}

void read_scan_hardware(Object o, ScanSpec& s)
{
  s.ram          = o.size("ram", std::nullopt, 64 * MB, 64 * TB);
  Object os      = o.object("os");
  s.pread        = os.duration("pread", std::nullopt, 0, 0.01);
  s.pread_per_kb = os.duration("pread_per_kB", std::nullopt, 0, 0.01);
}

} // namespace

ScanSpec read_scan(Object root)
{
  ScanSpec s;
  read_series(root.object("scan"), s);
  read_scan_settings(root.object("settings"), s);
  read_scan_policies(root.object("policies"), s);
  read_scan_hardware(root.object("hardware"), s);
  s.costs = read_scan_costs(root.object("scan_costs"));
  return s;
}

std::string to_string(HintBitIo policy)
{
  return policy == HintBitIo::Limited ? "limited" : "unlimited";
}

std::string to_string(SyncQueueWakeup wakeup)
{
  return wakeup == SyncQueueWakeup::HalfFull ? "half_full" : "bgwriter_delay";
}

} // namespace pg
