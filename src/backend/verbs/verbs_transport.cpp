// Data path of the verbs transport: posts what each peer's protocol decides, polls
// the one completion queue and feeds every completion back to its peer's protocol.
#include "backend/verbs/verbs_transport.h"
#include "core/clock.h"

#include <arpa/inet.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <chrono>

namespace fabscope {

namespace {
constexpr uint64_t kCtsBit = uint64_t{1} << 63;  // in a send's wr_id: a CTS, not a write
constexpr int kPollBatch = 32;
}  // namespace

std::string VerbsTransport::describe_peer(int peer) const {
  if (peer < 0 || peer >= size_) return fmt::format("rank {} (not in this job)", peer);
  return fmt::format("verbs {}:{} -> rank {} on {} ({} QPs)", device_ ? device_->name() : "?",
                     device_ ? device_->port() : 0, peer, peers_[peer].host, limits_.num_qps);
}

std::string VerbsTransport::library() const {
  return fmt::format("RC verbs on {}, {} QP{} per peer", device_ ? device_->describe() : "?", limits_.num_qps,
                     limits_.num_qps == 1 ? "" : "s");
}

void VerbsTransport::mark(int peer) {
  if (!peers_[peer].dirty) {
    peers_[peer].dirty = true;
    dirty_.push_back(peer);
  }
}

Status VerbsTransport::post_recv_slot(int peer, uint32_t qp, uint32_t slot) {
  const uint64_t index = (static_cast<uint64_t>(peer) * limits_.num_qps + qp) * recv_depth_ + slot;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(slots_.data() + index * kSlotBytes);
  sge.length = kSlotBytes;
  sge.lkey = slots_mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = index;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  Status st = FABSCOPE_IBV(ibv_post_recv(peers_[peer].qps[qp], &wr, &bad));
  if (!st.ok()) return Status::Runtime(fmt::format("verbs: to {}: {}", describe_peer(peer), st.message()));
  return Status::Ok();
}

Status VerbsTransport::post_work(int peer) {
  Peer& p = peers_[peer];
  work_.clear();
  p.protocol->take_work(work_);
  for (const VerbsWorkItem& w : work_) {
    ibv_sge sge{};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.send_flags = IBV_SEND_SIGNALED;
    std::array<uint8_t, kVerbsCtsWireBytes> cts{};
    if (w.kind == VerbsWorkItem::Kind::kCts) {
      cts = encode_cts(w.cts);
      sge.addr = reinterpret_cast<uint64_t>(cts.data());  // inline: copied when posted
      sge.length = static_cast<uint32_t>(cts.size());
      wr.wr_id = kCtsBit | w.sequence;
      wr.opcode = IBV_WR_SEND;
      wr.send_flags |= IBV_SEND_INLINE;
      wr.sg_list = &sge;
      wr.num_sge = 1;
    } else {
      sge.addr = w.local_addr;
      sge.length = static_cast<uint32_t>(w.bytes);
      sge.lkey = w.lkey;
      wr.wr_id = w.sequence;
      wr.opcode = w.with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
      wr.imm_data = htonl(w.imm);
      wr.wr.rdma.remote_addr = w.remote_addr;
      wr.wr.rdma.rkey = w.rkey;
      wr.sg_list = w.bytes > 0 ? &sge : nullptr;
      wr.num_sge = w.bytes > 0 ? 1 : 0;
    }
    Status st = FABSCOPE_IBV(ibv_post_send(p.qps[w.qp], &wr, &bad));
    if (!st.ok()) {
      return Status::Runtime(fmt::format("verbs: to {}, QP {}: {}", describe_peer(peer), w.qp, st.message()));
    }
  }
  return Status::Ok();
}

Result<uint64_t> VerbsTransport::post_send(int peer, const void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("verbs: rank {} cannot send to rank {}", rank_, peer));
  }
  auto mr = mrs_->get(buf, bytes);
  if (!mr.ok()) return mr.status();
  const uint64_t id = next_id_++;
  FABSCOPE_RETURN_IF_ERROR(
      peers_[peer].protocol->post_send(id, reinterpret_cast<uint64_t>(buf), bytes, mr->lkey, steady_now_ns()));
  ++pending_;
  mark(peer);
  FABSCOPE_RETURN_IF_ERROR(post_work(peer));
  return id;
}

Result<uint64_t> VerbsTransport::post_recv(int peer, void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("verbs: rank {} cannot receive from rank {}", rank_, peer));
  }
  auto mr = mrs_->get(buf, bytes);
  if (!mr.ok()) return mr.status();
  const uint64_t id = next_id_++;
  peers_[peer].protocol->post_recv(id, reinterpret_cast<uint64_t>(buf), bytes, mr->rkey, steady_now_ns());
  ++pending_;
  mark(peer);
  FABSCOPE_RETURN_IF_ERROR(post_work(peer));
  return id;
}

Status VerbsTransport::handle(const ibv_wc& wc) {
  auto it = by_qpn_.find(wc.qp_num);
  if (it == by_qpn_.end()) return Status::Runtime(fmt::format("verbs: a completion for unknown QP {:#x}", wc.qp_num));
  const auto [peer, qp] = it->second;
  if (wc.status != IBV_WC_SUCCESS) {
    return Status::Runtime(fmt::format("verbs: a work request to {} on QP {} failed: {} (vendor error {:#x}){}",
                                       describe_peer(peer), qp, ibv_wc_status_str(wc.status), wc.vendor_err,
                                       wc.status == IBV_WC_RETRY_EXC_ERR ? "; the peer stopped answering" : ""));
  }
  VerbsPeerProtocol& proto = *peers_[peer].protocol;
  mark(peer);
  Status st;
  if ((wc.opcode & IBV_WC_RECV) == 0) {  // a send-queue completion
    const bool cts = (wc.wr_id & kCtsBit) != 0;
    st = proto.on_send_done(qp, cts ? VerbsWorkItem::Kind::kCts : VerbsWorkItem::Kind::kWrite, wc.wr_id & ~kCtsBit);
  } else {
    const uint64_t index = wc.wr_id;
    if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
      st = proto.on_imm(qp, ntohl(wc.imm_data));
    } else {
      auto cts = decode_cts(
          std::span<const uint8_t>(slots_.data() + index * kSlotBytes, std::min<size_t>(wc.byte_len, kSlotBytes)));
      st = cts.ok() ? proto.on_cts(*cts) : cts.status();
    }
    if (st.ok()) st = post_recv_slot(peer, qp, static_cast<uint32_t>(index % recv_depth_));
  }
  if (!st.ok()) return Status::Runtime(fmt::format("{} (from {})", st.message(), describe_peer(peer)));
  return Status::Ok();
}

Status VerbsTransport::progress(std::vector<Completion>& done) {
  ibv_wc wcs[kPollBatch];
  int n = 0;
  do {
    n = ibv_poll_cq(cq_, kPollBatch, wcs);
    if (n < 0) return Status::Runtime("verbs: ibv_poll_cq failed");
    for (int i = 0; i < n; ++i) FABSCOPE_RETURN_IF_ERROR(handle(wcs[i]));
  } while (n == kPollBatch);
  dirty_now_.swap(dirty_);
  for (int peer : dirty_now_) {
    Peer& p = peers_[peer];
    p.dirty = false;
    FABSCOPE_RETURN_IF_ERROR(post_work(peer));
    done_.clear();
    p.protocol->take_done(done_);
    const int64_t now = steady_now_ns();
    for (const VerbsDone& d : done_) done.push_back({d.id, peer, d.bytes, d.is_send, d.posted_ns, now});
    pending_ -= done_.size();
  }
  dirty_now_.clear();
  return Status::Ok();
}

Status VerbsTransport::poll(std::vector<Completion>& done, int timeout_ms) {
  // No clock read while completions come: the deadline is taken at the first empty
  // pass, and checked every 64 passes.
  const size_t before = done.size();
  int64_t deadline = 0;
  for (unsigned spin = 0;; ++spin) {
    FABSCOPE_RETURN_IF_ERROR(progress(done));
    if (done.size() > before || pending_ == 0) return Status::Ok();
    if (spin % 64 != 0) continue;
    const int64_t now = steady_now_ns();
    if (spin == 0) deadline = now + static_cast<int64_t>(timeout_ms) * 1000000;
    if (now >= deadline) return Status::Ok();
  }
}

}  // namespace fabscope
