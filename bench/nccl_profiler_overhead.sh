#!/usr/bin/env bash
# What fabscope's NCCL profiler plugin costs.
#
# 1. Here (no GPU needed): the plugin's own time per network transfer, driven as NCCL's
#    proxy thread drives it (fabscope_profile_replay cost: a step's start, three state
#    changes and its stop; an operation's start and stop shared by 8 steps), median of
#    REPS runs. Against the time one transfer takes on the wire, that is the share of the
#    proxy thread the plugin takes.
# 2. On a machine with 2 GPUs or more and NCCL (skipped otherwise, saying so): the same
#    sweep without and with --nccl-profile, alternating, REPS times, and per size the
#    median bus bandwidth ratio (with / without): the target is >= 0.98.
#
#   bench/nccl_profiler_overhead.sh [BUILD_DIR] [REPS]
set -euo pipefail
build=${1:-build/release}
reps=${2:-5}
plugin="$build/libnccl-profiler-fabscope.so"
replay="$build/fabscope_profile_replay"
for f in "$plugin" "$replay" "$build/fabscope"; do
  [[ -e $f ]] || { echo "missing $f: build the project first (scripts/build.sh release)" >&2; exit 2; }
done

echo "== the plugin's time per network transfer (this machine, $(nproc) cores)"
samples=()
for ((i = 0; i < reps; i++)); do
  samples+=("$("$replay" cost "$plugin" 2000000 | sed -n 's/.* \([0-9.]*\)$/\1/p')")
done
median=$(printf '%s\n' "${samples[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "ns per transfer, runs: ${samples[*]}; median $median"
awk -v ns="$median" 'BEGIN {
  # One NCCL step carries a chunk of up to 512 KiB (SIMPLE protocol, NCCL_BUFFSIZE 4 MiB / 8 steps).
  split("100 200 400", gbps, " ");
  for (i = 1; i <= 3; ++i) {
    wire_us = 524288 * 8 / (gbps[i] * 1e3);
    printf("  512 KiB transfer at %3d Gb/s takes %6.1f us on the wire: the plugin takes %.2f%% of one proxy thread per direction at that rate\n",
           gbps[i], wire_us, 100 * ns / 1e3 / wire_us);
  }
}'

echo "== the same, with snapshots every 0.1 s written while the events run (FABSCOPE_PROFILE_INTERVAL), alternating"
snapdir=$(mktemp -d)
off=() on=()
for ((i = 0; i < reps; i++)); do
  off+=("$("$replay" cost "$plugin" 4000000 | sed -n 's/.* \([0-9.]*\)$/\1/p')")
  rm -f "$snapdir"/*
  on+=("$(FABSCOPE_PROFILE_INTERVAL=0.1 "$replay" cost "$plugin" 4000000 "$snapdir" | sed -n 's/.* \([0-9.]*\)$/\1/p')")
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
snaps=$(find "$snapdir" -name 'fabscope-snapshot-*.json' | wc -l)
size=$(find "$snapdir" -name 'fabscope-snapshot-*.json' -printf '%s\n' | sort -n | tail -1)
echo "ns per transfer without snapshots: ${off[*]}; median $(med "${off[@]}")"
echo "ns per transfer with snapshots:    ${on[*]}; median $(med "${on[@]}") (last run: $snaps snapshots kept, the largest ${size:-0} bytes)"
echo "== a snapshot's size and write time at 8 peers x 32 channels (every collective's sweep over 9 ranks, snapshots every 0.01 s)"
# The plugin tracks ranks, channels and directions, not NICs: 8 NICs add nothing to a file.
# Each snapshot carries how long the one before it took: the tables read, the file written.
FABSCOPE_PROFILE_INTERVAL=0.01 FABSCOPE_PROFILE_KEEP=100000 "$replay" sweep "$plugin" "$snapdir" 9 32 1 >/dev/null
python3 - "$snapdir" <<'PY'
import glob, json, os, statistics, sys
snaps = [json.load(open(f)) for f in glob.glob(os.path.join(sys.argv[1], "fabscope-snapshot-*.json"))]
sizes = [os.path.getsize(f) for f in glob.glob(os.path.join(sys.argv[1], "fabscope-snapshot-*.json"))]
writes = [d["snapshot"]["previous_write_ns"] / 1e6 for d in snaps if d["snapshot"]["previous_write_ns"] > 0]
# The first snapshot's cost (carried by the second): it reads the tables first.
firsts = [d["snapshot"]["previous_write_ns"] / 1e6 for d in snaps if d["snapshot"]["seq"] == 2]
peers = max(len({(b["peer"]) for b in d["bins"]}) for d in snaps)
chans = max(len({(b["channel"]) for b in d["bins"]}) for d in snaps)
print(f"{len(snaps)} snapshots, up to {peers} peers and {chans} channels; size median {statistics.median(sizes) / 1e3:.1f} KB, "
      f"largest {max(sizes) / 1e3:.1f} KB; write time median {statistics.median(writes):.2f} ms, "
      f"max {max(writes):.2f} ms ({len(writes)} timed); the first of each communicator: median "
      f"{statistics.median(firsts):.2f} ms, max {max(firsts):.2f} ms")
PY
rm -rf "$snapdir"

echo "== with and without --nccl-profile over NCCL"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
if [[ ${gpus:-0} -lt 2 ]]; then
  echo "skipped: ${gpus:-0} GPU(s) here; NCCL needs one GPU per rank and the comparison two ranks"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
launcher=(mpirun -np "$gpus" --allow-run-as-root --oversubscribe)
for ((i = 0; i < reps; i++)); do
  for mode in off on; do
    flag=()
    [[ $mode == on ]] && flag=(--nccl-profile)
    "${launcher[@]}" "$build/fabscope" sweep allreduce -b 1M -e 256M -f 4 -n 40 -w 5 -c 0 --backend nccl \
      "${flag[@]}" --json "$tmp/$mode-$i.json" >/dev/null
  done
done
python3 - "$tmp" "$reps" <<'PY'
import json, statistics, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
def busbw(path):
    doc = json.load(open(path))
    return {p["size_bytes"]: p["out_of_place"]["busbw_gbps"] for p in doc["sweeps"][0]["points"]}
off = [busbw(f"{tmp}/off-{i}.json") for i in range(reps)]
on = [busbw(f"{tmp}/on-{i}.json") for i in range(reps)]
print(f"{'size':>12} {'busbw off':>10} {'busbw on':>10} {'ratio':>7}")
for size in sorted(off[0]):
    a = statistics.median(r[size] for r in off)
    b = statistics.median(r[size] for r in on)
    print(f"{size:>12} {a:>10.2f} {b:>10.2f} {b / a:>7.3f}")
PY
