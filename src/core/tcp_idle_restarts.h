// What the kernel did to fabscope's TCP connections between sends (the tcp transport
// counts it; Transport and Backend hand it to the report).
#pragma once

#include <cstdint>

namespace fabscope {

// What the kernel's restart of an idle connection's window (RFC 2861, on when
// net.ipv4.tcp_slow_start_after_idle=1, for a congestion control without its own
// cong_control such as cubic or reno; not bbr) did to a rank's sends over TCP. A send
// that finds its connection with nothing in flight and no data sent for longer than the
// connection's retransmission timeout (TCP_INFO) restarts it: the window halves for each
// timeout of idle, down to the initial window, and slow start regrows it.
struct TcpIdleRestarts {
  uint64_t idle_sends = 0;  // sends that found their connection idle past its timeout
  uint64_t restarts = 0;    // of those, the ones whose window the kernel cut (as tcp_cwnd_restart computes it)
  double cwnd_before = 0;   // segments, summed over restarts
  double cwnd_after = 0;    // segments, summed over restarts
  double cost_us = 0;       // estimate: the round trips slow start took to regrow each, summed
  double busy_us = 0;       // time the rank had a message posted on any connection (inside the engine's calls)
  bool watched = false;     // the setting is on and the congestion control subject to it

  // Two counts of one rank (its collective engine's and its link matrix's), or of
  // several ranks: the sums, watched where either was.
  TcpIdleRestarts& operator+=(const TcpIdleRestarts& o) {
    idle_sends += o.idle_sends;
    restarts += o.restarts;
    cwnd_before += o.cwnd_before;
    cwnd_after += o.cwnd_after;
    cost_us += o.cost_us;
    busy_us += o.busy_us;
    watched = watched || o.watched;
    return *this;
  }
};

}  // namespace fabscope
