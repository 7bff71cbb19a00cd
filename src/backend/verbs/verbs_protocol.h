// The verbs transport's message protocol with one peer, pure and device-free: it
// decides which work requests to post and which messages have completed; the
// transport only posts what it is told and feeds back what the device reports.
//
// Receiving: each posted receive, in order and at most max_recvs_in_flight at a time,
// sends the peer a clear-to-send (CTS, on QP 0) with its registered address and rkey.
// Sending: once a send is posted and its CTS has arrived (either may come first; the
// lengths must agree), the message is cut into RDMA writes of at most max_write_bytes,
// chunk k on QP k % num_qps. The last write on each QP that the message uses carries
// the immediate (the message's sequence number, low 32 bits): RC orders writes within
// one QP only, so the receiver waits for one immediate from every QP used before the
// data is known to have landed. A zero-byte message is one zero-length write with
// immediate. A send completes when all its writes have completed; a receive when all
// its immediates arrived. Messages complete in posting order, per direction.
// Each QP has send_queue_depth credits: a work request takes one, its completion
// returns it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "backend/verbs/verbs_wire.h"
#include "core/status.h"

namespace fabscope {

struct VerbsProtocolLimits {
  uint32_t num_qps = 1;                 // 1..kVerbsMaxQps
  uint64_t max_write_bytes = 1u << 20;  // per RDMA write
  uint32_t max_recvs_in_flight = 32;    // receives with a CTS out and not yet complete
  uint32_t send_queue_depth = 128;      // work requests outstanding per QP
};
// "" when the limits can be used, else why not.
std::string check_limits(const VerbsProtocolLimits& limits);

// How a message of `bytes` is cut: how many writes, and on how many QPs (0..qps-1).
struct VerbsSplit {
  uint64_t writes = 1;
  uint32_t qps_used = 1;
};
VerbsSplit verbs_split(uint64_t bytes, const VerbsProtocolLimits& limits);

// One work request for the transport to post on QP `qp` of this peer.
struct VerbsWorkItem {
  enum class Kind { kWrite, kCts };
  Kind kind = Kind::kWrite;
  uint32_t qp = 0;
  uint64_t sequence = 0;  // of the message (a send's for a write, a receive's for a CTS)
  // kWrite: `bytes` from local_addr (lkey) to remote_addr (rkey), with an immediate or not.
  uint64_t local_addr = 0;
  uint32_t lkey = 0;
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  uint64_t bytes = 0;
  bool with_imm = false;
  uint32_t imm = 0;
  // kCts: the message to send.
  VerbsCts cts;
};

// A message that completed, in posting order per direction.
struct VerbsDone {
  uint64_t id = 0;
  uint64_t bytes = 0;
  bool is_send = false;
  int64_t posted_ns = 0;
};

class VerbsPeerProtocol {
 public:
  explicit VerbsPeerProtocol(const VerbsProtocolLimits& limits);

  // Queues a send; fails when its CTS already arrived with another length.
  Status post_send(uint64_t id, uint64_t addr, uint64_t bytes, uint32_t lkey, int64_t posted_ns);
  void post_recv(uint64_t id, uint64_t addr, uint64_t bytes, uint32_t rkey, int64_t posted_ns);

  // What the device reported. Each fails, naming the fault, on what the protocol
  // cannot have caused: a CTS out of order or of the wrong length, a completion
  // nobody posted, an immediate twice or for no receive.
  Status on_cts(const VerbsCts& cts);
  Status on_send_done(uint32_t qp, VerbsWorkItem::Kind kind, uint64_t sequence);
  Status on_imm(uint32_t qp, uint32_t imm);

  // Appends the work requests that may be posted now (taking their credits).
  void take_work(std::vector<VerbsWorkItem>& out);
  // Appends the messages that completed since the last call.
  void take_done(std::vector<VerbsDone>& out);

  bool idle() const { return sends_.empty() && recvs_.empty(); }
  uint32_t credits(uint32_t qp) const { return credits_[qp]; }
  const VerbsProtocolLimits& limits() const { return limits_; }

 private:
  struct SendMsg {
    uint64_t sequence;
    uint64_t id;
    uint64_t addr;
    uint64_t bytes;
    uint32_t lkey;
    int64_t posted_ns;
    VerbsSplit split;
    bool has_cts = false;
    uint64_t remote_addr = 0;
    uint32_t rkey = 0;
    uint64_t writes_posted = 0;
    uint64_t writes_done = 0;
  };
  struct RecvMsg {
    uint64_t sequence;
    uint64_t id;
    uint64_t addr;
    uint64_t bytes;
    uint32_t rkey;
    int64_t posted_ns;
    VerbsSplit split;
    uint64_t imm_qps = 0;  // bit q: the immediate from QP q arrived
    uint32_t imms = 0;
  };
  Status match(SendMsg& send, const VerbsCts& cts) const;

  VerbsProtocolLimits limits_;
  std::vector<uint32_t> credits_;
  // Send side: sends not yet reported, CTSs that came before their send.
  std::deque<SendMsg> sends_;
  std::deque<VerbsCts> early_cts_;
  uint64_t next_send_seq_ = 0;
  uint64_t next_cts_in_ = 0;  // sequence the next CTS from the peer must carry
  // Receive side: receives not yet reported; those below next_cts_out_ have a CTS out.
  std::deque<RecvMsg> recvs_;
  uint64_t next_recv_seq_ = 0;
  uint64_t next_cts_out_ = 0;
};

}  // namespace fabscope
