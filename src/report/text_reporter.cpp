#include "report/text_reporter.h"

#include "report/compare_text.h"
#include "report/diagnosis_text.h"
#include "report/history_text.h"
#include "report/p2p_table.h"
#include "report/summary.h"
#include "report/timeline_text.h"
#include "report/topology_text.h"
#include "report/triage_text.h"

namespace fabscope {

namespace {
std::string topology_text(const Report& r) { return r.topology ? render_topology_text(*r.topology) : ""; }
}  // namespace

std::string render_text(const Report& r) {
  return render_answer(r) + render_triage(r) + topology_text(r) + render_tables(r) + render_timeline(r) +
         render_p2p(r) + render_nccl_profile(r) + render_attribution(r) + render_comparison(r) + render_history(r) +
         render_summary(r);
}

void TextReporter::emit(const std::string& text) {
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void TextReporter::on_start(const Report& report) {
  if (!report.sweep_settings) return;  // only a sweep streams
  streamed_ = true;
  timestamps_ = report.sweep_settings->report_timestamps;
  if (report.timeline) run_cycles_ = report.timeline->run_cycles;
  emit(render_preamble(report));
}

void TextReporter::on_sweep_begin(const Sweep& s) {
  if (s.collective == group_) return;
  end_group();
  group_ = s.collective;
  emit(render_floor(s) + render_group_start(group_, timestamps_));
}

void TextReporter::on_cycle_begin(int cycle) {
  if (run_cycles_ == 1) return;
  end_group();
  emit(render_cycle_start(cycle, run_cycles_));
}

void TextReporter::on_point(const Sweep& s, const SweepPoint& p) {
  emit(render_row(s, p, timestamps_));
  footer_.add(p);
}

void TextReporter::end_group() {
  if (group_.empty()) return;
  emit(footer_.render(group_));
  footer_ = TableFooter();
  group_.clear();
}

Status TextReporter::finish(const Report& r) {
  if (streamed_) {
    end_group();
    emit(render_timeline(r) + topology_text(r) + render_p2p(r) + render_nccl_profile(r) + render_summary(r));
  } else {
    emit(render_text(r));
  }
  return Status::Ok();
}

}  // namespace fabscope
