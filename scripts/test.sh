#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, MPI integration at 1-4
# ranks, CLI and schema). Tests that need a GPU or an RDMA device skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh release
source scripts/mpi-env.sh
# Independent tests run side by side, one per core; a test's PROCESSORS (its ranks) and
# RUN_SERIAL (those that judge timing: the virtual cluster, faults, the idle wait) keep
# it from sharing the cores it needs.
ctest --preset release --timeout 900 -j "$(nproc)"
