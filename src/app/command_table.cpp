// fabscope's subcommands, in the order `fabscope --help` lists them. A new subcommand:
// its Command in app/<name>_command.cpp, one declaration and one row here, its file in
// src/CMakeLists.txt, its reference in docs/<name>.md and a row in the README's command table.
#include "app/command.h"

namespace fabscope {

std::unique_ptr<Command> make_sweep_command();
std::unique_ptr<Command> make_p2p_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_topo_command();
std::unique_ptr<Command> make_diagnose_command();
std::unique_ptr<Command> make_backends_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_history_command();
std::unique_ptr<Command> make_import_command();
std::unique_ptr<Command> make_triage_command();
std::unique_ptr<Command> make_watch_command();

namespace {

constexpr CommandEntry kCommands[] = {
    {"sweep", "Time collectives over a range of sizes (run under mpirun)",
     kOutputFiles | kLogLevel | kTimeout | kBackendChoice, make_sweep_command},
    {"p2p", "Point-to-point bandwidth or latency on many links at once (under mpirun)",
     kOutputFiles | kLogLevel | kTimeout | kBackendChoice, make_p2p_command},
    {"diagnose",
     "Where a collective loses time: topology, the collective with each rank's arrivals, the link matrix, counters "
     "and noise as phases of one job, then which link, host or rank explains what share (under mpirun)",
     kOutputFiles | kLogLevel | kTimeout | kBackendChoice, make_diagnose_command},
    {"report", "Render a JSON report as the nccl-tests table and findings (and as the files asked for)", kOutputFiles,
     make_report_command},
    {"compare",
     "Judge a report against a baseline, or against a history of runs (their run-to-run spread), row by row: "
     "regressions beyond the threshold and the noise (exit 1), improvements, what one run lacks; JUnit and Markdown "
     "for CI",
     kOutputFiles | kLogLevel, make_compare_command},
    {"history",
     "Where each row of a series of runs changed level (E-divisive means): the run, the step, its p-value, the "
     "latest change; text, JSON, Markdown and HTML with every row's series plotted",
     kOutputFiles | kLogLevel, make_history_command},
    {"import", "Turn nccl-tests output (its text tables or -J JSON) into a fabscope report, for compare and --expect",
     kOutputFiles | kLogLevel, make_import_command},
    {"topo",
     "GPUs, NICs, NUMA and PCIe paths; the NIC NCCL picks per GPU; mapping findings. Live on this node, on every "
     "node under mpirun, or offline from files",
     kOutputFiles | kLogLevel, make_topo_command},
    {"triage",
     "Answers from what a ticket holds: NCCL logs, nccl-tests output, nvidia-smi topo, RDMA tool output, counters, "
     "dmesg (files or directories, taken by content): the most likely cause, its evidence lines, what to do",
     kOutputFiles | kLogLevel, make_triage_command},
    {"watch",
     "A running job's snapshots from fabscope's NCCL profiler plugin (FABSCOPE_PROFILE_INTERVAL), read as they "
     "appear: per interval the links whose sends wait most, against the median link and their own past; a link "
     "turning slow, a rank whose snapshots stop",
     kOutputFiles | kLogLevel, make_watch_command},
    {"backends", "List the backends: compiled in? usable here? if not, why", 0, make_backends_command},
};

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }

}  // namespace fabscope
