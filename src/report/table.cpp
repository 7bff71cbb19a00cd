#include "report/table.h"

#include <fmt/format.h>
#include <cstdarg>
#include <cstdio>

namespace fabscope {

namespace {
// C printf semantics, exactly as nccl-tests prints.
[[gnu::format(printf, 1, 2)]] std::string cformat(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(static_cast<size_t>(n > 0 ? n : 0) + 1, '\0');
  std::vsnprintf(out.data(), out.size(), format, args);
  va_end(args);
  out.resize(static_cast<size_t>(n > 0 ? n : 0));
  return out;
}
}  // namespace

std::string nccl_float(double value, int width) {
  std::string buf(static_cast<size_t>(width) + 1, '\0');
  for (int decimals : {2, 1, 0}) {
    int n = std::snprintf(buf.data(), buf.size(), "%*.*f", width, decimals, value);
    if (n <= width) return std::string(buf.c_str());
  }
  std::snprintf(buf.data(), buf.size(), width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return std::string(buf.c_str());
}

std::string render_preamble(const Report& r) {
  const RunContext& c = r.context;
  std::string out =
      fmt::format("# fabscope {} ({}) backend {}: {}\n", c.tool.version, c.tool.git_id, c.backend, c.backend_library);
  if (r.sweep_settings) {
    const SweepSettings& s = *r.sweep_settings;
    bool factor = s.step_factor > 1;
    out += cformat(
        "# nThread 1 nGpus 1 minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: 1 "
        "validation: %d graph: %d\n",
        static_cast<long>(s.min_bytes), static_cast<long>(s.max_bytes),
        static_cast<long>(factor ? s.step_factor : s.step_bytes), factor ? "factor" : "bytes", s.warmup_iters, s.iters,
        s.check_iters, s.graph_launches);
    if (s.blocking.value_or(0) != 0) out += cformat("# blocking: %d (-z)\n", *s.blocking);
  }
  out += "#\n# Using devices\n";
  for (const RankEntry& e : c.ranks) {
    out += cformat("#  Rank %2d Group %2d Pid %6d on %10s device %2s [%s] %s memory\n", e.rank, 0, e.pid,
                   e.host.c_str(), "-", c.memory.c_str(), c.memory.c_str());
  }
  return out;
}

std::string render_column_header(bool timestamps) {
  std::string out = "#\n";
  out += cformat("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
                 "", "", "", "");
  out += cformat("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s%s\n", "size", "count", "type",
                 "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", 0, "",
                 timestamps ? " timestamp" : "");
  out += cformat("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "",
                 "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "");
  return out;
}

namespace {
std::string placement_cells(const std::optional<PlacementResult>& p) {
  if (!p) return "                                ";  // nccl-tests' blank for a placement not run
  std::string cells = cformat("  %7s  %6s  %6s", nccl_float(p->time_us, 7).c_str(),
                              nccl_float(p->algbw_gbps, 6).c_str(), nccl_float(p->busbw_gbps, 6).c_str());
  if (p->wrong) {
    cells += cformat("  %6g", static_cast<double>(*p->wrong));
  } else {
    cells += "    N/A";
  }
  return cells;
}
}  // namespace

std::string render_row(const Sweep& s, const SweepPoint& p, bool timestamps) {
  std::string root = cformat("%6i", s.root ? *s.root : -1);
  std::string line = cformat("%12li  %12li  %8s  %6s  %6s", static_cast<long>(p.size_bytes), static_cast<long>(p.count),
                             s.dtype.c_str(), s.op ? s.op->c_str() : "none", root.c_str());
  line += placement_cells(p.out_of_place);
  line += placement_cells(p.in_place);
  if (timestamps) line += "  " + (p.time.empty() ? std::string("-") : p.time);
  const bool near_floor = (p.out_of_place && p.out_of_place->near_floor) || (p.in_place && p.in_place->near_floor);
  return line + (near_floor ? "  ~\n" : "\n");
}

std::string render_floor(const Sweep& s) {
  if (!s.floor_us) return "";
  return cformat(
      "# Floor: %.3f us per iteration (%s method: this loop around calls that do nothing); '~' ends a row whose "
      "time is within %gx of it\n",
      *s.floor_us, std::string(name(s.method)).c_str(), kNearFloorFactor);
}

void TableFooter::add(const SweepPoint& p) {
  for (const auto* pl : {&p.out_of_place, &p.in_place}) {
    if (!pl->has_value()) continue;
    busbw_sum_ += (*pl)->busbw_gbps;
    ++rows_;
    out_of_bounds_ += static_cast<int>((*pl)->wrong_ranks.size());
  }
}

std::string TableFooter::render(const std::string& collective) const {
  std::string out =
      cformat("# %-20s : %d %s\n", "Out of bounds values", out_of_bounds_, out_of_bounds_ ? "FAILED" : "OK");
  out += cformat("# %-20s : %g %s\n", "Avg bus bandwidth", average_busbw(), "");
  out += "#\n";
  out += fmt::format("# Collective test concluded: {}\n", collective);
  return out;
}

std::string render_group_start(const std::string& collective, bool timestamps) {
  return fmt::format("# Collective test starting: {}\n", collective) + render_column_header(timestamps);
}

std::string render_cycle_start(int cycle, int run_cycles) {
  return fmt::format("# Run cycle {}{}\n", cycle + 1, run_cycles > 0 ? fmt::format(" of {}", run_cycles) : "");
}

std::string render_tables(const Report& r) {
  if (r.sweeps.empty()) return "";  // e.g. a p2p report
  std::string out = render_preamble(r);
  size_t i = 0;
  while (i < r.sweeps.size()) {
    const std::string& coll = r.sweeps[i].collective;
    out += render_floor(r.sweeps[i]);
    const bool stamps = r.sweep_settings && r.sweep_settings->report_timestamps;
    out += render_group_start(coll, stamps);
    TableFooter footer;
    for (; i < r.sweeps.size() && r.sweeps[i].collective == coll; ++i) {
      for (const SweepPoint& p : r.sweeps[i].points) {
        out += render_row(r.sweeps[i], p, stamps);
        footer.add(p);
      }
    }
    out += footer.render(coll);
  }
  return out;
}

}  // namespace fabscope
