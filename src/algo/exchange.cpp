#include "algo/exchange.h"

#include "core/clock.h"
#include "core/wait_note.h"

namespace fabscope {

namespace {
template <typename T>
std::vector<T> take_spare(std::vector<std::vector<T>>& spare) {
  if (spare.empty()) return {};
  std::vector<T> v = std::move(spare.back());
  spare.pop_back();
  return v;
}
}  // namespace

Exchange::Exchange(Transport& transport, Trace* trace, int step, ExchangeLists* spare)
    : t_(transport), trace_(trace), step_(step), spare_(spare) {
  if (!spare_) return;
  posted_ = take_spare(spare_->posted);
  done_ = take_spare(spare_->done);
}

Exchange::~Exchange() {
  if (!spare_) return;
  posted_.clear();
  done_.clear();
  spare_->posted.push_back(std::move(posted_));
  spare_->done.push_back(std::move(done_));
}

Status Exchange::post(Result<uint64_t> id, int step, Callback on_done, int peer, size_t bytes, bool is_send) {
  if (!id.ok()) return id.status();
  posted_.push_back({*id, step, false, is_send, peer, bytes, std::move(on_done)});
  ++pending_;
  return Status::Ok();
}

Status Exchange::send(int peer, const void* buf, size_t bytes, int step) {
  return post(t_.post_send(peer, buf, bytes), step, {}, peer, bytes, true);
}

Status Exchange::send(int peer, const void* buf, size_t bytes, Callback on_done, int step) {
  return post(t_.post_send(peer, buf, bytes), step, std::move(on_done), peer, bytes, true);
}

Status Exchange::recv(int peer, void* buf, size_t bytes, Callback on_done, int step) {
  return post(t_.post_recv(peer, buf, bytes), step, std::move(on_done), peer, bytes, false);
}

void Exchange::note_oldest_open(int64_t waited_ns) const {
  for (size_t i = first_open_; i < posted_.size(); ++i) {
    const Posted& p = posted_[i];
    if (p.done) continue;
    note_wait(p.peer, p.bytes, p.is_send, p.id, waited_ns, t_.describe_peer(p.peer));
    return;
  }
}

Status Exchange::wait() {
  // A poll that completes nothing reads the clock (one read beside the transport's own
  // poll, no read per message): a wait past kNoteWaitNs is noted for the watchdog's message.
  int64_t empty_since_ns = 0;
  while (pending_ > 0) {
    done_.clear();
    FABSCOPE_RETURN_IF_ERROR(t_.poll(done_, 100));
    if (done_.empty()) {
      const int64_t now = steady_now_ns();
      if (empty_since_ns == 0) {
        empty_since_ns = now;
      } else if (now - empty_since_ns >= kNoteWaitNs) {
        note_oldest_open(now - empty_since_ns);
      }
      continue;
    }
    empty_since_ns = 0;
    for (const Completion& c : done_) {
      // Completions come nearly in posting order: search from the first open message.
      size_t i = first_open_;
      while (i < posted_.size() && (posted_[i].done || posted_[i].id != c.id)) ++i;
      if (i == posted_.size()) continue;  // left over from an exchange that failed
      Posted& p = posted_[i];
      p.done = true;
      --pending_;
      while (first_open_ < posted_.size() && posted_[first_open_].done) ++first_open_;
      if (trace_) {
        trace_->records.push_back(
            {p.step >= 0 ? p.step : step_, c.peer, c.bytes, c.is_send, c.posted_ns, c.completed_ns});
      }
      if (p.on_done) {
        // The callback may post (posted_ may grow and move): run it from a local.
        Callback fn = std::move(p.on_done);
        fn();
      }
    }
  }
  return Status::Ok();
}

}  // namespace fabscope
