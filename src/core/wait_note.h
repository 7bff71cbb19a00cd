// What this process's measuring thread is waiting on, when it waits: the oldest message
// of fabscope's engine still open after a poll found nothing for its whole timeout (peer,
// size, direction, since when, over which link). The heartbeat carries it to rank 0 and
// a hang message names it ("waits on rank 2 (h2) for a 1 MiB receive, open 9.8 s, over
// tcp 198.18.0.3:40123"). Written only once a wait has already lasted a poll's timeout,
// so nothing of it sits in a timed loop; a note not renewed within `fresh_s` is over.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fabscope {

struct WaitNote {
  int peer = -1;
  uint64_t bytes = 0;
  bool is_send = false;
  uint64_t message_id = 0;  // the transport's id: a renewed note of one message keeps its start
  int64_t since_ns = 0;     // steady clock: when this message was first seen waited on
  int64_t noted_ns = 0;     // steady clock: the latest renewal
  std::string link;         // the transport's description of the way to the peer
};

// Notes (or renews) the message waited on. `waited_ns`: how long the poll that found
// nothing had waited, counted into the start of a message noted for the first time.
void note_wait(int peer, uint64_t bytes, bool is_send, uint64_t message_id, int64_t waited_ns, const std::string& link);
// The note, when renewed within `fresh_s` of now.
std::optional<WaitNote> current_wait(double fresh_s);
// "a 1 MiB receive from rank 2, open 9.8 s, over tcp 198.18.0.3:40123" (`peer_name`: how to
// name the peer, e.g. "rank 2 (h2)").
std::string describe_wait(const WaitNote& w, const std::string& peer_name, int64_t now_ns);

}  // namespace fabscope
