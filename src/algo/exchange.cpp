#include "algo/exchange.h"
#include "core/clock.h"

namespace fabscope {

Status Exchange::send(int peer, const void* buf, size_t bytes, int step) {
  auto id = t_.post_send(peer, buf, bytes);
  if (!id.ok()) return id.status();
  if (trace_ && step >= 0) steps_.emplace(*id, step);
  posted_.insert(*id);
  ++pending_;
  return Status::Ok();
}

Status Exchange::recv(int peer, void* buf, size_t bytes, std::function<void()> on_done, int step) {
  auto id = t_.post_recv(peer, buf, bytes);
  if (!id.ok()) return id.status();
  if (trace_ && step >= 0) steps_.emplace(*id, step);
  if (on_done) callbacks_.emplace(*id, std::move(on_done));
  posted_.insert(*id);
  ++pending_;
  return Status::Ok();
}

Status Exchange::wait() {
  while (pending_ > 0) {
    done_.clear();
    FABSCOPE_RETURN_IF_ERROR(t_.poll(done_, 100));
    for (const Completion& c : done_) {
      if (posted_.erase(c.id) == 0) continue;  // left over from an exchange that failed
      --pending_;
      if (trace_) {
        int step = step_;
        if (auto it = steps_.find(c.id); it != steps_.end()) {
          step = it->second;
          steps_.erase(it);
        }
        trace_->records.push_back({step, c.peer, c.bytes, c.is_send, c.posted_ns, c.completed_ns});
      }
      if (!c.is_send) {
        auto it = callbacks_.find(c.id);
        if (it != callbacks_.end()) {
          auto fn = std::move(it->second);
          callbacks_.erase(it);
          fn();
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace fabscope
