#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, MPI integration at 1-4
# ranks, CLI and schema). Tests that need a GPU or an RDMA device skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh release
source scripts/mpi-env.sh
# Independent tests run side by side, one more at a time than there are cores: many wait more
# than they compute (MPI start-up, a watchdog's timeout, a browser), and at one per core the
# cores stood idle a third of the time (2 cores: 1.54 busy on average at three at a time, and
# that pass took 366 s against 415-427 s at two). A test's PROCESSORS (the cores it keeps busy,
# measured: 2 or more for ranks that fill both cores, at most the cores there are) keeps it from
# sharing the cores it needs, and tests of several slots start first (COST,
# fabscope_schedule_tests in test/CMakeLists.txt), so that none is left to run alone at the
# end. Tests that judge timing alone (RUN_SERIAL: the NCCL profile replays, the idle wait)
# carry the `timed` label and run in the second pass, where they wait for no test. (The labels
# are given here, not by the preset, whose filter would override them; `long` stays out, as
# in the preset.) A test that fails runs once more, as the timed ones below do: three at a
# time, three tests that judge times failed once each in three clean-clone CIs and passed
# alone (each since given the room it needs); a real fault fails both runs, and ctest's
# summary names every test it repeated.
rc=0
ctest --test-dir build/release --output-on-failure --timeout 900 -j "$(($(nproc) + 1))" -LE 'timed|long' \
  --repeat until-pass:2 || rc=$?
# The tests labelled `timed` judge rates and times on this machine's cores, one at a time:
# the virtual cluster's 4-8 ranks, the NCCL profile replays' waits, the idle wait. A shared
# runner's noise now and then moves a link past a threshold (a quiet host read at half its
# peers' rate, a slowed one at theirs), so a failed one runs once more: a real fault fails
# both runs, and ctest names each test it repeated.
ctest --test-dir build/release --output-on-failure --timeout 900 -L timed -LE long --repeat until-pass:2 || rc=$?
exit "$rc"
