// The report's `context`: who ran what, where, with which libraries.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const RankEntry& v) {
  return {{"rank", v.rank},
          {"host", v.host},
          {"pid", v.pid},
          {"local_rank", v.local_rank},
          {"peak_rss_bytes", to_json_opt(v.peak_rss_bytes)}};
}
void read(const JsonIn& in, RankEntry& v) {
  in.field("rank", v.rank);
  in.field("host", v.host);
  in.field("pid", v.pid);
  in.field("local_rank", v.local_rank);
  in.field_or_keep("peak_rss_bytes", v.peak_rss_bytes);  // absent before it existed
}

Json to_json(const NcclDebugLog& v) { return {{"dir", v.dir}, {"subsys", v.subsys}, {"files", v.files}}; }
void read(const JsonIn& in, NcclDebugLog& v) {
  in.field("dir", v.dir);
  in.field("subsys", v.subsys);
  in.field("files", v.files);
}

Json to_json(const ImportInfo& v) {
  return {{"tool", v.tool}, {"version", to_json_opt(v.version)}, {"files", v.files}};
}
void read(const JsonIn& in, ImportInfo& v) {
  in.field("tool", v.tool);
  in.field("version", v.version);
  in.field("files", v.files);
}

Json to_json(const TcpIdleRestartSummary& v) {
  return {{"watched", v.watched},
          {"idle_sends", v.idle_sends},
          {"restarts", v.restarts},
          {"cwnd_before_segments", v.cwnd_before_segments},
          {"cwnd_after_segments", v.cwnd_after_segments},
          {"estimated_cost_s", v.estimated_cost_s},
          {"busy_s", v.busy_s}};
}
void read(const JsonIn& in, TcpIdleRestartSummary& v) {
  in.field("watched", v.watched);
  in.field("idle_sends", v.idle_sends);
  in.field("restarts", v.restarts);
  in.field("cwnd_before_segments", v.cwnd_before_segments);
  in.field("cwnd_after_segments", v.cwnd_after_segments);
  in.field("estimated_cost_s", v.estimated_cost_s);
  in.field("busy_s", v.busy_s);
}

Json to_json(const RunContext& v) {
  Json build = Json::object();
  for (const auto& [k, lib] : v.build) build[k] = to_json_opt(lib);
  Json env = Json::object();
  for (const auto& [k, value] : v.environment) env[k] = value;
  return {{"tool", {{"name", v.tool.name}, {"version", v.tool.version}, {"git_id", v.tool.git_id}}},
          {"command_line", v.command_line},
          {"start_time", known_or_null(v.start_time)},
          {"end_time", known_or_null(v.end_time)},
          {"backend", v.backend},
          {"backend_library", v.backend_library},
          {"memory", v.memory},
          {"build", build},
          {"nranks", known_or_null(v.nranks)},
          {"hosts", v.hosts},
          {"ranks", to_json_array(v.ranks)},
          {"environment", env},
          {"nccl_debug", to_json_opt(v.nccl_debug)},
          {"gpus_shared", v.gpus_shared},
          {"imported", to_json_opt(v.imported)},
          {"memory_estimate_bytes", to_json_opt(v.memory_estimate_bytes)},
          {"tcp_idle_restarts", to_json_opt(v.tcp_idle_restarts)}};
}
void read(const JsonIn& in, RunContext& v) {
  const JsonIn tool = in.at("tool");
  tool.field("name", v.tool.name);
  tool.field("version", v.tool.version);
  tool.field("git_id", v.tool.git_id);
  in.field("command_line", v.command_line);
  in.field_or_unknown("start_time", v.start_time);
  in.field_or_unknown("end_time", v.end_time);
  in.field("backend", v.backend);
  in.field("backend_library", v.backend_library);
  in.field("memory", v.memory);
  in.field("build", v.build);
  in.field_or_unknown("nranks", v.nranks);
  in.field("hosts", v.hosts);
  in.field("ranks", v.ranks);
  in.field("environment", v.environment);
  in.field_or_keep("nccl_debug", v.nccl_debug);                        // absent before --nccl-debug-dir existed
  in.field_or_keep("gpus_shared", v.gpus_shared);                      // absent before --share-gpus: false
  in.field_or_keep("imported", v.imported);                            // absent before `fabscope import` existed
  in.field_or_keep("memory_estimate_bytes", v.memory_estimate_bytes);  // absent before it existed
  in.field_or_keep("tcp_idle_restarts", v.tcp_idle_restarts);          // absent before it existed
}

}  // namespace fabscope
