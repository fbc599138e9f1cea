/* Scenario documents: composing JSON files ("extends", --set) while remembering where each value
 * came from, and validating them by use (see config.hpp).
 *
 * Every problem is collected rather than thrown at once, so a user fixing a scenario sees all of
 * its mistakes in one run. Only config::Error leaves this file: nlohmann's exceptions, which do
 * not derive from the standard ones, are caught at each call that can raise them.
 */
#include "sim/config.hpp"

#include "sim/units.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <utility>

namespace sim::config {

namespace {

using json    = nlohmann::json;
using Origins = std::map<std::string, std::string>; // JSON pointer -> file
namespace fs  = std::filesystem;

/// Scenarios are a few levels deep; the limit keeps the recursive walks below safe on hostile input.
constexpr std::size_t kMaxDepth = 100;
/// Longest rendering of an offending value in a message.
constexpr std::size_t kMaxShown = 60;

// ---------------------------------------------------------------------------------------------
// Rendering values in messages

std::string dump(const json& value)
{
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Compact JSON of an offending value, cut (on a UTF-8 character boundary) when long.
std::string shown(const json& value)
{
  std::string text = dump(value);
  if (text.size() <= kMaxShown) return text;
  std::size_t cut = kMaxShown - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

// Escaped by hand rather than through json(text).dump(): GCC 12 reports a false -Warray-bounds
// inside nlohmann's object constructor at -O2 for the latter.
std::string quoted(const std::string& text)
{
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      std::array<char, 8> buf{};
      std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(u));
      out += buf.data();
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Shortest text that reads back as value: "0.1", "100", "1e+30".
std::string format_number(double value)
{
  std::array<char, 32> buffer{};
  for (const char* format : {"%.15g", "%.17g"}) {
    std::snprintf(buffer.data(), buffer.size(), format, value);
    if (std::strtod(buffer.data(), nullptr) == value) break;
  }
  return buffer.data();
}

std::string join_quoted(const std::vector<std::string>& items)
{
  std::string list;
  for (const std::string& item : items) list += (list.empty() ? "" : ", ") + quoted(item);
  return list;
}

/// "[json.exception.out_of_range.406] number overflow ..." -> "number overflow ..."
std::string without_exception_prefix(const std::string& what)
{
  const std::size_t end = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

bool is_valid_utf8(const std::string& text)
{
  try {
    json(text).dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON pointers

std::string append_token(const std::string& pointer, const std::string& key)
{
  return pointer + "/" + escape_pointer_token(key);
}

std::string append_index(const std::string& pointer, std::size_t index)
{
  return pointer + "/" + std::to_string(index);
}

std::string unescape_pointer_token(const std::string& token)
{
  std::string key;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      key += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      key += token[i];
    }
  }
  return key;
}

std::vector<std::string> split_pointer(const std::string& pointer)
{
  std::vector<std::string> keys;
  std::size_t start = pointer.find('/');
  while (start != std::string::npos) {
    const std::size_t end = pointer.find('/', start + 1);
    keys.push_back(unescape_pointer_token(pointer.substr(start + 1, end - start - 1)));
    start = end;
  }
  return keys;
}

/// Whether pointer designates prefix or something inside it.
bool is_within(const std::string& pointer, const std::string& prefix)
{
  return pointer.compare(0, prefix.size(), prefix) == 0 &&
         (pointer.size() == prefix.size() || pointer[prefix.size()] == '/');
}

void erase_subtree(Origins& origins, const std::string& at)
{
  for (auto it = origins.lower_bound(at); it != origins.end() && it->first.compare(0, at.size(), at) == 0;)
    it = is_within(it->first, at) ? origins.erase(it) : std::next(it);
}

void copy_subtree(const Origins& from, const std::string& from_at, Origins& to, const std::string& to_at)
{
  for (auto it = from.lower_bound(from_at); it != from.end() && it->first.compare(0, from_at.size(), from_at) == 0;
       ++it)
    if (is_within(it->first, from_at)) to[to_at + it->first.substr(from_at.size())] = it->second;
}

// ---------------------------------------------------------------------------------------------
// Parsing text

/// Watches the parser's events for what nlohmann accepts silently: duplicate keys (it keeps the
/// last) and nesting deep enough to exhaust the stack of the recursive walks.
class StructureChecker {
public:
  StructureChecker(std::string file, std::vector<Problem>& problems) : file_(std::move(file)), problems_(problems) {}

  bool on_event(json::parse_event_t event, const json& parsed)
  {
    switch (event) {
    case json::parse_event_t::object_start:
    case json::parse_event_t::array_start:
      if (levels_.size() == kMaxDepth && !too_deep_) {
        problems_.push_back({file_, pointer(), "nested more than " + std::to_string(kMaxDepth) + " levels deep"});
        too_deep_ = true;
      }
      levels_.push_back(Level{event == json::parse_event_t::object_start, {}, {}, 0});
      break;
    case json::parse_event_t::key:
      on_key(parsed.get<std::string>());
      break;
    case json::parse_event_t::object_end:
    case json::parse_event_t::array_end:
      levels_.pop_back();
      element_done();
      break;
    case json::parse_event_t::value:
      element_done();
      break;
    }
    return true;
  }

private:
  struct Level {
    bool is_object;
    std::set<std::string> keys;
    std::string key;   // current key, in an object
    std::size_t index; // current element, in an array
  };

  void on_key(const std::string& key)
  {
    Level& level = levels_.back();
    level.key    = key;
    if (!level.keys.insert(key).second)
      problems_.push_back({file_, pointer(), "duplicate key (JSON would silently keep only the last value)"});
  }

  void element_done()
  {
    if (!levels_.empty() && !levels_.back().is_object) ++levels_.back().index;
  }

  std::string pointer() const
  {
    std::string result;
    for (const Level& level : levels_)
      result = level.is_object ? append_token(result, level.key) : append_index(result, level.index);
    return result;
  }

  std::string file_;
  std::vector<Problem>& problems_;
  std::vector<Level> levels_;
  bool too_deep_ = false;
};

/// "line 2, column 10: syntax error: invalid literal; last read: '"a": tru!'"
std::string syntax_error_message(const std::string& text, const json::parse_error& error)
{
  // error.byte is the 1-based index of the last character read, which is the offending one.
  const std::size_t offset = std::min<std::size_t>(error.byte > 0 ? error.byte - 1 : 0, text.size());
  std::size_t line         = 1;
  std::size_t line_start   = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  const std::string what = error.what();
  std::string detail     = without_exception_prefix(what);
  if (const std::size_t dash = what.find(" - "); dash != std::string::npos) detail = what.substr(dash + 3);
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1) +
         ": syntax error: " + detail;
}

/// The JSON in text, or nullopt after adding problems naming file.
std::optional<json> parse_json(const std::string& text, const std::string& file, std::vector<Problem>& problems)
{
  const std::size_t known = problems.size();
  StructureChecker checker(file, problems);
  json value;
  try {
    value = json::parse(text, [&checker](int /*depth*/, json::parse_event_t event, json& parsed) {
      return checker.on_event(event, parsed);
    });
  } catch (const json::parse_error& error) {
    problems.push_back({file, "", syntax_error_message(text, error)});
  } catch (const json::exception& error) {
    problems.push_back({file, "", without_exception_prefix(error.what())});
  }
  if (problems.size() != known) return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Reading files

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

/// Reads path into text; returns why it could not, or "" on success.
std::string read_text(const std::string& path, std::string& text)
{
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  // Only regular files: a name like /dev/zero in "extends" must not hang the loader.
  if (!error && fs::exists(status) && !fs::is_regular_file(status))
    return fs::is_directory(status) ? "is a directory" : "not a regular file";
  const std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return std::strerror(errno);
  std::array<char, 4096> buffer{};
  std::size_t count = 0;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) text.append(buffer.data(), count);
  if (std::ferror(file.get())) return std::strerror(errno);
  return "";
}

// ---------------------------------------------------------------------------------------------
// Composition

/// A value with the file each part of it came from; pointers relative to the value.
struct Layer {
  json value;
  Origins origins;
};

/// Puts src over dst at the given places: objects merge key by key, anything else replaces.
void overlay(json& dst, Origins& dst_origins, const std::string& dst_at, const json& src, const Origins& src_origins,
             const std::string& src_at)
{
  if (!dst.is_object() || !src.is_object()) {
    dst = src;
    erase_subtree(dst_origins, dst_at);
    copy_subtree(src_origins, src_at, dst_origins, dst_at);
    return;
  }
  if (const auto origin = src_origins.find(src_at); origin != src_origins.end()) dst_origins[dst_at] = origin->second;
  for (const auto& [key, value] : src.items()) {
    const auto existing = dst.find(key);
    if (existing == dst.end()) {
      dst[key] = value;
      copy_subtree(src_origins, append_token(src_at, key), dst_origins, append_token(dst_at, key));
    } else {
      overlay(*existing, dst_origins, append_token(dst_at, key), value, src_origins, append_token(src_at, key));
    }
  }
}

/// Where in which file something is written.
struct Place {
  std::string file;
  std::string pointer;
};

/// Resolves "extends" while collecting problems.
class Composer {
public:
  /// The file being composed and the directory its "extends" are relative to.
  struct Frame {
    std::string file;
    std::string dir;
  };

  /// Loads a file; where is the "extends" that names it (nullopt for the top file).
  std::optional<Layer> load_file(const std::string& path, const std::optional<Place>& where)
  {
    const std::string identity = identity_of(path);
    const auto seen =
        std::find_if(chain_.begin(), chain_.end(), [&](const auto& link) { return link.first == identity; });
    if (seen != chain_.end() && where) {
      std::string cycle;
      for (auto link = seen; link != chain_.end(); ++link) cycle += link->second + " -> ";
      problems_.push_back({where->file, where->pointer, "extends cycle: " + cycle + path});
      return std::nullopt;
    }

    std::string text;
    if (const std::string reason = read_text(path, text); !reason.empty()) {
      if (where)
        problems_.push_back({where->file, where->pointer, "cannot read " + quoted(path) + ": " + reason});
      else
        problems_.push_back({path, "", "cannot read file: " + reason});
      return std::nullopt;
    }
    const std::optional<json> root = parse_json(text, path, problems_);
    if (!root || !is_top_level_object(*root, path)) return std::nullopt;

    chain_.emplace_back(identity, path);
    const fs::path parent = fs::path(path).parent_path();
    Layer layer           = compose(*root, Frame{path, parent.empty() ? "." : parent.string()}, "");
    chain_.pop_back();
    return layer;
  }

  /// node from frame.file, at pointer `at` in that file, with its "extends" resolved.
  Layer compose(const json& node, const Frame& frame, const std::string& at)
  {
    Layer layer{json(), {{"", frame.file}}};
    if (node.is_array()) {
      layer.value = json::array();
      for (std::size_t i = 0; i < node.size(); ++i) {
        Layer element = compose(node[i], frame, append_index(at, i));
        copy_subtree(element.origins, "", layer.origins, append_index("", i));
        layer.value.push_back(std::move(element.value));
      }
      return layer;
    }
    if (!node.is_object()) {
      layer.value = node;
      return layer;
    }

    // The base first, so that problems come out in the order a reader meets them.
    std::optional<Layer> base;
    if (const auto extends = node.find("extends"); extends != node.end())
      base = load_base(*extends, frame, append_token(at, "extends"));
    layer.value = json::object();
    for (const auto& [key, value] : node.items()) {
      if (key == "extends") continue;
      Layer child = compose(value, frame, append_token(at, key));
      copy_subtree(child.origins, "", layer.origins, append_token("", key));
      layer.value[key] = std::move(child.value);
    }
    if (!base) return layer;
    overlay(base->value, base->origins, "", layer.value, layer.origins, "");
    return std::move(*base);
  }

  bool is_top_level_object(const json& root, const std::string& file)
  {
    if (root.is_object()) return true;
    problems_.push_back({file, "", "expected a JSON object at the top level, got " + shown(root)});
    return false;
  }

  std::vector<Problem>& problems() { return problems_; }

  void throw_if_problems() const
  {
    if (!problems_.empty()) throw Error(problems_);
  }

private:
  std::optional<Layer> load_base(const json& reference, const Frame& frame, const std::string& at)
  {
    if (!reference.is_string() || reference.get_ref<const std::string&>().empty() ||
        reference.get_ref<const std::string&>().find('\0') != std::string::npos) {
      problems_.push_back({frame.file, at, "expected the name of a JSON file to extend, got " + shown(reference)});
      return std::nullopt;
    }
    fs::path target(reference.get<std::string>());
    if (target.is_relative()) target = fs::path(frame.dir) / target;
    return load_file(target.lexically_normal().generic_string(), Place{frame.file, at});
  }

  /// The same file reached under two spellings must still be recognised as a cycle.
  static std::string identity_of(const std::string& path)
  {
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(path, error);
    return error ? path : canonical.string();
  }

  std::vector<Problem> problems_;
  std::vector<std::pair<std::string, std::string>> chain_; // identity, name as reported
};

// ---------------------------------------------------------------------------------------------
// --set

/// Where a --set assignment lands, in a copy of the document so that a bad one changes nothing.
class Assignment {
public:
  Assignment(const std::string& text, json& document, Origins& origins)
      : text_(text), origin_("--set " + text), document_(document), origins_(origins)
  {
  }

  void apply()
  {
    if (!is_valid_utf8(text_)) fail("", "not valid UTF-8");
    const std::size_t equals = text_.find('=');
    if (equals == std::string::npos) fail("", "expected key=value");
    const std::vector<std::string> keys = split_key(text_.substr(0, equals));
    const json value                    = parse_value(text_.substr(equals + 1));

    json* node = &document_;
    std::string pointer;
    for (std::size_t i = 0; i < keys.size(); ++i) node = &step(*node, keys[i], pointer, i + 1 == keys.size());
    *node = value;
    erase_subtree(origins_, pointer);
    origins_[pointer] = origin_;
  }

private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const
  {
    throw Error({Problem{origin_, pointer, message}});
  }

  std::vector<std::string> split_key(const std::string& key) const
  {
    if (key.empty()) fail("", "empty key before \"=\"");
    std::vector<std::string> keys;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = key.find('.', start);
      keys.push_back(key.substr(start, dot - start));
      if (keys.back().empty()) fail("", "empty component in key " + quoted(key));
      if (keys.back() == "extends") fail("", "\"extends\" can only be used in scenario files");
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (keys.size() > kMaxDepth) fail("", "key nested more than " + std::to_string(kMaxDepth) + " levels deep");
    return keys;
  }

  /// JSON when the text is JSON, else the text itself, so 64 is a number and 200ms a string.
  json parse_value(const std::string& text) const
  {
    if (!json::accept(text)) return json(text);
    std::vector<Problem> problems;
    std::optional<json> value = parse_json(text, origin_, problems);
    if (!value) throw Error(problems);
    return *value;
  }

  /// The child of node named key, created when it is missing.
  json& step(json& node, const std::string& key, std::string& pointer, bool last) const
  {
    if (node.is_null()) node = json::object();
    if (node.is_array()) return element(node, key, pointer);
    if (!node.is_object()) fail(pointer, "cannot set a key inside " + shown(node) + ", which is not an object");
    pointer    = append_token(pointer, key);
    json& next = node[key];
    if (!last && !next.is_structured()) {
      if (!next.is_null()) fail(pointer, "cannot set a key inside " + shown(next) + ", which is not an object");
      next              = json::object();
      origins_[pointer] = origin_;
    }
    return next;
  }

  json& element(json& array, const std::string& key, std::string& pointer) const
  {
    const bool numeric =
        key.size() <= 9 && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!numeric) fail(pointer, "expected an index into the array, got " + quoted(key));
    const std::size_t index = std::stoul(key);
    if (index >= array.size())
      fail(pointer, "index " + key + " is out of range (the array has " + std::to_string(array.size()) + " elements)");
    pointer = append_index(pointer, index);
    return array[index];
  }

  const std::string& text_;
  std::string origin_;
  json& document_;
  Origins& origins_;
};

// ---------------------------------------------------------------------------------------------
// Suggestions

char to_lower(char c)
{
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// Damerau-Levenshtein distance (optimal string alignment), ignoring case.
std::size_t edit_distance(const std::string& a, const std::string& b)
{
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = to_lower(a[i - 1]) == to_lower(b[j - 1]) ? 0 : 1;
      d[i][j]                = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && to_lower(a[i - 1]) == to_lower(b[j - 2]) && to_lower(a[i - 2]) == to_lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The candidate closest to name, when close enough to be what was meant.
template <typename Names>
std::optional<std::string> nearest_name(const std::string& name, const Names& candidates)
{
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best          = candidate;
      best_distance = distance;
    }
  }
  if (best_distance > std::max<std::size_t>(2, name.size() / 3)) return std::nullopt;
  return best;
}

template <typename Names>
std::string suggestion(const std::string& name, const Names& candidates)
{
  const std::optional<std::string> nearest = nearest_name(name, candidates);
  return nearest ? " (did you mean " + quoted(*nearest) + "?)" : "";
}

// ---------------------------------------------------------------------------------------------
// Reading values

/// The value an accessor returns, and what was wrong ("" when nothing).
template <typename T>
struct Outcome {
  T value;
  std::string problem;
};

constexpr const char* kMissing = "missing required key";

template <typename T>
Outcome<T> absent(const std::optional<T>& def, T harmless)
{
  return def ? Outcome<T>{*def, ""} : Outcome<T>{harmless, kMissing};
}

/// A value inside [lo, hi] for a required key that is missing or wrong, preferably zero.
template <typename T>
T harmless_in(T lo, T hi)
{
  if (lo > T{0}) return lo;
  return hi < T{0} ? hi : T{0};
}

/// "<noun> between lo and hi", or the open-ended forms when a bound is unbounded.
std::string bounded(const std::string& noun, bool has_lo, const std::string& lo, bool has_hi, const std::string& hi)
{
  if (has_lo && has_hi) return noun + " between " + lo + " and " + hi;
  if (has_lo) return noun + " of at least " + lo;
  if (has_hi) return noun + " of at most " + hi;
  return noun;
}

std::string integer_range(std::int64_t lo, std::int64_t hi)
{
  using Limits = std::numeric_limits<std::int64_t>;
  return bounded("an integer", lo != Limits::min(), std::to_string(lo), hi != Limits::max(), std::to_string(hi));
}

std::string number_range(const std::string& noun, double lo, double hi)
{
  constexpr double kMax = std::numeric_limits<double>::max();
  return bounded(noun, lo >= -kMax, format_number(lo), hi <= kMax, format_number(hi));
}

std::optional<std::int64_t> as_integer(const json& value)
{
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<std::uint64_t>();
    if (unsigned_value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(unsigned_value);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  // 1e6 is a fine way to write a million transactions.
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (number == std::floor(number) && number >= -9223372036854775808.0 && number < 9223372036854775808.0)
      return static_cast<std::int64_t>(number);
  }
  return std::nullopt;
}

Outcome<std::int64_t> read_integer(const json* value, std::optional<std::int64_t> def, std::int64_t lo, std::int64_t hi)
{
  const std::int64_t harmless = harmless_in(lo, hi);
  if (!value) return absent(def, harmless);
  const std::optional<std::int64_t> integer = as_integer(*value);
  if (integer && *integer >= lo && *integer <= hi) return {*integer, ""};
  return {def.value_or(harmless), "expected " + integer_range(lo, hi) + ", got " + shown(*value)};
}

Outcome<double> read_number(const json* value, std::optional<double> def, double lo, double hi)
{
  const double harmless = harmless_in(lo, hi);
  if (!value) return absent(def, harmless);
  if (value->is_number() && value->get<double>() >= lo && value->get<double>() <= hi) return {value->get<double>(), ""};
  return {def.value_or(harmless), "expected " + number_range("a number", lo, hi) + ", got " + shown(*value)};
}

Outcome<bool> read_boolean(const json* value, std::optional<bool> def)
{
  if (!value) return absent(def, false);
  if (value->is_boolean()) return {value->get<bool>(), ""};
  return {def.value_or(false), "expected true or false, got " + shown(*value)};
}

Outcome<std::string> read_string(const json* value, const std::optional<std::string>& def)
{
  if (!value) return absent(def, std::string());
  if (value->is_string()) return {value->get<std::string>(), ""};
  return {def.value_or(""), "expected a string, got " + shown(*value)};
}

Outcome<std::string> read_choice(const json* value, const std::optional<std::string>& def,
                                 const std::vector<std::string>& allowed)
{
  const std::string harmless = allowed.empty() ? "" : allowed.front();
  if (!value) return absent(def, harmless);
  if (value->is_string() && std::find(allowed.begin(), allowed.end(), value->get<std::string>()) != allowed.end())
    return {value->get<std::string>(), ""};
  std::string message = "expected one of " + join_quoted(allowed) + ", got " + shown(*value);
  if (value->is_string()) message += suggestion(value->get<std::string>(), allowed);
  return {def.value_or(harmless), message};
}

/// How one kind of quantity is described, parsed and printed.
struct QuantityKind {
  const char* expected; // what a message says was expected
  const char* noun;     // for ranges
  units::Parsed (*parse)(std::string_view);
  std::string (*format)(double);
};

const QuantityKind kDuration{"a duration with a unit, such as \"200ms\"", "a duration", units::parse_duration,
                             units::format_duration};
const QuantityKind kSize{"a size with a unit, such as \"8GB\", or a whole number of bytes", "a size", units::parse_size,
                         units::format_size};
const QuantityKind kFrequency{"a frequency with a unit, such as \"3GHz\"", "a frequency", units::parse_frequency,
                              units::format_frequency};
const QuantityKind kBandwidth{"a bandwidth with a unit, such as \"2GB/s\"", "a bandwidth", units::parse_bandwidth,
                              units::format_bandwidth};

std::string quantity_range(const QuantityKind& kind, double lo, double hi)
{
  // Quantities are never negative, and units::parse rejects more than 1e18 base units.
  return bounded(kind.noun, lo > 0, kind.format(lo), hi < 1e18, kind.format(hi));
}

Outcome<double> read_quantity(const json* value, const std::optional<std::string>& def, double lo, double hi,
                              const QuantityKind& kind)
{
  const double harmless = harmless_in(lo, hi);
  double fallback       = harmless;
  if (def) {
    const units::Parsed parsed = kind.parse(*def);
    if (!parsed.value) return {harmless, "invalid default " + quoted(*def) + " in the simulator: " + parsed.error};
    fallback = *parsed.value;
  }
  if (!value) return def ? Outcome<double>{fallback, ""} : Outcome<double>{harmless, kMissing};

  // A JSON number reads as its text would, so 0 is a duration and 4096 a size in bytes.
  units::Parsed parsed;
  if (value->is_string())
    parsed = kind.parse(value->get<std::string>());
  else if (value->is_number())
    parsed = kind.parse(dump(*value));
  std::string message = "expected " + std::string(kind.expected) + ", got " + shown(*value);
  if (!parsed.value) {
    // Some unit errors already say what was expected; don't say it twice.
    if (!parsed.error.empty() && parsed.error.rfind("expected ", 0) != 0) message += ": " + parsed.error;
    return {fallback, message};
  }
  if (*parsed.value < lo || *parsed.value > hi)
    return {fallback, "expected " + quantity_range(kind, lo, hi) + ", got " + shown(*value)};
  return {*parsed.value, ""};
}

// ---------------------------------------------------------------------------------------------
// The resolved document

/// The place for pointer in resolved, created with the shape the document has there (arrays
/// where it has arrays), so that the resolved scenario mirrors the one written.
json& resolved_slot(json& resolved, const json& document, const std::string& pointer)
{
  json* slot        = &resolved;
  const json* shape = &document;
  for (const std::string& key : split_pointer(pointer)) {
    const bool numeric = !key.empty() && key.size() <= 9 &&
                         std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (shape && shape->is_array() && numeric && std::stoul(key) < shape->size()) {
      const std::size_t index = std::stoul(key);
      if (!slot->is_array()) *slot = json::array();
      while (slot->size() <= index) slot->push_back(nullptr);
      shape = &(*shape)[index];
      slot  = &(*slot)[index];
    } else {
      if (!slot->is_object()) *slot = json::object();
      const bool has_key = shape && shape->is_object() && shape->contains(key);
      shape              = has_key ? &(*shape)[key] : nullptr;
      slot               = &(*slot)[key];
    }
  }
  return *slot;
}

std::string join_problems(const std::vector<Problem>& problems)
{
  std::string text;
  for (const Problem& problem : problems) text += (text.empty() ? "" : "\n") + problem.to_string();
  return text.empty() ? "invalid scenario" : text;
}

} // namespace

// ---------------------------------------------------------------------------------------------

std::string Problem::to_string() const
{
  std::string text = file.empty() ? "" : file + ": ";
  if (!pointer.empty()) text += pointer + ": ";
  return text + message;
}

Error::Error(std::vector<Problem> problems)
    : std::runtime_error(join_problems(problems)), problems_(std::move(problems))
{
}

std::string escape_pointer_token(const std::string& key)
{
  std::string token;
  for (const char c : key) {
    if (c == '~')
      token += "~0";
    else if (c == '/')
      token += "~1";
    else
      token += c;
  }
  return token;
}

Document Document::load(const std::string& path)
{
  Composer composer;
  std::optional<Layer> layer = composer.load_file(path, std::nullopt);
  composer.throw_if_problems();
  if (!layer) throw Error({Problem{path, "", "cannot load file"}});
  Document document;
  document.name_    = path;
  document.json_    = std::move(layer->value);
  document.origins_ = std::move(layer->origins);
  return document;
}

Document Document::parse(const std::string& text, const std::string& name, const std::string& base_dir)
{
  Composer composer;
  const std::optional<nlohmann::json> root = parse_json(text, name, composer.problems());
  if (root && composer.is_top_level_object(*root, name)) {
    Layer layer = composer.compose(*root, Composer::Frame{name, base_dir}, "");
    composer.throw_if_problems();
    Document document;
    document.name_    = name;
    document.json_    = std::move(layer.value);
    document.origins_ = std::move(layer.origins);
    return document;
  }
  composer.throw_if_problems();
  return Document();
}

void Document::set(const std::string& assignment)
{
  nlohmann::json updated  = json_.is_null() ? nlohmann::json::object() : json_;
  Origins updated_origins = origins_;
  Assignment(assignment, updated, updated_origins).apply();
  json_    = std::move(updated);
  origins_ = std::move(updated_origins);
}

std::string Document::origin(const std::string& pointer) const
{
  std::string at = pointer;
  while (true) {
    if (const auto found = origins_.find(at); found != origins_.end()) return found->second;
    if (at.empty()) return name_;
    const std::size_t slash = at.rfind('/');
    at.erase(slash == std::string::npos ? 0 : slash);
  }
}

// ---------------------------------------------------------------------------------------------

Object::Object(Reader* reader, std::string pointer, const nlohmann::json* node)
    : reader_(reader), pointer_(std::move(pointer)), node_(node)
{
}

bool Object::has(const std::string& key) const
{
  return node_ && node_->is_object() && node_->contains(key) && !node_->at(key).is_null();
}

const nlohmann::json* Object::lookup(const std::string& key)
{
  reader_->declared_[pointer_].insert(key);
  if (!node_ || !node_->is_object()) return nullptr;
  const auto found = node_->find(key);
  // null means "not set", so that an override can fall back to the default.
  return found == node_->end() || found->is_null() ? nullptr : &*found;
}

void Object::resolve(const std::string& key, nlohmann::json value)
{
  resolved_slot(reader_->resolved_, reader_->doc_.json(), child(key)) = std::move(value);
}

std::string Object::child(const std::string& key) const
{
  return append_token(pointer_, key);
}

void Object::fail(const std::string& key, const std::string& message)
{
  reader_->fail(key.empty() ? pointer_ : child(key), message);
}

Object Object::object(const std::string& key)
{
  const json* value = lookup(key);
  if (value && !value->is_object()) {
    fail(key, "expected an object, got " + shown(*value));
    value = nullptr;
  }
  const std::string pointer = child(key);
  reader_->declared_[pointer];
  json& slot = resolved_slot(reader_->resolved_, reader_->doc_.json(), pointer);
  if (!slot.is_object()) slot = json::object();
  return Object(reader_, pointer, value);
}

std::vector<Object> Object::objects(const std::string& key)
{
  const json* value         = lookup(key);
  const std::string pointer = child(key);
  json& slot                = resolved_slot(reader_->resolved_, reader_->doc_.json(), pointer);
  if (!slot.is_array()) slot = json::array();

  std::vector<Object> result;
  if (!value) return result;
  if (!value->is_array()) {
    fail(key, "expected an array of objects, got " + shown(*value));
    return result;
  }
  for (std::size_t i = 0; i < value->size(); ++i) {
    const std::string element_pointer = append_index(pointer, i);
    const json& element               = (*value)[i];
    if (!element.is_object()) {
      reader_->fail(element_pointer, "expected an object, got " + shown(element));
      continue;
    }
    reader_->declared_[element_pointer];
    json& element_slot = resolved_slot(reader_->resolved_, reader_->doc_.json(), element_pointer);
    if (!element_slot.is_object()) element_slot = json::object();
    result.push_back(Object(reader_, element_pointer, &element));
  }
  return result;
}

std::int64_t Object::integer(const std::string& key, std::optional<std::int64_t> def, std::int64_t lo, std::int64_t hi)
{
  const Outcome<std::int64_t> outcome = read_integer(lookup(key), def, lo, hi);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, outcome.value);
  return outcome.value;
}

double Object::number(const std::string& key, std::optional<double> def, double lo, double hi)
{
  const Outcome<double> outcome = read_number(lookup(key), def, lo, hi);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, outcome.value);
  return outcome.value;
}

bool Object::boolean(const std::string& key, std::optional<bool> def)
{
  const Outcome<bool> outcome = read_boolean(lookup(key), def);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, outcome.value);
  return outcome.value;
}

std::string Object::string(const std::string& key, std::optional<std::string> def)
{
  const Outcome<std::string> outcome = read_string(lookup(key), def);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, outcome.value);
  return outcome.value;
}

std::string Object::choice(const std::string& key, std::optional<std::string> def,
                           const std::vector<std::string>& allowed)
{
  const Outcome<std::string> outcome = read_choice(lookup(key), def, allowed);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, outcome.value);
  return outcome.value;
}

std::vector<double> Object::numbers(const std::string& key, std::optional<std::vector<double>> def, double lo,
                                    double hi)
{
  const json* value = lookup(key);
  std::vector<double> result;
  if (!value && !def)
    fail(key, kMissing);
  else if (!value)
    result = *def;
  else if (!value->is_array()) {
    fail(key, "expected an array of " + number_range("numbers", lo, hi) + ", got " + shown(*value));
    result = def.value_or(std::vector<double>());
  } else
    for (std::size_t i = 0; i < value->size(); ++i) {
      const Outcome<double> element = read_number(&(*value)[i], std::nullopt, lo, hi);
      if (!element.problem.empty()) reader_->fail(append_index(child(key), i), element.problem);
      result.push_back(element.value);
    }
  resolve(key, result);
  return result;
}

double Object::duration(const std::string& key, std::optional<std::string> def, double lo_s, double hi_s)
{
  const Outcome<double> outcome = read_quantity(lookup(key), def, lo_s, hi_s, kDuration);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, kDuration.format(outcome.value));
  return outcome.value;
}

double Object::size(const std::string& key, std::optional<std::string> def, double lo_bytes, double hi_bytes)
{
  const Outcome<double> outcome = read_quantity(lookup(key), def, lo_bytes, hi_bytes, kSize);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, kSize.format(outcome.value));
  return outcome.value;
}

double Object::frequency(const std::string& key, std::optional<std::string> def, double lo_hz, double hi_hz)
{
  const Outcome<double> outcome = read_quantity(lookup(key), def, lo_hz, hi_hz, kFrequency);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, kFrequency.format(outcome.value));
  return outcome.value;
}

double Object::bandwidth(const std::string& key, std::optional<std::string> def, double lo, double hi)
{
  const Outcome<double> outcome = read_quantity(lookup(key), def, lo, hi, kBandwidth);
  if (!outcome.problem.empty()) fail(key, outcome.problem);
  resolve(key, kBandwidth.format(outcome.value));
  return outcome.value;
}

// ---------------------------------------------------------------------------------------------

Reader::Reader(const Document& doc) : doc_(doc) {}

Object Reader::root()
{
  declared_[""];
  return Object(this, "", doc_.json().is_object() ? &doc_.json() : nullptr);
}

void Reader::fail(const std::string& pointer, const std::string& message)
{
  problems_.push_back({doc_.origin(pointer), pointer, message});
}

void Reader::finish()
{
  unknown_keys(doc_.json(), "");
  if (!problems_.empty()) throw Error(problems_);
}

void Reader::unknown_keys(const nlohmann::json& node, const std::string& pointer)
{
  // Only objects a model opened are searched: an undeclared object is one unknown key, not many.
  const auto declared = declared_.find(pointer);
  if (declared == declared_.end() || !node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    if (!key.empty() && key.front() == '_') continue;
    const std::string child = append_token(pointer, key);
    if (declared->second.count(key) == 0) {
      fail(child, "unknown key" + suggestion(key, declared->second));
      continue;
    }
    if (value.is_object())
      unknown_keys(value, child);
    else if (value.is_array())
      for (std::size_t i = 0; i < value.size(); ++i) unknown_keys(value[i], append_index(child, i));
  }
}

} // namespace sim::config
