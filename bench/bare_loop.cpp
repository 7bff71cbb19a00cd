// The bare loop: what a collective costs with nothing around it, the reference that
// fabscope's sweep (--method nccl-tests) is held to by bench/peer_parity.py.
//
// First w untimed calls at every power-of-two size from MIN to MAX, out of place; then
// for each size: w untimed calls, MPI_Barrier, then N back-to-back calls with the same
// moving buffer offsets nccl-tests (and fabscope's sweep) use, out of place and then in
// place; time = loop time / N by MPI_Wtime, mean over ranks. float, sum, root 0; buffers
// sized for the largest point, page aligned, filled with small integers.
//
//   mpirun -np 2 fabscope_bench_bare_loop COLL -b MIN -e MAX [-f FACTOR] [-n N] [-w W]
//   COLL: allreduce allgather alltoall broadcast reduce reducescatter
// Prints one line per size: "size_bytes oop_us ip_us".

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

enum class Coll { kAllReduce, kAllGather, kAllToAll, kBroadcast, kReduce, kReduceScatter };

bool parse_coll(std::string_view s, Coll& c) {
  if (s == "allreduce")
    c = Coll::kAllReduce;
  else if (s == "allgather")
    c = Coll::kAllGather;
  else if (s == "alltoall")
    c = Coll::kAllToAll;
  else if (s == "broadcast")
    c = Coll::kBroadcast;
  else if (s == "reduce")
    c = Coll::kReduce;
  else if (s == "reducescatter")
    c = Coll::kReduceScatter;
  else
    return false;
  return true;
}

bool parse_size(const char* text, uint64_t& out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text) return false;
  uint64_t mult = 1;
  std::string_view suffix(end);
  if (suffix == "K")
    mult = 1024;
  else if (suffix == "M")
    mult = 1024 * 1024;
  else if (suffix == "G")
    mult = 1024ull * 1024 * 1024;
  else if (!suffix.empty())
    return false;
  out = v * mult;
  return true;
}

// nccl-tests' sizes: per-rank send count and receive count of one call of `bytes`
// (the printed size), and the count parameter the MPI call takes.
struct Counts {
  size_t send, recv, param;
};
Counts counts(Coll c, size_t elems, int n) {
  const size_t per = elems / static_cast<size_t>(n);
  switch (c) {
    case Coll::kAllGather:
      return {per, per * n, per};
    case Coll::kAllToAll:
      return {per * n, per * n, per};
    case Coll::kReduceScatter:
      return {per * n, per, per};
    default:
      return {elems, elems, elems};
  }
}

void call(Coll c, const float* send, float* recv, const Counts& k, bool in_place, int rank) {
  const int n = static_cast<int>(k.param);
  const void* in = in_place ? MPI_IN_PLACE : send;
  switch (c) {
    case Coll::kAllReduce:
      MPI_Allreduce(in, recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case Coll::kAllGather:
      MPI_Allgather(in_place ? MPI_IN_PLACE : send, n, MPI_FLOAT, recv, n, MPI_FLOAT, MPI_COMM_WORLD);
      break;
    case Coll::kAllToAll:
      MPI_Alltoall(in, n, MPI_FLOAT, recv, n, MPI_FLOAT, MPI_COMM_WORLD);
      break;
    case Coll::kBroadcast:
      // nccl-tests' out-of-place broadcast reads send at the root and writes recv; MPI has
      // one buffer: the root broadcasts from its send buffer, the others receive in recv.
      MPI_Bcast(in_place || rank != 0 ? recv : const_cast<float*>(send), n, MPI_FLOAT, 0, MPI_COMM_WORLD);
      break;
    case Coll::kReduce:
      MPI_Reduce(in_place ? (rank == 0 ? MPI_IN_PLACE : recv) : send, recv, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case Coll::kReduceScatter:
      MPI_Reduce_scatter_block(in, in_place ? const_cast<float*>(send) : recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  Coll coll = Coll::kAllReduce;
  uint64_t min_b = 8, max_b = 8, factor = 2;
  long iters = 20, warm = 5;
  bool ok = argc >= 2 && parse_coll(argv[1], coll);
  for (int i = 2; ok && i + 1 < argc; i += 2) {
    std::string_view f = argv[i];
    if (f == "-b")
      ok = parse_size(argv[i + 1], min_b);
    else if (f == "-e")
      ok = parse_size(argv[i + 1], max_b);
    else if (f == "-f")
      ok = parse_size(argv[i + 1], factor) && factor >= 2;
    else if (f == "-n")
      iters = std::strtol(argv[i + 1], nullptr, 10);
    else if (f == "-w")
      warm = std::strtol(argv[i + 1], nullptr, 10);
    else
      ok = false;
  }
  if (!ok || argc % 2 != 0 || iters < 1 || warm < 0 || min_b > max_b || min_b < sizeof(float)) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "usage: fabscope_bench_bare_loop allreduce|allgather|alltoall|broadcast|reduce|reducescatter "
                   "-b MIN -e MAX [-f FACTOR>=2] [-n ITERS>=1] [-w WARMUP>=0]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const Counts most = counts(coll, max_b / sizeof(float), nranks);
  const size_t buf_bytes = std::max(most.send, most.recv) * sizeof(float);
  const size_t rounded = (buf_bytes + 4095) / 4096 * 4096;
  auto* send = static_cast<float*>(std::aligned_alloc(4096, rounded));
  auto* recv = static_cast<float*>(std::aligned_alloc(4096, rounded));
  for (size_t i = 0; i < rounded / sizeof(float); ++i) send[i] = static_cast<float>(static_cast<int>(i % 17) - 8);
  std::memset(recv, 0, rounded);

  // Warm-up at every power-of-two size first, out of place, as nccl-tests and fabscope do.
  for (uint64_t size = min_b; size <= max_b; size *= 2) {
    const Counts k = counts(coll, size / sizeof(float), nranks);
    for (long i = 0; i < warm; ++i) call(coll, send, recv, k, false, rank);
  }
  for (uint64_t size = min_b; size <= max_b; size *= factor) {
    const Counts k = counts(coll, size / sizeof(float), nranks);
    const size_t total = std::max(k.send, k.recv) * sizeof(float);
    const size_t steps = total ? buf_bytes / total : 1;
    double us[2] = {0, 0};
    for (int placement = 0; placement < 2; ++placement) {
      const bool in_place = placement == 1;
      for (long i = 0; i < warm; ++i) call(coll, send, recv, k, in_place, rank);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      size_t step = 0;
      for (long i = 0; i < iters; ++i) {
        const size_t shift = total * step;
        call(coll, reinterpret_cast<const float*>(reinterpret_cast<const char*>(send) + shift),
             reinterpret_cast<float*>(reinterpret_cast<char*>(recv) + shift), k, in_place, rank);
        if (++step == steps) step = 0;
      }
      const double sec = (MPI_Wtime() - t0) / static_cast<double>(iters);
      double sum = 0;
      MPI_Allreduce(&sec, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      us[placement] = sum / nranks * 1e6;
    }
    if (rank == 0) std::printf("%llu %.4f %.4f\n", static_cast<unsigned long long>(size), us[0], us[1]);
    if (size > max_b / factor) break;
  }
  std::fflush(stdout);
  std::free(send);
  std::free(recv);
  MPI_Finalize();
  return 0;
}
