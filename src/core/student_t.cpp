#include "core/student_t.h"

#include <cmath>
#include <limits>

namespace fabscope {

namespace {

// The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2)),
// evaluated by the modified Lentz method.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));  // the even step
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));  // the odd step
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  // x^a (1-x)^b / (a B(a, b)), in logs.
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;  // the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
}

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t)) return 1;
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_quantile(double p, double df) {
  if (!(p > 0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1)) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0;
  const double tail = p < 0.5 ? 2 * p : 2 * (1 - p);  // the two-sided p of |t|
  // Bisection on |t|: the two-sided p falls as |t| grows. Bracket first, then halve.
  double lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) > tail && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_two_sided_p(mid, df) > tail ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  return p < 0.5 ? -t : t;
}

}  // namespace fabscope
