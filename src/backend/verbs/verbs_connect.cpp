// Connection set-up of the verbs transport: device, protection domain, completion
// queue and RC queue pairs per peer; receive slots; connection info exchanged over
// MPI; every queue pair moved INIT -> RTR -> RTS. Every rank agrees on each step's
// outcome before the next, so a failure on one rank ends set-up on all of them.
#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <random>

#include "backend/verbs/verbs_transport.h"
#include "backend/verbs/verbs_wire.h"
#include "comm/mpi_check.h"

namespace fabscope {

namespace {

constexpr int kAccess = static_cast<int>(IBV_ACCESS_LOCAL_WRITE) | static_cast<int>(IBV_ACCESS_REMOTE_WRITE);
constexpr uint8_t kQpTimeout = 14;  // perftest's default: 4.096 us * 2^14, about 67 ms
constexpr uint8_t kRetries = 7;
constexpr uint8_t kRnrRetries = 7;  // 7: retry forever while the peer has no receive posted
constexpr uint8_t kMinRnrTimer = 12;

}  // namespace

Status VerbsTransport::setup_queue_pairs(const RankContext& ctx) {
  const ibv_device_attr& dev = device_->device_attr();
  const uint32_t nqps = limits_.num_qps;
  const auto npeers = static_cast<uint64_t>(size_ - 1);
  const uint64_t cqe = std::max<uint64_t>(1, npeers * nqps * (limits_.send_queue_depth + recv_depth_));
  if (limits_.send_queue_depth > static_cast<uint32_t>(dev.max_qp_wr) ||
      recv_depth_ > static_cast<uint32_t>(dev.max_qp_wr)) {
    return Status::Unavailable(fmt::format("{} allows {} work requests per queue, fabscope needs {}", device_->name(),
                                           dev.max_qp_wr, std::max(limits_.send_queue_depth, recv_depth_)));
  }
  if (cqe > static_cast<uint64_t>(dev.max_cqe)) {
    return Status::Unavailable(
        fmt::format("{} ranks with {} queue pairs each need {} completion queue entries; {} "
                    "allows {} (use fewer --qps)",
                    size_, nqps, cqe, device_->name(), dev.max_cqe));
  }
  pd_ = ibv_alloc_pd(device_->context());
  if (pd_ == nullptr) return FABSCOPE_IBV_NULL(ibv_alloc_pd);
  cq_ = ibv_create_cq(device_->context(), static_cast<int>(cqe), nullptr, nullptr, 0);
  if (cq_ == nullptr) return FABSCOPE_IBV_NULL(ibv_create_cq);

  mrs_ = std::make_unique<VerbsMrCache>(
      [pd = pd_](uint64_t addr, uint64_t bytes) -> Result<VerbsMr> {
        ibv_mr* mr = ibv_reg_mr(pd, reinterpret_cast<void*>(addr), bytes, kAccess);
        if (mr == nullptr) {
          Status st = FABSCOPE_IBV_NULL(ibv_reg_mr);
          return Status::Runtime(fmt::format("registering {} bytes at {:#x}: {}", bytes, addr, st.message()));
        }
        return VerbsMr{addr, bytes, mr->lkey, mr->rkey, mr};
      },
      [](const VerbsMr& m) { ibv_dereg_mr(static_cast<ibv_mr*>(m.handle)); });

  slots_.assign(static_cast<size_t>(size_) * nqps * recv_depth_ * kSlotBytes, 0);
  if (!slots_.empty()) {
    slots_mr_ = ibv_reg_mr(pd_, slots_.data(), slots_.size(), static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
    if (slots_mr_ == nullptr) return FABSCOPE_IBV_NULL(ibv_reg_mr);
  }

  std::random_device random;
  psns_.assign(static_cast<size_t>(size_) * nqps, 0);
  for (int p = 0; p < size_; ++p) {
    Peer& peer = peers_[p];
    peer.host = ctx.ranks()[p].host;
    peer.protocol = std::make_unique<VerbsPeerProtocol>(limits_);
    if (p == rank_) continue;
    for (uint32_t q = 0; q < nqps; ++q) {
      ibv_qp_init_attr init{};
      init.send_cq = cq_;
      init.recv_cq = cq_;
      init.cap.max_send_wr = limits_.send_queue_depth;
      init.cap.max_recv_wr = recv_depth_;
      init.cap.max_send_sge = 1;
      init.cap.max_recv_sge = 1;
      init.cap.max_inline_data = kSlotBytes;  // CTSs are sent inline
      init.qp_type = IBV_QPT_RC;
      ibv_qp* qp = ibv_create_qp(pd_, &init);
      if (qp == nullptr) return FABSCOPE_IBV_NULL(ibv_create_qp);
      peer.qps.push_back(qp);
      by_qpn_[qp->qp_num] = {p, q};

      ibv_qp_attr a{};
      a.qp_state = IBV_QPS_INIT;
      a.pkey_index = 0;
      a.port_num = device_->port();
      a.qp_access_flags = kAccess;
      FABSCOPE_RETURN_IF_ERROR(
          FABSCOPE_IBV(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)));
      for (uint32_t s = 0; s < recv_depth_; ++s) FABSCOPE_RETURN_IF_ERROR(post_recv_slot(p, q, s));
      psns_[static_cast<size_t>(p) * nqps + q] = random() & 0xFFFFFF;
    }
  }
  return Status::Ok();
}

Status VerbsTransport::connect_queue_pairs(const RankContext& ctx) {
  const uint32_t nqps = limits_.num_qps;
  const size_t block = verbs_endpoint_wire_bytes(nqps);
  std::vector<uint8_t> out(block * static_cast<size_t>(size_), 0);
  std::vector<uint8_t> in(out.size(), 0);
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    VerbsEndpointInfo info;
    info.rank = static_cast<uint32_t>(rank_);
    for (uint32_t q = 0; q < nqps; ++q) {
      VerbsQpInfo qi;
      qi.qpn = peers_[p].qps[q]->qp_num;
      qi.psn = psns_[static_cast<size_t>(p) * nqps + q];
      qi.lid = device_->lid();
      qi.gid = device_->gid();
      qi.mtu = static_cast<uint8_t>(device_->active_mtu());
      info.qps.push_back(qi);
    }
    std::vector<uint8_t> bytes = encode_endpoint(info);
    std::memcpy(out.data() + block * static_cast<size_t>(p), bytes.data(), block);
  }
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Alltoall(out.data(), static_cast<int>(block), MPI_BYTE, in.data(),
                                                     static_cast<int>(block), MPI_BYTE, ctx.comm())));

  const bool grh = device_->gid_index() >= 0;
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    std::span<const uint8_t> bytes(in.data() + block * static_cast<size_t>(p), block);
    auto remote = decode_endpoint(bytes, static_cast<uint32_t>(p), nqps);
    if (!remote.ok()) return remote.status();
    for (uint32_t q = 0; q < nqps; ++q) {
      const VerbsQpInfo& r = remote->qps[q];
      if (grh && gid_is_zero(r.gid)) {
        return Status::Runtime(
            fmt::format("rank {} sent no GID, but {} routes by GID (give every rank the same "
                        "--verbs-gid-index, and use RoCE or InfiniBand on all of them)",
                        p, device_->describe()));
      }
      if (!grh && r.lid == 0) {
        return Status::Runtime(
            fmt::format("rank {} sent LID 0: its port is RoCE or unconfigured while {} routes by "
                        "LID (is a subnet manager running?)",
                        p, device_->describe()));
      }
      ibv_qp* qp = peers_[p].qps[q];
      ibv_qp_attr a{};
      a.qp_state = IBV_QPS_RTR;
      a.path_mtu = static_cast<ibv_mtu>(std::min<int>(device_->active_mtu(), r.mtu));
      a.dest_qp_num = r.qpn;
      a.rq_psn = r.psn;
      a.max_dest_rd_atomic = 1;
      a.min_rnr_timer = kMinRnrTimer;
      a.ah_attr.dlid = r.lid;
      a.ah_attr.port_num = device_->port();
      if (grh) {
        a.ah_attr.is_global = 1;
        std::memcpy(a.ah_attr.grh.dgid.raw, r.gid.data(), r.gid.size());
        a.ah_attr.grh.sgid_index = static_cast<uint8_t>(device_->gid_index());
        a.ah_attr.grh.hop_limit = 255;
      }
      FABSCOPE_RETURN_IF_ERROR(
          FABSCOPE_IBV(ibv_modify_qp(qp, &a,
                                     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                         IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)));
      ibv_qp_attr s{};
      s.qp_state = IBV_QPS_RTS;
      s.timeout = kQpTimeout;
      s.retry_cnt = kRetries;
      s.rnr_retry = kRnrRetries;
      s.sq_psn = psns_[static_cast<size_t>(p) * nqps + q];
      s.max_rd_atomic = 1;
      FABSCOPE_RETURN_IF_ERROR(
          FABSCOPE_IBV(ibv_modify_qp(qp, &s,
                                     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                         IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)));
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<VerbsTransport>> VerbsTransport::create(const RankContext& ctx, const VerbsOptions& o,
                                                               const Logger& log) {
  std::unique_ptr<VerbsTransport> t(new VerbsTransport());
  t->rank_ = ctx.rank();
  t->size_ = ctx.size();
  t->options_ = o;
  t->limits_.num_qps = o.qps;
  t->limits_.max_write_bytes = o.max_write_bytes;
  t->limits_.max_recvs_in_flight = o.max_recvs_in_flight;
  t->limits_.send_queue_depth = o.send_queue_depth;
  // QP 0 takes up to one CTS and one immediate per receive in flight each way.
  t->recv_depth_ = 2 * o.max_recvs_in_flight + 4;
  t->peers_.resize(static_cast<size_t>(ctx.size()));

  Status local;
  std::string why = check_limits(t->limits_);
  if (!why.empty()) local = Status::Invalid(fmt::format("verbs: {}", why));
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  // Every rank must use as many queue pairs: the exchange's block size depends on it.
  int qps_min = static_cast<int>(o.qps);
  int qps_max = qps_min;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(MPI_IN_PLACE, &qps_min, 1, MPI_INT, MPI_MIN, ctx.comm())));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(MPI_IN_PLACE, &qps_max, 1, MPI_INT, MPI_MAX, ctx.comm())));
  if (qps_min != qps_max) {
    return Status::Invalid(
        fmt::format("--qps differs between ranks ({} to {}); give every rank the same", qps_min, qps_max));
  }

  auto dev = VerbsDevice::open(o);
  if (dev.ok()) {
    t->device_ = std::move(*dev);
  } else {
    local = dev.status();  // ctx.agree names the rank and host
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  local = t->setup_queue_pairs(ctx);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  local = t->connect_queue_pairs(ctx);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  // Every queue pair is ready to receive before any rank sends.
  FABSCOPE_RETURN_IF_ERROR(ctx.barrier());
  log.info("verbs transport on {}, {} peers x {} queue pairs", t->device_->describe(), ctx.size() - 1, o.qps);
  return t;
}

VerbsTransport::~VerbsTransport() {
  for (Peer& p : peers_) {
    for (ibv_qp* qp : p.qps) ibv_destroy_qp(qp);
    p.qps.clear();
  }
  mrs_.reset();
  if (slots_mr_ != nullptr) ibv_dereg_mr(slots_mr_);
  if (cq_ != nullptr) ibv_destroy_cq(cq_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
  device_.reset();
}

}  // namespace fabscope
