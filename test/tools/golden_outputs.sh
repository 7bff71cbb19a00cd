#!/usr/bin/env bash
# Golden outputs for refactoring (issue 36): runs a fixed set of fabscope commands and
# writes what each printed, its exit status and every file it wrote into OUTDIR, with
# what changes from run to run (times, hosts, git id, measured numbers) normalised.
# Record before a change, again after, and `diff -r` the two directories: a refactor
# that changes nothing a user sees leaves no difference.
#   test/tools/golden_outputs.sh BUILD_DIR OUTDIR [--measure]
# --measure adds sweep, p2p and diagnose over tcp at 3 ranks under mpirun; their numbers
# are replaced by '#', so what is compared is the output's shape, keys and words.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
measure=${3:-}
fab="$build/fabscope"
fx="$here/test/fixtures"
norm="$here/test/tools/golden_normalise.py"
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
n=0

# run NAME MODE ARGS...: MODE is exact or shape
run() {
  local name=$1 mode=$2
  shift 2
  n=$((n + 1))
  local dir="$out/$(printf '%03d' $n)-$name"
  mkdir -p "$dir"
  rm -rf "$work"/* && mkdir -p "$work/files"
  set +e
  (cd "$work/files" && "$@" >"$work/stdout" 2>"$work/stderr")
  echo "exit $?" >"$dir/exit"
  set -e
  echo "$*" | sed "s|$here|SRC|g; s|$build|BUILD|g" >"$dir/command"
  python3 "$norm" "$mode" "$work/stdout" >"$dir/stdout" "$here" "$build"
  python3 "$norm" "$mode" "$work/stderr" >"$dir/stderr" "$here" "$build"
  for f in "$work"/files/*; do
    [ -e "$f" ] || continue
    python3 "$norm" "$mode" "$f" "$here" "$build" >"$dir/file-$(basename "$f")"
  done
}

for r in "$fx"/reports/*.json; do
  b=$(basename "$r" .json)
  for fmt in text json markdown junit prometheus html; do
    run "report-$b-$fmt" exact "$fab" report "$r" --format "$fmt"
  done
done
run compare-self exact "$fab" compare "$fx/reports/sweep-mpi-np3.json" "$fx/reports/sweep-mpi-np3.json" \
  --json c.json --junit c.xml --markdown c.md --prometheus c.prom
run compare-fixture exact "$fab" compare "$fx/reports/import-nccl-tests.json" "$fx/reports/compare.json"
for f in "$fx"/nccl-tests/*.txt; do
  run "import-$(basename "$f" .txt)" exact "$fab" import nccl-tests "$f" --json i.json --junit i.xml \
    --expect "$fx/expectations/acceptance-h100.json"
done
run import-osu exact "$fab" import osu "$fx"/osu/osu_allreduce.txt --nranks 8 --json i.json
for f in "$fx"/hwloc-xml/*.xml; do run "topo-hwloc-$(basename "$f" .xml)" exact "$fab" topo --hwloc-xml "$f" --json t.json; done
for f in "$fx"/topo-xml/*.xml; do run "topo-nccl-$(basename "$f" .xml)" exact "$fab" topo --nccl-topo "$f" --json t.json; done
for f in "$fx"/nvidia-smi-topo/*.txt; do run "topo-smi-$(basename "$f" .txt)" exact "$fab" topo --nvidia-smi-topo "$f" --json t.json; done
for f in "$fx"/rdma/*.txt; do run "topo-rdma-$(basename "$f" .txt)" exact "$fab" topo --rdma-info "$f" --host h --json t.json; done
run topo-nccl-log exact "$fab" topo --nccl-log "$fx/nccl-logs" --json t.json --markdown t.md
for f in "$fx"/triage/* "$fx"/nccl-logs/* "$fx"/ib-counters/*; do
  run "triage-$(basename "$f" | cut -c1-60)" exact "$fab" triage "$f" --json t.json
done
run triage-dir exact "$fab" triage "$fx/triage" --json t.json --html t.html --junit t.xml
run diagnose-import-profile exact "$fab" diagnose --import-profile "$fx/nccl-profile" --json d.json --html d.html
# Bad inputs: the message and the exit status.
run bad-size exact "$fab" sweep allreduce -b 12Q
run bad-coll exact "$fab" sweep allreducex
run bad-file exact "$fab" report /nonexistent.json
run bad-json exact "$fab" report "$fx/SOURCES.md"
run bad-threshold exact "$fab" compare "$fx/reports/compare.json" "$fx/reports/compare.json" --threshold 5x
run bad-tcp-cc exact "$fab" sweep allreduce --backend tcp --tcp-cc nosuchcc

if [ "$measure" = --measure ]; then
  source "$here/scripts/mpi-env.sh"
  mpi=(mpirun -np 3 --oversubscribe --bind-to none)
  run sweep-tcp-np3 shape "${mpi[@]}" "$fab" sweep all -b 1K -e 64K -f 8 -n 2 -w 1 --backend tcp --json s.json
  run sweep-mpi-np3 shape "${mpi[@]}" "$fab" sweep allreduce,alltoall -b 1K -e 64K -f 8 -n 2 -w 1 --backend mpi --json s.json
  run p2p-tcp-np3 shape "${mpi[@]}" "$fab" p2p -b 64K -e 64K -n 2 -w 1 --backend tcp --json p.json
  run diagnose-tcp-np3 shape "${mpi[@]}" "$fab" diagnose -b 64K -e 256K --budget 10 --backend tcp --json d.json
fi
echo "golden outputs: $n commands in $out"
