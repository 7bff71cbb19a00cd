// The report's `history` section: `fabscope history`'s runs, rows and change points.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const HistoryRun& v) {
  return {{"path", v.path}, {"made_by", v.made_by}, {"start_time", known_or_null(v.start_time)}};
}
void read(const JsonIn& in, HistoryRun& v) {
  in.field("path", v.path);
  in.field("made_by", v.made_by);
  in.field_or_unknown("start_time", v.start_time);
}

Json to_json(const HistoryChange& v) {
  return {{"index", v.index}, {"path", v.path},       {"before", v.before}, {"after", v.after},
          {"step", v.step},   {"p_value", v.p_value}, {"worse", v.worse}};
}
void read(const JsonIn& in, HistoryChange& v) {
  in.field("index", v.index);
  in.field("path", v.path);
  in.field("before", v.before);
  in.field("after", v.after);
  in.field("step", v.step);
  in.field("p_value", v.p_value);
  in.field("worse", v.worse);
}

Json to_json(const HistoryRow& v) {
  Json values = Json::array();
  for (const std::optional<double>& x : v.values) values.push_back(to_json_opt(x));
  Json j = to_json(static_cast<const RowIdentity&>(v));
  j.update(Json{{"values", values},
                {"change_points", to_json_array(v.change_points)},
                {"between_run_sd", to_json_opt(v.between_run_sd)},
                {"within_run_sd", to_json_opt(v.within_run_sd)},
                {"detection_limit", to_json_opt(v.detection_limit)}});
  return j;
}
void read(const JsonIn& in, HistoryRow& v) {
  read(in, static_cast<RowIdentity&>(v));
  in.field("values", v.values);
  in.field("change_points", v.change_points);
  in.field("between_run_sd", v.between_run_sd);
  in.field("within_run_sd", v.within_run_sd);
  in.field("detection_limit", v.detection_limit);
}

Json to_json(const HistorySection& v) {
  return {{"order", v.order},
          {"method", v.method},
          {"max_p", v.max_p},
          {"min_segment", v.min_segment},
          {"min_step", v.min_step},
          {"crossover", v.crossover},
          {"runs", to_json_array(v.runs)},
          {"latest_change", to_json_opt(v.latest_change)},
          {"rows", to_json_array(v.rows)}};
}
void read(const JsonIn& in, HistorySection& v) {
  in.field("order", v.order);
  in.field("method", v.method);
  in.field("max_p", v.max_p);
  in.field("min_segment", v.min_segment);
  in.field("min_step", v.min_step);
  in.field("crossover", v.crossover);
  in.field("runs", v.runs);
  in.field("latest_change", v.latest_change);
  in.field("rows", v.rows);
}

}  // namespace fabscope
