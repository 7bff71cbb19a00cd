#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, MPI integration at 1-4
# ranks, CLI and schema). Tests that need a GPU or an RDMA device skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh release
source scripts/mpi-env.sh
ctest --preset release --timeout 900
