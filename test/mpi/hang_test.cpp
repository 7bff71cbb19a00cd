// A rank that hangs must not hang fabscope: rank 1 stops forever inside its third
// collective call; the watchdog on the ranks must name where they stopped and end the
// job soon after the timeout. bounded_run.py checks the message, the exit code and the
// time the whole job took.
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "backend/mpi/mpi_backend.h"
#include "comm/context.h"
#include "soak/soak.h"

namespace {

class HangingBackend final : public fabscope::Backend {
 public:
  HangingBackend(std::unique_ptr<fabscope::Backend> inner, bool hang) : inner_(std::move(inner)), hang_(hang) {}
  std::string_view name() const override { return inner_->name(); }
  std::string library() const override { return inner_->library(); }
  fabscope::Memory& memory() override { return inner_->memory(); }
  fabscope::Status wait() override { return inner_->wait(); }
  fabscope::Status run(const fabscope::CollCall& call) override {
    if (hang_ && ++calls_ == 3) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    return inner_->run(call);
  }

 private:
  std::unique_ptr<fabscope::Backend> inner_;
  bool hang_;
  int calls_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  auto ctx = fabscope::RankContext::create(&argc, &argv);
  if (!ctx.ok()) return 1;
  auto mpi = fabscope::create_mpi_backend(**ctx);
  if (!mpi.ok()) return 1;
  HangingBackend backend(std::move(*mpi), (*ctx)->rank() == 1);
  fabscope::SweepOptions o;
  o.collectives = {fabscope::Collective::kAllReduce};
  o.sizes = {1024, 1024, 0, 1};
  o.iters = 10;
  o.timeout_s = 2;
  auto r = fabscope::run_sweeps(**ctx, backend, o, nullptr, nullptr);
  std::printf("the sweep returned (%s): the watchdog did not fire\n", r.ok() ? "ok" : r.status().message().c_str());
  return 0;
}
