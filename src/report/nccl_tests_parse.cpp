#include "report/nccl_tests_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "report/json_io.h"
#include "report/text_fields.h"

namespace fabscope {

namespace {

bool starts_with_digit(std::string_view s) { return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])); }

// nccl-tests' type and redop names (every version).
bool known_type(std::string_view t) {
  static const char* kTypes[] = {"int8",  "uint8",  "int32",    "uint32", "int64",  "uint64", "half",
                                 "float", "double", "bfloat16", "f8e4m3", "f8e5m2", "char",   "int"};
  return std::find(std::begin(kTypes), std::end(kTypes), t) != std::end(kTypes);
}
bool known_redop(std::string_view t) {
  static const char* kOps[] = {"sum", "prod", "max", "min", "avg", "mulsum", "premulsum", "none"};
  return std::find(std::begin(kOps), std::end(kOps), t) != std::end(kOps);
}

// The columns of one placement: time algbw busbw [#wrong|error] [i_* ...].
struct Group {
  enum class Wrong { kNone, kCount, kError } wrong = Wrong::kNone;
  std::vector<std::string> per_iter;  // the i_* column names, in order
  size_t columns() const { return 3 + (wrong != Wrong::kNone) + per_iter.size(); }
};

struct Layout {
  bool root = true;
  bool cpu_time = false;
  std::vector<Group> groups;
  bool timestamp = false;
  size_t fixed() const {
    size_t n = root ? 5 : 4;
    for (const Group& g : groups) n += g.columns();
    return n;
  }
};

// A column header line ("#  size  count  type  redop  root  time  algbw  busbw  #wrong ..."),
// or nullopt for any other line.
std::optional<Layout> header_layout(std::string_view line) {
  std::string_view body = trim(line);
  if (!body.starts_with("#")) return std::nullopt;
  body.remove_prefix(1);
  std::vector<std::string_view> w = split_ws(body);
  if (w.size() < 7 || w[0] != "size" || w[1] != "count" || w[2] != "type") return std::nullopt;
  Layout l;
  size_t i = 3;
  if (w[i] == "redop" || w[i] == "op") ++i;
  l.root = i < w.size() && w[i] == "root";
  if (l.root) ++i;
  while (i < w.size()) {
    if (w[i] == "time" || w[i] == "cputime") {
      l.cpu_time |= w[i] == "cputime";
      if (i + 2 >= w.size() || w[i + 1] != "algbw" || w[i + 2] != "busbw") return std::nullopt;
      Group g;
      i += 3;
      if (i < w.size() && (w[i] == "#wrong" || w[i] == "wrong")) {
        g.wrong = Group::Wrong::kCount;
        ++i;
      } else if (i < w.size() && w[i] == "error") {
        g.wrong = Group::Wrong::kError;
        ++i;
      }
      while (i < w.size() && w[i].starts_with("i_")) g.per_iter.emplace_back(w[i++]);
      l.groups.push_back(std::move(g));
    } else if (!l.groups.empty() && (w[i] == "timestamp" || w[i] == "time_stamp")) {
      l.timestamp = true;
      ++i;
    } else {
      return std::nullopt;
    }
  }
  if (l.groups.empty() || l.groups.size() > 2) return std::nullopt;
  return l;
}

struct Preamble {
  std::string program;
  std::optional<std::string> tests_version;
  std::optional<std::string> nccl_version;
  std::optional<NcclTestsParams> params;
  std::vector<NcclTestsDevice> devices;
  bool devices_done = false;  // a table took them: the next "# Using devices" starts anew
};

// "22602" -> "2.26.2" (NCCL_VERSION_CODE since 2.9: major*10000 + minor*100 + patch).
std::optional<std::string> nccl_version_of_code(std::string_view code) {
  auto v = parse_integer<int>(code);
  if (!v || *v < 20900) return std::nullopt;
  return fmt::format("{}.{}.{}", *v / 10000, *v / 100 % 100, *v % 100);
}

// "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20
//  agg iters: 1 validation: 1 graph: 0"
std::optional<NcclTestsParams> params_line(std::string_view body) {
  std::vector<std::string_view> w = split_ws(body);
  if (w.size() < 8 || w[0] != "nThread") return std::nullopt;
  NcclTestsParams p;
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    const std::string_view k = w[i], v = w[i + 1];
    if (k == "nThread") {
      if (auto x = parse_integer<int>(v)) p.nthreads = *x;
    } else if (k == "nGpus") {
      if (auto x = parse_integer<int>(v)) p.ngpus = *x;
    } else if (k == "minBytes") {
      if (auto x = parse_integer<uint64_t>(v)) p.min_bytes = *x;
    } else if (k == "maxBytes") {
      if (auto x = parse_integer<uint64_t>(v)) p.max_bytes = *x;
    } else if (k == "step:") {
      const size_t paren = v.find('(');
      auto x = parse_integer<uint64_t>(v.substr(0, paren));
      if (x && v.substr(paren == std::string_view::npos ? v.size() : paren) == "(factor)") p.step_factor = *x;
      if (x && v.substr(paren == std::string_view::npos ? v.size() : paren) == "(bytes)") p.step_bytes = *x;
    } else if (k == "iters:") {
      const bool warmup = i > 0 && w[i - 1] == "warmup";
      const bool agg = i > 0 && w[i - 1] == "agg";
      if (auto x = parse_integer<int>(v)) (warmup ? p.warmup_iters : agg ? p.agg_iters : p.iters) = *x;
    } else if (k == "validation:") {
      if (auto x = parse_integer<int>(v)) p.validation = *x;
    } else if (k == "graph:") {
      if (auto x = parse_integer<int>(v)) p.graph = *x;
    }
  }
  return p;
}

class TextParser {
 public:
  TextParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<std::vector<NcclTestsTable>> run() {
    LineReader lines(text_);
    std::string_view raw;
    while (lines.next(raw)) {
      line_ = lines.number();
      const std::string_view line = trim(strip_launcher_prefix(raw));
      if (line.empty()) continue;
      Status s = take(line);
      if (!s.ok()) return s;
    }
    if (open_) {
      return error(last_row_line_ > 0 ? last_row_line_ : open_->header_line,
                   open_->rows.empty()
                       ? "the table's header has no rows after it: truncated?"
                       : "the table ends without nccl-tests' closing '# Avg bus bandwidth' line: truncated?");
    }
    if (tables_.empty()) {
      return Status::Invalid(fmt::format(
          "'{}': no nccl-tests table found (expected a '#  size  count  type  redop ...  time  algbw  busbw' header)",
          source_));
    }
    return std::move(tables_);
  }

 private:
  Status error(int line, const std::string& what) const {
    return Status::Invalid(fmt::format("'{}' line {}: {}", source_, line, what));
  }

  Status take(std::string_view line) {
    if (line.starts_with("#")) return take_comment(line);
    if (line.starts_with("NCCL version ")) {
      std::string_view v = trim(line.substr(13));
      const size_t space = v.find(' ');
      pre_.nccl_version = std::string(v.substr(0, space));
      return Status::Ok();
    }
    if (open_ && starts_with_digit(line)) return take_row(line);
    return Status::Ok();  // a line of something else: launcher, NCCL log, shell
  }

  Status take_comment(std::string_view line) {
    if (auto layout = header_layout(line)) {
      if (open_) {
        if (!open_->rows.empty()) {
          return error(line_,
                       "a new table starts before the previous one closed with '# Avg bus bandwidth': "
                       "truncated?");
        }
        // Two header lines in a row: the second replaces the first.
      }
      open_ = NcclTestsTable();
      open_->source = source_;
      open_->header_line = line_;
      open_->program = pre_.program;
      open_->tests_version = pre_.tests_version;
      open_->nccl_version = pre_.nccl_version;
      open_->params = pre_.params;
      open_->devices = pre_.devices;
      open_->cpu_time = layout->cpu_time;
      layout_ = *layout;
      pre_.devices_done = true;
      return Status::Ok();
    }
    std::string_view body = trim(line.substr(1));
    if (body.starts_with("Avg bus bandwidth")) {
      if (!open_) return Status::Ok();
      const size_t colon = body.find(':');
      auto v = colon == std::string_view::npos ? std::nullopt : parse_number(trim(body.substr(colon + 1)));
      if (!v) return error(line_, "'# Avg bus bandwidth' without a number");
      open_->avg_busbw_gbps = *v;
      if (open_->rows.empty()) return error(line_, "the table closes without any rows");
      tables_.push_back(std::move(*open_));
      open_.reset();
      pre_.program.clear();  // each run prints its own
      last_row_line_ = 0;
      return Status::Ok();
    }
    if (body.starts_with("Out of bounds values")) {
      if (!open_) return Status::Ok();
      const size_t colon = body.find(':');
      std::vector<std::string_view> w =
          colon == std::string_view::npos ? std::vector<std::string_view>{} : split_ws(body.substr(colon + 1));
      auto v = w.empty() ? std::nullopt : parse_integer<int64_t>(w[0]);
      if (!v) return error(line_, "'# Out of bounds values' without a count");
      open_->out_of_bounds = *v;
      return Status::Ok();
    }
    // Preamble lines. One inside an open table means the table was cut off.
    const bool preamble = body.starts_with("nccl-tests version") || body.starts_with("Collective test starting") ||
                          body.starts_with("nThread") || body.starts_with("Using devices");
    if (preamble && open_ && !open_->rows.empty()) {
      return error(line_, "a new run starts before the table above closed with '# Avg bus bandwidth': truncated?");
    }
    if (body.starts_with("nccl-tests version")) {
      std::vector<std::string_view> w = split_ws(body);
      if (w.size() >= 3) pre_.tests_version = std::string(w[2]);
      for (std::string_view x : w) {
        if (x.starts_with("nccl-library=") && !pre_.nccl_version) {
          pre_.nccl_version = nccl_version_of_code(x.substr(13));
        }
      }
    } else if (body.starts_with("Collective test starting")) {
      const size_t colon = body.find(':');
      if (colon != std::string_view::npos) pre_.program = std::string(trim(body.substr(colon + 1)));
    } else if (body.starts_with("nThread")) {
      pre_.params = params_line(body);
    } else if (body.starts_with("Using devices")) {
      pre_.devices.clear();
      pre_.devices_done = false;
    } else if (body.starts_with("Rank")) {
      if (auto d = nccl_tests_device_line(body)) {
        if (pre_.devices_done) {
          pre_.devices.clear();
          pre_.devices_done = false;
        }
        pre_.devices.push_back(std::move(*d));
      }
    }
    return Status::Ok();
  }

  Status take_row(std::string_view line) {
    std::vector<std::string_view> w = split_ws(line);
    const size_t fixed = layout_.fixed();
    // fabscope's own tables end a row whose time is near the loop's floor with "~".
    // (after the timestamp, where -S gave one)
    if ((w.size() == fixed + 1 || layout_.timestamp) && w.size() > fixed && w.back() == "~") w.pop_back();
    if (w.size() < fixed || (!layout_.timestamp && w.size() > fixed)) {
      return error(line_, fmt::format("a table row with {} fields where the header has {}{}: cut off or garbled?",
                                      w.size(), fixed, layout_.timestamp ? " and a timestamp" : ""));
    }
    NcclTestsRow row;
    row.line = line_;
    auto size = parse_integer<uint64_t>(w[0]);
    auto count = parse_integer<uint64_t>(w[1]);
    if (!size) return error(line_, fmt::format("size '{}' is not a whole number of bytes", w[0]));
    if (!count) return error(line_, fmt::format("count '{}' is not a whole number of elements", w[1]));
    row.size_bytes = *size;
    row.count = *count;
    if (!known_type(w[2])) return error(line_, fmt::format("type '{}' is not an nccl-tests type", w[2]));
    row.type = std::string(w[2]);
    if (!known_redop(w[3])) return error(line_, fmt::format("redop '{}' is not an nccl-tests redop", w[3]));
    row.redop = std::string(w[3]);
    size_t i = 4;
    if (layout_.root) {
      auto root = parse_integer<int>(w[4]);
      if (!root) return error(line_, fmt::format("root '{}' is not a rank", w[4]));
      row.root = *root;
      i = 5;
    }
    for (size_t g = 0; g < layout_.groups.size(); ++g) {
      const Group& group = layout_.groups[g];
      auto placement = parse_group(group, w, i);
      if (!placement.ok()) return placement.status();
      (g == 0 ? row.out_of_place : row.in_place) = *placement;
      i += group.columns();
    }
    if (layout_.timestamp && i < w.size()) {
      std::string ts;
      for (; i < w.size(); ++i) ts += (ts.empty() ? "" : " ") + std::string(w[i]);
      row.timestamp = ts;
    }
    open_->rows.push_back(std::move(row));
    last_row_line_ = line_;
    return Status::Ok();
  }

  Result<std::optional<NcclTestsPlacement>> parse_group(const Group& g, const std::vector<std::string_view>& w,
                                                        size_t i) const {
    size_t na = 0;
    for (size_t k = 0; k < g.columns(); ++k) na += w[i + k] == "N/A";
    if (na == g.columns()) return std::optional<NcclTestsPlacement>();
    NcclTestsPlacement p;
    const char* names[] = {"time", "algbw", "busbw"};
    double* out[] = {&p.time_us, &p.algbw_gbps, &p.busbw_gbps};
    for (int k = 0; k < 3; ++k) {
      auto v = parse_number(w[i + k]);
      if (!v || *v < 0) {
        return error(line_, fmt::format("{} '{}' is not a number", names[k], w[i + k]));
      }
      *out[k] = *v;
    }
    size_t j = i + 3;
    if (g.wrong == Group::Wrong::kCount) {
      if (w[j] != "N/A") {
        auto v = parse_integer<int64_t>(w[j]);
        if (!v || *v < 0) return error(line_, fmt::format("#wrong '{}' is not a count", w[j]));
        p.wrong = *v;
      }
      ++j;
    } else if (g.wrong == Group::Wrong::kError) {
      // Old versions print the largest error, not a count: 0 is right; anything else may be
      // within the type's tolerance, so the count is not known.
      if (w[j] != "N/A") {
        auto v = parse_number(w[j]);
        if (!v) return error(line_, fmt::format("error '{}' is not a number", w[j]));
        if (*v == 0) p.wrong = 0;
      }
      ++j;
    }
    if (!g.per_iter.empty()) {
      NcclTestsPerIter pi;
      for (const std::string& name : g.per_iter) {
        auto v = parse_number(w[j]);
        if (!v && w[j] != "N/A") return error(line_, fmt::format("{} '{}' is not a number", name, w[j]));
        if (v) {
          if (name == "i_min") pi.min_us = v;
          if (name == "i_max") pi.max_us = v;
          if (name == "i_avg" || name == "i_mean") pi.avg_us = v;
          if (name == "i_p50" || name == "i_med") pi.p50_us = v;
          if (name == "i_p95") pi.p95_us = v;
          if (name == "i_p99") pi.p99_us = v;
          if (name == "i_stdev" || name == "i_std") pi.stdev_us = v;
          if (name == "i_cv%" || name == "i_cv") pi.cv_pct = v;
        }
        ++j;
      }
      p.per_iter = std::move(pi);
    }
    return std::optional<NcclTestsPlacement>(std::move(p));
  }

  std::string_view text_;
  const std::string& source_;
  int line_ = 0;
  int last_row_line_ = 0;
  Preamble pre_;
  std::optional<NcclTestsTable> open_;
  Layout layout_;
  std::vector<NcclTestsTable> tables_;
};

// ---- -J JSON ----

using OJson = nlohmann::json;

class JsonReader {
 public:
  explicit JsonReader(const std::string& source) : source_(source) {}

  Status fail(const std::string& path, const std::string& what) const {
    return Status::Invalid(fmt::format("'{}': {} {}", source_, path, what));
  }

  // A number, or a string holding one ("nan" is not), at `path`.
  Result<double> num(const OJson& v, const std::string& path) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      auto x = parse_number(trim(v.get<std::string>()));
      if (x) return *x;
    }
    return fail(path, fmt::format("is not a number ({})", dump_json(v)));
  }
  std::optional<double> opt_num(const OJson& obj, const char* key) const {
    if (!obj.is_object() || !obj.contains(key)) return std::nullopt;
    auto v = num(obj[key], key);
    return v.ok() ? std::optional<double>(*v) : std::nullopt;
  }
  Result<const OJson*> member(const OJson& obj, const char* key, const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) return fail(path + key, "is missing");
    return &obj[key];
  }

 private:
  const std::string& source_;
};

Result<std::optional<NcclTestsPlacement>> json_placement(const JsonReader& j, const OJson& result, const char* key,
                                                         const std::string& path) {
  if (!result.contains(key) || result[key].is_null()) return std::optional<NcclTestsPlacement>();
  const OJson& p = result[key];
  const std::string at = fmt::format("{}.{}", path, key);
  if (!p.is_object()) return j.fail(at, "is not an object");
  NcclTestsPlacement out;
  const char* time_key = p.contains("time") ? "time" : "cpu_time";
  auto t = j.member(p, time_key, at + ".");
  if (!t.ok()) return j.fail(at + ".time", "is missing");
  auto time = j.num(**t, at + "." + time_key);
  if (!time.ok()) return time.status();
  out.time_us = *time;
  for (auto [name, dst] : {std::pair<const char*, double*>{"alg_bw", &out.algbw_gbps}, {"bus_bw", &out.busbw_gbps}}) {
    auto m = j.member(p, name, at + ".");
    if (!m.ok()) return m.status();
    auto v = j.num(**m, at + "." + name);
    if (!v.ok()) return v.status();
    *dst = *v;
  }
  if (p.contains("nwrong") && !p["nwrong"].is_null()) {
    auto v = j.num(p["nwrong"], at + ".nwrong");
    if (v.ok() && *v >= 0) out.wrong = static_cast<int64_t>(*v);
  }
  const std::string per_key = std::string(key) + "_per_iter";
  if (result.contains(per_key) && result[per_key].is_object()) {
    const OJson& pi = result[per_key];
    NcclTestsPerIter s;
    s.min_us = j.opt_num(pi, "min_us");
    s.max_us = j.opt_num(pi, "max_us");
    s.avg_us = j.opt_num(pi, "avg_us");
    s.p50_us = j.opt_num(pi, "p50_us");
    s.p95_us = j.opt_num(pi, "p95_us");
    s.p99_us = j.opt_num(pi, "p99_us");
    s.stdev_us = j.opt_num(pi, "stdev_us");
    s.cv_pct = j.opt_num(pi, "cv_pct");
    if (pi.contains("times_us") && pi["times_us"].is_array()) {
      size_t k = 0;
      for (const OJson& x : pi["times_us"]) {
        auto v = j.num(x, fmt::format("{}.{}.times_us[{}]", path, per_key, k++));
        if (!v.ok()) return v.status();
        s.times_us.push_back(*v);
      }
    }
    out.per_iter = std::move(s);
  }
  return std::optional<NcclTestsPlacement>(std::move(out));
}

// The program (args[0], its base name) and the NCCL version (a string, or NCCL's integer
// code). The file's own "version" is its format's, not the tool's: not tests_version.
void json_header(const OJson& doc, NcclTestsTable& t) {
  if (doc.contains("args") && doc["args"].is_array() && !doc["args"].empty() && doc["args"][0].is_string()) {
    std::string p = doc["args"][0].get<std::string>();
    const size_t slash = p.find_last_of('/');
    t.program = slash == std::string::npos ? p : p.substr(slash + 1);
  }
  if (doc.contains("nccl_version")) {
    const OJson& v = doc["nccl_version"];
    if (v.is_string()) t.nccl_version = v.get<std::string>();
    if (v.is_number_integer()) t.nccl_version = nccl_version_of_code(std::to_string(v.get<int64_t>()));
  }
}

// The run's parameters from "config": numbers, or "true"/"false" and booleans for flags.
NcclTestsParams json_params(const JsonReader& j, const OJson& c) {
  NcclTestsParams p;
  auto geti = [&](const char* key) -> std::optional<int64_t> {
    auto v = j.opt_num(c, key);
    if (!v && c.contains(key) && c[key].is_string()) {
      const std::string s = c[key].get<std::string>();
      if (s == "true") return 1;
      if (s == "false") return 0;
    }
    if (!v && c.contains(key) && c[key].is_boolean()) return c[key].get<bool>() ? 1 : 0;
    return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
  };
  p.nthreads = static_cast<int>(geti("nthreads").value_or(1));
  p.ngpus = static_cast<int>(geti("ngpus").value_or(1));
  p.min_bytes = static_cast<uint64_t>(geti("minimum_bytes").value_or(0));
  p.max_bytes = static_cast<uint64_t>(geti("maximum_bytes").value_or(0));
  if (auto v = geti("step_factor")) p.step_factor = static_cast<uint64_t>(*v);
  if (auto v = geti("step_bytes")) p.step_bytes = static_cast<uint64_t>(*v);
  if (auto v = geti("warmup_iters")) p.warmup_iters = static_cast<int>(*v);
  if (auto v = geti("iterations")) p.iters = static_cast<int>(*v);
  if (auto v = geti("aggregated_iterations")) p.agg_iters = static_cast<int>(*v);
  if (auto v = geti("validation")) p.validation = static_cast<int>(*v);
  if (auto v = geti("graph")) p.graph = static_cast<int>(*v);
  return p;
}

// One of "config"'s "devices": a process's first GPU.
NcclTestsDevice json_device(const JsonReader& j, const OJson& d) {
  NcclTestsDevice dev;
  dev.rank = static_cast<int>(j.opt_num(d, "rank").value_or(0));
  if (auto g = j.opt_num(d, "group")) dev.group = static_cast<int>(*g);
  dev.pid = static_cast<int>(j.opt_num(d, "pid").value_or(0));
  if (d.contains("hostname") && d["hostname"].is_string())
    dev.host = std::string(trim(d["hostname"].get<std::string>()));
  dev.device = static_cast<int>(j.opt_num(d, "device").value_or(0));
  if (d.contains("device_hex") && d["device_hex"].is_string()) dev.bus_id = d["device_hex"].get<std::string>();
  if (d.contains("device_info") && d["device_info"].is_string()) {
    dev.device_name = d["device_info"].get<std::string>();
  }
  return dev;
}

void json_config(const JsonReader& j, const OJson& doc, NcclTestsTable& t) {
  if (!doc.contains("config") || !doc["config"].is_object()) return;
  const OJson& c = doc["config"];
  t.params = json_params(j, c);
  if (c.contains("devices") && c["devices"].is_array()) {
    for (const OJson& d : c["devices"]) {
      if (d.is_object()) t.devices.push_back(json_device(j, d));
    }
  }
}

// One of "results" (at `path`, for messages): size, count, type, redop, root and its
// placements, each checked.
Result<NcclTestsRow> json_row(const JsonReader& j, const OJson& r, const std::string& path) {
  if (!r.is_object()) return j.fail(path, "is not an object");
  NcclTestsRow row;
  for (auto [key, dst] : {std::pair<const char*, uint64_t*>{"size", &row.size_bytes}, {"count", &row.count}}) {
    auto m = j.member(r, key, path + ".");
    if (!m.ok()) return m.status();
    auto v = j.num(**m, path + "." + key);
    if (!v.ok()) return v.status();
    if (*v < 0 || *v != std::floor(*v)) return j.fail(path + "." + key, "is not a whole number");
    *dst = static_cast<uint64_t>(*v);
  }
  for (auto [key, dst] : {std::pair<const char*, std::string*>{"type", &row.type}, {"redop", &row.redop}}) {
    auto m = j.member(r, key, path + ".");
    if (!m.ok()) return m.status();
    if (!(*m)->is_string()) return j.fail(path + "." + key, "is not a string");
    *dst = std::string(trim((*m)->get<std::string>()));
  }
  if (!known_type(row.type)) return j.fail(path + ".type", fmt::format("'{}' is not an nccl-tests type", row.type));
  if (!known_redop(row.redop)) {
    return j.fail(path + ".redop", fmt::format("'{}' is not an nccl-tests redop", row.redop));
  }
  if (r.contains("root") && !r["root"].is_null()) {
    auto v = j.num(r["root"], path + ".root");
    if (!v.ok()) return v.status();
    row.root = static_cast<int>(*v);
  }
  auto oop = json_placement(j, r, "out_of_place", path);
  if (!oop.ok()) return oop.status();
  auto ip = json_placement(j, r, "in_place", path);
  if (!ip.ok()) return ip.status();
  if (!*oop && !*ip) return j.fail(path, "has neither out_of_place nor in_place");
  row.out_of_place = std::move(*oop);
  row.in_place = std::move(*ip);
  return row;
}

// The summary after the rows: average bus bandwidth and out-of-bounds count.
void json_summary(const JsonReader& j, const OJson& doc, NcclTestsTable& t) {
  if (doc.contains("average_bus_bandwidth") && doc["average_bus_bandwidth"].is_object()) {
    t.avg_busbw_gbps = j.opt_num(doc["average_bus_bandwidth"], "bandwidth");
  }
  if (doc.contains("out_of_bounds") && doc["out_of_bounds"].is_object()) {
    if (auto v = j.opt_num(doc["out_of_bounds"], "count")) t.out_of_bounds = static_cast<int64_t>(*v);
  }
}

}  // namespace

// "#  Rank  0 Group  0 Pid   6287 on     fs-207 device  0 [0x18] NVIDIA H200"
std::optional<NcclTestsDevice> nccl_tests_device_line(std::string_view body) {
  std::vector<std::string_view> w = split_ws(body);
  if (w.size() < 7 || w[0] != "Rank") return std::nullopt;
  NcclTestsDevice d;
  size_t i = 0;
  auto rank = parse_integer<int>(w[1]);
  if (!rank) return std::nullopt;
  d.rank = *rank;
  i = 2;
  if (w[i] == "Group" && i + 1 < w.size()) {
    d.group = parse_integer<int>(w[i + 1]);
    i += 2;
  }
  if (i + 5 > w.size() || w[i] != "Pid" || w[i + 2] != "on") return std::nullopt;
  auto pid = parse_integer<int>(w[i + 1]);
  if (!pid) return std::nullopt;
  d.pid = *pid;
  d.host = std::string(w[i + 3]);
  if (w[i + 4] != "device" || i + 5 >= w.size()) return std::nullopt;
  auto dev = parse_integer<int>(w[i + 5]);
  if (!dev) return std::nullopt;
  d.device = *dev;
  // The rest: "[0x18] NVIDIA H200".
  const size_t open = body.find('[');
  const size_t close = body.find(']', open == std::string_view::npos ? 0 : open);
  if (open != std::string_view::npos && close != std::string_view::npos) {
    d.bus_id = std::string(body.substr(open + 1, close - open - 1));
    d.device_name = std::string(trim(body.substr(close + 1)));
  }
  return d;
}

Result<std::vector<NcclTestsTable>> parse_nccl_tests_text(std::string_view text, const std::string& source) {
  return TextParser(text, source).run();
}

Result<NcclTestsTable> parse_nccl_tests_json(std::string_view text, const std::string& source) {
  auto parsed = parse_json_text<OJson>(text, fmt::format("'{}'", source));
  if (!parsed.ok()) return parsed.status();
  OJson doc = std::move(*parsed);
  const JsonReader j(source);
  if (!doc.is_object() || !doc.contains("results")) {
    return j.fail("results", "is missing: not nccl-tests -J output");
  }
  NcclTestsTable t;
  t.source = source;
  t.json = true;
  json_header(doc, t);
  json_config(j, doc, t);
  const OJson& results = doc["results"];
  if (!results.is_array()) return j.fail("results", "is not an array");
  size_t k = 0;
  for (const OJson& r : results) {
    auto row = json_row(j, r, fmt::format("results[{}]", k++));
    if (!row.ok()) return row.status();
    if (row->out_of_place && r.contains("out_of_place") && r["out_of_place"].contains("cpu_time")) t.cpu_time = true;
    t.rows.push_back(std::move(*row));
  }
  if (t.rows.empty()) return j.fail("results", "is empty");
  json_summary(j, doc, t);
  return t;
}

Result<std::vector<NcclTestsTable>> parse_nccl_tests(std::string_view text, const std::string& source) {
  const std::string_view t = trim(text);
  if (t.starts_with("{")) {
    auto table = parse_nccl_tests_json(text, source);
    if (!table.ok()) return table.status();
    return std::vector<NcclTestsTable>{std::move(*table)};
  }
  return parse_nccl_tests_text(text, source);
}

}  // namespace fabscope
