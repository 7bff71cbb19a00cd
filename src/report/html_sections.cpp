#include "report/html_sections.h"
#include "report/finding_codes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "coll/collective.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/svg.h"
#include "report/xml_escape.h"

namespace fabscope::html {

std::string td(const std::string& text, const char* css_class) {
  return css_class ? fmt::format("<td class=\"{}\">{}</td>", css_class, xml_escape(text))
                   : "<td>" + xml_escape(text) + "</td>";
}

namespace {

std::string sweep_name(const Sweep& s) {
  std::string out = s.collective + " " + s.dtype;
  if (s.op) out += " " + *s.op;
  if (s.root) out += fmt::format(" root {}", *s.root);
  return out;
}

// "allreduce float sum (mpi, 2 ranks; floor 0.011 us)": the method where it is not the
// default, the run's floor where it was measured.
std::string sweep_title(const Sweep& s) {
  std::string notes;
  if (s.method != TimingMethod::kNcclTests) notes += fmt::format("; {} method", name(s.method));
  if (s.floor_us) notes += fmt::format("; floor {:.3f} us", *s.floor_us);
  return fmt::format("{} ({}{}{})", sweep_name(s), s.backend, s.nranks > 0 ? fmt::format(", {} ranks", s.nranks) : "",
                     notes);
}

// An integer the finding's evidence holds under `key`; none when absent or not an integer.
std::optional<int64_t> int_evidence(const Finding& f, const char* key) {
  const auto it = f.evidence.find(key);
  if (it == f.evidence.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

const Sweep* matching(const Report& other, const Sweep& s) {
  for (const Sweep& o : other.sweeps) {
    if (o.collective == s.collective && o.dtype == s.dtype && o.op == s.op && o.root == s.root) return &o;
  }
  return nullptr;
}

std::string us_text(double us) {
  if (us >= 1e6) return fmt::format("{:.3g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.3g} ms", us / 1e3);
  return fmt::format("{:.3g} us", us);
}

// Out-of-place or in-place bus bandwidth of a sweep as a series.
svg::Series busbw_series(const Sweep& s, bool in_place, const std::string& label, const std::string& style) {
  svg::Series out{label, style, {}, {}};
  for (const SweepPoint& p : s.points) {
    const auto& r = in_place ? p.in_place : p.out_of_place;
    if (!r) continue;
    out.points.emplace_back(static_cast<double>(p.size_bytes), r->busbw_gbps);
    out.tips.push_back(fmt::format("{} {}: {:.3f} GB/s busbw, {:.3f} GB/s algbw, {}", label, format_size(p.size_bytes),
                                   r->busbw_gbps, r->algbw_gbps, us_text(r->time_us)));
  }
  return out;
}

svg::Plot busbw_plot(const std::string& collective, const std::string& title) {
  svg::Plot p;
  p.css_class = "plot busbw";
  p.data = {{"collective", collective}};
  p.title = title;
  p.x = {"message size", true, true};
  p.y = {"bus bandwidth (GB/s)"};
  return p;
}

// A compare report has no sweeps: its rows hold both runs' figures. Time rows become bus
// bandwidth the way nccl-tests computes it (size / time x the collective's factor).
std::string comparison_plots(const Comparison& c) {
  struct Group {
    std::string collective;
    std::map<std::string, svg::Series> series;  // "baseline out-of-place" -> points
  };
  std::map<std::string, Group> groups;
  std::vector<std::string> order;
  const int nranks = c.current.nranks > 0 ? c.current.nranks : c.baseline.nranks;
  for (const ComparisonRow& row : c.rows) {
    if (row.section != CompareSection::kSweep) continue;
    std::string key = row.subject;
    for (const char* tag : {" out-of-place", " in-place"}) {
      if (auto at = key.find(tag); at != std::string::npos) key.erase(at, std::string_view(tag).size());
    }
    auto [it, added] = groups.try_emplace(key);
    if (added) {
      order.push_back(key);
      it->second.collective = row.collective;
    }
    std::optional<double> factor;
    if (auto coll = collective_from_name(row.collective); coll.ok() && nranks > 0) {
      factor = busbw_factor(*coll, nranks);
    }
    auto busbw = [&](const std::optional<double>& v) -> std::optional<double> {
      if (!v) return std::nullopt;
      if (row.metric == CompareMetric::kBusbwGbps) return v;
      if (row.metric == CompareMetric::kTimeUs && factor && *v > 0)
        return static_cast<double>(row.size_bytes) / (*v * 1e3) * *factor;
      return std::nullopt;
    };
    const bool in_place = row.placement == Placement::kInPlace;
    const std::string_view placement = label(row.placement.value_or(Placement::kOutOfPlace));
    for (const bool base : {true, false}) {
      const auto v = busbw(base ? row.baseline : row.current);
      if (!v) continue;
      const std::string series = fmt::format("{} {}", base ? "baseline" : "current", placement);
      svg::Series& s = it->second.series[series];
      s.label = series;
      s.style = fmt::format("{}{}", in_place ? "s1" : "s0", base ? " dash" : "");
      s.points.emplace_back(static_cast<double>(row.size_bytes), *v);
      s.tips.push_back(
          fmt::format("{} {}: {:.3f} GB/s ({})", series, format_size(row.size_bytes), *v, name(row.verdict)));
    }
  }
  std::string out;
  for (const std::string& key : order) {
    svg::Plot p = busbw_plot(groups[key].collective, key);
    for (auto& [label, s] : groups[key].series) {
      std::vector<size_t> idx(s.points.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.points[a].first < s.points[b].first; });
      svg::Series sorted{s.label, s.style, {}, {}};
      for (size_t i : idx) {
        sorted.points.push_back(s.points[i]);
        sorted.tips.push_back(s.tips[i]);
      }
      p.series.push_back(std::move(sorted));
    }
    out += "<figure>" + svg::plot(p) + "</figure>";
  }
  return out;
}

}  // namespace

std::string bandwidth_section(const Report& r, std::span<const LabelledReport> beside) {
  std::string plots;
  if (r.comparison && r.sweeps.empty()) plots = comparison_plots(*r.comparison);
  for (const Sweep& s : r.sweeps) {
    svg::Plot p = busbw_plot(s.collective, sweep_title(s));
    const bool many = !beside.empty();
    p.series.push_back(busbw_series(s, false, many ? "this run out-of-place" : "out-of-place", "s0"));
    p.series.push_back(busbw_series(s, true, many ? "this run in-place" : "in-place", "s1"));
    int k = 2;
    for (const LabelledReport& b : beside) {
      const Sweep* o = b.report ? matching(*b.report, s) : nullptr;
      if (!o) continue;
      p.series.push_back(busbw_series(*o, false, b.label + " out-of-place", fmt::format("s{} dash", k % 6)));
      p.series.push_back(busbw_series(*o, true, b.label + " in-place", fmt::format("s{} dash", (k + 1) % 6)));
      k += 2;
    }
    std::erase_if(p.series, [](const svg::Series& x) { return x.points.empty(); });
    plots += "<figure>" + svg::plot(p) + "</figure>";
  }
  if (plots.empty()) return "";
  return "<section id=\"bandwidth\"><h2>Bus bandwidth</h2><p class=\"note\">Bus bandwidth against message size "
         "(log scale), computed as nccl-tests does: the size over the time, times the collective's bus factor." +
         std::string(beside.empty() && !r.comparison ? "" : " Dashed: the baseline.") + "</p><div class=\"plots\">" +
         plots + "</div></section>";
}

std::string spread_section(const Report& r) {
  std::string out;
  // Ranks the findings name as stragglers, per collective.
  std::set<std::pair<std::string, int>> flagged;
  for (const Finding& f : r.findings) {
    const auto rank = int_evidence(f, "rank");
    const auto it = f.evidence.find("collective");
    if (f.code == code::kRankStraggler && rank && it != f.evidence.end() && it->is_string()) {
      flagged.emplace(it->get<std::string>(), static_cast<int>(*rank));
    }
  }
  for (const Sweep& s : r.sweeps) {
    svg::Plot p;
    p.css_class = "plot spread";
    p.data = {{"collective", s.collective}};
    p.title = "Per-iteration time: " + sweep_title(s);
    p.x = {"message size", true, true};
    p.y = {"time per iteration (us)", true};
    svg::Series reported{"nccl-tests time (out-of-place)", "s0", {}, {}};
    for (const SweepPoint& pt : s.points) {
      if (!pt.out_of_place) continue;
      const PlacementResult& o = *pt.out_of_place;
      reported.points.emplace_back(static_cast<double>(pt.size_bytes), o.time_us);
      reported.tips.push_back(
          fmt::format("{}: {} (loop time / iterations)", format_size(pt.size_bytes), us_text(o.time_us)));
      if (o.iteration_us) {
        const TimeStats& t = *o.iteration_us;
        p.bands.push_back({static_cast<double>(pt.size_bytes), t.min_us, t.median_us, t.p99_us,
                           fmt::format("{}: min {}, median {}, p99 {}, max {}", format_size(pt.size_bytes),
                                       us_text(t.min_us), us_text(t.median_us), us_text(t.p99_us), us_text(t.max_us))});
      }
    }
    p.series.push_back(std::move(reported));
    out += "<figure>" + svg::plot(p) + "</figure>";

    // Per-rank strips: each rank's median time over the median rank's, at up to 16 sizes.
    std::vector<const SweepPoint*> timed;
    for (const SweepPoint& pt : s.points) {
      if (pt.out_of_place && pt.out_of_place->per_rank.size() > 1) timed.push_back(&pt);
    }
    if (timed.empty()) continue;
    std::vector<const SweepPoint*> shown;
    const size_t most = 16;
    for (size_t i = 0; i < std::min(most, timed.size()); ++i) {
      shown.push_back(timed[timed.size() <= most ? i : (i * (timed.size() - 1)) / (most - 1)]);
    }
    std::vector<svg::StripRow> rows;
    for (const SweepPoint* pt : shown) {
      const auto& ranks = pt->out_of_place->per_rank;
      std::vector<double> medians;
      for (const RankTiming& t : ranks) medians.push_back(t.median_us);
      const double mid = median(medians);
      svg::StripRow row{format_size(pt->size_bytes), {}};
      for (const RankTiming& t : ranks) {
        const double ratio = mid > 0 ? t.median_us / mid : 1;
        const bool hot = flagged.count({s.collective, t.rank}) > 0 || std::abs(ratio - 1) > 0.25;
        std::string host;
        for (const RankEntry& e : r.context.ranks) {
          if (e.rank == t.rank) host = " on " + e.host;
        }
        row.dots.push_back({ratio, hot,
                            fmt::format("rank {}{} at {}: median {}, {:.2f}x the median rank{}", t.rank, host,
                                        format_size(pt->size_bytes), us_text(t.median_us), ratio,
                                        flagged.count({s.collective, t.rank}) ? " (a straggler finding)" : "")});
      }
      rows.push_back(std::move(row));
    }
    out += "<figure>" +
           svg::strip("plot ranks", "Per-rank median time over the median rank's: " + sweep_title(s),
                      {"rank's median time / median rank's"}, rows) +
           "</figure>";
  }
  if (out.empty()) return "";
  return "<section id=\"spread\"><h2>Spread and stragglers</h2><p class=\"note\">Bars: each iteration's time of the "
         "slowest rank, min to p99, with the median marked. Strips: one dot per rank; red dots lie more than 25% from "
         "the median rank or are named by a straggler finding.</p><div class=\"plots\">" +
         out + "</div></section>";
}

namespace {

// The colour class of a link: its figure as a fraction of the median link's.
int ratio_bin(double ratio) {
  if (ratio >= 0.95) return 0;
  if (ratio >= 0.9) return 1;
  if (ratio >= 0.75) return 2;
  if (ratio >= 0.5) return 3;
  if (ratio >= 0.25) return 4;
  return 5;
}

}  // namespace

namespace {

// p2p --retest: the suspect links measured alone; "" without them.
std::string retest_table(const P2pSection& p, bool lat) {
  if (p.alone.empty()) return "";
  std::string out =
      "<h3>Suspects measured alone (--retest)</h3><table class=\"data\"><thead><tr><th>link</th><th>size</th>"
      "<th>alone</th></tr></thead><tbody>";
  for (const P2pLink& l : p.alone) {
    out += "<tr>" + td(fmt::format("{} -> {} ({} -> {})", l.src_rank, l.dst_rank, l.src_host, l.dst_host)) +
           td(format_size(l.size_bytes), "num") +
           td(fmt::format("{:.4g} {}", link_value(l, lat), lat ? "us" : "GB/s"), "num") + "</tr>";
  }
  return out + "</tbody></table>";
}

}  // namespace

std::string links_section(const Report& r) {
  if (!r.p2p || r.p2p->links.empty()) return "";
  const P2pSection& p = *r.p2p;
  const bool lat = p.mode == P2pMode::kLatency;
  // One size: the largest for bandwidth, the smallest for latency.
  uint64_t size = p.links.front().size_bytes;
  for (const P2pLink& l : p.links) size = lat ? std::min(size, l.size_bytes) : std::max(size, l.size_bytes);
  int n = std::max(r.context.nranks, 0);
  for (const P2pLink& l : p.links) n = std::max({n, l.src_rank + 1, l.dst_rank + 1});
  // Past this many ranks a matrix is no longer readable (nor small): the table only.
  constexpr int kMatrixLimit = 2048;
  if (n > kMatrixLimit) {
    return fmt::format(
        "<section id=\"links\"><h2>Link matrix</h2><p>{} ranks: more than the {} a matrix is drawn "
        "for; the links are in the JSON report.</p></section>",
        n, kMatrixLimit);
  }
  std::map<std::pair<int, int>, std::vector<double>> per_link;
  std::map<int, std::string> host_of;
  for (const RankEntry& e : r.context.ranks) host_of[e.rank] = e.host;
  for (const P2pLink& l : p.links) {
    host_of.try_emplace(l.src_rank, l.src_host);
    host_of.try_emplace(l.dst_rank, l.dst_host);
    if (l.size_bytes == size && l.src_rank >= 0 && l.dst_rank >= 0) {
      per_link[{l.src_rank, l.dst_rank}].push_back(link_value(l, lat));
    }
  }
  svg::Matrix m;
  m.n = n;
  m.unit = lat ? "us" : "GB/s";
  m.bin.assign(static_cast<size_t>(n) * n, -1);
  m.value.assign(static_cast<size_t>(n) * n, std::nullopt);
  std::vector<double> all;
  for (auto& [link, values] : per_link) {
    const double v = median(values);
    m.value[static_cast<size_t>(link.first) * n + link.second] = v;
    all.push_back(v);
  }
  const double mid = median(all);
  struct Row {
    int src, dst;
    double value, ratio;
  };
  std::vector<Row> rows;
  for (auto& [link, values] : per_link) {
    const double v = *m.value[static_cast<size_t>(link.first) * n + link.second];
    const double ratio = mid <= 0 ? 1 : lat ? (v > 0 ? mid / v : 1) : v / mid;
    m.bin[static_cast<size_t>(link.first) * n + link.second] = ratio_bin(ratio);
    rows.push_back({link.first, link.second, v, ratio});
  }
  for (int i = 0; i < n; ++i) m.labels.push_back(fmt::format("{} {}", i, host_of.count(i) ? host_of[i] : ""));
  std::set<std::pair<int, int>> outlined;
  std::string flagged_list;
  for (const Finding& f : r.findings) {
    if (f.code != code::kP2pSlowLink && f.code != code::kP2pCongestedLink) continue;
    const auto src = int_evidence(f, "src_rank"), dst = int_evidence(f, "dst_rank");
    if (!src || !dst) continue;
    const std::pair<int, int> link{static_cast<int>(*src), static_cast<int>(*dst)};
    const uint64_t at = static_cast<uint64_t>(int_evidence(f, "size_bytes").value_or(static_cast<int64_t>(size)));
    // Outlined where the finding is about the size shown; every finding listed below.
    if (at == size && outlined.insert(link).second) m.outline.push_back(link);
    flagged_list += "<li>" + xml_escape(fmt::format("{} at {}: {}", f.code, format_size(at), f.subject)) + "</li>";
  }
  std::string out = fmt::format(
      "<section id=\"links\"><h2>Link matrix</h2><p class=\"note\">{} of every link at {} (pattern {}, mode {}, {} "
      "links{}), coloured by its figure against the median link ({}). Outlined: links a finding names slow or "
      "congested at this size.</p>",
      lat ? "Median one-way latency" : "Average bandwidth", format_size(size), name(p.pattern), name(p.mode),
      per_link.size(), p.repeats > 1 ? fmt::format(", median of {} repeats", p.repeats) : "",
      lat ? fmt::format("{:.3g} us", mid) : fmt::format("{:.3g} GB/s", mid));
  out += "<div class=\"legend-bins\">";
  const char* bins[] = {"&ge; 95%", "90-95%", "75-90%", "50-75%", "25-50%", "&lt; 25%"};
  for (int b = 0; b < 6; ++b) out += fmt::format("<span><i class=\"b{}\"></i>{} of the median</span>", b, bins[b]);
  out += "<span><i class=\"empty\"></i>not measured</span></div>";
  out += "<figure class=\"matrix\">" + svg::heatmap("link-heatmap", m) + "</figure>";
  if (!flagged_list.empty()) out += "<ul class=\"flagged\">" + flagged_list + "</ul>";
  // The table: every link up to the cell limit, else the slowest 200.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ratio < b.ratio; });
  const size_t listed = n <= svg::kCellLimit ? rows.size() : std::min<size_t>(rows.size(), 200);
  out += fmt::format(
      "<details><summary>{}</summary><table class=\"data\"><thead><tr><th>source</th><th>destination"
      "</th><th>{}</th><th>of the median</th></tr></thead><tbody>",
      listed == rows.size() ? fmt::format("Every link ({})", rows.size())
                            : fmt::format("The {} slowest of {} links", listed, rows.size()),
      lat ? "latency (us)" : "bandwidth (GB/s)");
  for (size_t i = 0; i < listed; ++i) {
    const Row& row = rows[i];
    out += "<tr>" + td(fmt::format("{} ({})", row.src, host_of[row.src])) +
           td(fmt::format("{} ({})", row.dst, host_of[row.dst])) + td(fmt::format("{:.4g}", row.value), "num") +
           td(fmt::format("{:.0f}%", 100 * row.ratio), "num") + "</tr>";
  }
  out += "</tbody></table></details>";
  return out + retest_table(p, lat) + "</section>";
}

std::string topology_section(const Report& r) {
  if (!r.topology || r.topology->hosts.empty()) return "";
  std::string out =
      "<section id=\"topology\"><h2>Topology</h2><p class=\"note\">Per host, the PCIe path between each "
      "GPU and NIC, from PIX (one switch) to SYS (across sockets); framed: the NIC NCCL's rules pick for "
      "the GPU; dashed red: a NIC its log says it used, where that differs.</p>";
  for (const TopoHostEntry& h : r.topology->hosts) {
    out += fmt::format("<h3>{}</h3>", xml_escape(h.host));
    if (!h.sources.empty()) {
      std::string sources;
      for (const std::string& s : h.sources) sources += (sources.empty() ? "" : ", ") + s;
      out += "<p class=\"note\">From " + xml_escape(sources) + ".</p>";
    }
    std::map<int, const TopoMappingEntry*> mapping;
    for (const TopoMappingEntry& e : h.mapping) mapping[e.gpu] = &e;
    if (!h.paths.gpus.empty() && !h.paths.nics.empty()) {
      out += "<table class=\"paths\"><thead><tr><th>GPU</th>";
      for (const std::string& nic : h.paths.nics) out += "<th>" + xml_escape(nic) + "</th>";
      out += "<th>NCCL picks</th><th>used (its log)</th></tr></thead><tbody>";
      for (size_t g = 0; g < h.paths.gpus.size(); ++g) {
        const int gpu = h.paths.gpus[g];
        const TopoMappingEntry* e = mapping.count(gpu) ? mapping[gpu] : nullptr;
        out += fmt::format("<tr><th>GPU {}</th>", gpu);
        for (size_t k = 0; k < h.paths.nics.size(); ++k) {
          const auto cls =
              g < h.paths.classes.size() && k < h.paths.classes[g].size() ? h.paths.classes[g][k] : std::nullopt;
          std::string css = "path-";
          for (char ch : cls.value_or("none")) {
            if (!std::isalpha(static_cast<unsigned char>(ch))) break;
            css += ch;
          }
          const bool chosen = e && e->nccl_choice && *e->nccl_choice == h.paths.nics[k];
          if (chosen) css += " chosen";
          if (e && !chosen &&
              std::find(e->used_nics.begin(), e->used_nics.end(), h.paths.nics[k]) != e->used_nics.end()) {
            css += " used";
          }
          out += fmt::format("<td class=\"{}\" title=\"GPU {} to {}: {}\">{}</td>", xml_escape(css), gpu,
                             xml_escape(h.paths.nics[k]), xml_escape(cls.value_or("unknown")),
                             xml_escape(cls.value_or("?")));
        }
        std::string picks =
            e && e->nccl_choice ? *e->nccl_choice + " (" + e->nccl_choice_path.value_or("?") + ")" : "-";
        if (e && e->best_path && e->nccl_choice_path && *e->best_path != *e->nccl_choice_path) {
          picks += ", nearest " + e->best_path.value_or("?");
        }
        std::string used;
        bool differs = false;
        if (e) {
          for (const std::string& nic : e->used_nics) {
            used += (used.empty() ? "" : ", ") + nic;
            differs = differs || !e->nccl_choice || nic != *e->nccl_choice;
          }
        }
        out += td(picks) + td(used.empty() ? "-" : used, differs ? "bad" : nullptr) + "</tr>";
      }
      out += "</tbody></table>";
    }
    // Ports down or slower than the host's fastest.
    double fastest = 0;
    for (const TopoNicEntry& nic : h.nics) {
      for (const TopoPortEntry& port : nic.ports) fastest = std::max(fastest, port.rate_gbits.value_or(0));
    }
    std::string ports;
    for (const TopoNicEntry& nic : h.nics) {
      for (const TopoPortEntry& port : nic.ports) {
        const bool down = port.state && port.state->find("ACTIVE") == std::string::npos;
        const bool slow = port.rate_gbits && *port.rate_gbits < fastest;
        if (!down && !slow) continue;
        ports += "<li class=\"bad\">" +
                 xml_escape(fmt::format(
                     "{} port {}: {}{}", nic.name, port.port, port.state.value_or("state unknown"),
                     port.rate_gbits ? fmt::format(", {:g} Gb/s of the host's {:g}", *port.rate_gbits, fastest) : "")) +
                 "</li>";
      }
    }
    if (!ports.empty()) out += "<p>Ports down or degraded:</p><ul>" + ports + "</ul>";
    if (!h.nccl.selected.empty()) {
      std::string sel;
      for (const std::string& s : h.nccl.selected) sel += (sel.empty() ? "" : ", ") + s;
      out += "<p>NCCL would use: " + xml_escape(sel) +
             (h.nccl.ib_hca ? xml_escape(" (NCCL_IB_HCA=" + *h.nccl.ib_hca + ")") : std::string()) + "</p>";
    }
    for (const std::string& note : h.notes) out += "<p class=\"note\">" + xml_escape(note) + "</p>";
  }
  return out + "</section>";
}

namespace {

bool is_data_counter(const std::string& name) {
  static const std::set<std::string> kData = {"port_xmit_data",         "port_rcv_data",        "port_xmit_packets",
                                              "port_rcv_packets",       "unicast_xmit_packets", "unicast_rcv_packets",
                                              "multicast_xmit_packets", "multicast_rcv_packets"};
  return kData.count(name) > 0;
}

}  // namespace

std::string counters_section(const Report& r) {
  std::string out;
  if (!r.counters.empty()) {
    out +=
        "<h3>Interface traffic and congestion counters</h3><p class=\"note\">Per host and phase: the bytes the "
        "interfaces moved, fabscope's own payload, what is left (another tenant's traffic, or protocol overhead), "
        "and every error, congestion, discard or pause counter that rose.</p><table class=\"data\"><thead><tr>"
        "<th>host</th><th>phase</th><th>seconds</th><th>interfaces tx</th><th>fabscope tx</th><th>not fabscope's"
        "</th><th>counters that rose</th></tr></thead><tbody>";
    for (const CounterSample& c : r.counters) {
      uint64_t tx = 0;
      std::string risen;
      for (const InterfaceDelta& i : c.interfaces) {
        if (auto it = i.deltas.find("tx_bytes"); it != i.deltas.end()) tx += it->second;
        for (const auto& [name, v] : i.deltas) {
          if (v > 0 && (name.find("error") != std::string::npos || name.find("drop") != std::string::npos)) {
            risen += fmt::format("{}:{}={} ", i.name, name, v);
          }
        }
        for (const auto& [name, v] : i.ethtool) {
          if (v > 0) risen += fmt::format("{}:{}={} ", i.name, name, v);
        }
      }
      for (const PortDelta& port : c.ports) {
        for (const auto& [name, v] : port.counters) {
          if (v > 0 && !is_data_counter(name)) risen += fmt::format("{}/{}:{}={} ", port.device, port.port, name, v);
        }
      }
      const bool known = c.fabscope_tx_bytes.has_value();
      const uint64_t foreign = known && tx > *c.fabscope_tx_bytes ? tx - *c.fabscope_tx_bytes : 0;
      out += "<tr>" + td(c.host) + td(c.phase) + td(fmt::format("{:.3f}", c.duration_s), "num") +
             td(format_capacity(tx), "num") + td(known ? format_capacity(*c.fabscope_tx_bytes) : "-", "num") +
             td(known ? format_capacity(foreign) : "-", known && foreign > 0 ? "num warn" : "num") +
             td(risen.empty() ? "-" : risen, risen.empty() ? nullptr : "bad") + "</tr>";
    }
    out += "</tbody></table>";
  }
  if (r.diagnosis) {
    const Diagnosis& d = *r.diagnosis;
    if (!d.timings.empty()) {
      out += "<h3>Phases</h3><table class=\"data\"><thead><tr><th>phase</th><th>seconds</th></tr></thead><tbody>";
      for (const PhaseTiming& t : d.timings)
        out += "<tr>" + td(t.name) + td(fmt::format("{:.2f}", t.seconds), "num") + "</tr>";
      out += fmt::format("</tbody></table><p class=\"note\">Budget {:.0f} s.</p>", d.budget_s);
    }
    if (!d.collective_noise.empty()) {
      out +=
          "<h3>Run-to-run variation</h3><table class=\"data\"><thead><tr><th>collective</th><th>size</th><th>runs"
          "</th><th>cv</th></tr></thead><tbody>";
      for (const CollectiveRepeats& c : d.collective_noise) {
        out += "<tr>" + td(c.collective) + td(format_size(c.size_bytes), "num") +
               td(std::to_string(c.time_us.size()), "num") + td(fmt::format("{:.1f}%", 100 * c.cv), "num") + "</tr>";
      }
      out += "</tbody></table>";
    }
    if (!d.link_noise.empty()) {
      std::vector<const LinkVariation*> links;
      for (const LinkVariation& l : d.link_noise) links.push_back(&l);
      std::sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->cv > b->cv; });
      out +=
          "<table class=\"data\"><thead><tr><th>link (most variable first)</th><th>repeats</th><th>cv</th>"
          "<th>alone / loaded</th></tr></thead><tbody>";
      for (size_t i = 0; i < std::min<size_t>(links.size(), 20); ++i) {
        const LinkVariation& l = *links[i];
        out += "<tr>" + td(fmt::format("{} -> {} ({} -> {})", l.src_rank, l.dst_rank, l.src_host, l.dst_host)) +
               td(std::to_string(l.bw_gbps.size()), "num") + td(fmt::format("{:.1f}%", 100 * l.cv), "num") +
               td(l.impact ? fmt::format("{:.2f}x", *l.impact) : "-", "num") + "</tr>";
      }
      out += "</tbody></table>";
    }
  }
  if (out.empty()) return "";
  return "<section id=\"counters\"><h2>Counters and noise</h2>" + out + "</section>";
}

std::string nccl_profile_section(const Report& r) {
  if (!r.nccl_profile) return "";
  const NcclProfileSection& s = *r.nccl_profile;
  std::string out = "<section id=\"nccl-profile\"><h2>NCCL network wait</h2><p class=\"note\">" +
                    xml_escape(fmt::format("fabscope's NCCL profiler plugin: {}; {}.", name(s.status), s.detail)) +
                    " Per call, wall clock: how long each rank's network transfers to (send) or from (recv) a peer "
                    "spent in each state, the union of the intervals of the steps and channels in flight on one NIC "
                    "(never more than the call). SendWait and RecvWait are the network's part; "
                    "GPUWait the GPU's; SendPeerWait the receiver's credit.</p>";
  for (const ProfilePoint& p : s.points) {
    std::vector<double> waits;
    for (const ProfileLink& l : p.links) {
      if (l.direction == LinkDirection::kSend && l.calls() > 0) waits.push_back(l.network_us_per_call());
    }
    const double med = waits.empty() ? 0 : median(waits);
    out +=
        "<details" + std::string(&p == &s.points.back() ? " open" : "") + "><summary>" +
        xml_escape(fmt::format("{} {}{}, {} calls, {} links{}", p.collective,
                               p.size_bytes ? format_size(p.size_bytes) : fmt::format("{} elements", p.count),
                               p.algo.empty() ? "" : fmt::format(" ({}/{})", p.algo, p.proto), p.calls, p.links.size(),
                               s.points.size() > 1 && p.comm != s.points.front().comm ? " of " + p.comm : "")) +
        "</summary><table class=\"data\"><thead><tr><th>rank</th><th>peer</th><th>direction</th><th>NIC</th>"
        "<th>channels</th>";
    for (std::string_view st : kProfileStateNames) out += "<th>" + xml_escape(std::string(st)) + " wall us</th>";
    out += "<th>open</th></tr></thead><tbody>";
    for (const ProfileLink& l : p.links) {
      const double calls = l.calls();
      const bool slow = l.direction == LinkDirection::kSend && med > 0 && l.network_us_per_call() >= 2 * med;
      out += "<tr>" + td(std::to_string(l.rank), "num") + td(std::to_string(l.peer), "num") +
             td(std::string(name(l.direction))) + td(l.nic.empty() ? "?" : l.nic) +
             td(std::to_string(l.channels), "num");
      for (int st = 0; st < kProfileStates; ++st) {
        const bool network =
            (st == 2 && l.direction == LinkDirection::kSend) || (st == 3 && l.direction == LinkDirection::kRecv);
        out += td(calls > 0 ? fmt::format("{:.1f}", l.wait_us[st] / calls) : "-", network && slow ? "num bad" : "num");
      }
      out += td(std::to_string(l.open_steps), l.open_steps ? "num bad" : "num") + "</tr>";
    }
    out += "</tbody></table></details>";
  }
  return out + "</section>";
}

std::string comparison_section(const Report& r) {
  if (!r.comparison) return "";
  const Comparison& c = *r.comparison;
  auto run = [](const char* what, const ComparedRun& x) {
    return fmt::format("<tr><th>{}</th>{}{}{}{}</tr>", what, td(x.path), td(x.made_by),
                       td(x.nranks > 0 ? fmt::format("{} ranks on {} hosts", x.nranks, x.hosts.size()) : "-"),
                       td(x.start_time.empty() ? "-" : x.start_time));
  };
  std::string runs = !against_history(c) ? run("baseline", c.baseline)
                     : c.history.empty()
                         ? std::string("<tr><th>history</th><td>no run yet</td></tr>")
                         : run("history (oldest)", c.history.front()) + run("history (latest)", c.baseline);
  std::string out = "<section id=\"comparison\"><h2>Comparison</h2><table class=\"data\"><tbody>" + runs +
                    run("current", c.current) + "</tbody></table>";
  if (against_history(c)) {
    out += fmt::format(
        "<p class=\"note\">Against a history of {} runs: each row's prediction t-test on log figures against its "
        "spread across the runs, Benjamini-Hochberg false-discovery rate {} over the rows; rows in fewer than {} runs "
        "are not judged. The test column names each row's run-to-run and within-run spread and the smallest change "
        "it can flag.</p>",
        c.history.size(), c.alpha, c.min_history);
  }
  if (!c.differences.empty()) {
    out += "<p>The runs differ in:</p><ul>";
    for (const SettingDifference& d : c.differences) {
      out += "<li>" + xml_escape(fmt::format("{}: {} → {}", d.setting, d.baseline, d.current)) + "</li>";
    }
    out += "</ul>";
  }
  out += fmt::format("<p>{} rows: {} (threshold {:.1f}%, alpha {}).</p>", c.rows.size(), xml_escape(counts_text(c)),
                     100 * c.threshold, c.alpha);
  auto table = [&](bool moved_only) {
    std::string t =
        "<table class=\"data\"><thead><tr><th>what</th><th>size</th><th>metric</th><th>baseline</th>"
        "<th>current</th><th>change</th><th>verdict</th><th>test</th></tr></thead><tbody>";
    int rows = 0;
    for (const ComparisonRow& row : c.rows) {
      if (moved_only && row.verdict == RowVerdict::kUnchanged) continue;
      ++rows;
      const char* cls = row.verdict == RowVerdict::kRegression    ? "bad"
                        : row.verdict == RowVerdict::kImprovement ? "good"
                                                                  : nullptr;
      t += "<tr>" + td(row.subject) + td(format_size(row.size_bytes), "num") + td(std::string(name(row.metric))) +
           td(format_figure(row, row.baseline), "num") + td(format_figure(row, row.current), "num") +
           td(row.change ? format_change(row) : "-", "num") + td(std::string(name(row.verdict)), cls) +
           td(format_test(row)) + "</tr>";
    }
    return rows ? t + "</tbody></table>" : std::string();
  };
  out += table(true);
  out += fmt::format("<details><summary>All {} rows</summary>{}</details>", c.rows.size(), table(false));
  return out + "</section>";
}

std::string history_section(const Report& r) {
  if (!r.history) return "";
  const HistorySection& h = *r.history;
  std::string out = fmt::format(
      "<section id=\"history\"><h2>History</h2><p class=\"note\">{} runs ordered by {}, from {} to {}. Change "
      "points: E-divisive means, each split kept when Welch's t-test between its segments gives p &lt; {} with {} "
      "runs a side or more. Each plot: the row's figure per run, its level per segment (dashed), and its change "
      "points (red).</p>",
      h.runs.size(), xml_escape(h.order), xml_escape(h.runs.front().path), xml_escape(h.runs.back().path), h.max_p,
      h.min_segment);
  out += h.latest_change ? "<p>Latest change: run " + std::to_string(*h.latest_change + 1) + " (" +
                               xml_escape(h.runs[*h.latest_change].path) + ").</p>"
                         : std::string("<p>No row changed level.</p>");
  out += "<div class=\"plots\">";
  for (const HistoryRow& row : h.rows) {
    svg::Plot p;
    p.css_class = "plot history";
    p.data = {{"collective", row.collective}};
    p.title = fmt::format("{} {}", row.subject, format_size(row.size_bytes));
    p.x = {"run"};
    p.y = {std::string(name(row.metric))};
    svg::Series runs{"runs", "s0", {}, {}}, level{"level", "s1 dash", {}, {}}, changes{"change point", "s3", {}, {}};
    for (size_t i = 0; i < row.values.size(); ++i) {
      if (!row.values[i]) continue;
      runs.points.emplace_back(static_cast<double>(i + 1), *row.values[i]);
      runs.tips.push_back(fmt::format("run {} ({}): {:.3f}", i + 1, h.runs[i].path, *row.values[i]));
    }
    // The level: each segment's mean from its first run to its last.
    size_t begin = 0;
    for (size_t k = 0; k <= row.change_points.size(); ++k) {
      const size_t end = k < row.change_points.size() ? row.change_points[k].index : row.values.size();
      const double mean = k < row.change_points.size() ? row.change_points[k].before
                          : row.change_points.empty()  ? 0
                                                       : row.change_points.back().after;
      if (!row.change_points.empty() && end > begin) {
        level.points.emplace_back(static_cast<double>(begin + 1), mean);
        level.points.emplace_back(static_cast<double>(end), mean);
      }
      begin = end;
    }
    for (const HistoryChange& c : row.change_points) {
      if (!row.values[c.index]) continue;
      changes.points.emplace_back(static_cast<double>(c.index + 1), *row.values[c.index]);
      changes.tips.push_back(fmt::format("change at run {} ({}): {:+.1f}%, p = {:.2g}{}", c.index + 1, c.path,
                                         100 * c.step, c.p_value, c.worse ? ", worse" : ""));
    }
    p.series.push_back(std::move(runs));
    if (!level.points.empty()) p.series.push_back(std::move(level));
    if (!changes.points.empty()) p.series.push_back(std::move(changes));
    out += "<figure>" + svg::plot(p) + "</figure>";
  }
  return out + "</div></section>";
}

std::string watch_section(const Report& r) {
  if (!r.watch || r.watch->links.empty()) return "";
  const WatchSection& w = *r.watch;
  std::string out = fmt::format(
      "<section id=\"watch\"><h2>Links over time</h2><p class=\"note\">{} snapshots, {} intervals judged (every {:g} "
      "s). Per interval, each send link's network wait per step (NCCL's SendWait, from fabscope's profiler "
      "plugin): the slow links first, then those that waited most; a series longer than {} points shows runs of "
      "intervals merged.</p>",
      w.snapshots, w.intervals, w.interval_s, w.max_points);
  std::map<std::string, std::vector<const WatchLink*>> by_comm;
  for (const WatchLink& l : w.links) {
    if (!l.points.empty()) by_comm[l.comm].push_back(&l);
  }
  for (const auto& [comm, links] : by_comm) {
    svg::Plot plot;
    plot.css_class = "plot watch";
    plot.data = {{"comm", comm}};
    plot.title = fmt::format("Communicator {}: network wait per step", comm);
    plot.x.label = "time (s)";
    plot.y.label = "wait per step (us)";
    for (size_t i = 0; i < links.size() && i < 8; ++i) {
      const WatchLink& l = *links[i];
      svg::Series s;
      s.label = fmt::format("{} -> {}{}{}", l.rank, l.peer, l.nic.empty() ? "" : " " + l.nic,
                            l.slow_from ? fmt::format(" (slow from {})", *l.slow_from) : "");
      s.style = fmt::format("s{}", i % 6);
      for (const WatchPoint& p : l.points) {
        s.points.push_back({(p.start_s + p.end_s) / 2, p.wait_us_per_step});
        s.tips.push_back(fmt::format(
            "{} -> {} ({} -> {}) interval {}{}: {:.0f} us per step, {:.2f} GB/s{}", l.rank, l.peer, l.host, l.peer_host,
            p.seq_first, p.seq_last != p.seq_first ? fmt::format("-{}", p.seq_last) : "", p.wait_us_per_step,
            p.end_s > p.start_s ? static_cast<double>(p.bytes) / (p.end_s - p.start_s) / 1e9 : 0.0,
            p.slow ? " SLOW" : ""));
      }
      plot.series.push_back(std::move(s));
    }
    out += svg::plot(plot);
  }
  out +=
      "<table class=\"data\"><thead><tr><th>link</th><th>hosts</th><th>NIC</th><th>slow from</th><th>median wait "
      "(us/step)</th><th>last (us/step)</th><th>last rate (GB/s)</th><th>moved (GiB)</th></tr></thead><tbody>";
  int rows = 0;
  for (const WatchLink& l : w.links) {
    if (l.direction != "send" || ++rows > 32) continue;
    out += fmt::format(
        "<tr><td>{} -> {}</td><td>{} -> "
        "{}</td><td>{}</td><td>{}</td><td>{:.0f}</td><td>{:.0f}</td><td>{:.3f}</td><td>{:.2f}</td></tr>",
        l.rank, l.peer, xml_escape(l.host), xml_escape(l.peer_host), xml_escape(l.nic),
        l.slow_from ? fmt::format("interval {}", *l.slow_from) : "", l.median_wait_us_per_step, l.last_wait_us_per_step,
        l.last_bytes_per_s / 1e9, static_cast<double>(l.bytes_total) / (1ull << 30));
  }
  return out + "</tbody></table></section>";
}

std::string timeline_section(const Report& r) {
  if (!r.timeline) return "";
  const Timeline& t = *r.timeline;
  const bool events = !t.stalls.empty() || std::any_of(t.links.begin(), t.links.end(), [](const LinkRecord& l) {
    return l.flaps > 0 || (l.up_at_start && !l.up_at_end);
  });
  if (t.intervals.size() <= 1 && !events) return "";
  std::string out = fmt::format(
      "<section id=\"timeline\"><h2>Timeline</h2><p class=\"note\">{} cycles in {} intervals, ended by {}. Per "
      "interval and point: nccl-tests' bus bandwidth over the interval, and the slowest iteration.</p>",
      t.cycles_completed, t.intervals.size(), xml_escape(t.ended_by));
  // One series per point and placement, at most six (the largest sizes: where links show).
  std::vector<std::pair<std::string, std::vector<const TimelinePoint*>>> keys;
  std::map<std::string, size_t> where;
  std::vector<double> x;
  for (const TimelineInterval& iv : t.intervals) {
    x.push_back(iv.index);
    for (const TimelinePoint& p : iv.points) {
      const std::string k = fmt::format("{} {} {}", p.collective, format_size(p.size_bytes),
                                        p.placement == Placement::kInPlace ? "in place" : "out of place");
      auto [it, fresh] = where.try_emplace(k, keys.size());
      if (fresh) keys.push_back({k, std::vector<const TimelinePoint*>(t.intervals.size(), nullptr)});
      keys[it->second].second[static_cast<size_t>(&iv - t.intervals.data())] = &p;
    }
  }
  if (keys.size() > 6) keys.erase(keys.begin(), keys.end() - 6);
  svg::Plot bw, slowest;
  bw.css_class = "plot timeline";
  bw.title = "Bus bandwidth per interval";
  bw.x.label = "interval";
  bw.y.label = "busbw (GB/s)";
  slowest.css_class = "plot timeline";
  slowest.title = "Slowest iteration per interval";
  slowest.x.label = "interval";
  slowest.y.label = "max (us)";
  slowest.y.log = true;
  for (size_t k = 0; k < keys.size(); ++k) {
    svg::Series a, b;
    a.label = b.label = keys[k].first;
    a.style = b.style = fmt::format("s{}", k % 6);
    for (size_t i = 0; i < keys[k].second.size(); ++i) {
      const TimelinePoint* p = keys[k].second[i];
      if (!p) continue;
      const std::string when = t.intervals[i].start;
      a.points.push_back({x[i], p->busbw_gbps});
      a.tips.push_back(fmt::format("{}: {:.3f} GB/s ({})", keys[k].first, p->busbw_gbps, when));
      if (p->max_us > 0) {
        b.points.push_back({x[i], p->max_us});
        b.tips.push_back(fmt::format("{}: max {:.1f} us, p99 {:.1f} us, {} stalls ({})", keys[k].first, p->max_us,
                                     p->p99_us, p->stalls, when));
      }
    }
    bw.series.push_back(std::move(a));
    slowest.series.push_back(std::move(b));
  }
  out += svg::plot(bw) + svg::plot(slowest);
  if (!t.stalls.empty()) {
    out +=
        "<h3>Stalls</h3><table class=\"data\"><thead><tr><th>time (UTC)</th><th>point</th><th>cycle</th>"
        "<th>iteration</th><th>duration</th><th>median</th><th>late ranks</th></tr></thead><tbody>";
    for (const StallEvent& s : t.stalls) {
      std::string late;
      for (int rk : s.late_ranks) late += (late.empty() ? "" : ", ") + std::to_string(rk);
      out += "<tr>" + td(s.time) +
             td(fmt::format("{} {}{}{} {} {}", s.collective, s.dtype, s.op ? " " : "", s.op.value_or(""),
                            format_size(s.size_bytes), s.placement)) +
             td(std::to_string(s.cycle), "num") + td(std::to_string(s.iteration), "num") +
             td(fmt::format("{:.1f} ms", s.duration_us * 1e-3), "num bad") +
             td(fmt::format("{:.1f} ms", s.median_us * 1e-3), "num") + td(late.empty() ? "none" : late) + "</tr>";
    }
    out += "</tbody></table>";
  }
  std::string links;
  for (const LinkRecord& l : t.links) {
    if (l.flaps == 0 && !(l.up_at_start && !l.up_at_end)) continue;
    std::string edges;
    for (const LinkEdgeRecord& e : l.edges) edges += fmt::format("{} {}; ", e.up ? "up" : "down", e.time);
    links += "<tr>" + td(l.host) + td(l.link) + td(std::to_string(l.flaps), "num bad") +
             td(fmt::format("{:.1f}", l.downtime_s), "num") + td(l.up_at_end ? "up" : "down") + td(edges) + "</tr>";
  }
  if (!links.empty()) {
    out +=
        "<h3>Links that went down</h3><table class=\"data\"><thead><tr><th>host</th><th>link</th><th>flaps</th>"
        "<th>down (s)</th><th>at the end</th><th>edges</th></tr></thead><tbody>" +
        links + "</tbody></table>";
  }
  return out + "</section>";
}

}  // namespace fabscope::html
