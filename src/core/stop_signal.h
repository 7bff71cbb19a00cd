// SIGINT and SIGTERM during a run (as mpirun forwards them to every rank): the first
// asks the run to end at its next boundary, with the report of what was measured
// written, and gives it kStopGraceS to get there; the second, or the grace running out,
// ends the process at once (exit 128 + the signal), where files written atomically are
// whole or absent, never half-written.
#pragma once

namespace fabscope {

inline constexpr unsigned kStopGraceS = 8;
// Installs the handlers (once per process; later calls do nothing).
void install_stop_signals();
// 0, or the number of the first signal received.
int stop_signal();
// "SIGINT", "SIGTERM", or "signal N".
const char* stop_signal_name(int signal);
// The read end of a pipe that receives one byte on the first signal: a thread that polls
// it acts at once (rank 0 writes the report so far). -1 before install_stop_signals().
int stop_signal_fd();

}  // namespace fabscope
