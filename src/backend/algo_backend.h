// A backend that runs fabscope's own algorithms (src/algo) over a Transport on host
// memory: tcp now, verbs on the same seam.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "algo/collectives.h"
#include "algo/transport.h"
#include "backend/backend.h"
#include "backend/host_memory.h"

namespace fabscope {

// Host memory whose release first tells the transport (which may hold a registration).
class TransportHostMemory final : public Memory {
 public:
  explicit TransportHostMemory(Transport& t) : t_(t) {}
  std::string_view kind() const override { return host_.kind(); }
  Status check_capacity(uint64_t bytes_per_rank, int ranks_here) const override {
    return host_.check_capacity(bytes_per_rank, ranks_here);
  }
  Result<void*> allocate(size_t bytes) override {
    auto p = host_.allocate(bytes);
    if (p.ok()) sizes_[*p] = bytes;
    return p;
  }
  void release(void* buffer) override {
    auto it = sizes_.find(buffer);
    if (it != sizes_.end()) {
      t_.forget_memory(buffer, it->second);
      sizes_.erase(it);
    }
    host_.release(buffer);
  }
  Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) override {
    return host_.fill(buffer, spec, segments);
  }
  Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec,
                               std::span<const Segment> segments) override {
    return host_.count_wrong(buffer, spec, segments);
  }

 private:
  Transport& t_;
  HostMemory host_;
  std::unordered_map<void*, size_t> sizes_;
};

class AlgoBackend final : public Backend {
 public:
  AlgoBackend(std::string name, std::string library, std::unique_ptr<Transport> transport, AlgoOptions options = {})
      : name_(std::move(name)),
        library_(std::move(library)),
        transport_(std::move(transport)),
        options_(options),
        memory_(*transport_),
        scratch_(transport_.get()) {}

  std::string_view name() const override { return name_; }
  std::string library() const override { return library_; }
  std::optional<TcpIdleRestarts> tcp_idle_restarts() const override { return transport_->tcp_idle_restarts(); }
  Memory& memory() override { return memory_; }
  Status run(const CollCall& call) override { return run_collective(call, *transport_, scratch_, options_, trace_); }
  bool set_trace(Trace* trace) override {
    trace_ = trace;
    return true;
  }
  Status wait() override { return Status::Ok(); }  // run() returns when the collective is complete
  uint64_t working_bytes(const std::vector<Collective>& collectives, uint64_t buffer_bytes) const override {
    return algo_scratch_bytes(collectives, buffer_bytes);
  }

 private:
  std::string name_;
  std::string library_;
  std::unique_ptr<Transport> transport_;
  AlgoOptions options_;
  TransportHostMemory memory_;
  Scratch scratch_;
  Trace* trace_ = nullptr;
};

// fabscope's algorithms over the transport a backend's create_transport made, as that
// backend: "fabscope algorithms over <what the transport says it is>".
inline Result<std::unique_ptr<Backend>> make_algo_backend(std::string name,
                                                          Result<std::unique_ptr<Transport>> transport) {
  if (!transport.ok()) return transport.status();
  std::string library = "fabscope algorithms over " + (*transport)->library();
  return std::unique_ptr<Backend>(new AlgoBackend(std::move(name), std::move(library), std::move(*transport)));
}

}  // namespace fabscope
