// The charts of the HTML report (report/html_reporter.cpp), drawn as inline SVG text by
// fabscope itself: no charting library, nothing fetched. Each function returns one
// <svg> element; hover values ride on `data-tip` attributes (read by the page's small
// script) and on <title> children (the browser's own tooltip, and screen readers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabscope::svg {

// A coordinate or value, short: at most `digits` decimals, trailing zeros dropped.
std::string num(double v, int digits = 1);

struct Axis {
  std::string label;
  bool log = false;    // log10 scale (bytes: ticks at powers of two, labelled 1 KiB ...)
  bool bytes = false;  // values are byte sizes
  // The range; where min >= max it is taken from the data (from 0 on linear axes).
  double min = 0, max = 0;
};

// One line of a plot: points (x, y), drawn with markers; `tips` (one per point, may be
// empty) are the hover texts. `style` is a CSS class: s0 .. s5 pick colours, `dash`
// draws it dashed (a baseline).
struct Series {
  std::string label;
  std::string style = "s0";
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> tips;
};

// A band per x (low .. high) with a mark at `mid`: per-iteration spread.
struct Band {
  double x = 0, low = 0, mid = 0, high = 0;
  std::string tip;
};

struct Plot {
  std::string css_class;                                  // "plot busbw"
  std::vector<std::pair<std::string, std::string>> data;  // data-* attributes: {"collective", "allreduce"}
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::vector<Band> bands;  // drawn under the series
  int width = 640, height = 300;
};
std::string plot(const Plot& p);

// One row of dots per label, x on a shared axis: each rank's time relative to the
// median rank, so a straggler stands out to the right. `hot` dots are drawn in red.
struct StripDot {
  double x = 0;
  bool hot = false;
  std::string tip;
};
struct StripRow {
  std::string label;
  std::vector<StripDot> dots;
};
std::string strip(const std::string& css_class, const std::string& title, const Axis& x,
                  const std::vector<StripRow>& rows);

// A horizontal bar split in shares (adding to at most 1), with a legend.
struct Share {
  std::string label;
  double share = 0;
  std::string style;  // k-link, k-host, k-rank, k-nic, k-noise, k-unexplained
  std::string tip;
};
std::string share_bar(const std::string& title, const std::vector<Share>& shares);

// An n x n matrix: `bin[i*n+j]` is a colour class index (0 .. bins-1) or -1 for no
// value; `outline` cells get a black frame. Up to `kCellLimit` ranks each cell is a
// <rect class="cell ..."> with its hover text; above, each row's runs of one colour are
// merged into paths (a 512-rank matrix stays a few hundred KiB) and hover reads the
// values from a compact array in the element's data-values.
inline constexpr int kCellLimit = 64;
struct Matrix {
  int n = 0;
  std::vector<int> bin;
  std::vector<std::optional<double>> value;  // shown on hover
  std::string unit;                          // "GB/s"
  std::vector<std::string> labels;           // per row/column: "0 h0"
  std::vector<std::pair<int, int>> outline;  // (src, dst)
};
std::string heatmap(const std::string& id, const Matrix& m);

}  // namespace fabscope::svg
