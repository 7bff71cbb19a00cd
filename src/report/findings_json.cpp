// The report's `findings` and `verdict`.
#include <fmt/format.h>

#include "report/model_json.h"

namespace fabscope {

Json to_json(const Finding& v) {
  return {{"code", v.code},        {"severity", std::string(name(v.severity))},
          {"subject", v.subject},  {"hosts", v.hosts},
          {"message", v.message},  {"hint", v.hint},
          {"evidence", v.evidence}};
}
void read(const JsonIn& in, Finding& v) {
  in.field("code", v.code);
  std::string severity;
  in.field("severity", severity);
  auto s = severity_from_name(severity);
  if (!s) in.at("severity").fail(fmt::format("'{}' is not info, warning or error", severity));
  v.severity = *s;
  in.field("subject", v.subject);
  in.field_or_keep("hosts", v.hosts);  // absent before drain lists
  in.field("message", v.message);
  in.field("hint", v.hint);
  in.field("evidence", v.evidence);
}

Json to_json(const Verdict& v) {
  Json out = {{"result", name(v.result)},
              {"failed_codes", v.failed_codes},
              {"drain", v.drain},
              {"drain_hostlist", v.drain_hostlist},
              {"missing", v.missing}};
  if (!v.not_judged.empty()) out["not_judged"] = v.not_judged;  // absent when all asked for was judged
  return out;
}
void read(const JsonIn& in, Verdict& v) {
  in.field("result", v.result);
  in.field("failed_codes", v.failed_codes);
  in.field_or_keep("drain", v.drain);  // absent before drain lists
  in.field_or_keep("drain_hostlist", v.drain_hostlist);
  in.field_or_keep("missing", v.missing);        // absent before triage
  in.field_or_keep("not_judged", v.not_judged);  // absent when all asked for was judged
}

Json to_json(const TriageFile& v) {
  Json j = {{"path", v.path}, {"kinds", v.kinds}, {"bytes", v.bytes}, {"lines", v.lines}, {"note", v.note}};
  if (v.lines_not_read >= 0) {
    j["lines_not_read"] = v.lines_not_read;
    j["not_read_examples"] = v.not_read_examples;
  }
  return j;
}
void read(const JsonIn& in, TriageFile& v) {
  in.field("path", v.path);
  in.field("kinds", v.kinds);
  in.field("bytes", v.bytes);
  in.field("lines", v.lines);
  in.field("note", v.note);
  in.field_or_keep("lines_not_read", v.lines_not_read);  // absent where not counted
  in.field_or_keep("not_read_examples", v.not_read_examples);
}
Json to_json(const TriageSection& v) {
  return {{"files", to_json_array(v.files)}, {"answer_code", v.answer_code}, {"answer_subject", v.answer_subject}};
}
void read(const JsonIn& in, TriageSection& v) {
  in.field("files", v.files);
  in.field("answer_code", v.answer_code);
  in.field("answer_subject", v.answer_subject);
}

}  // namespace fabscope
