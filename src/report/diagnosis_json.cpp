// The report's `diagnosis` and `attribution` sections (`fabscope diagnose`).
#include <algorithm>
#include <iterator>

#include "report/model_json.h"

namespace fabscope {

Json to_json(const PhaseTiming& v) { return {{"name", v.name}, {"seconds", v.seconds}}; }
void read(const JsonIn& in, PhaseTiming& v) {
  in.field("name", v.name);
  in.field("seconds", v.seconds);
}

Json to_json(const RunsHeld& v) { return {{"rank", v.rank}, {"us", v.us}}; }
void read(const JsonIn& in, RunsHeld& v) {
  in.field("rank", v.rank);
  in.field("us", v.us);
}

Json to_json(const CollectiveRepeats& v) {
  return {{"collective", v.collective},
          {"size_bytes", v.size_bytes},
          {"time_us", v.time_us},
          {"cv", v.cv},
          {"held", to_json_array(v.held)}};
}
void read(const JsonIn& in, CollectiveRepeats& v) {
  in.field("collective", v.collective);
  in.field("size_bytes", v.size_bytes);
  in.field("time_us", v.time_us);
  in.field("cv", v.cv);
  in.field_or_keep("held", v.held);  // reports before it: none
}

Json to_json(const LinkVariation& v) {
  return {{"src_rank", v.src_rank},         {"dst_rank", v.dst_rank}, {"src_host", v.src_host},
          {"dst_host", v.dst_host},         {"bw_gbps", v.bw_gbps},   {"cv", v.cv},
          {"impact", to_json_opt(v.impact)}};
}
void read(const JsonIn& in, LinkVariation& v) {
  in.field("src_rank", v.src_rank);
  in.field("dst_rank", v.dst_rank);
  in.field("src_host", v.src_host);
  in.field("dst_host", v.dst_host);
  in.field("bw_gbps", v.bw_gbps);
  in.field("cv", v.cv);
  in.field("impact", v.impact);
}

Json to_json(const LinkBusy& v) {
  return {{"collective", v.collective},
          {"src_rank", v.src_rank},
          {"dst_rank", v.dst_rank},
          {"messages", v.messages},
          {"busy_us", v.busy_us}};
}
void read(const JsonIn& in, LinkBusy& v) {
  in.field("collective", v.collective);
  in.field("src_rank", v.src_rank);
  in.field("dst_rank", v.dst_rank);
  in.field("messages", v.messages);
  in.field("busy_us", v.busy_us);
}

Json to_json(const Diagnosis& v) {
  return {{"phases", v.phases},
          {"budget_s", v.budget_s},
          {"timings", to_json_array(v.timings)},
          {"link_size_bytes", v.link_size_bytes},
          {"collective_noise", to_json_array(v.collective_noise)},
          {"link_noise", to_json_array(v.link_noise)},
          {"traced_calls", v.traced_calls},
          {"link_busy", to_json_array(v.link_busy)}};
}
void read(const JsonIn& in, Diagnosis& v) {
  in.field("phases", v.phases);
  in.field("budget_s", v.budget_s);
  in.field("timings", v.timings);
  in.field("link_size_bytes", v.link_size_bytes);
  in.field("collective_noise", v.collective_noise);
  in.field("link_noise", v.link_noise);
  in.field("traced_calls", v.traced_calls);
  in.field("link_busy", v.link_busy);
}

Json to_json(const AttributionEntry& v) {
  return {{"kind", name(v.kind)}, {"subject", v.subject},     {"hosts", v.hosts},      {"ranks", v.ranks},
          {"share", v.share},     {"excess_us", v.excess_us}, {"evidence", v.evidence}};
}
void read(const JsonIn& in, AttributionEntry& v) {
  in.field("kind", v.kind);
  in.field("subject", v.subject);
  in.field("hosts", v.hosts);
  in.field("ranks", v.ranks);
  in.field("share", v.share);
  in.field("excess_us", v.excess_us);
  in.field("evidence", v.evidence);
}

Json to_json(const Attribution& v) {
  return {{"collective", v.collective},         {"size_bytes", v.size_bytes}, {"nranks", v.nranks},
          {"measured_us", v.measured_us},       {"ideal_us", v.ideal_us},     {"model", v.model},
          {"link_rate_gbps", v.link_rate_gbps}, {"excess_us", v.excess_us},   {"method", name(v.method)},
          {"entries", to_json_array(v.entries)}};
}
void read(const JsonIn& in, Attribution& v) {
  in.field("collective", v.collective);
  in.field("size_bytes", v.size_bytes);
  in.field("nranks", v.nranks);
  in.field("measured_us", v.measured_us);
  in.field("ideal_us", v.ideal_us);
  in.field("model", v.model);
  in.field("link_rate_gbps", v.link_rate_gbps);
  in.field("excess_us", v.excess_us);
  in.field("method", v.method);
  in.field("entries", v.entries);
}

}  // namespace fabscope
