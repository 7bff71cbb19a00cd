// The report's `comparison` section: `fabscope compare`'s runs, differences and rows.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const ComparedRun& v) {
  return {{"path", v.path},
          {"made_by", v.made_by},
          {"backend", v.backend},
          {"backend_library", v.backend_library},
          {"nranks", known_or_null(v.nranks)},
          {"hosts", v.hosts},
          {"start_time", known_or_null(v.start_time)},
          {"verdict", name(v.verdict)}};
}
void read(const JsonIn& in, ComparedRun& v) {
  in.field("path", v.path);
  in.field("made_by", v.made_by);
  in.field("backend", v.backend);
  in.field("backend_library", v.backend_library);
  in.field_or_unknown("nranks", v.nranks);
  in.field("hosts", v.hosts);
  in.field_or_unknown("start_time", v.start_time);
  in.field("verdict", v.verdict);
}

Json to_json(const SettingDifference& v) {
  return {{"setting", v.setting}, {"baseline", v.baseline}, {"current", v.current}};
}
void read(const JsonIn& in, SettingDifference& v) {
  in.field("setting", v.setting);
  in.field("baseline", v.baseline);
  in.field("current", v.current);
}

Json to_json(const RowIdentity& v) {
  return {{"section", name(v.section)},
          {"subject", v.subject},
          {"collective", known_or_null(v.collective)},
          {"placement", to_json_opt(v.placement)},
          {"size_bytes", v.size_bytes},
          {"metric", name(v.metric)},
          {"higher_is_better", v.higher_is_better}};
}
void read(const JsonIn& in, RowIdentity& v) {
  in.field("section", v.section);
  in.field("subject", v.subject);
  in.field_or_unknown("collective", v.collective);
  in.field("placement", v.placement);
  in.field("size_bytes", v.size_bytes);
  in.field("metric", v.metric);
  in.field("higher_is_better", v.higher_is_better);
}

Json to_json(const ComparisonRow& v) {
  Json j = to_json(static_cast<const RowIdentity&>(v));
  j.update(Json{{"baseline", to_json_opt(v.baseline)},
                {"current", to_json_opt(v.current)},
                {"change", to_json_opt(v.change)},
                {"verdict", name(v.verdict)},
                {"test", name(v.test)},
                {"p_value", to_json_opt(v.p_value)},
                {"noise", to_json_opt(v.noise)},
                {"baseline_samples", v.baseline_samples},
                {"current_samples", v.current_samples},
                {"reason", v.reason},
                {"history_runs", v.history_runs},
                {"between_run_sd", to_json_opt(v.between_run_sd)},
                {"within_run_sd", to_json_opt(v.within_run_sd)},
                {"between_share", to_json_opt(v.between_share)},
                {"detection_limit", to_json_opt(v.detection_limit)}});
  return j;
}
void read(const JsonIn& in, ComparisonRow& v) {
  read(in, static_cast<RowIdentity&>(v));
  in.field("baseline", v.baseline);
  in.field("current", v.current);
  in.field("change", v.change);
  in.field("verdict", v.verdict);
  in.field("test", v.test);
  in.field("p_value", v.p_value);
  in.field("noise", v.noise);
  in.field("baseline_samples", v.baseline_samples);
  in.field("current_samples", v.current_samples);
  in.field("reason", v.reason);
  in.field_or_keep("history_runs", v.history_runs);  // absent in reports before the history compare
  in.field_or_keep("between_run_sd", v.between_run_sd);
  in.field_or_keep("within_run_sd", v.within_run_sd);
  in.field_or_keep("between_share", v.between_share);
  in.field_or_keep("detection_limit", v.detection_limit);
}

Json to_json(const Comparison& v) {
  return {{"baseline", to_json(v.baseline)},
          {"current", to_json(v.current)},
          {"threshold", v.threshold},
          {"alpha", v.alpha},
          {"crossover", v.crossover},
          {"strict", v.strict},
          {"differences", to_json_array(v.differences)},
          {"history", to_json_array(v.history)},
          {"correction", v.correction},
          {"min_history", v.min_history},
          {"rows", to_json_array(v.rows)}};
}
void read(const JsonIn& in, Comparison& v) {
  in.field("baseline", v.baseline);
  in.field("current", v.current);
  in.field("threshold", v.threshold);
  in.field("alpha", v.alpha);
  in.field("crossover", v.crossover);
  in.field("strict", v.strict);
  in.field("differences", v.differences);
  in.field_or_keep("history", v.history);  // absent in reports before the history compare
  in.field_or_keep("correction", v.correction);
  in.field_or_keep("min_history", v.min_history);
  in.field("rows", v.rows);
}

}  // namespace fabscope
