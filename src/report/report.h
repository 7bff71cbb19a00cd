// The report model: everything a run measured, in one value that renderers read, one
// header per section (report/*_section.h, verdict.h) gathered here.
// It maps one-to-one onto the JSON document (schema/fabscope.report.schema.json);
// report/report_json.h lists its sections, each with its to_json and from_json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/comparison_section.h"
#include "report/context_section.h"
#include "report/counters_section.h"
#include "report/diagnosis_section.h"
#include "report/fabric_section.h"
#include "report/finding.h"
#include "report/history_section.h"
#include "report/nccl_profile_section.h"
#include "report/p2p_section.h"
#include "report/sweep_section.h"
#include "report/timeline_section.h"
#include "report/watch_section.h"
#include "report/topology_section.h"
#include "report/triage_section.h"
#include "report/verdict.h"

namespace fabscope {

inline constexpr const char* kReportSchema = "fabscope.report/1";

struct Report {
  std::string schema = kReportSchema;
  RunContext context;
  std::optional<SweepSettings> sweep_settings;
  std::vector<Sweep> sweeps;
  std::optional<P2pSection> p2p;
  std::vector<CounterSample> counters;
  std::optional<TopologySection> topology;         // `fabscope topo`; null when not run
  std::optional<Diagnosis> diagnosis;              // `fabscope diagnose`; null for other commands
  std::vector<Attribution> attribution;            // diagnose: one per collective, at its largest size
  std::optional<Comparison> comparison;            // `fabscope compare`; null for other commands
  std::optional<HistorySection> history;           // `fabscope history`; null for other commands
  std::optional<TriageSection> triage;             // `fabscope triage`; null for other commands
  std::optional<NcclProfileSection> nccl_profile;  // --nccl-profile, --import-profile; null otherwise
  std::optional<FabricDescription> fabric;         // --fabric (Slurm's topology.conf); null otherwise
  std::optional<Timeline> timeline;                // sweep: cycles, stalls, link events; null otherwise
  std::optional<WatchSection> watch;               // `fabscope watch`: the job's links over time; null otherwise
  std::vector<Finding> findings;
  Verdict verdict;
};

// The verdict the findings decide: fail when any finding is an error, naming their codes
// and the hosts they implicate (the drain list).
void decide_verdict(Report& report);

}  // namespace fabscope
