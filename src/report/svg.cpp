#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/sizes.h"
#include "report/xml_escape.h"

namespace fabscope::svg {

std::string num(double v, int digits) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.{}f}", v, digits);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

namespace {

// Maps data values onto pixels, linear or log10.
struct Scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  bool log = false;
  double operator()(double v) const {
    const double a = log ? std::log10(d0) : d0, b = log ? std::log10(d1) : d1;
    const double t = ((log ? std::log10(v) : v) - a) / (b - a);
    return r0 + t * (r1 - r0);
  }
};

bool usable(const Axis& a, double v) { return std::isfinite(v) && (!a.log || v > 0); }

// The axis' domain from the values it will show.
std::pair<double, double> domain(const Axis& a, const std::vector<double>& values) {
  if (a.min < a.max) return {a.min, a.max};
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values) {
    if (!usable(a, v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!std::isfinite(lo)) return a.log ? std::pair{1.0, 10.0} : std::pair{0.0, 1.0};
  if (a.log) {
    if (a.bytes) return {lo, std::max(hi, lo * 2)};
    return {lo / 1.5, std::max(hi * 1.5, lo * 2)};
  }
  lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  return {lo, hi * 1.08};
}

// Tick positions and their labels.
std::vector<std::pair<double, std::string>> ticks(const Axis& a, double lo, double hi) {
  std::vector<std::pair<double, std::string>> out;
  if (a.log && a.bytes) {
    int e0 = static_cast<int>(std::ceil(std::log2(lo) - 1e-9)), e1 = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
    int step = 1;
    while ((e1 - e0) / step > 7) step *= 2;
    for (int e = e0; e <= e1; e += step) out.emplace_back(std::ldexp(1.0, e), format_size(uint64_t{1} << e));
    return out;
  }
  if (a.log) {
    for (int e = static_cast<int>(std::ceil(std::log10(lo))); e <= static_cast<int>(std::floor(std::log10(hi))); ++e) {
      out.emplace_back(std::pow(10.0, e), num(std::pow(10.0, e), e < 0 ? -e : 0));
    }
    return out;
  }
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  const int digits = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.emplace_back(v, num(v, digits));
  return out;
}

std::string title_child(const std::string& tip) { return tip.empty() ? "" : "<title>" + xml_escape(tip) + "</title>"; }
std::string tip_attr(const std::string& tip) { return tip.empty() ? "" : " data-tip=\"" + xml_escape(tip) + "\""; }

constexpr int kLeft = 64, kRight = 12, kTop = 34, kBottom = 44;

// Axes with grid lines and labels for a plot area; returns the SVG text.
std::string axes(const Axis& xa, const Scale& x, const std::vector<std::pair<double, std::string>>& xt, const Axis& ya,
                 const Scale& y, const std::vector<std::pair<double, std::string>>& yt, int width, int height) {
  std::string out;
  for (const auto& [v, label] : yt) {
    const double py = y(v);
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", kLeft, width - kRight, num(py),
                       num(py));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLeft - 4, num(py + 4),
                       xml_escape(label));
  }
  for (const auto& [v, label] : xt) {
    const double px = x(v);
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", num(px), num(px), kTop,
                       height - kBottom);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num(px),
                       height - kBottom + 14, xml_escape(label));
  }
  out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", kLeft, kTop,
                     width - kLeft - kRight, height - kTop - kBottom);
  out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                     (kLeft + width - kRight) / 2, height - 8, xml_escape(xa.label));
  out += fmt::format("<text class=\"axis\" transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
                     (kTop + height - kBottom) / 2, xml_escape(ya.label));
  return out;
}

std::string open_svg(const std::string& css_class, const std::vector<std::pair<std::string, std::string>>& data,
                     int width, int height, const std::string& title, const std::string& id = "") {
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\"";
  if (!id.empty()) out += " id=\"" + xml_escape(id) + "\"";
  out += fmt::format(" class=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\"",
                     xml_escape(css_class), width, height, width, height);
  for (const auto& [k, v] : data) out += fmt::format(" data-{}=\"{}\"", k, xml_escape(v));
  out += fmt::format(" aria-label=\"{}\"><text class=\"title\" x=\"{}\" y=\"16\">{}</text>", xml_escape(title), kLeft,
                     xml_escape(title));
  return out;
}

}  // namespace

std::string plot(const Plot& p) {
  std::vector<double> xs, ys;
  for (const Series& s : p.series) {
    for (const auto& [x, y] : s.points) {
      xs.push_back(x);
      ys.push_back(y);
    }
  }
  for (const Band& b : p.bands) {
    xs.push_back(b.x);
    ys.insert(ys.end(), {b.low, b.high});
  }
  const auto [x0, x1] = domain(p.x, xs);
  const auto [y0, y1] = domain(p.y, ys);
  const Scale x{x0, x1, kLeft + 8.0, p.width - kRight - 8.0, p.x.log};
  const Scale y{y0, y1, static_cast<double>(p.height - kBottom), static_cast<double>(kTop), p.y.log};
  std::string out = open_svg(p.css_class, p.data, p.width, p.height, p.title);
  out += axes(p.x, x, ticks(p.x, x0, x1), p.y, y, ticks(p.y, y0, y1), p.width, p.height);
  for (const Band& b : p.bands) {
    if (!usable(p.x, b.x) || !usable(p.y, b.low) || !usable(p.y, b.high)) continue;
    const double px = x(b.x), top = y(b.high), bottom = y(b.low);
    out += fmt::format("<g class=\"band\"{}>{}<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"{}\"/>", tip_attr(b.tip),
                       title_child(b.tip), num(px - 4), num(top), num(std::max(bottom - top, 1.0)));
    if (usable(p.y, b.mid)) {
      out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", num(px - 6), num(px + 6), num(y(b.mid)),
                         num(y(b.mid)));
    }
    out += "</g>";
  }
  int legend_x = kLeft + 8;
  for (const Series& s : p.series) {
    std::string line, marks;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto [vx, vy] = s.points[i];
      if (!usable(p.x, vx) || !usable(p.y, vy)) continue;
      const std::string px = num(x(vx)), py = num(y(vy));
      line += (line.empty() ? "" : " ") + px + "," + py;
      const std::string tip = i < s.tips.size() ? s.tips[i] : "";
      marks +=
          fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"{}>{}</circle>", px, py, tip_attr(tip), title_child(tip));
    }
    out += fmt::format("<g class=\"series {}\"><polyline points=\"{}\"/>{}</g>", xml_escape(s.style), line, marks);
    out += fmt::format(
        "<g class=\"legend {}\"><line x1=\"{}\" x2=\"{}\" y1=\"26\" y2=\"26\"/><text x=\"{}\" y=\"30\">{}</text></g>",
        xml_escape(s.style), legend_x, legend_x + 16, legend_x + 20, xml_escape(s.label));
    legend_x += 28 + 7 * static_cast<int>(s.label.size());
  }
  return out + "</svg>";
}

std::string strip(const std::string& css_class, const std::string& title, const Axis& xa,
                  const std::vector<StripRow>& rows) {
  constexpr int kRow = 18, kLabel = 96, kWidth = 640;
  const int height = kTop + kBottom + kRow * static_cast<int>(std::max<size_t>(rows.size(), 1));
  std::vector<double> xs;
  for (const StripRow& r : rows) {
    for (const StripDot& d : r.dots) xs.push_back(d.x);
  }
  Axis a = xa;
  if (a.min >= a.max && !xs.empty()) {
    a.min = std::min(0.9, *std::min_element(xs.begin(), xs.end()) * 0.98);
    a.max = std::max(1.1, *std::max_element(xs.begin(), xs.end()) * 1.02);
  }
  const auto [x0, x1] = domain(a, xs);
  const Scale x{x0, x1, kLabel + 8.0, kWidth - kRight - 8.0, false};
  std::string out = open_svg(css_class, {{"rows", std::to_string(rows.size())}}, kWidth, height, title);
  for (const auto& [v, label] : ticks(a, x0, x1)) {
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", num(x(v)), num(x(v)), kTop,
                       height - kBottom);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num(x(v)),
                       height - kBottom + 14, xml_escape(label));
  }
  out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", (kLabel + kWidth) / 2,
                     height - 8, xml_escape(a.label));
  for (size_t i = 0; i < rows.size(); ++i) {
    const double cy = kTop + kRow * (static_cast<double>(i) + 0.5);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLabel, num(cy + 4),
                       xml_escape(rows[i].label));
    for (const StripDot& d : rows[i].dots) {
      out += fmt::format("<circle class=\"dot{}\" cx=\"{}\" cy=\"{}\" r=\"4\"{}>{}</circle>", d.hot ? " hot" : "",
                         num(x(std::clamp(d.x, x0, x1))), num(cy), tip_attr(d.tip), title_child(d.tip));
    }
  }
  return out + "</svg>";
}

std::string share_bar(const std::string& title, const std::vector<Share>& shares) {
  constexpr int kWidth = 640, kBar = 26, kLine = 16;
  const int height = 24 + kBar + 10 + kLine * static_cast<int>(shares.size());
  std::string out = open_svg("shares", {}, kWidth, height, title);
  double at = kLeft;
  const double span = kWidth - kLeft - kRight;
  for (const Share& s : shares) {
    const double w = std::max(0.0, std::min(1.0, s.share)) * span;
    out += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"24\" width=\"{}\" height=\"{}\"{}>{}</rect>",
                       xml_escape(s.style), num(at), num(w), kBar, tip_attr(s.tip), title_child(s.tip));
    at += w;
  }
  out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"24\" width=\"{}\" height=\"{}\"/>", kLeft, num(span), kBar);
  for (size_t i = 0; i < shares.size(); ++i) {
    const int y = 24 + kBar + 10 + kLine * static_cast<int>(i);
    out += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\"/><text x=\"{}\" y=\"{}\">{:.1f}% {}</text>",
        xml_escape(shares[i].style), kLeft, y, kLeft + 16, y + 9, 100.0 * shares[i].share, xml_escape(shares[i].label));
  }
  return out + "</svg>";
}

std::string heatmap(const std::string& id, const Matrix& m) {
  const int n = std::max(m.n, 1);
  const bool each = m.n <= kCellLimit;
  const bool labelled = m.n <= 32;
  const double cell = each ? std::clamp(560.0 / n, 6.0, 48.0) : std::max(1.0, 768.0 / n);
  const int margin = labelled ? 80 : 40;
  const int side = static_cast<int>(std::ceil(cell * n));
  const int width = margin + side + 12, height = margin + side + 12;
  std::vector<std::pair<std::string, std::string>> data = {{"n", std::to_string(m.n)},
                                                           {"cells", std::to_string(m.n * m.n)},
                                                           {"cell-px", num(cell, 3)},
                                                           {"origin", std::to_string(margin)},
                                                           {"unit", m.unit}};
  if (!each) {
    std::string values;
    values.reserve(static_cast<size_t>(m.n) * m.n * 5);
    for (size_t i = 0; i < m.value.size(); ++i) {
      if (i) values += ',';
      if (m.value[i]) values += fmt::format("{:.3g}", *m.value[i]);
    }
    data.emplace_back("values", std::move(values));
  }
  std::string out = open_svg("heatmap", data, width, height, "", id);
  out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">destination rank</text>",
                     margin + side / 2, margin - (labelled ? 62 : 8));
  out += fmt::format(
      "<text class=\"axis\" transform=\"translate({} {}) rotate(-90)\" text-anchor=\"middle\">source "
      "rank</text>",
      labelled ? 14 : 24, margin + side / 2);
  if (labelled) {
    for (int i = 0; i < m.n; ++i) {
      const std::string label = i < static_cast<int>(m.labels.size()) ? m.labels[i] : std::to_string(i);
      const double c = margin + cell * (i + 0.5);
      out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", margin - 4, num(c + 4),
                         xml_escape(label));
      out += fmt::format("<text class=\"tick\" transform=\"translate({} {}) rotate(-60)\">{}</text>", num(c + 3),
                         margin - 4, xml_escape(label));
    }
  }
  auto at = [&](int i, int j) { return static_cast<size_t>(i) * m.n + j; };
  if (each) {
    for (int i = 0; i < m.n; ++i) {
      for (int j = 0; j < m.n; ++j) {
        const int b = at(i, j) < m.bin.size() ? m.bin[at(i, j)] : -1;
        const auto& v = at(i, j) < m.value.size() ? m.value[at(i, j)] : std::nullopt;
        const std::string tip =
            fmt::format("{} -> {}: {}", i, j, v ? fmt::format("{:.4g} {}", *v, m.unit) : std::string("not measured"));
        out += fmt::format("<rect class=\"cell {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}>{}</rect>",
                           b < 0 ? "empty" : fmt::format("b{}", b), num(margin + cell * j, 2),
                           num(margin + cell * i, 2), num(cell, 2), num(cell, 2), tip_attr(tip), title_child(tip));
      }
    }
  } else {
    // Runs of one colour per row, in cell units, one path per colour.
    std::vector<std::string> paths(8);
    for (int i = 0; i < m.n; ++i) {
      int j = 0;
      while (j < m.n) {
        const int b = m.bin[at(i, j)];
        int k = j + 1;
        while (k < m.n && m.bin[at(i, k)] == b) ++k;
        const size_t slot = b < 0 ? 7 : static_cast<size_t>(std::min(b, 6));
        paths[slot] += fmt::format("M{} {}h{}v1h-{}z", j, i, k - j, k - j);
        j = k;
      }
    }
    out +=
        fmt::format("<g class=\"grid-cells\" transform=\"translate({} {}) scale({})\" shape-rendering=\"crispEdges\">",
                    margin, margin, num(cell, 3));
    for (size_t s = 0; s < paths.size(); ++s) {
      if (paths[s].empty()) continue;
      out += fmt::format("<path class=\"run {}\" d=\"{}\"/>", s == 7 ? "empty" : fmt::format("b{}", s), paths[s]);
    }
    out += "</g>";
  }
  for (const auto& [i, j] : m.outline) {
    if (i < 0 || j < 0 || i >= m.n || j >= m.n) continue;
    out +=
        fmt::format("<rect class=\"outline\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", num(margin + cell * j, 2),
                    num(margin + cell * i, 2), num(std::max(cell, 3.0), 2), num(std::max(cell, 3.0), 2));
  }
  return out + "</svg>";
}

}  // namespace fabscope::svg
