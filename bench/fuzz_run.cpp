// Long fuzz runs of fabscope's readers (test/fuzz/fuzz_targets.h): mutated fixtures for
// a given time or count per target, each target in a child process so that a crash is
// counted (with the input kept for replay) instead of ending the run.
//
//   fabscope_bench_fuzz_run [--seconds S | --count N] [--seed K] [--fixtures DIR] [TARGET...]
//   fabscope_bench_fuzz_run --replay FILE TARGET
//   fabscope_bench_fuzz_run --find SEED TARGET   (each input of a crashed batch in its own child;
//                                                 the one that crashes is kept in /tmp)
//
// Prints one line per target: inputs, read, refused, crashes, hangs, inputs per second.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "fuzz/fuzz_targets.h"

namespace {

using fabscope::fuzz::Target;
constexpr uint64_t kBatch = 200;  // inputs per child; a crash names its batch's seed

struct Totals {
  uint64_t inputs = 0, accepted = 0, crashes = 0, hangs = 0;
};

// One batch in a child: `count` inputs from `seed`; the child writes "inputs accepted".
// A batch that dies or outlives its time is a crash or a hang; its inputs are replayed
// one seed at a time by hand (--count 1 --seed K).
bool run_batch(const Target& t, const std::vector<std::string>& corpus, uint64_t count, uint64_t seed, double limit_s,
               Totals& totals) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  std::fflush(nullptr);  // or the child would print this process's buffered lines again
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    fabscope::fuzz::RunStats s;
    try {
      s = fabscope::fuzz::run_mutations(t, corpus, count, seed);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::_Exit(3);
    }
    const std::string line = fmt::format("{} {}\n", s.inputs, s.accepted);
    (void)!::write(fds[1], line.data(), line.size());
    std::_Exit(0);
  }
  ::close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool hung = false;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      hung = true;
      break;
    }
    ::usleep(2000);
  }
  char buf[64] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof(buf) - 1);
  ::close(fds[0]);
  if (hung) {
    ++totals.hangs;
    std::fprintf(stderr, "%s: seed %llu hung (over %.0f s)\n", std::string(t.name).c_str(),
                 static_cast<unsigned long long>(seed), limit_s);
    return true;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0) {
    unsigned long long inputs = 0, accepted = 0;
    std::sscanf(buf, "%llu %llu", &inputs, &accepted);
    totals.inputs += inputs;
    totals.accepted += accepted;
    return true;
  }
  ++totals.crashes;
  std::fprintf(stderr, "%s: seed %llu crashed (%s)\n", std::string(t.name).c_str(),
               static_cast<unsigned long long>(seed),
               WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "uncaught exception");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  uint64_t count = 0;
  uint64_t seed = 1;
  std::string fixtures = FABSCOPE_FIXTURES;
  std::string replay;
  std::optional<uint64_t> find;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seconds") {
      seconds = std::atof(next().c_str());
    } else if (a == "--count") {
      count = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--seed") {
      seed = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--fixtures") {
      fixtures = next();
    } else if (a == "--replay") {
      replay = next();
    } else if (a == "--find") {
      find = std::strtoull(next().c_str(), nullptr, 10);
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) {
    for (const Target& t : fabscope::fuzz::targets()) names.emplace_back(t.name);
  }
  if (!replay.empty()) {
    const Target* t = fabscope::fuzz::find_target(names.front());
    auto input = fabscope::read_file(replay);
    if (!t || !input.ok()) {
      std::fprintf(stderr, "--replay FILE TARGET: unknown target or unreadable file\n");
      return 2;
    }
    const int r = t->run(reinterpret_cast<const uint8_t*>(input->data()), input->size());
    std::printf("%s: %s\n", std::string(t->name).c_str(), r ? "read" : "refused");
    return 0;
  }
  if (find) {
    const Target* t = fabscope::fuzz::find_target(names.front());
    if (!t) {
      std::fprintf(stderr, "--find SEED TARGET: unknown target\n");
      return 2;
    }
    const auto corpus = fabscope::fuzz::load_corpus(*t, fixtures);
    std::mt19937_64 rng(*find);
    for (uint64_t i = 0; i < kBatch; ++i) {  // the inputs run_mutations makes from this seed, in order
      const std::string input = fabscope::fuzz::mutate(corpus[i % corpus.size()], t->json, rng);
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid == 0) {
        (void)t->run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
        std::_Exit(0);
      }
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const std::string kept = fmt::format("/tmp/fuzz-crash-{}-seed{}-input{}.bin", t->name, *find, i);
        (void)fabscope::write_file_atomically(kept, input);
        std::printf("input %llu of seed %llu crashes: kept in %s\n", static_cast<unsigned long long>(i),
                    static_cast<unsigned long long>(*find), kept.c_str());
        return 1;
      }
    }
    std::printf("no input of seed %llu crashes alone\n", static_cast<unsigned long long>(*find));
    return 0;
  }
  std::printf("%-16s %10s %10s %10s %8s %6s %10s\n", "target", "inputs", "read", "refused", "crashes", "hangs",
              "inputs/s");
  Totals all;
  for (const std::string& name : names) {
    const Target* t = fabscope::fuzz::find_target(name);
    if (!t) {
      std::fprintf(stderr, "unknown target '%s'\n", name.c_str());
      return 2;
    }
    const auto corpus = fabscope::fuzz::load_corpus(*t, fixtures);
    Totals totals;
    const auto start = std::chrono::steady_clock::now();
    uint64_t batch_seed = seed;
    const uint64_t batch = kBatch;
    while (true) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (count ? totals.inputs + totals.crashes * batch + totals.hangs * batch >= count : elapsed >= seconds) break;
      run_batch(*t, corpus, batch, batch_seed++, 120, totals);
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-16s %10llu %10llu %10llu %8llu %6llu %10.0f\n", name.c_str(),
                static_cast<unsigned long long>(totals.inputs), static_cast<unsigned long long>(totals.accepted),
                static_cast<unsigned long long>(totals.inputs - totals.accepted),
                static_cast<unsigned long long>(totals.crashes), static_cast<unsigned long long>(totals.hangs),
                static_cast<double>(totals.inputs) / elapsed);
    std::fflush(stdout);
    all.inputs += totals.inputs;
    all.crashes += totals.crashes;
    all.hangs += totals.hangs;
  }
  std::printf("total: %llu inputs, %llu crashes, %llu hangs\n", static_cast<unsigned long long>(all.inputs),
              static_cast<unsigned long long>(all.crashes), static_cast<unsigned long long>(all.hangs));
  return all.crashes + all.hangs == 0 ? 0 : 1;
}
