// A backend that runs fabscope's own algorithms (src/algo) over a Transport on host
// memory: tcp now, verbs on the same seam.
#pragma once

#include <memory>
#include <string>

#include "algo/collectives.h"
#include "algo/transport.h"
#include "backend/backend.h"
#include "backend/host_memory.h"

namespace fabscope {

class AlgoBackend final : public Backend {
 public:
  AlgoBackend(std::string name, std::string library, std::unique_ptr<Transport> transport, AlgoOptions options = {})
      : name_(std::move(name)), library_(std::move(library)), transport_(std::move(transport)), options_(options) {}

  std::string_view name() const override { return name_; }
  std::string library() const override { return library_; }
  Memory& memory() override { return memory_; }
  Status run(const CollCall& call) override { return run_collective(call, *transport_, scratch_, options_, trace_); }
  Status wait() override { return Status::Ok(); }  // run() returns when the collective is complete

  Transport& transport() { return *transport_; }
  // When set, every message of every following call is recorded here.
  void set_trace(Trace* trace) { trace_ = trace; }

 private:
  std::string name_;
  std::string library_;
  std::unique_ptr<Transport> transport_;
  AlgoOptions options_;
  HostMemory memory_;
  Scratch scratch_;
  Trace* trace_ = nullptr;
};

}  // namespace fabscope
