// The verbs transport: RC queue pairs to every peer (--qps of them), their connection
// info exchanged over MPI, receive buffers announced to the sender with a clear-to-send
// and written with RDMA writes, the last one on each queue pair with an immediate.
// Host memory, registered once per buffer (GPU memory through dma-buf later). The
// protocol lives in verbs_protocol.h; this class posts what it decides and feeds it
// what the completion queue reports. Set-up is in verbs_connect.cpp, the data path in
// verbs_transport.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algo/transport.h"
#include "backend/verbs/verbs_device.h"
#include "backend/verbs/verbs_mr_cache.h"
#include "backend/verbs/verbs_options.h"
#include "backend/verbs/verbs_protocol.h"
#include "comm/context.h"
#include "core/log.h"

namespace fabscope {

class VerbsTransport final : public Transport {
 public:
  static Result<std::unique_ptr<VerbsTransport>> create(const RankContext& ctx, const VerbsOptions& options,
                                                        const Logger& log);
  ~VerbsTransport() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override;
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override;
  Status poll(std::vector<Completion>& done, int timeout_ms) override;
  std::string describe_peer(int peer) const override;
  // "RC verbs on mlx5_0 port 1 (InfiniBand, 200 Gb/s, LID 0x12), 2 QPs per peer"
  std::string library() const override;
  void forget_memory(const void* buf, size_t bytes) override { mrs_->invalidate(buf, bytes); }

 private:
  static constexpr uint32_t kSlotBytes = 64;  // one receive slot: holds a CTS
  struct Peer {
    std::string host;
    std::vector<ibv_qp*> qps;
    std::unique_ptr<VerbsPeerProtocol> protocol;
    bool dirty = false;  // has work to post or completions to collect
  };

  VerbsTransport() = default;
  Status setup_queue_pairs(const RankContext& ctx);
  Status connect_queue_pairs(const RankContext& ctx);
  Status post_recv_slot(int peer, uint32_t qp, uint32_t slot);
  Status post_work(int peer);
  Status handle(const ibv_wc& wc);
  Status progress(std::vector<Completion>& done);
  void mark(int peer);

  int rank_ = 0;
  int size_ = 1;
  VerbsOptions options_;
  VerbsProtocolLimits limits_;
  uint32_t recv_depth_ = 0;  // receive slots per queue pair
  std::unique_ptr<VerbsDevice> device_;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  std::vector<Peer> peers_;
  std::vector<uint32_t> psns_;                                     // [peer * qps + qp]
  std::unordered_map<uint32_t, std::pair<int, uint32_t>> by_qpn_;  // qp number -> (peer, qp)
  std::vector<uint8_t> slots_;                                     // [peer][qp][slot] kSlotBytes each
  ibv_mr* slots_mr_ = nullptr;
  std::unique_ptr<VerbsMrCache> mrs_;
  uint64_t next_id_ = 1;
  uint64_t pending_ = 0;  // messages posted and not yet reported complete
  std::vector<int> dirty_, dirty_now_;
  std::vector<VerbsWorkItem> work_;
  std::vector<VerbsDone> done_;
};

}  // namespace fabscope
