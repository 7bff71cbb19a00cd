// Student's t distribution: the tail probability of a t statistic and its quantile, for
// the history compare's prediction test and the change-point search's segment test
// (report/history.h). Computed from the regularized incomplete beta function
// (continued fraction, modified Lentz), checked against SciPy's scipy.stats.t in
// test/unit/student_t_test.cpp.
#pragma once

namespace fabscope {

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1].
double incomplete_beta(double a, double b, double x);

// P(|T| >= |t|) for T ~ t(df): the two-sided p-value of a t statistic; df > 0.
double student_t_two_sided_p(double t, double df);

// The t with P(T <= t) = p for T ~ t(df), p in (0, 1), df > 0.
double student_t_quantile(double p, double df);

}  // namespace fabscope
