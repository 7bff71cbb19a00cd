#include "core/stop_signal.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace fabscope {

namespace {

std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) _exit(128 + sig);  // the second: now
  const char c = 1;
  if (g_pipe[1] >= 0) (void)!write(g_pipe[1], &c, 1);
  alarm(kStopGraceS);  // a point that does not end in time: end anyway
}

extern "C" void on_grace_over(int) { _exit(128 + g_signal.load()); }

}  // namespace

void install_stop_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // MPI's and the sockets' calls go on where they were
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    struct sigaction grace {};
    grace.sa_handler = on_grace_over;
    sigemptyset(&grace.sa_mask);
    sigaction(SIGALRM, &grace, nullptr);
  });
}

int stop_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal";
  }
}

int stop_signal_fd() { return g_pipe[0]; }

}  // namespace fabscope
