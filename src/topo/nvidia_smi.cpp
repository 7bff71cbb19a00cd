// `nvidia-smi topo -m` / `-mp`: a header of device columns (GPUn, NICn or mlx5_N, then
// "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"), one row per device, and in newer
// drivers a "NIC Legend" naming each NICn. Pasted copies lose whitespace, so header
// names and cells that ran together ("NIC7NIC8", "SYSSYS") are split by their shapes.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

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

}  // namespace

Status parse_nvidia_smi_topo(std::string_view text, std::string_view source, TopologySet& set) {
  auto lines = split_lines(text);
  std::string host;
  std::vector<std::string> columns;
  size_t header = lines.size();
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
    if (ok && !names.empty()) {
      columns = std::move(names);
      header = i;
      break;
    }
  }
  if (header == lines.size()) {
    return Status::Invalid(
        fmt::format("{}: no `nvidia-smi topo -m` header (a line starting GPU0 GPU1 ...) found", source));
  }
  const size_t ncol = columns.size();
  HostTopology& h = set.host(host);
  h.sources.push_back(fmt::format("nvidia-smi-topo:{}", source));
  // NIC legend: "  NIC0: mlx5_0".
  std::map<std::string, std::string> legend;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    auto toks = split_ws(lines[i]);
    if (toks.size() == 2 && toks[0].size() > 1 && toks[0].back() == ':' && toks[0].starts_with("NIC")) {
      legend[std::string(toks[0].substr(0, toks[0].size() - 1))] = std::string(toks[1]);
    }
  }
  auto device = [&](const std::string& col) { return legend.count(col) ? legend[col] : col; };
  // Columns: GPUs and NICs in the model.
  std::vector<int> col_gpu(ncol, -1);
  std::vector<int> col_nic(ncol, -1);
  for (size_t c = 0; c < ncol; ++c) {
    if (columns[c].starts_with("GPU")) {
      int idx = 0;
      std::from_chars(columns[c].data() + 3, columns[c].data() + columns[c].size(), idx);
      h.add_gpu(idx);
      col_gpu[c] = h.find_gpu(idx);
    } else {
      Nic& n = h.add_nic(device(columns[c]));
      n.rdma = true;
      col_nic[c] = h.find_nic(n.name);
    }
  }
  // Rows until the legend or a blank line after at least one row.
  int rows = 0;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    auto toks = split_ws(lines[i]);
    if (toks.empty()) {
      if (rows > 0) break;
      continue;
    }
    if (toks[0] == "Legend:" || toks[0] == "NIC") break;
    size_t n = device_name_at(toks[0]);
    std::string label(toks[0].substr(0, n));
    auto col = std::find(columns.begin(), columns.end(), label);
    if (n == 0 || col == columns.end()) {
      return Status::Invalid(
          fmt::format("{}:{}: a row must start with one of the header's devices, found '{}'", source, i + 1, toks[0]));
    }
    size_t row = static_cast<size_t>(col - columns.begin());
    std::vector<std::string> cells;
    std::vector<std::string_view> rest;
    std::string_view first_rest = toks[0].substr(n);
    size_t t = 1;
    if (!first_rest.empty() && !split_cells(first_rest, cells)) {
      return Status::Invalid(fmt::format("{}:{}: unknown cell '{}' in row {}", source, i + 1, first_rest, label));
    }
    for (; t < toks.size() && cells.size() < ncol; ++t) {
      if (!split_cells(toks[t], cells)) {
        return Status::Invalid(
            fmt::format("{}:{}: unknown cell '{}' in row {}; cells are X, NV#, PIX, PXB, PHB, "
                        "NODE or SYS",
                        source, i + 1, toks[t], label));
      }
    }
    if (cells.size() != ncol) {
      return Status::Invalid(
          fmt::format("{}:{}: row {} has {} cells for {} columns", source, i + 1, label, cells.size(), ncol));
    }
    for (; t < toks.size(); ++t) rest.push_back(toks[t]);
    ++rows;
    if (col_gpu[row] < 0) continue;  // NIC rows repeat the GPU rows' cells
    Gpu& g = h.gpus[col_gpu[row]];
    for (size_t c = 0; c < ncol; ++c) {
      if (col_nic[c] < 0) continue;
      auto cls = parse_path_class(cells[c]);
      if (cls) h.given_paths[{col_gpu[row], col_nic[c]}] = *cls;
    }
    // CPU Affinity, NUMA Affinity, GPU NUMA ID.
    if (!rest.empty()) {
      if (auto cpus = CpuSet::from_list(rest[0])) g.cpu_affinity = *cpus;
    }
    if (rest.size() >= 2) {
      int numa = -1;
      auto r = std::from_chars(rest[1].data(), rest[1].data() + rest[1].size(), numa);
      if (r.ec == std::errc() && r.ptr == rest[1].data() + rest[1].size() && numa >= 0) {
        g.numa = numa;
        if (!h.find_numa(numa)) h.numa.push_back({numa, g.cpu_affinity});
      }
    }
  }
  if (rows == 0) return Status::Invalid(fmt::format("{}:{}: the header has no rows under it", source, header + 1));
  return Status::Ok();
}

}  // namespace fabscope::topo
