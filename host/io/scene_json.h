// Path-aware JSON reading for scene files: a SAX-built DOM that reports duplicate keys and
// overflowing literals with their JSON path, and Field/Object wrappers whose every read checks
// the type (and every object its allowed keys), failing with "file: path = value: rule".
// Used by the scene reader (host/io/scene_file.cpp and its section readers, scene_reader.h).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <glm/glm.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "host/io/scene_file.h"

namespace vkphys::io::scene_json {

using Json = nlohmann::ordered_json;
constexpr double kFloatMax = static_cast<double>(std::numeric_limits<float>::max());
// Deepest nesting of arrays and objects a scene file may have (a scene needs 5). Checked while
// parsing, before the DOM exists: nlohmann's parser and destructor are iterative, but dump(),
// which error messages use, recurses once per level.
constexpr std::size_t kMaxJsonDepth = 64;

// ---- text helpers ---------------------------------------------------------------------------

inline std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

inline std::string json_quote(std::string_view s) {
  return dump(Json(std::string(s)));
}

// Long values are cut to keep the message on one readable line (at a UTF-8 boundary).
inline std::string shorten(std::string s) {
  constexpr std::size_t kMaxChars = 60;
  if (s.size() <= kMaxChars) return s;
  std::size_t n = kMaxChars - 3;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0u) == 0x80u) --n;
  s.resize(n);
  s += "...";
  return s;
}

inline std::string describe(const Json& j) {
  return shorten(dump(j));
}

inline bool is_plain_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// "solver" + "iterations" -> "solver.iterations"; odd keys are quoted: box["a b"].
inline std::string join_path(std::string_view parent, std::string_view key) {
  if (!is_plain_key(key)) return fmt::format("{}[{}]", parent, json_quote(key));
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

inline std::string index_path(std::string_view parent, std::size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

inline std::string display_path(std::string_view path) {
  return path.empty() ? std::string("(top level)") : std::string(path);
}

inline std::string format_bytes(double bytes) {
  if (bytes >= 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

inline std::string format_vec(glm::dvec3 v) {
  return fmt::format("({:.6g}, {:.6g}, {:.6g})", v.x, v.y, v.z);
}

[[noreturn]] inline void fail_at(const std::string& source, std::string_view path,
                                 std::string_view what) {
  throw SceneError(fmt::format("{}: {}: {}", source, display_path(path), what));
}

// ---- JSON text -> DOM -------------------------------------------------------------------------

// Builds the DOM like nlohmann's own parser, but knows the JSON path of every value so that it
// can name the field for duplicate keys and for numbers that overflow a double (nlohmann
// rejects 1e999 with no position of its own).
class DomBuilder final : public nlohmann::json_sax<Json> {
 public:
  explicit DomBuilder(const std::string& source) : source_(source) {}

  Json& root() { return root_; }
  const std::optional<SceneError>& error() const { return error_; }

  bool null() override { return put(Json(nullptr)); }
  bool boolean(bool v) override { return put(Json(v)); }
  bool number_integer(number_integer_t v) override { return put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(Json(v)); }
  bool string(string_t& v) override { return put(Json(std::move(v))); }
  bool binary(binary_t& v) override { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) override {
    if (!deeper()) return false;
    Json* node = place(Json::object());
    stack_.push_back(Frame{node, false, 0, {}, {}});
    return true;
  }
  bool key(string_t& k) override {
    Frame& top = stack_.back();
    if (!top.keys.insert(k).second) {
      error_.emplace(fmt::format("{}: {}: duplicate key (a key may appear only once per object)",
                                 source_, join_path(path_of(stack_.size() - 1), k)));
      return false;
    }
    top.key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    if (!deeper()) return false;
    Json* node = place(Json::array());
    stack_.push_back(Frame{node, true, 0, {}, {}});
    return true;
  }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const Json::exception& ex) override {
    if (ex.id == 406) {  // out_of_range.406: a number literal that overflows a double
      error_.emplace(fmt::format("{}: {} = {}: must be a finite number (the literal overflows)",
                                 source_, display_path(path_of(stack_.size())), last_token));
      return false;
    }
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep its line and column.
    std::string_view what = ex.what();
    if (auto bracket = what.find("] "); bracket != std::string_view::npos) {
      what.remove_prefix(bracket + 2);
    }
    error_.emplace(fmt::format("{}: invalid JSON at byte {}: {}", source_, position, what));
    return false;
  }

 private:
  struct Frame {
    Json* node;
    bool array;
    std::size_t index;                     // arrays: index of the element being read
    std::string key;                       // objects: key of the member being read
    std::unordered_set<std::string> keys;  // objects: keys seen so far
  };

  // False (with the error) when one more open container would pass kMaxJsonDepth.
  bool deeper() {
    if (stack_.size() < kMaxJsonDepth) return true;
    error_.emplace(fmt::format(
        "{}: {}: nested more than {} arrays or objects deep; at most {} "
        "levels are allowed",
        source_, shorten(display_path(path_of(stack_.size()))), kMaxJsonDepth, kMaxJsonDepth));
    return false;
  }

  // Path of the value being read inside the first `depth` open containers.
  std::string path_of(std::size_t depth) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      const Frame& f = stack_[i];
      path = f.array ? index_path(path, f.index) : join_path(path, f.key);
    }
    return path;
  }

  // Stores a value at the current position. Pointers to the open containers stay valid: only
  // the innermost open container grows, and it holds no open container itself.
  Json* place(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.array) {
      top.node->push_back(std::move(v));
      return &top.node->back();
    }
    Json& slot = (*top.node)[top.key];
    slot = std::move(v);
    return &slot;
  }
  void advance() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  bool put(Json v) {
    place(std::move(v));
    advance();
    return true;
  }
  bool close() {
    stack_.pop_back();
    advance();
    return true;
  }

  const std::string& source_;
  Json root_;
  std::vector<Frame> stack_;
  std::optional<SceneError> error_;
};

inline Json parse_json(std::string_view text, const std::string& source) {
  DomBuilder builder(source);
  if (!Json::sax_parse(text, &builder)) {
    if (builder.error()) throw *builder.error();
    throw SceneError(fmt::format("{}: invalid JSON", source));
  }
  return std::move(builder.root());
}

// ---- typed, path-aware access to the DOM ------------------------------------------------------

class Field {
 public:
  Field(const std::string& source, const Json& j, std::string path)
      : source_(&source), j_(&j), path_(std::move(path)) {}

  const Json& json() const { return *j_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return *source_; }

  // "file: path = value: rule"
  [[noreturn]] void fail(std::string_view rule) const {
    throw SceneError(
        fmt::format("{}: {} = {}: {}", *source_, display_path(path_), describe(*j_), rule));
  }
  void check(bool ok, std::string_view rule) const {
    if (!ok) fail(rule);
  }

  // The number as read (for values converted before they are rounded to float).
  double as_double() const {
    check(j_->is_number(), "must be a number");
    double v = j_->get<double>();
    check(std::isfinite(v), "must be a finite number");
    return v;
  }
  float as_float() const {
    double v = as_double();
    check(std::abs(v) <= kFloatMax, "out of range for a 32-bit float");
    return static_cast<float>(v);
  }
  float positive() const {
    float v = as_float();
    check(v > 0.0f, "must be > 0");
    return v;
  }
  float non_negative() const {
    float v = as_float();
    check(v >= 0.0f, "must be >= 0");
    return v;
  }

  std::uint64_t as_uint(std::uint64_t lo, std::uint64_t hi) const {
    std::string rule = hi == std::numeric_limits<std::uint64_t>::max()
                           ? fmt::format("must be an integer >= {}", lo)
                           : fmt::format("must be an integer in [{}, {}]", lo, hi);
    check(j_->is_number_integer(), rule);
    if (!j_->is_number_unsigned()) {
      check(j_->get<std::int64_t>() >= 0, rule);
    }
    std::uint64_t v = j_->get<std::uint64_t>();
    check(v >= lo && v <= hi, rule);
    return v;
  }

  bool as_bool() const {
    check(j_->is_boolean(), "must be true or false");
    return j_->get<bool>();
  }

  std::string as_string() const {
    check(j_->is_string(), "must be a string");
    return j_->get<std::string>();
  }

  glm::vec3 as_vec3() const {
    check(j_->is_array() && j_->size() == 3, "must be an array of 3 numbers");
    return glm::vec3(at(0).as_float(), at(1).as_float(), at(2).as_float());
  }

  std::size_t array_size() const {
    check(j_->is_array(), "must be an array");
    return j_->size();
  }
  Field at(std::size_t i) const { return Field(*source_, (*j_)[i], index_path(path_, i)); }

 private:
  const std::string* source_;
  const Json* j_;
  std::string path_;
};

class Object {
 public:
  Object(const Field& field, std::initializer_list<std::string_view> allowed) : field_(field) {
    check_keys(allowed);
  }
  Object(const Field& field, const std::vector<std::string_view>& allowed) : field_(field) {
    check_keys(allowed);
  }

  const Field& field() const { return field_; }

  std::optional<Field> get(std::string_view key) const {
    auto it = field_.json().find(key);
    if (it == field_.json().end()) return std::nullopt;
    return Field(field_.source(), *it, join_path(field_.path(), key));
  }
  Field require(std::string_view key) const {
    if (auto f = get(key)) return *f;
    fail_at(field_.source(), join_path(field_.path(), key), "required field is missing");
  }

 private:
  template <class Keys>
  void check_keys(const Keys& allowed) const {
    field_.check(field_.json().is_object(), "must be an object");
    for (const auto& [key, value] : field_.json().items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      Field(field_.source(), value, join_path(field_.path(), key))
          .fail(fmt::format("unknown key; allowed keys here: {}", list));
    }
  }

  Field field_;
};
}  // namespace vkphys::io::scene_json
