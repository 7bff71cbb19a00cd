#include "report/osu_parse.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "core/text.h"
#include "report/text_fields.h"

namespace fabscope {

namespace {

// The titles fabscope imports: OSU's BENCHMARK strings without "OSU MPI%s " and " Test".
struct KnownBenchmark {
  std::string_view name;
  std::string_view program;
  std::optional<Collective> collective;
  std::optional<P2pMode> p2p_mode;  // null for collectives
};
const KnownBenchmark kBenchmarks[] = {
    {"Allreduce Latency", "osu_allreduce", Collective::kAllReduce, std::nullopt},
    {"Allgather Latency", "osu_allgather", Collective::kAllGather, std::nullopt},
    {"All-to-All Personalized Exchange Latency", "osu_alltoall", Collective::kAllToAll, std::nullopt},
    {"Broadcast Latency", "osu_bcast", Collective::kBroadcast, std::nullopt},
    {"Reduce Latency", "osu_reduce", Collective::kReduce, std::nullopt},
    {"Reduce_scatter Latency", "osu_reduce_scatter", Collective::kReduceScatter, std::nullopt},
    {"Reduce_scatter_block Latency", "osu_reduce_scatter_block", Collective::kReduceScatter, std::nullopt},
    {"Gather Latency", "osu_gather", Collective::kGather, std::nullopt},
    {"Scatter Latency", "osu_scatter", Collective::kScatter, std::nullopt},
    {"Latency", "osu_latency", std::nullopt, P2pMode::kLatency},
    {"Bandwidth", "osu_bw", std::nullopt, P2pMode::kBandwidth},
    {"Bi-Directional Bandwidth", "osu_bibw", std::nullopt, P2pMode::kBidirectional},
};

std::string known_programs() {
  std::string s;
  for (const KnownBenchmark& b : kBenchmarks) s += (s.empty() ? "" : ", ") + std::string(b.program);
  return s;
}

// OSU's accelerator suffixes on "OSU MPI", longest first.
constexpr std::string_view kAccels[] = {"-CUDA MANAGED", "-CUDA", "-MANAGED", "-OPENACC", "-ROCM"};

// One column of a header, in the order printed.
enum class Column { kAvgLatency, kBandwidth, kMin, kMax, kIterations, kValidation, kTail };
struct Header {
  std::vector<Column> columns;  // after "Size"
  std::vector<int> percentiles;
  bool tail_bandwidth = false;
};

// "# Size       Avg Latency(us)   Min Latency(us) ..." without its "#": the columns after
// Size, or a message naming the first column fabscope does not know.
Result<Header> parse_header(std::string_view body) {
  Header h;
  std::string_view rest = trim(body);
  rest.remove_prefix(std::string_view("Size").size());
  static constexpr std::pair<std::string_view, Column> kNames[] = {
      {"Avg Latency(us)", Column::kAvgLatency}, {"Latency (us)", Column::kAvgLatency},
      {"Bandwidth (MB/s)", Column::kBandwidth}, {"Min Latency(us)", Column::kMin},
      {"Max Latency(us)", Column::kMax},        {"Iterations", Column::kIterations},
      {"Validation", Column::kValidation}};
  while (!(rest = trim(rest)).empty()) {
    bool found = false;
    for (const auto& [text, column] : kNames) {
      if (rest.starts_with(text)) {
        h.columns.push_back(column);
        rest.remove_prefix(text.size());
        found = true;
        break;
      }
    }
    if (found) continue;
    // -z: "P50 Tail Lat(us)", "P99 Tail BW(MB/s)".
    if (rest.starts_with("P")) {
      size_t digits = 1;
      while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
      auto p = parse_integer<int>(rest.substr(1, digits - 1));
      const std::string_view after = rest.substr(digits);
      for (std::string_view unit : {" Tail Lat(us)", " Tail BW(MB/s)"}) {
        if (p && after.starts_with(unit)) {
          h.columns.push_back(Column::kTail);
          h.percentiles.push_back(*p);
          h.tail_bandwidth = unit == " Tail BW(MB/s)";
          rest = after.substr(unit.size());
          found = true;
          break;
        }
      }
    }
    if (found) continue;
    const size_t gap = rest.find("  ");
    return Status::Invalid(
        fmt::format("column '{}' is not one fabscope reads (Avg Latency(us), Bandwidth (MB/s), Min Latency(us), Max "
                    "Latency(us), Iterations, Validation, Pn Tail Lat(us))",
                    rest.substr(0, gap)));
  }
  return h;
}

// Whether a line outside a table is a row that lost its header: every field a number
// (or a validation word).
bool looks_like_row(const std::vector<std::string_view>& w) {
  if (w.empty() || !parse_integer<uint64_t>(w[0])) return false;
  for (std::string_view x : w) {
    if (!parse_number(x) && x != "Pass" && x != "Fail") return false;
  }
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<std::vector<OsuTable>> run() {
    LineReader lines(text_);
    std::string_view raw;
    while (lines.next(raw)) {
      line_ = lines.number();
      if (launcher_says_stderr(raw)) continue;  // not OSU's table output
      Status s = take(trim(strip_launcher_prefix(raw)));
      if (!s.ok()) return s;
    }
    FABSCOPE_RETURN_IF_ERROR(close_table());
    FABSCOPE_RETURN_IF_ERROR(check_title_had_table());
    if (tables_.empty()) {
      return Status::Invalid(
          fmt::format("'{}': no OSU table found (expected a '# OSU MPI ... Test' title and a '# Size ...' column "
                      "header with rows under it)",
                      source_));
    }
    return std::move(tables_);
  }

 private:
  Status error(int line, const std::string& what) const {
    return Status::Invalid(fmt::format("'{}' line {}: {}", source_, line, what));
  }

  Status take(std::string_view line) {
    if (line.starts_with("# OSU ") || line == "# OSU") return take_title(line);
    if (line.starts_with("# Datatype:")) return take_datatype(line);
    if (line.starts_with("#")) {
      const std::string_view body = trim(line.substr(1));
      if (body == "Size" || body.starts_with("Size ")) return take_header(body);
      return other_line(line);  // OSU's own preamble lines ("# Send Buffer on DEVICE (D) ...")
    }
    if (line.starts_with("DATA VALIDATION ERROR:") && open_ && !open_->rows.empty() && !interrupted_line_) {
      open_->validation_error = std::string(line);
      return close_table();
    }
    const std::vector<std::string_view> w = split_ws(line);
    if (open_) {
      // A row: fields that are all numbers (or Pass/Fail), or as many as the header has
      // after a whole-number size. Anything else ("2 total processes killed ...") may be
      // what the launcher or a later command printed after the table: an error only if
      // rows follow it.
      if (looks_like_row(w) || (w.size() == 1 + header_.columns.size() && parse_integer<uint64_t>(w[0]))) {
        return take_row(w);
      }
      return other_line(line);
    }
    if (looks_like_row(w)) {
      return error(line_, title_line_ == 0 ? "a table row before any '# OSU MPI ... Test' title"
                                           : "a table row before the table's '# Size ...' column header");
    }
    return Status::Ok();  // the launcher's lines, or another program's, between tables
  }

  // A line OSU does not print inside a table: remembered, and an error if a row follows.
  Status other_line(std::string_view line) {
    if (open_ && !interrupted_line_) {
      interrupted_line_ = line_;
      interrupted_text_ = line.empty() ? "a blank line" : fmt::format("'{}'", line.substr(0, 80));
    }
    return Status::Ok();
  }

  Status take_title(std::string_view line) {
    FABSCOPE_RETURN_IF_ERROR(close_table());
    FABSCOPE_RETURN_IF_ERROR(check_title_had_table());
    std::string_view t = trim(line.substr(1));
    title_ = std::string(t);
    title_line_ = line_;
    title_tables_ = 0;
    datatype_.reset();
    datatype_line_ = 0;
    accel_.clear();
    version_.reset();
    std::string_view name = t;
    if (!name.starts_with("OSU MPI")) {
      return error(
          line_, fmt::format("'{}' is not an OSU MPI benchmark fabscope imports (it imports {})", t, known_programs()));
    }
    name.remove_prefix(std::string_view("OSU MPI").size());
    for (std::string_view a : kAccels) {
      if (name.starts_with(a)) {
        accel_ = std::string(a.substr(1));
        name.remove_prefix(a.size());
        break;
      }
    }
    name = trim(name);
    // " v7.4" (OSU built without PACKAGE_VERSION prints none).
    const size_t space = name.rfind(' ');
    if (space != std::string_view::npos && name.size() > space + 2 && name[space + 1] == 'v' &&
        std::isdigit(static_cast<unsigned char>(name[space + 2]))) {
      version_ = std::string(name.substr(space + 2));
      name = trim(name.substr(0, space));
    }
    auto b = osu_benchmark_of_title(name);
    if (!b.ok()) {
      return error(line_,
                   fmt::format("'{}' is not an OSU benchmark fabscope imports (it imports {})", t, known_programs()));
    }
    benchmark_ = *b;
    return Status::Ok();
  }

  Status take_datatype(std::string_view line) {
    FABSCOPE_RETURN_IF_ERROR(close_table());
    if (title_line_ == 0) return error(line_, "a '# Datatype:' line before any '# OSU MPI ... Test' title");
    std::string_view d = trim(line.substr(std::string_view("# Datatype:").size()));
    if (d.ends_with(".")) d.remove_suffix(1);
    if (d.empty()) return error(line_, "the '# Datatype:' line names no datatype");
    datatype_ = std::string(d);
    datatype_line_ = line_;
    return Status::Ok();
  }

  Status take_header(std::string_view body) {
    FABSCOPE_RETURN_IF_ERROR(close_table());
    if (title_line_ == 0) return error(line_, "a '# Size ...' column header before any '# OSU MPI ... Test' title");
    auto h = parse_header(body);
    if (!h.ok()) return error(line_, h.status().message());
    const bool p2p_bw = benchmark_.p2p_mode && *benchmark_.p2p_mode != P2pMode::kLatency;
    if (h->columns.empty() || h->columns[0] != (p2p_bw ? Column::kBandwidth : Column::kAvgLatency)) {
      return error(line_, fmt::format("the header's first column after Size is not {}, as {} prints it",
                                      p2p_bw ? "'Bandwidth (MB/s)'" : "'Avg Latency(us)'", benchmark_.program));
    }
    OsuTable t;
    t.source = source_;
    t.title_line = title_line_;
    t.header_line = line_;
    t.title = title_;
    t.accel = accel_;
    t.version = version_;
    t.benchmark = benchmark_;
    t.datatype = datatype_;
    t.datatype_line = datatype_line_;
    t.bandwidth = p2p_bw;
    t.percentiles = h->percentiles;
    for (Column c : h->columns) {
      t.full |= c == Column::kMin || c == Column::kMax || c == Column::kIterations;
      t.validation |= c == Column::kValidation;
    }
    header_ = std::move(*h);
    open_ = std::move(t);
    interrupted_line_ = 0;
    return Status::Ok();
  }

  Status take_row(const std::vector<std::string_view>& w) {
    if (interrupted_line_) {
      return error(interrupted_line_,
                   fmt::format("{} inside the table whose header is at line {} (its rows go on at line {}): "
                               "not OSU's output; two outputs interleaved?",
                               interrupted_text_, open_->header_line, line_));
    }
    const size_t columns = 1 + header_.columns.size();
    if (w.size() != columns) {
      return error(line_, fmt::format("a table row with {} fields where the header at line {} has {}: cut off "
                                      "or garbled?",
                                      w.size(), open_->header_line, columns));
    }
    OsuRow row;
    row.line = line_;
    row.size_bytes = *parse_integer<uint64_t>(w[0]);
    if (!open_->rows.empty() && row.size_bytes <= open_->rows.back().size_bytes) {
      return error(line_, fmt::format("size {} after {} at line {}: OSU's sizes increase within a table",
                                      row.size_bytes, open_->rows.back().size_bytes, open_->rows.back().line));
    }
    for (size_t i = 0; i < header_.columns.size(); ++i) {
      const std::string_view x = w[i + 1];
      const Column c = header_.columns[i];
      if (c == Column::kValidation) {
        if (x != "Pass" && x != "Fail") {
          return error(line_, fmt::format("validation '{}' is neither Pass nor Fail", x));
        }
        row.valid = x == "Pass";
      } else if (c == Column::kIterations) {
        auto v = parse_integer<int64_t>(x);
        if (!v || *v < 0) return error(line_, fmt::format("iterations '{}' is not a count", x));
        row.iterations = *v;
      } else {
        auto v = parse_number(x);
        if (!v || *v < 0) return error(line_, fmt::format("'{}' is not a number", x));
        // OSU prints every figure with two decimals (FLOAT_PRECISION): fewer is a line cut off.
        const size_t dot = x.find('.');
        if (dot == std::string_view::npos || x.size() - dot - 1 < 2) {
          return error(line_, fmt::format("'{}' has fewer than the two decimals OSU prints: cut off?", x));
        }
        switch (c) {
          case Column::kAvgLatency:
            row.avg_us = *v;
            break;
          case Column::kBandwidth:
            row.bw_mbytes_per_s = *v;
            break;
          case Column::kMin:
            row.min_us = *v;
            break;
          case Column::kMax:
            row.max_us = *v;
            break;
          default:
            row.tail.push_back(*v);
            break;
        }
      }
    }
    open_->rows.push_back(std::move(row));
    return Status::Ok();
  }

  Status close_table() {
    if (!open_) return Status::Ok();
    if (open_->rows.empty()) {
      return error(open_->header_line,
                   fmt::format("the {} table's header has no rows after it: truncated?", open_->benchmark.program));
    }
    tables_.push_back(std::move(*open_));
    open_.reset();
    interrupted_line_ = 0;
    ++title_tables_;
    return Status::Ok();
  }

  Status check_title_had_table() const {
    if (title_line_ > 0 && title_tables_ == 0) {
      return error(title_line_,
                   fmt::format("'{}' has no table after it (no '# Size ...' header): the run failed?", title_));
    }
    return Status::Ok();
  }

  std::string_view text_;
  const std::string& source_;
  int line_ = 0;
  // The benchmark whose title was read last, and the datatype line after it.
  std::string title_;
  int title_line_ = 0;
  int title_tables_ = 0;
  std::string accel_;
  std::optional<std::string> version_;
  OsuBenchmark benchmark_;
  std::optional<std::string> datatype_;
  int datatype_line_ = 0;
  // The table being read.
  std::optional<OsuTable> open_;
  Header header_;
  int interrupted_line_ = 0;  // the first line inside it that OSU did not print
  std::string interrupted_text_;
  std::vector<OsuTable> tables_;
};

}  // namespace

Result<OsuBenchmark> osu_benchmark_of_title(std::string_view name) {
  name = trim(name);
  std::string_view bare = name;
  if (bare.ends_with(" Test")) bare.remove_suffix(std::string_view(" Test").size());
  for (const KnownBenchmark& b : kBenchmarks) {
    if (bare == b.name) return OsuBenchmark{std::string(b.program), b.collective, b.p2p_mode};
  }
  return Status::Invalid(
      fmt::format("'{}' is not an OSU benchmark fabscope imports (it imports {})", name, known_programs()));
}

Result<std::vector<OsuTable>> parse_osu(std::string_view text, const std::string& source) {
  return Parser(text, source).run();
}

}  // namespace fabscope
