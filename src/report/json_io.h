// Reading and writing the report's JSON, one model type at a time. Each type has its
// `to_json` and its `read` side by side (report/*_json.cpp); the generic parts here
// handle scalars, optionals (null), vectors (arrays) and maps (objects).
//
// Reading goes through JsonIn, which knows the key path of the value it holds, so a
// malformed file gets an error that names the file and the key
// ("malformed report 'run.json': sweeps[0].points[2].time_us is not a number"),
// never an exception from the JSON library.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/named_enum.h"
#include "core/status.h"

namespace fabscope {

using Json = nlohmann::ordered_json;

// Thrown by JsonIn on a malformed document; the report reader turns it into a Status.
class JsonInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JsonIn {
 public:
  // `value` must outlive this reader and the readers it makes; the source name is kept.
  JsonIn(const Json& value, std::string path, std::string source)
      : value_(&value), path_(std::move(path)), source_(std::make_shared<const std::string>(std::move(source))) {}

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  // The member `key`; missing is an error.
  JsonIn at(const char* key) const;
  // The member `key`, or nullopt when absent (keys later versions added).
  std::optional<JsonIn> find(const char* key) const;
  // Array elements and object members, with their paths.
  std::vector<JsonIn> elements() const;
  std::vector<std::pair<std::string, JsonIn>> members() const;

  // Reads member `key` into `out`; missing is an error.
  template <typename T>
  void field(const char* key, T& out) const;
  // Reads member `key` into `out` when present; absent leaves `out` as it is.
  template <typename T>
  void field_or_keep(const char* key, T& out) const;
  // Reads member `key`, where null means unknown: `out` becomes T{} (0, "").
  template <typename T>
  void field_or_unknown(const char* key, T& out) const;

  [[noreturn]] void fail(const std::string& what) const;

 private:
  JsonIn(const Json& value, std::string path, std::shared_ptr<const std::string> source)
      : value_(&value), path_(std::move(path)), source_(std::move(source)) {}
  JsonIn child(const Json& value, std::string path) const { return JsonIn(value, std::move(path), source_); }
  const Json* value_;
  std::string path_;
  std::shared_ptr<const std::string> source_;  // shared by every reader of one document
};

// Scalars.
void read(const JsonIn& in, std::string& out);
void read(const JsonIn& in, bool& out);
void read(const JsonIn& in, int& out);
void read(const JsonIn& in, int64_t& out);
void read(const JsonIn& in, uint64_t& out);
void read(const JsonIn& in, double& out);
// A JSON value kept as it is (a finding's evidence): must be an object.
void read(const JsonIn& in, Json& out);
// An enum by its name (core/named_enum.h); any other text is an error naming the allowed.
template <NamedEnum E>
void read(const JsonIn& in, E& out) {
  std::string text;
  read(in, text);
  const std::optional<E> value = enum_from_name<E>(text);
  if (!value) in.fail("is '" + text + "', not one of " + enum_names<E>());
  out = *value;
}

// null <-> nullopt.
template <typename T>
void read(const JsonIn& in, std::optional<T>& out) {
  if (in.is_null()) {
    out.reset();
    return;
  }
  T value{};
  read(in, value);
  out = std::move(value);
}
template <typename T>
void read(const JsonIn& in, std::vector<T>& out) {
  out.clear();
  for (const JsonIn& e : in.elements()) {
    T value{};
    read(e, value);
    out.push_back(std::move(value));
  }
}
template <typename T>
void read(const JsonIn& in, std::map<std::string, T>& out) {
  out.clear();
  for (const auto& [key, value] : in.members()) read(value, out[key]);
}

template <typename T>
void JsonIn::field(const char* key, T& out) const {
  read(at(key), out);
}
template <typename T>
void JsonIn::field_or_keep(const char* key, T& out) const {
  if (auto v = find(key)) read(*v, out);
}
template <typename T>
void JsonIn::field_or_unknown(const char* key, T& out) const {
  const JsonIn v = at(key);
  if (v.is_null()) {
    out = T{};
  } else {
    read(v, out);
  }
}

// The JSON text of `v`. Text that is not valid UTF-8 (a host name, a log line, an
// environment value: whatever a machine or a ticket gave) is written with U+FFFD in
// place of each bad byte, never an exception: a report is never lost to one byte.
inline std::string dump_json(const Json& v, int indent = -1) {
  return v.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Values nested deeper than this are refused before parsing: copying or printing a
// value recurses, and a file of a million '[' must be an error, not a stack overflow.
inline constexpr int kMaxJsonDepth = 256;
// The deepest nesting of arrays and objects in `text` (brackets inside strings not
// counted), stopping early once past `limit`.
int json_nesting_depth(std::string_view text, int limit = kMaxJsonDepth);

// Parses a whole document read from a file or a peer. Every failure is a Status naming
// `what` ("'run.json'", "expectations 'e.json'"): bad syntax, a number beyond double
// range (1e999), nesting deeper than kMaxJsonDepth, or any other error of the library.
template <typename J>
Result<J> parse_json_text(std::string_view text, const std::string& what) {
  if (json_nesting_depth(text) > kMaxJsonDepth) {
    return Status::Invalid(what + " is not valid JSON here: values are nested deeper than " +
                           std::to_string(kMaxJsonDepth) + " levels");
  }
  try {
    return J::parse(text);
  } catch (const typename J::exception& e) {
    return Status::Invalid(what + " is not valid JSON: " + e.what());
  }
}

// A count or text that may be unknown (imported reports): 0 or "" is written as null.
inline Json known_or_null(int v) { return v > 0 ? Json(v) : Json(nullptr); }
inline Json known_or_null(const std::string& v) { return v.empty() ? Json(nullptr) : Json(v); }

// Writing: scalars, strings and vectors of them are Json already; these cover
// optionals (null where absent; a scalar as itself, a model type by its to_json) and
// vectors of model types.
template <typename T>
Json to_json_opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (NamedEnum<T>) {
    return Json(name(*v));
  } else if constexpr (std::is_constructible_v<Json, const T&>) {
    return Json(*v);
  } else {
    return to_json(*v);
  }
}
template <typename T>
Json to_json_array(const std::vector<T>& v) {
  Json a = Json::array();
  for (const T& x : v) a.push_back(to_json(x));
  return a;
}

}  // namespace fabscope
