#include "report/report_json.h"

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "report/model_json.h"

namespace fabscope {

namespace {

// One section of the document: its key, and how it is written and read. A section
// that is optional in the model is null in the JSON when absent; a section added after
// reports were first written may be missing from older ones.
struct Section {
  const char* key;
  Json (*write)(const Report&);
  void (*read)(const JsonIn&, Report&);
  bool missing_in_older_reports = false;
};

// A section stored in one member of Report.
template <auto Member>
Section member_section(const char* key, bool missing_in_older_reports = false) {
  return {key,
          [](const Report& r) -> Json {
            const auto& v = r.*Member;
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              return v;
            } else if constexpr (requires { v.has_value(); }) {
              return to_json_opt(v);
            } else if constexpr (requires { v.begin(); }) {
              return to_json_array(v);
            } else {
              return to_json(v);
            }
          },
          [](const JsonIn& in, Report& r) { read(in, r.*Member); }, missing_in_older_reports};
}

const std::vector<Section>& sections() {
  static const std::vector<Section> kSections = {
      member_section<&Report::schema>("schema"),
      member_section<&Report::context>("context"),
      member_section<&Report::sweep_settings>("sweep_settings"),
      member_section<&Report::sweeps>("sweeps"),
      member_section<&Report::p2p>("p2p"),
      member_section<&Report::counters>("counters"),
      member_section<&Report::topology>("topology", /*missing_in_older_reports=*/true),
      member_section<&Report::diagnosis>("diagnosis", /*missing_in_older_reports=*/true),
      member_section<&Report::attribution>("attribution", /*missing_in_older_reports=*/true),
      member_section<&Report::comparison>("comparison", /*missing_in_older_reports=*/true),
      member_section<&Report::history>("history", /*missing_in_older_reports=*/true),
      member_section<&Report::triage>("triage", /*missing_in_older_reports=*/true),
      member_section<&Report::nccl_profile>("nccl_profile", /*missing_in_older_reports=*/true),
      member_section<&Report::fabric>("fabric", /*missing_in_older_reports=*/true),
      member_section<&Report::timeline>("timeline", /*missing_in_older_reports=*/true),
      member_section<&Report::watch>("watch", /*missing_in_older_reports=*/true),
      member_section<&Report::findings>("findings"),
      member_section<&Report::verdict>("verdict"),
  };
  return kSections;
}

}  // namespace

std::string to_json_text(const Report& r) {
  Json doc = Json::object();
  for (const Section& s : sections()) doc[s.key] = s.write(r);
  return dump_json(doc, 2) + "\n";
}

Result<Report> report_from_json_text(const std::string& text, const std::string& source) {
  auto parsed = parse_json_text<Json>(text, fmt::format("'{}'", source));
  if (!parsed.ok()) return parsed.status();
  const Json doc = std::move(*parsed);
  try {
    if (doc.is_object() && !doc.contains("schema") && doc.contains("results") && doc.contains("config")) {
      return Status::Invalid(fmt::format(
          "'{}' is nccl-tests -J output, not a fabscope report: make it one with `fabscope import nccl-tests {} "
          "--json FILE`",
          source, source));
    }
    const JsonIn root(doc, "", source);
    Report r;
    root.field("schema", r.schema);
    if (r.schema != kReportSchema) {
      return Status::Invalid(
          fmt::format("'{}' has schema '{}'; this fabscope reads '{}'", source, r.schema, kReportSchema));
    }
    for (const Section& s : sections()) {
      if (!s.missing_in_older_reports) {
        s.read(root.at(s.key), r);
      } else if (auto v = root.find(s.key)) {
        s.read(*v, r);
      }
    }
    return r;
  } catch (const JsonInputError& e) {
    return Status::Invalid(e.what());
  }
}

Result<Report> load_report(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return report_from_json_text(*text, path);
}

Status save_report(const Report& report, const std::string& path) {
  return write_file_atomically(path, to_json_text(report));
}

}  // namespace fabscope
