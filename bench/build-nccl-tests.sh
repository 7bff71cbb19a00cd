#!/usr/bin/env bash
# Builds nccl-tests (never committed: its public source, fetched beside the project) with
# MPI against this machine's CUDA, NCCL and Open MPI, for the GPUs the lent machine has
# (H100 and H200: sm_90) unless NVCC_GENCODE says otherwise, into BUILD; small enough to
# carry (DSO=1 keeps the verification code in one shared library).
#
#   bench/build-nccl-tests.sh ../nccl-tests [BUILD]     # BUILD defaults to carry/nccl-tests
#   bench/nccl_vs_nccl_tests.py --nccl-tests BUILD -b 1M -e 1G
set -euo pipefail
src=${1:?usage: build-nccl-tests.sh NCCL_TESTS_SOURCE [BUILD]}
build=$(mkdir -p "${2:-carry/nccl-tests}" && cd "${2:-carry/nccl-tests}" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nccl=${NCCL_HOME:-$cuda}
mpi=${MPI_HOME:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/openmpi}
[ -f "$src/src/Makefile" ] || { echo "build-nccl-tests: $src is not an nccl-tests source tree (no src/Makefile)" >&2; exit 2; }
[ -f "$nccl/include/nccl.h" ] || { echo "build-nccl-tests: no nccl.h under $nccl/include (set NCCL_HOME)" >&2; exit 2; }
[ -f "$mpi/include/mpi.h" ] || { echo "build-nccl-tests: no mpi.h under $mpi/include (set MPI_HOME)" >&2; exit 2; }
export NVCC_GENCODE=${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}
make -C "$src/src" -j"$(nproc)" MPI=1 DSO=1 MPI_HOME="$mpi" CUDA_HOME="$cuda" NCCL_HOME="$nccl" BUILDDIR="$build"
strip --strip-debug "$build"/*_perf "$build"/verifiable/*.so* 2>/dev/null || true
# Objects are not run: dropped, so the folder stays small enough to carry.
find "$build" -name '*.o' -delete
echo "build-nccl-tests: $(du -sh "$build" | cut -f1) in $build"
