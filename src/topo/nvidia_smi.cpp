// `nvidia-smi topo -m` / `-mp`: a header of device columns (GPUn, NICn or mlx5_N, then
// "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"), one row per device, and in newer
// drivers a "NIC Legend" naming each NICn. Pasted copies lose whitespace, so header
// names and cells that ran together ("NIC7NIC8", "SYSSYS") are split by their shapes.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "core/text.h"
#include "topo/readers.h"

namespace fabscope::topo {

namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// One device name at the start of `s` ("GPU12", "NIC3", "mlx5_10", "mlx5_bond_0"):
// letters/digits, then an index; returns its length, 0 if none.
size_t device_name_at(std::string_view s) {
  for (std::string_view p : {"GPU", "NIC"}) {
    if (s.starts_with(p) && s.size() > p.size() && digit(s[p.size()])) {
      size_t n = p.size();
      while (n < s.size() && digit(s[n])) ++n;
      return n;
    }
  }
  // name_N: [a-z][a-z0-9]*(_[a-z]+)*_digits
  if (s.empty() || !alpha(s[0])) return 0;
  size_t n = 0;
  while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])))) ++n;
  while (n + 1 < s.size() && s[n] == '_') {
    size_t m = n + 1;
    if (digit(s[m])) {
      while (m < s.size() && digit(s[m])) ++m;
      return m;
    }
    while (m < s.size() && alpha(s[m])) ++m;
    if (m == n + 1) return 0;
    n = m;
  }
  return 0;
}

// Splits a header token that may hold several names.
bool split_names(std::string_view tok, std::vector<std::string>& out) {
  while (!tok.empty()) {
    size_t n = device_name_at(tok);
    if (n == 0) return false;
    out.emplace_back(tok.substr(0, n));
    tok.remove_prefix(n);
  }
  return true;
}

// Splits a cell token that may hold several cells ("SYSSYS", "PXBSYS").
bool split_cells(std::string_view tok, std::vector<std::string>& out) {
  static constexpr std::string_view kWords[] = {"NODE", "PIX", "PXB", "PHB", "SYS", "SOC", "NVB", "X"};
  while (!tok.empty()) {
    if (tok.starts_with("NV") && tok.size() > 2 && digit(tok[2])) {
      size_t n = 2;
      while (n < tok.size() && digit(tok[n])) ++n;
      out.emplace_back(tok.substr(0, n));
      tok.remove_prefix(n);
      continue;
    }
    bool matched = false;
    for (std::string_view w : kWords) {
      if (tok.starts_with(w)) {
        out.emplace_back(w);
        tok.remove_prefix(w.size());
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  return true;
}

using Lines = std::vector<std::string_view>;

// The header: the first line starting GPU0 whose tokens up to "CPU" are all device names,
// and the host of the last shell prompt up to it.
struct Header {
  std::string host;
  std::vector<std::string> columns;
  size_t line = 0;  // index into the lines
};

std::optional<Header> find_header(const Lines& lines) {
  std::string host;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string h = prompt_host(lines[i]);
    if (!h.empty()) host = h;
    auto toks = split_ws(lines[i]);
    if (toks.empty() || !toks[0].starts_with("GPU0")) continue;
    std::vector<std::string> names;
    bool ok = true;
    for (std::string_view t : toks) {
      if (t == "CPU") break;
      if (!split_names(t, names)) {
        ok = false;
        break;
      }
    }
    if (ok && !names.empty()) return Header{host, std::move(names), i};
  }
  return std::nullopt;
}

// NIC legend: "  NIC0: mlx5_0", anywhere below the header.
std::map<std::string, std::string> nic_legend(const Lines& lines, size_t header) {
  std::map<std::string, std::string> legend;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    auto toks = split_ws(lines[i]);
    if (toks.size() == 2 && toks[0].size() > 1 && toks[0].back() == ':' && toks[0].starts_with("NIC")) {
      legend[std::string(toks[0].substr(0, toks[0].size() - 1))] = std::string(toks[1]);
    }
  }
  return legend;
}

// Each column's GPU or NIC in the model (-1 where it is the other kind).
struct Columns {
  std::vector<int> gpu;
  std::vector<int> nic;
};

// The columns' GPUs and NICs added to the model, NICs by their legend names.
Columns add_columns(HostTopology& h, const std::vector<std::string>& columns,
                    const std::map<std::string, std::string>& legend) {
  Columns cols{std::vector<int>(columns.size(), -1), std::vector<int>(columns.size(), -1)};
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].starts_with("GPU")) {
      int idx = 0;
      std::from_chars(columns[c].data() + 3, columns[c].data() + columns[c].size(), idx);
      h.add_gpu(idx);
      cols.gpu[c] = h.find_gpu(idx);
    } else {
      auto named = legend.find(columns[c]);
      Nic& n = h.add_nic(named != legend.end() ? named->second : columns[c]);
      n.rdma = true;
      cols.nic[c] = h.find_nic(n.name);
    }
  }
  return cols;
}

// One row: its device's column, one cell per column, then what follows the cells (CPU
// Affinity, NUMA Affinity, GPU NUMA ID).
struct Row {
  size_t column = 0;
  std::vector<std::string> cells;
  std::vector<std::string_view> rest;
};

Result<Row> parse_row(const std::vector<std::string_view>& toks, const std::vector<std::string>& columns,
                      std::string_view source, size_t line_no) {
  const size_t ncol = columns.size();
  const size_t n = device_name_at(toks[0]);
  const std::string label(toks[0].substr(0, n));
  auto col = std::find(columns.begin(), columns.end(), label);
  if (n == 0 || col == columns.end()) {
    return Status::Invalid(
        fmt::format("{}:{}: a row must start with one of the header's devices, found '{}'", source, line_no, toks[0]));
  }
  Row row;
  row.column = static_cast<size_t>(col - columns.begin());
  std::string_view first_rest = toks[0].substr(n);
  if (!first_rest.empty() && !split_cells(first_rest, row.cells)) {
    return Status::Invalid(fmt::format("{}:{}: unknown cell '{}' in row {}", source, line_no, first_rest, label));
  }
  size_t t = 1;
  for (; t < toks.size() && row.cells.size() < ncol; ++t) {
    if (!split_cells(toks[t], row.cells)) {
      return Status::Invalid(
          fmt::format("{}:{}: unknown cell '{}' in row {}; cells are X, NV#, PIX, PXB, PHB, "
                      "NODE or SYS",
                      source, line_no, toks[t], label));
    }
  }
  if (row.cells.size() != ncol) {
    return Status::Invalid(
        fmt::format("{}:{}: row {} has {} cells for {} columns", source, line_no, label, row.cells.size(), ncol));
  }
  for (; t < toks.size(); ++t) row.rest.push_back(toks[t]);
  return row;
}

// A GPU's row: its paths to the NIC columns, its CPU affinity and NUMA node.
void apply_gpu_row(HostTopology& h, int gpu, const Row& row, const Columns& cols) {
  for (size_t c = 0; c < row.cells.size(); ++c) {
    if (cols.nic[c] < 0) continue;
    auto cls = parse_path_class(row.cells[c]);
    if (cls) h.given_paths[{gpu, cols.nic[c]}] = *cls;
  }
  Gpu& g = h.gpus[gpu];
  if (!row.rest.empty()) {
    if (auto cpus = CpuSet::from_list(row.rest[0])) g.cpu_affinity = *cpus;
  }
  if (row.rest.size() >= 2) {
    int numa = -1;
    std::string_view text = row.rest[1];
    auto r = std::from_chars(text.data(), text.data() + text.size(), numa);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size() && numa >= 0) {
      g.numa = numa;
      if (!h.find_numa(numa)) h.numa.push_back({numa, g.cpu_affinity});
    }
  }
}

}  // namespace

Status parse_nvidia_smi_topo(std::string_view text, std::string_view source, TopologySet& set) {
  const Lines lines = split_lines(text);
  const std::optional<Header> header = find_header(lines);
  if (!header) {
    return Status::Invalid(
        fmt::format("{}: no `nvidia-smi topo -m` header (a line starting GPU0 GPU1 ...) found", source));
  }
  HostTopology& h = set.host(header->host);
  h.sources.push_back(fmt::format("nvidia-smi-topo:{}", source));
  const Columns cols = add_columns(h, header->columns, nic_legend(lines, header->line));
  // Rows until the legend or a blank line after at least one row.
  int rows = 0;
  for (size_t i = header->line + 1; i < lines.size(); ++i) {
    auto toks = split_ws(lines[i]);
    if (toks.empty()) {
      if (rows > 0) break;
      continue;
    }
    if (toks[0] == "Legend:" || toks[0] == "NIC") break;
    auto row = parse_row(toks, header->columns, source, i + 1);
    if (!row.ok()) return row.status();
    ++rows;
    // NIC rows repeat the GPU rows' cells.
    if (const int gpu = cols.gpu[row->column]; gpu >= 0) apply_gpu_row(h, gpu, *row, cols);
  }
  if (rows == 0) {
    return Status::Invalid(fmt::format("{}:{}: the header has no rows under it", source, header->line + 1));
  }
  return Status::Ok();
}

}  // namespace fabscope::topo
