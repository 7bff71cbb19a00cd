// tcp.idle_restart: the kernel restarted the engine's TCP connections in slow start after
// they idled (net.ipv4.tcp_slow_start_after_idle=1, cubic or reno), and regrowing the
// window cost a share of the time the ranks spent in the engine's calls. A process cannot turn it off
// per connection, and keeping a connection busy does not help (the kernel then shrinks
// an application-limited window at the same pace), so the finding names the setting and
// what it cost: all-to-all at many hosts, whose connections idle for most of a call,
// read 0.78 of the link rate at 8 hosts with it on, 0.956 (the TCP ceiling) with it off.
#include <fmt/format.h>

#include "diag/rules.h"

namespace fabscope {

void check_tcp_idle_restart(const SweepContext& c, FindingSink& sink) {
  const std::optional<TcpIdleRestartSummary>& t = c.report.context.tcp_idle_restarts;
  if (!t || t->restarts == 0 || !(t->busy_s > 0)) return;
  const double share = t->estimated_cost_s / t->busy_s;
  if (share < kIdleRestartShare) return;
  sink.add(Severity::kWarning, "run", {},
           fmt::format("the kernel restarted {} of the engine's sends in slow start after their TCP connection "
                       "idled (net.ipv4.tcp_slow_start_after_idle=1): the window fell from {:.0f} to {:.0f} segments "
                       "on average, and regrowing it cost about {:.0f}% of the time the ranks were sending ({:.3f} of "
                       "{:.3f} s, an estimate from TCP_INFO); bus bandwidth reads low where connections idle between "
                       "rounds (all-to-all at many hosts)",
                       t->restarts, t->cwnd_before_segments, t->cwnd_after_segments, 100 * share, t->estimated_cost_s,
                       t->busy_s),
           "set net.ipv4.tcp_slow_start_after_idle=0 on every host (sysctl, as root; per network namespace) to "
           "measure the links rather than the kernel's restart; a process cannot change it per connection",
           {{"setting", "net.ipv4.tcp_slow_start_after_idle"},
            {"restarts", t->restarts},
            {"idle_sends", t->idle_sends},
            {"cwnd_before_segments", t->cwnd_before_segments},
            {"cwnd_after_segments", t->cwnd_after_segments},
            {"estimated_cost_s", t->estimated_cost_s},
            {"busy_s", t->busy_s},
            {"share", share}});
}

}  // namespace fabscope
