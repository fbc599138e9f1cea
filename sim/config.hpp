/* Scenario documents: loading, composing ("extends", --set) and validating JSON.
 *
 * Validation is declared by use: a model asks an Object for the keys it understands, with their
 * type, default and range. Every problem is collected (never only the first); unknown keys are
 * found at the end as the keys nobody asked for, with the nearest valid name suggested. Keys that
 * begin with "_" are documentation and are ignored everywhere.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim::config {

/// One thing wrong with a scenario: the file the value came from, where it is, what was expected.
struct Problem {
  std::string file;
  std::string pointer; // JSON pointer, "" for the whole document
  std::string message;

  std::string to_string() const; // "file: /pointer: message"
};

/// Thrown when a scenario cannot be used; what() lists every problem, one per line.
class Error : public std::runtime_error {
public:
  explicit Error(std::vector<Problem> problems);
  const std::vector<Problem>& problems() const { return problems_; }

private:
  std::vector<Problem> problems_;
};

/// A JSON document assembled from a file, the files it extends and command-line overrides,
/// remembering which file each value came from.
///
/// Any object may carry "extends": "relative/path.json": that file is loaded (relative to the
/// file that names it), and the object's other keys are merged over it, recursively for
/// objects; arrays and scalars replace. Cycles and missing files are errors.
class Document {
public:
  /// Reads and composes a file. Throws Error (unreadable file, JSON syntax error with line and
  /// column, bad or cyclic "extends").
  static Document load(const std::string& path);
  /// A document from text, for tests and fuzzing; "extends" is resolved relative to base_dir.
  static Document parse(const std::string& text, const std::string& name, const std::string& base_dir = ".");

  /// Applies "dotted.key.path=value". The value is read as JSON when it parses as JSON, else as a
  /// string, so both clients=64 and wal_writer_delay=200ms work. Throws Error when malformed.
  void set(const std::string& assignment);

  const nlohmann::json& json() const { return json_; }
  const std::string& name() const { return name_; }
  /// The file (or "--set ...") that gave the value at pointer, or the nearest enclosing value.
  std::string origin(const std::string& pointer) const;

private:
  nlohmann::json json_;
  std::string name_;
  std::map<std::string, std::string> origins_; // JSON pointer -> file
};

class Reader;

/// A view of one JSON object inside a document being validated. Accessors return the value, or
/// the default when the key is absent; on a problem they record it and return the default (or a
/// harmless value when the key is required), so validation can go on and report everything.
class Object {
public:
  const std::string& pointer() const { return pointer_; }
  bool has(const std::string& key) const;

  Object object(const std::string& key);               // absent -> empty object
  std::vector<Object> objects(const std::string& key); // array of objects; absent -> empty

  /// nullopt default = the key is required.
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> def, std::int64_t lo, std::int64_t hi);
  double number(const std::string& key, std::optional<double> def, double lo, double hi);
  bool boolean(const std::string& key, std::optional<bool> def);
  std::string string(const std::string& key, std::optional<std::string> def);
  std::string choice(const std::string& key, std::optional<std::string> def, const std::vector<std::string>& allowed);
  std::vector<double> numbers(const std::string& key, std::optional<std::vector<double>> def, double lo, double hi);

  /// Quantities with units (see units.hpp); defaults are written with units too ("200ms").
  double duration(const std::string& key, std::optional<std::string> def, double lo_s, double hi_s);
  double size(const std::string& key, std::optional<std::string> def, double lo_bytes, double hi_bytes);
  double frequency(const std::string& key, std::optional<std::string> def, double lo_hz, double hi_hz);
  double bandwidth(const std::string& key, std::optional<std::string> def, double lo, double hi);

  /// Records a semantic problem about key (or this object when key is empty).
  void fail(const std::string& key, const std::string& message);

private:
  friend class Reader;
  Object(Reader* reader, std::string pointer, const nlohmann::json* node);
  const nlohmann::json* lookup(const std::string& key); // declares key; nullptr when absent
  void resolve(const std::string& key, nlohmann::json value);
  std::string child(const std::string& key) const;

  Reader* reader_;
  std::string pointer_;
  const nlohmann::json* node_; // nullptr when the object is absent (all defaults)
};

/// Validates a Document. Use root() to read it, then finish(), which throws Error listing every
/// problem, unknown keys included.
class Reader {
public:
  explicit Reader(const Document& doc);
  Object root();
  /// Records a problem at a JSON pointer (for checks across several keys).
  void fail(const std::string& pointer, const std::string& message);
  bool ok() const { return problems_.empty(); }
  /// Adds unknown-key problems and throws Error if there is any problem.
  void finish();
  /// The effective scenario: every key a model read, with defaults filled in.
  const nlohmann::json& resolved() const { return resolved_; }

private:
  friend class Object;
  void unknown_keys(const nlohmann::json& node, const std::string& pointer);

  const Document& doc_;
  std::vector<Problem> problems_;
  std::map<std::string, std::set<std::string>> declared_; // object pointer -> keys asked for
  nlohmann::json resolved_ = nlohmann::json::object();
};

/// Escapes a key for use in a JSON pointer (~ -> ~0, / -> ~1).
std::string escape_pointer_token(const std::string& key);

} // namespace sim::config
