#include "report/json_io.h"

#include <fmt/format.h>

namespace fabscope {

namespace {
std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}
}  // namespace

int json_nesting_depth(std::string_view text, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

void JsonIn::fail(const std::string& what) const {
  throw JsonInputError(fmt::format("malformed report '{}': {} {}", *source_, path_.empty() ? "document" : path_, what));
}

JsonIn JsonIn::at(const char* key) const {
  if (!value_->is_object()) fail("is not an object");
  auto it = value_->find(key);
  if (it == value_->end()) child(*value_, join_path(path_, key)).fail("is missing");
  return child(*it, join_path(path_, key));
}

std::optional<JsonIn> JsonIn::find(const char* key) const {
  if (!value_->is_object()) fail("is not an object");
  auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return child(*it, join_path(path_, key));
}

std::vector<JsonIn> JsonIn::elements() const {
  if (!value_->is_array()) fail("is not an array");
  std::vector<JsonIn> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) out.push_back(child((*value_)[i], fmt::format("{}[{}]", path_, i)));
  return out;
}

std::vector<std::pair<std::string, JsonIn>> JsonIn::members() const {
  if (!value_->is_object()) fail("is not an object");
  std::vector<std::pair<std::string, JsonIn>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(), child(it.value(), join_path(path_, it.key())));
  }
  return out;
}

void read(const JsonIn& in, std::string& out) {
  if (!in.json().is_string()) in.fail("is not a string");
  out = in.json().get<std::string>();
}
void read(const JsonIn& in, bool& out) {
  if (!in.json().is_boolean()) in.fail("is not a boolean");
  out = in.json().get<bool>();
}

namespace {
template <typename T>
void read_integer(const JsonIn& in, T& out) {
  const Json& v = in.json();
  if (!v.is_number_integer()) in.fail("is not an integer");
  // Range-checked: a value that does not fit is an error, not a wrapped number.
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) in.fail("is out of range");
    out = static_cast<T>(u);
  } else {
    const auto s = v.get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (s < 0) in.fail("is negative");
      out = static_cast<T>(s);
    } else {
      if (s < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max()) in.fail("is out of range");
      out = static_cast<T>(s);
    }
  }
}
}  // namespace

void read(const JsonIn& in, int& out) { read_integer(in, out); }
void read(const JsonIn& in, int64_t& out) { read_integer(in, out); }
void read(const JsonIn& in, uint64_t& out) { read_integer(in, out); }
void read(const JsonIn& in, double& out) {
  if (!in.json().is_number()) in.fail("is not a number");
  out = in.json().get<double>();
}
void read(const JsonIn& in, Json& out) {
  if (!in.json().is_object()) in.fail("is not an object");
  out = in.json();
}

}  // namespace fabscope
