// The report's `nccl_profile` section (NCCL's profiler plugin, src/nccl_profiler).
#include "report/model_json.h"

namespace fabscope {

double ProfileLink::network_us_per_call() const {
  const double c = calls();
  if (c <= 0) return 0;
  return (direction == LinkDirection::kSend ? wait_us[2] : wait_us[3]) / c;
}

namespace {
Json states_json(const std::vector<double>& v) {
  Json j = Json::object();
  for (int s = 0; s < kProfileStates; ++s)
    j[std::string(kProfileStateNames[s])] = s < static_cast<int>(v.size()) ? v[s] : 0.0;
  return j;
}
void read_states(const JsonIn& in, const char* key, std::vector<double>& v) {
  const JsonIn s = in.at(key);
  v.assign(kProfileStates, 0.0);
  for (int i = 0; i < kProfileStates; ++i) s.field(std::string(kProfileStateNames[i]).c_str(), v[i]);
}
}  // namespace

Json to_json(const ProfileLink& v) {
  return {{"rank", v.rank},
          {"peer", v.peer},
          {"direction", name(v.direction)},
          {"nic", v.nic},
          {"channels", v.channels},
          {"ops", v.ops},
          {"steps", v.steps},
          {"open_steps", v.open_steps},
          {"bytes", v.bytes},
          {"network_wall_us_per_call", v.network_us_per_call()},
          {"wall_us", states_json(v.wait_us)},
          {"max_us", states_json(v.max_us)}};
}
void read(const JsonIn& in, ProfileLink& v) {
  in.field("rank", v.rank);
  in.field("peer", v.peer);
  in.field("direction", v.direction);
  in.field("nic", v.nic);
  in.field("channels", v.channels);
  in.field("ops", v.ops);
  in.field("steps", v.steps);
  in.field("open_steps", v.open_steps);
  in.field("bytes", v.bytes);
  read_states(in, "wall_us", v.wait_us);
  read_states(in, "max_us", v.max_us);
}

Json to_json(const ProfilePoint& v) {
  return {{"comm", v.comm},   {"collective", v.collective},     {"func", v.func}, {"datatype", v.datatype},
          {"count", v.count}, {"size_bytes", v.size_bytes},     {"algo", v.algo}, {"proto", v.proto},
          {"calls", v.calls}, {"links", to_json_array(v.links)}};
}
void read(const JsonIn& in, ProfilePoint& v) {
  in.field("comm", v.comm);
  in.field("collective", v.collective);
  in.field("func", v.func);
  in.field("datatype", v.datatype);
  in.field("count", v.count);
  in.field("size_bytes", v.size_bytes);
  in.field("algo", v.algo);
  in.field("proto", v.proto);
  in.field("calls", v.calls);
  in.field("links", v.links);
}

Json to_json(const ProfileSource& v) {
  return {{"comm", v.comm},
          {"rank", v.rank},
          {"host", v.host},
          {"pid", v.pid},
          {"api", v.api},
          {"file", v.file},
          {"complete", v.complete},
          {"dropped_events", v.dropped_events},
          {"snapshot_seq", v.snapshot_seq}};
}
void read(const JsonIn& in, ProfileSource& v) {
  in.field("comm", v.comm);
  in.field("rank", v.rank);
  in.field("host", v.host);
  in.field("pid", v.pid);
  in.field("api", v.api);
  in.field("file", v.file);
  in.field("complete", v.complete);
  in.field("dropped_events", v.dropped_events);
  in.field_or_keep("snapshot_seq", v.snapshot_seq);  // absent before snapshots were read
}

Json to_json(const NcclProfileSection& v) {
  return {{"status", name(v.status)},
          {"detail", v.detail},
          {"ranks", to_json_array(v.ranks)},
          {"points", to_json_array(v.points)}};
}
void read(const JsonIn& in, NcclProfileSection& v) {
  in.field("status", v.status);
  in.field("detail", v.detail);
  in.field("ranks", v.ranks);
  in.field("points", v.points);
}

}  // namespace fabscope
