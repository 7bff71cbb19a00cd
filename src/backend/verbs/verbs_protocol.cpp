#include "backend/verbs/verbs_protocol.h"

#include <fmt/format.h>
#include <algorithm>

namespace fabscope {

std::string check_limits(const VerbsProtocolLimits& l) {
  if (l.num_qps < 1 || l.num_qps > kVerbsMaxQps) {
    return fmt::format("{} queue pairs per peer; allowed: 1 to {}", l.num_qps, kVerbsMaxQps);
  }
  if (l.max_write_bytes == 0 || l.max_write_bytes > (uint64_t{1} << 31)) {
    return fmt::format("{} bytes per RDMA write; allowed: 1 byte to 2 GiB", l.max_write_bytes);
  }
  if (l.max_recvs_in_flight < 1) return "at least one receive must be allowed in flight";
  if (l.send_queue_depth < 1) return "the send queue must hold at least one work request";
  return "";
}

VerbsSplit verbs_split(uint64_t bytes, const VerbsProtocolLimits& l) {
  VerbsSplit s;
  s.writes = bytes == 0 ? 1 : (bytes - 1) / l.max_write_bytes + 1;
  s.qps_used = static_cast<uint32_t>(std::min<uint64_t>(s.writes, l.num_qps));
  return s;
}

VerbsPeerProtocol::VerbsPeerProtocol(const VerbsProtocolLimits& limits)
    : limits_(limits), credits_(limits.num_qps, limits.send_queue_depth) {}

Status VerbsPeerProtocol::match(SendMsg& send, const VerbsCts& cts) const {
  if (cts.length != send.bytes) {
    return Status::Runtime(fmt::format("verbs: message {} is {} bytes here, but the peer posted a {}-byte receive",
                                       send.sequence, send.bytes, cts.length));
  }
  send.has_cts = true;
  send.remote_addr = cts.addr;
  send.rkey = cts.rkey;
  return Status::Ok();
}

Status VerbsPeerProtocol::post_send(uint64_t id, uint64_t addr, uint64_t bytes, uint32_t lkey, int64_t posted_ns) {
  SendMsg m{next_send_seq_++, id, addr, bytes, lkey, posted_ns, verbs_split(bytes, limits_)};
  sends_.push_back(m);
  if (!early_cts_.empty()) {
    // CTSs arrive in order, so the oldest waiting one is this send's.
    VerbsCts cts = early_cts_.front();
    early_cts_.pop_front();
    return match(sends_.back(), cts);
  }
  return Status::Ok();
}

void VerbsPeerProtocol::post_recv(uint64_t id, uint64_t addr, uint64_t bytes, uint32_t rkey, int64_t posted_ns) {
  RecvMsg m{next_recv_seq_++, id, addr, bytes, rkey, posted_ns, verbs_split(bytes, limits_)};
  recvs_.push_back(m);
}

Status VerbsPeerProtocol::on_cts(const VerbsCts& cts) {
  if (cts.sequence != next_cts_in_) {
    return Status::Runtime(fmt::format("verbs protocol error: clear-to-send for message {}, expected message {}",
                                       cts.sequence, next_cts_in_));
  }
  ++next_cts_in_;
  if (cts.sequence >= next_send_seq_) {
    early_cts_.push_back(cts);
    return Status::Ok();
  }
  // Its send is posted and, having had no CTS, cannot have completed: it is in sends_.
  const uint64_t index = cts.sequence - sends_.front().sequence;
  return match(sends_[index], cts);
}

Status VerbsPeerProtocol::on_send_done(uint32_t qp, VerbsWorkItem::Kind kind, uint64_t sequence) {
  if (qp >= limits_.num_qps || credits_[qp] >= limits_.send_queue_depth) {
    return Status::Runtime(fmt::format("verbs protocol error: a send completion on QP {} that nothing posted", qp));
  }
  ++credits_[qp];
  if (kind == VerbsWorkItem::Kind::kCts) return Status::Ok();
  const bool known = !sends_.empty() && sequence >= sends_.front().sequence && sequence <= sends_.back().sequence;
  SendMsg* m = known ? &sends_[sequence - sends_.front().sequence] : nullptr;
  if (m == nullptr || m->writes_done >= m->writes_posted) {
    return Status::Runtime(fmt::format(
        "verbs protocol error: an RDMA write completion for message {}, which has none outstanding", sequence));
  }
  ++m->writes_done;
  return Status::Ok();
}

Status VerbsPeerProtocol::on_imm(uint32_t qp, uint32_t imm) {
  // Only receives below next_cts_out_ can have data; match the immediate against them.
  const uint64_t base = recvs_.empty() ? next_recv_seq_ : recvs_.front().sequence;
  const uint32_t delta = imm - static_cast<uint32_t>(base);
  if (static_cast<int32_t>(delta) < 0) {
    return Status::Runtime(
        fmt::format("verbs protocol error: duplicate immediate {} on QP {}: that message already completed", imm, qp));
  }
  if (delta >= next_cts_out_ - base) {
    return Status::Runtime(fmt::format(
        "verbs protocol error: immediate {} on QP {} matches no receive this rank sent a clear-to-send for", imm, qp));
  }
  RecvMsg& m = recvs_[delta];
  if (qp >= m.split.qps_used) {
    return Status::Runtime(
        fmt::format("verbs protocol error: immediate for message {} on QP {}, but a {}-byte message uses QPs 0 to {}",
                    m.sequence, qp, m.bytes, m.split.qps_used - 1));
  }
  const uint64_t bit = uint64_t{1} << qp;
  if ((m.imm_qps & bit) != 0) {
    return Status::Runtime(
        fmt::format("verbs protocol error: duplicate immediate for message {} on QP {}", m.sequence, qp));
  }
  m.imm_qps |= bit;
  ++m.imms;
  return Status::Ok();
}

void VerbsPeerProtocol::take_work(std::vector<VerbsWorkItem>& out) {
  // CTSs first: they let the peer start sending.
  while (next_cts_out_ < next_recv_seq_ && credits_[0] > 0) {
    const uint64_t base = recvs_.front().sequence;
    if (next_cts_out_ - base >= limits_.max_recvs_in_flight) break;
    const RecvMsg& m = recvs_[next_cts_out_ - base];
    VerbsWorkItem w;
    w.kind = VerbsWorkItem::Kind::kCts;
    w.qp = 0;
    w.sequence = m.sequence;
    w.cts = {m.sequence, m.addr, m.bytes, m.rkey};
    out.push_back(w);
    --credits_[0];
    ++next_cts_out_;
  }
  // Then writes, in message order; a QP out of credits holds back everything after it.
  for (SendMsg& m : sends_) {
    if (!m.has_cts) break;
    while (m.writes_posted < m.split.writes) {
      const uint64_t k = m.writes_posted;
      const auto qp = static_cast<uint32_t>(k % limits_.num_qps);
      if (credits_[qp] == 0) return;
      const uint64_t offset = k * limits_.max_write_bytes;
      VerbsWorkItem w;
      w.kind = VerbsWorkItem::Kind::kWrite;
      w.qp = qp;
      w.sequence = m.sequence;
      w.local_addr = m.bytes == 0 ? 0 : m.addr + offset;
      w.lkey = m.lkey;
      w.remote_addr = m.bytes == 0 ? 0 : m.remote_addr + offset;
      w.rkey = m.rkey;
      w.bytes = std::min(limits_.max_write_bytes, m.bytes - std::min(m.bytes, offset));
      w.with_imm = k + m.split.qps_used >= m.split.writes;
      w.imm = static_cast<uint32_t>(m.sequence);
      out.push_back(w);
      --credits_[qp];
      ++m.writes_posted;
    }
  }
}

void VerbsPeerProtocol::take_done(std::vector<VerbsDone>& out) {
  while (!sends_.empty() && sends_.front().has_cts && sends_.front().writes_done == sends_.front().split.writes) {
    const SendMsg& m = sends_.front();
    out.push_back({m.id, m.bytes, true, m.posted_ns});
    sends_.pop_front();
  }
  while (!recvs_.empty() && recvs_.front().sequence < next_cts_out_ &&
         recvs_.front().imms == recvs_.front().split.qps_used) {
    const RecvMsg& m = recvs_.front();
    out.push_back({m.id, m.bytes, false, m.posted_ns});
    recvs_.pop_front();
  }
}

}  // namespace fabscope
