#!/usr/bin/env bash
# The history gate's sensitivity on the virtual cluster (issue 38, bench/README.md,
# "history gate"): every host's link rate-limited (tc tbf) to RATE Mbit/s; a series of
# RUNS sweeps (allreduce and allgather, 1 to 4 MiB, tcp) in which the links lose 10%
# (RATE x 0.9) from run 11 on; SERIES such series. Then, per series: the history compare of
# run 12 against runs 1-10 (the rows flagged as regressions), and `fabscope history` over
# the series (the rows whose change point lands on run 11, plus or minus one). And a 5%
# step made from each series' first ten runs (those ten, then the same ten at 0.95 of their
# bandwidth in the reports): where `history` puts its change, and what compare of the 12th
# against the first ten says at --threshold 3%.
#
#   bench/history_vcluster.sh OUTDIR [SERIES=10] [RUNS=20] [HOSTS=3] [RATE=400]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="${1:?give an output directory}"
series="${2:-10}" runs="${3:-20}" hosts="${4:-3}" rate="${5:-400}"
fabscope="${FABSCOPE:-$root/build/release/fabscope}"
slow=$((rate * 9 / 10))
source "$root/scripts/mpi-env.sh"
mkdir -p "$out"
for s in $(seq 1 "$series"); do
  dir="$out/series-$(printf %02d "$s")"
  mkdir -p "$dir"
  script='mapfile -t MPI < "$VC_MPIRUN_ARGS"; set -e
for i in $(seq 1 '"$runs"'); do
  if [ "$i" -eq 11 ]; then
    for h in $(seq 0 $(('"$hosts"' - 1))); do
      tc qdisc change dev "${VC_PREFIX}v${h}" root tbf rate '"$slow"'mbit burst 256kb latency 400ms
      ip netns exec "${VC_PREFIX}h${h}" tc qdisc change dev eth0 root tbf rate '"$slow"'mbit burst 256kb latency 400ms
    done
  fi
  "${MPI[@]}" -np '"$hosts"' '"$fabscope"' sweep allreduce allgather -b 1M -e 4M -f 2 -n 10 --backend tcp \
    --json '"$dir"'/run-$(printf %02d $i).json >/dev/null || [ $? -eq 1 ]
done'
  bash "$root/test/vcluster/vcluster.sh" run "$hosts" --rate-all "${rate}mbit" -- bash -c "$script"
  echo "series $s: $(ls "$dir" | wc -l) runs in $dir"
done
FABSCOPE_ROOT="$root" /usr/bin/python3 - "$out" "$fabscope" <<'PY'
import glob, json, os, subprocess, sys, tempfile
out, fabscope = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.environ["FABSCOPE_ROOT"], "test", "tools"))
from report_edit import scale_report
flagged_series = located = 0
lines = []
all_series = sorted(glob.glob(os.path.join(out, "series-*")))
for d in all_series:
    runs = sorted(glob.glob(os.path.join(d, "run-*.json")))
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "c.json")
        subprocess.run([fabscope, "compare", *runs[:10], runs[11], "--json", c], capture_output=True)
        rows = json.load(open(c))["comparison"]["rows"]
        h = os.path.join(tmp, "h.json")
        subprocess.run([fabscope, "history", *runs, "--json", h], capture_output=True)
        hrows = json.load(open(h))["history"]["rows"]
    judged = [r for r in rows if r["test"] == "history_t"]
    bad = [r for r in judged if r["verdict"] == "regression"]
    limits = sorted(r["detection_limit"] for r in judged if r["detection_limit"] is not None)
    at = [r for r in hrows if any(abs(cp["index"] - 10) <= 1 and cp["worse"] for cp in r["change_points"])]
    other = sum(sum(1 for cp in r["change_points"] if abs(cp["index"] - 10) > 1) for r in hrows)
    steps = [r["change"] for r in judged]
    flagged_series += len(bad) > 0
    located += len(at) == len(hrows)
    lines.append(f"{os.path.basename(d)}: run 12 vs 1-10 flags {len(bad)} of {len(judged)} rows "
                 f"(changes {', '.join(f'{100 * s:+.1f}%' for s in steps)}; limits "
                 f"{100 * limits[0]:.1f}-{100 * limits[-1]:.1f}%); history: change at run 11+-1 in {len(at)} of "
                 f"{len(hrows)} rows, {other} change points elsewhere")
five_found = five_flagged = five_rows = 0
for d in all_series:
    runs = sorted(glob.glob(os.path.join(d, "run-*.json")))[:10]
    with tempfile.TemporaryDirectory() as tmp:
        series = []
        for i, path in enumerate(runs + runs):
            doc = scale_report(json.load(open(path)), 0.95 if i >= 10 else 1.0, f"2099-01-01T00:00:{i:02d}.000Z")
            series.append(os.path.join(tmp, f"s-{i:02d}.json"))
            json.dump(doc, open(series[-1], "w"))
        h = os.path.join(tmp, "h.json")
        subprocess.run([fabscope, "history", *series, "--json", h], capture_output=True)
        hrows = json.load(open(h))["history"]["rows"]
        c = os.path.join(tmp, "c.json")
        subprocess.run([fabscope, "compare", *series[:10], series[11], "--threshold", "3%", "--json", c],
                       capture_output=True)
        rows = json.load(open(c))["comparison"]["rows"]
    five_rows += len(hrows)
    five_found += sum(any(abs(cp["index"] - 10) <= 1 and cp["worse"] for cp in r["change_points"]) for r in hrows)
    five_flagged += sum(r["verdict"] == "regression" for r in rows)
lines.append(f"5% step from the first ten runs: history puts it at run 11+-1 in {five_found} of {five_rows} rows; "
             f"compare --threshold 3% of the 12th flags {five_flagged} of {five_rows}")
print("\n".join(lines))
print(f"{len(all_series)} series: run 12 flagged in {flagged_series}; every row's change at run 11+-1 in {located}")
PY
