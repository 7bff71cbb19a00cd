// The report's `context`: who ran what, where, with which libraries.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const RankEntry& v) {
  return {{"rank", v.rank}, {"host", v.host}, {"pid", v.pid}, {"local_rank", v.local_rank}};
}
void read(const JsonIn& in, RankEntry& v) {
  in.field("rank", v.rank);
  in.field("host", v.host);
  in.field("pid", v.pid);
  in.field("local_rank", v.local_rank);
}

Json to_json(const NcclDebugLog& v) { return {{"dir", v.dir}, {"subsys", v.subsys}, {"files", v.files}}; }
void read(const JsonIn& in, NcclDebugLog& v) {
  in.field("dir", v.dir);
  in.field("subsys", v.subsys);
  in.field("files", v.files);
}

Json to_json(const RunContext& v) {
  Json build = Json::object();
  for (const auto& [k, lib] : v.build) build[k] = to_json_opt(lib);
  Json env = Json::object();
  for (const auto& [k, value] : v.environment) env[k] = value;
  return {{"tool", {{"name", v.tool.name}, {"version", v.tool.version}, {"git_id", v.tool.git_id}}},
          {"command_line", v.command_line},
          {"start_time", v.start_time},
          {"end_time", v.end_time},
          {"backend", v.backend},
          {"backend_library", v.backend_library},
          {"memory", v.memory},
          {"build", build},
          {"nranks", v.nranks},
          {"hosts", v.hosts},
          {"ranks", to_json_array(v.ranks)},
          {"environment", env},
          {"nccl_debug", to_json_opt(v.nccl_debug)}};
}
void read(const JsonIn& in, RunContext& v) {
  const JsonIn tool = in.at("tool");
  tool.field("name", v.tool.name);
  tool.field("version", v.tool.version);
  tool.field("git_id", v.tool.git_id);
  in.field("command_line", v.command_line);
  in.field("start_time", v.start_time);
  in.field("end_time", v.end_time);
  in.field("backend", v.backend);
  in.field("backend_library", v.backend_library);
  in.field("memory", v.memory);
  in.field("build", v.build);
  in.field("nranks", v.nranks);
  in.field("hosts", v.hosts);
  in.field("ranks", v.ranks);
  in.field("environment", v.environment);
  in.field_or_keep("nccl_debug", v.nccl_debug);  // absent before --nccl-debug-dir existed
}

}  // namespace fabscope
