// Each report model type's JSON form: `to_json` writes it, `read` reads it back with
// the key path in any error. Defined side by side per section: context_json.cpp,
// sweep_json.cpp, p2p_json.cpp, counters_json.cpp, topology_json.cpp, findings_json.cpp.
#pragma once

#include "report/json_io.h"
#include "report/report.h"

namespace fabscope {

// context
Json to_json(const RankEntry& v);
void read(const JsonIn& in, RankEntry& v);
Json to_json(const NcclDebugLog& v);
void read(const JsonIn& in, NcclDebugLog& v);
Json to_json(const ImportInfo& v);
void read(const JsonIn& in, ImportInfo& v);
Json to_json(const TcpIdleRestartSummary& v);
void read(const JsonIn& in, TcpIdleRestartSummary& v);
Json to_json(const RunContext& v);
void read(const JsonIn& in, RunContext& v);

// sweep_settings and sweeps
Json to_json(const SweepSettings& v);
void read(const JsonIn& in, SweepSettings& v);
Json to_json(const TimeStats& v);
void read(const JsonIn& in, TimeStats& v);
Json to_json(const RankTiming& v);
void read(const JsonIn& in, RankTiming& v);
Json to_json(const RankArrival& v);
void read(const JsonIn& in, RankArrival& v);
Json to_json(const ArrivalSplit& v);
void read(const JsonIn& in, ArrivalSplit& v);
Json to_json(const PlacementResult& v);
void read(const JsonIn& in, PlacementResult& v);
Json to_json(const SweepPoint& v);
void read(const JsonIn& in, SweepPoint& v);
Json to_json(const Sweep& v);
void read(const JsonIn& in, Sweep& v);

// timeline
Json to_json(const StallEvent& v);
void read(const JsonIn& in, StallEvent& v);
Json to_json(const LinkEdgeRecord& v);
void read(const JsonIn& in, LinkEdgeRecord& v);
Json to_json(const LinkRecord& v);
void read(const JsonIn& in, LinkRecord& v);
Json to_json(const TimelinePoint& v);
void read(const JsonIn& in, TimelinePoint& v);
Json to_json(const TimelineInterval& v);
void read(const JsonIn& in, TimelineInterval& v);
Json to_json(const Timeline& v);
void read(const JsonIn& in, Timeline& v);

// watch
Json to_json(const WatchPoint& v);
void read(const JsonIn& in, WatchPoint& v);
Json to_json(const WatchLink& v);
void read(const JsonIn& in, WatchLink& v);
Json to_json(const WatchSection& v);
void read(const JsonIn& in, WatchSection& v);

// p2p
Json to_json(const LatencyStats& v);
void read(const JsonIn& in, LatencyStats& v);
Json to_json(const P2pLink& v);
void read(const JsonIn& in, P2pLink& v);
Json to_json(const LinkCoverage& v);
void read(const JsonIn& in, LinkCoverage& v);
Json to_json(const FabricSwitch& v);
void read(const JsonIn& in, FabricSwitch& v);
Json to_json(const FabricDescription& v);
void read(const JsonIn& in, FabricDescription& v);
Json to_json(const P2pSection& v);
void read(const JsonIn& in, P2pSection& v);

// counters
Json to_json(const InterfaceDelta& v);
void read(const JsonIn& in, InterfaceDelta& v);
Json to_json(const PortDelta& v);
void read(const JsonIn& in, PortDelta& v);
Json to_json(const CounterSample& v);
void read(const JsonIn& in, CounterSample& v);

// topology
Json to_json(const TopoNumaEntry& v);
void read(const JsonIn& in, TopoNumaEntry& v);
Json to_json(const TopoGpuEntry& v);
void read(const JsonIn& in, TopoGpuEntry& v);
Json to_json(const TopoPortEntry& v);
void read(const JsonIn& in, TopoPortEntry& v);
Json to_json(const TopoNicEntry& v);
void read(const JsonIn& in, TopoNicEntry& v);
Json to_json(const TopoPaths& v);
void read(const JsonIn& in, TopoPaths& v);
Json to_json(const TopoNcclEntry& v);
void read(const JsonIn& in, TopoNcclEntry& v);
Json to_json(const TopoMappingEntry& v);
void read(const JsonIn& in, TopoMappingEntry& v);
Json to_json(const TopoRankEntry& v);
void read(const JsonIn& in, TopoRankEntry& v);
Json to_json(const TopoHostEntry& v);
void read(const JsonIn& in, TopoHostEntry& v);
Json to_json(const TopologySection& v);
void read(const JsonIn& in, TopologySection& v);

// nccl_profile
Json to_json(const ProfileLink& v);
void read(const JsonIn& in, ProfileLink& v);
Json to_json(const ProfilePoint& v);
void read(const JsonIn& in, ProfilePoint& v);
Json to_json(const ProfileSource& v);
void read(const JsonIn& in, ProfileSource& v);
Json to_json(const NcclProfileSection& v);
void read(const JsonIn& in, NcclProfileSection& v);

// diagnosis and attribution
Json to_json(const PhaseTiming& v);
void read(const JsonIn& in, PhaseTiming& v);
Json to_json(const CollectiveRepeats& v);
void read(const JsonIn& in, CollectiveRepeats& v);
Json to_json(const LinkVariation& v);
void read(const JsonIn& in, LinkVariation& v);
Json to_json(const LinkBusy& v);
void read(const JsonIn& in, LinkBusy& v);
Json to_json(const Diagnosis& v);
void read(const JsonIn& in, Diagnosis& v);
Json to_json(const AttributionEntry& v);
void read(const JsonIn& in, AttributionEntry& v);
Json to_json(const Attribution& v);
void read(const JsonIn& in, Attribution& v);

// findings and verdict
Json to_json(const Finding& v);
void read(const JsonIn& in, Finding& v);
Json to_json(const Verdict& v);
void read(const JsonIn& in, Verdict& v);
Json to_json(const TriageFile& v);
void read(const JsonIn& in, TriageFile& v);
Json to_json(const TriageSection& v);
void read(const JsonIn& in, TriageSection& v);

// comparison (comparison_json.cpp)
Json to_json(const ComparedRun& v);
void read(const JsonIn& in, ComparedRun& v);
Json to_json(const SettingDifference& v);
void read(const JsonIn& in, SettingDifference& v);
Json to_json(const RowIdentity& v);
void read(const JsonIn& in, RowIdentity& v);
Json to_json(const ComparisonRow& v);
void read(const JsonIn& in, ComparisonRow& v);
Json to_json(const Comparison& v);
void read(const JsonIn& in, Comparison& v);

// history (history_json.cpp)
Json to_json(const HistoryRun& v);
void read(const JsonIn& in, HistoryRun& v);
Json to_json(const HistoryChange& v);
void read(const JsonIn& in, HistoryChange& v);
Json to_json(const HistoryRow& v);
void read(const JsonIn& in, HistoryRow& v);
Json to_json(const HistorySection& v);
void read(const JsonIn& in, HistorySection& v);

}  // namespace fabscope
