#include "core/wait_note.h"

#include <fmt/format.h>

#include <mutex>

#include "core/clock.h"
#include "core/sizes.h"

namespace fabscope {

namespace {
std::mutex g_mu;
WaitNote g_note;
}  // namespace

void note_wait(int peer, uint64_t bytes, bool is_send, uint64_t message_id, int64_t waited_ns,
               const std::string& link) {
  const int64_t now = steady_now_ns();
  std::lock_guard<std::mutex> lock(g_mu);
  const bool same = g_note.message_id == message_id && g_note.peer == peer && g_note.is_send == is_send &&
                    g_note.bytes == bytes && g_note.noted_ns != 0;
  if (!same) {
    g_note.peer = peer;
    g_note.bytes = bytes;
    g_note.is_send = is_send;
    g_note.message_id = message_id;
    g_note.since_ns = now - waited_ns;
    g_note.link = link;
  }
  g_note.noted_ns = now;
}

std::optional<WaitNote> current_wait(double fresh_s) {
  const int64_t now = steady_now_ns();
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_note.noted_ns == 0 || static_cast<double>(now - g_note.noted_ns) * 1e-9 > fresh_s) return std::nullopt;
  return g_note;
}

std::string describe_wait(const WaitNote& w, const std::string& peer_name, int64_t now_ns) {
  return fmt::format("a {} {} {}, open {:.1f} s{}", format_size(w.bytes), w.is_send ? "send to" : "receive from",
                     peer_name, static_cast<double>(now_ns - w.since_ns) * 1e-9,
                     w.link.empty() ? "" : ", over " + w.link);
}

}  // namespace fabscope
