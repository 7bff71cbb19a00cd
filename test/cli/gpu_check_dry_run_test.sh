#!/usr/bin/env bash
# bench/gpu_check.sh --dry-run (the one-call GPU check: every step, its timeout and the sum,
# nothing run) and bench/nccl_vs_nccl_tests.py --help, here without a GPU: the steps are
# listed in order, the timeouts add up to at most 480 s (the lent machine's one call), and
# the parity script knows the nine collectives and its paired-ratio options.
#
# With `carry FABSCOPE`: scripts/carry-openmpi.sh bundles Open MPI and FABSCOPE, and
# --check runs `mpirun -np 2 FABSCOPE --version` from the bundle with the system's Open MPI
# hidden and a foreign PMIx where Debian keeps its own (as on the GPU machine): it must
# start quietly, no PMIx warning (exit 77, skipped, without root, unshare or Open MPI).
#
#   test/cli/gpu_check_dry_run_test.sh [SOURCE_DIR] [carry FABSCOPE]
set -euo pipefail
src=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "${2:-}" = carry ]; then
  fabscope=${3:?carry needs the fabscope binary}
  if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v mpirun >/dev/null \
     || ! unshare -m true 2>/dev/null; then
    echo "skipped: carry-openmpi.sh --check needs root, unshare -m and the system Open MPI"
    exit 77
  fi
  dest=$(mktemp -d)
  trap 'rm -rf "$dest"' EXIT
  scripts/carry-openmpi.sh "$dest" "$fabscope" || fail "carry-openmpi.sh exited $?"
  rc=0
  out=$(scripts/carry-openmpi.sh --check "$dest" "$dest/bin/$(basename "$fabscope")" --version 2>&1) || rc=$?
  echo "$out"
  [ "$rc" = 0 ] || fail "carry-openmpi.sh --check exited $rc"
  if grep -qiE 'pmix|compression library' <<<"$out"; then fail "the carried Open MPI printed a PMIx warning"; fi
  [ "$(grep -c '^fabscope [0-9]' <<<"$out")" = 2 ] || fail "two ranks did not both print their version"
  grep -q "^mpirun: $dest/" <<<"$out" || fail "mpirun was not the carried one"
  echo "carried Open MPI: quiet"
  exit 0
fi

out=$(bash bench/gpu_check.sh --dry-run) || fail "gpu_check.sh --dry-run exited $?"
echo "$out"
expected=(env gtest-kernels gtest-nccl kernel-bw kernel-ncu parity-np1-small parity-np1 parity-np2 profiler-overhead diagnose-np2
          diagnose-np1 p2p-np2 sweep-all-np1 topo-live topo-ncclog)
listed=$(echo "$out" | awk '/^[a-z0-9-]+ +[0-9]+s  /{print $1}' | tr '\n' ' ')
[ "$listed" = "${expected[*]} " ] || fail "steps listed: '$listed'; expected: '${expected[*]} '"
sum=$(echo "$out" | awk '/^[a-z0-9-]+ +[0-9]+s  /{s += $2 + 0} END {print s}')
total=$(echo "$out" | sed -n 's/^total \([0-9]*\)s.*/\1/p')
[ -n "$total" ] || fail "no 'total Ns' line"
[ "$total" = "$sum" ] || fail "total ${total}s is not the sum of the steps' timeouts (${sum}s)"
[ "$total" -le 480 ] || fail "total ${total}s is over 480s"
# What each step runs.
grep -q '^parity-np1-small .*--collective all -b 1M -e 4M -n 1000 .*--reps 5' <<<"$out" || fail "parity-np1-small's command"
grep -q '^parity-np1 .*--collective all -b 8M -e 1G .*--reps 5' <<<"$out" || fail "parity-np1's command"
grep -q '^parity-np2 .*--np 2 --share-gpus .*-b 1M -e 64M .*--reps 3' <<<"$out" || fail "parity-np2's command"
grep -q '^diagnose-np2 .*mpirun.*-np 2 .*diagnose --backend nccl --share-gpus --budget 20 --json' <<<"$out" \
  || fail "diagnose-np2's command"
grep -q '^diagnose-np1 .*diagnose --backend nccl --budget 10 --json' <<<"$out" || fail "diagnose-np1's command"
grep -q '^p2p-np2 .*p2p --backend nccl --share-gpus --pattern pairs -s 4M .*--json' <<<"$out" || fail "p2p-np2's command"
grep -q '^sweep-all-np1 .*sweep all -b 8 -e 64M -f 8 -n 5 --backend nccl .*--json' <<<"$out" || fail "sweep-all-np1's command"
grep -q '^topo-ncclog .*topo --nccl-log ' <<<"$out" || fail "topo-ncclog's command"
if grep -q -- '--bind-to' <<<"$out"; then fail "a step sets --bind-to (mpirun's default binding is what is checked)"; fi
# --carry moves the bundle.
moved=$(bash bench/gpu_check.sh --dry-run --carry /elsewhere)
grep -q '^gtest-nccl .*/elsewhere/bin/fabscope_nccl_gpu_tests' <<<"$moved" \
  || fail "--carry DIR is not where the binaries are taken from"
if bash bench/gpu_check.sh --no-such-flag >/dev/null 2>&1; then fail "an unknown argument is accepted"; fi
# --only runs (and counts) just the steps named.
some=$(bash bench/gpu_check.sh --dry-run --only gtest-kernels,parity-np1)
[ "$(echo "$some" | awk '/^[a-z0-9-]+ +[0-9]+s  /{print $1}' | tr '\n' ' ')" = "gtest-kernels parity-np1 " ] \
  || fail "--only gtest-kernels,parity-np1 lists: $some"
bad=$(bash bench/gpu_check.sh --dry-run --only gtest-kernels,no-such-step 2>&1) && fail "--only accepts an unknown step"
grep -q "no step 'no-such-step'; the steps: env gtest-kernels" <<<"$bad" || fail "--only's error: $bad"

# Part 2 (issue 40, a second call): the watched job's steps, within a call of their own.
two=$(bash bench/gpu_check.sh --dry-run --part 2) || fail "gpu_check.sh --dry-run --part 2 exited $?"
[ "$(echo "$two" | awk '/^[a-z0-9-]+ +[0-9]+s  /{print $1}' | tr '\n' ' ')" = "env2 watch-np2 snapshot-overhead " ] \
  || fail "--part 2 lists: $two"
[ "$(echo "$two" | sed -n 's/^total \([0-9]*\)s.*/\1/p')" -le 480 ] || fail "part 2 is over 480s"
grep -q 'internal_watch' bench/gpu_check.sh && grep -q 'NCCL_PROFILER_PLUGIN=' bench/gpu_check.sh \
  && grep -q 'FABSCOPE_PROFILE_INTERVAL=2' bench/gpu_check.sh && grep -q -- '-N 0 --duration 60' bench/gpu_check.sh \
  || fail "the watch step sets the plugin by its environment lines and runs a minute of all-reduce"
# Part 3 (issue 35): the kernels taken apart, their SASS and Nsight Compute's sections.
three=$(bash bench/gpu_check.sh --dry-run --part 3) || fail "gpu_check.sh --dry-run --part 3 exited $?"
[ "$(echo "$three" | awk '/^[a-z0-9-]+ +[0-9]+s  /{print $1}' | tr '\n' ' ')" = \
  "env3 gtest-kernels3 kernel-bw3 kernel-sass kernel-ncu-detail " ] || fail "--part 3 lists: $three"
[ "$(echo "$three" | sed -n 's/^total \([0-9]*\)s.*/\1/p')" -le 480 ] || fail "part 3 is over 480s"
grep -q 'cuobjdump' bench/gpu_check.sh && grep -q -- '--section InstructionStats' bench/gpu_check.sh \
  || fail "part 3 dumps the SASS and runs Nsight Compute's instruction section"
if bash bench/gpu_check.sh --dry-run --part 4 >/dev/null 2>&1; then fail "--part 4 is accepted"; fi

help=$(python3 bench/nccl_vs_nccl_tests.py --help) || fail "nccl_vs_nccl_tests.py --help exited $?"
for word in --collective --np --share-gpus --reps --batch --budget --json allreduce allgather reducescatter \
            alltoall broadcast reduce gather scatter sendrecv; do
  grep -q -- "$word" <<<"$help" || fail "nccl_vs_nccl_tests.py --help does not mention $word"
done
if python3 bench/nccl_vs_nccl_tests.py --nccl-tests /nonexistent --collective allreduce,foo >/dev/null 2>&1; then
  fail "an unknown collective is accepted"
fi
echo "gpu_check dry run: ${#expected[@]} steps, ${total}s of 480s"
