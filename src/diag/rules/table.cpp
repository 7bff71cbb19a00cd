// The sweep.*, p2p.* and counters.* rules, in the order their findings are reported.
// A new rule: its function in diag/rules/<name>.cpp, one declaration and one row here,
// its file in src/CMakeLists.txt, and a paragraph in the README's findings list.
#include "diag/rules.h"
#include "report/finding_codes.h"

namespace fabscope {

void check_sweep_wrong_results(const SweepContext&, FindingSink&);
void check_rank_straggler(const SweepContext&, FindingSink&);
void check_sweep_stall(const SweepContext&, FindingSink&);
void check_link_flap(const SweepContext&, FindingSink&);
void check_run_interrupted(const SweepContext&, FindingSink&);
void check_run_hang(const SweepContext&, FindingSink&);
void check_perf_dip(const SweepContext&, FindingSink&);
void check_perf_plateau(const SweepContext&, FindingSink&);
void check_nccl_link_wait(const SweepContext&, FindingSink&);
void check_nccl_open_steps(const SweepContext&, FindingSink&);
void check_p2p_slow_host(const P2pSizeContext&, FindingSink&);
void check_p2p_slow_link(const P2pSizeContext&, FindingSink&);
void check_p2p_congested_link(const P2pSizeContext&, FindingSink&);
void check_p2p_slow_nic(const P2pSizeContext&, FindingSink&);
void check_p2p_congested_uplink(const P2pSizeContext&, FindingSink&);
void check_counters_foreign_traffic(const CounterContext&, FindingSink&);
void check_counters_link_errors(const CounterContext&, FindingSink&);
void check_counters_congestion_rose(const CounterContext&, FindingSink&);
void check_tcp_idle_restart(const SweepContext&, FindingSink&);

namespace {

constexpr Rule<SweepContext> kSweepRules[] = {
    {code::kSweepWrongResults, "a rank that received wrong data", check_sweep_wrong_results},
    {code::kRankStraggler, "a rank the others waited for (sweep --arrivals)", check_rank_straggler},
    {code::kRunHang, "a run the watchdog ended: the points measured before, and what the rank waited on",
     check_run_hang},
    {code::kRunInterrupted, "a run a signal ended before its cycles or duration were done", check_run_interrupted},
    {code::kLinkFlap, "an interface or RDMA port that went down during the run (--max-downtime)", check_link_flap},
    {code::kSweepStall, "a timed iteration far beyond its point's spread, with the links down then (--max-stalls)",
     check_sweep_stall},
    {code::kPerfDip, "a size whose bandwidth falls well below both neighbours' in one sweep", check_perf_dip},
    {code::kPerfPlateau, "bus bandwidth that stops growing before a sweep's largest sizes (a note)",
     check_perf_plateau},
    {code::kNcclLinkWait, "a link NCCL waited on the network for, far beyond the others (--nccl-profile)",
     check_nccl_link_wait},
    {code::kNcclOpenSteps, "network transfers NCCL started and never finished (--nccl-profile)", check_nccl_open_steps},
    {code::kTcpIdleRestart,
     "the kernel restarting the tcp backend's idle connections in slow start, at a cost (tcp_slow_start_after_idle)",
     check_tcp_idle_restart},
};

constexpr Rule<P2pSizeContext> kP2pRules[] = {
    {code::kP2pSlowHost, "a host whose links are all slow at one size", check_p2p_slow_host},
    {code::kP2pSlowNic, "one rank of a host whose links are all slow while the host's other ranks are fine",
     check_p2p_slow_nic},
    {code::kP2pCongestedUplink, "slow links that share one leaf's uplinks, named once (--fabric)",
     check_p2p_congested_uplink},
    {code::kP2pSlowLink, "one slow link that no slow host explains (slow alone too, when retested)",
     check_p2p_slow_link},
    {code::kP2pCongestedLink, "a link slow beside other flows but fine alone", check_p2p_congested_link},
};

constexpr Rule<CounterContext> kCounterRules[] = {
    {code::kCountersForeignTraffic, "interface traffic beyond what fabscope moved", check_counters_foreign_traffic},
    {code::kCountersLinkErrors, "link-quality counters of an RDMA port or NIC that rose", check_counters_link_errors},
    {code::kCountersCongestionRose, "congestion counters that rose while fabscope's load was the same (diagnose)",
     check_counters_congestion_rose},
};

}  // namespace

std::span<const Rule<SweepContext>> sweep_rules() { return kSweepRules; }
std::span<const Rule<P2pSizeContext>> p2p_rules() { return kP2pRules; }
std::span<const Rule<CounterContext>> counter_rules() { return kCounterRules; }

}  // namespace fabscope
