#!/usr/bin/env bash
# diagnose on 8 virtual hosts (test/vcluster/vcluster.sh; needs root) with its defaults:
# allreduce 1 MiB to 16 MiB over tcp, every phase, a 60 s budget. Prints the wall time,
# how it splits over the phases, and the answer; the target is 60 s of wall time.
#
#   bash bench/diagnose_vcluster.sh [BUILD_DIR] [HOSTS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
hosts="${2:-8}"
out="$(mktemp -d /tmp/fsbench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
source "$here/scripts/mpi-env.sh"
start=$(date +%s.%N)
bash "$here/test/vcluster/vcluster.sh" run "$hosts" -- bash -c '
  mapfile -t MPI < "$VC_MPIRUN_ARGS"
  "${MPI[@]}" -np '"$hosts"' '"$build"'/fabscope diagnose --backend tcp --json '"$out"'/diag.json > '"$out"'/diag.txt
  rc=$?; [ $rc -le 1 ]'
end=$(date +%s.%N)
python3 - "$out/diag.json" "$start" "$end" "$hosts" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
d = doc["diagnosis"]
print(f"diagnose on {sys.argv[4]} virtual hosts, budget {d['budget_s']:g} s: wall {wall:.1f} s "
      f"(cluster setup and mpirun start included); target 60 s: {'met' if wall <= 60 else 'MISSED'}")
total = sum(t["seconds"] for t in d["timings"])
for t in d["timings"]:
    print(f"  {t['name']:<10} {t['seconds']:6.1f} s  {100 * t['seconds'] / wall:5.1f}% of the wall time")
print(f"  {'phases':<10} {total:6.1f} s; the rest ({wall - total:.1f} s) is cluster setup, MPI start, analysis, output")
for a in doc["attribution"]:
    print(f"  {a['collective']} {a['size_bytes']} B: {a['measured_us']:.0f} us against {a['ideal_us']:.0f} us ideal; "
          + ", ".join(f"{e['kind']} {e['share']:.2f}" for e in a["entries"]))
print(f"  verdict {doc['verdict']['result']}")
PY
