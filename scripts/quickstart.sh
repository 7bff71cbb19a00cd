#!/usr/bin/env bash
# fabscope's main job on this machine, from nothing: install dependencies, build,
# and sweep every collective across 4 local ranks over the mpi backend (no GPU
# needed), printing the nccl-tests table and writing run.json; then diagnose the
# all-reduce over those ranks (diagnosis.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh release
source scripts/mpi-env.sh
mpirun -np 4 build/release/fabscope sweep \
  allreduce allgather reducescatter alltoall broadcast reduce gather scatter sendrecv \
  -b 8 -e 64M -f 2 -n 20 -w 5 -c 1 --backend mpi --json run.json
# Where the all-reduce loses time over the same ranks: its answer is printed first.
# Exit 1 is a verdict (a finding that fails it), not a failure of the quickstart.
mpirun -np 4 build/release/fabscope diagnose --budget 30 --json diagnosis.json || test $? -eq 1
echo "quickstart: reports written to run.json and diagnosis.json; render one again with: build/release/fabscope report run.json"
