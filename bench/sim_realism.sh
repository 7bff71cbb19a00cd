#!/usr/bin/env bash
# The fabric simulator against the virtual cluster (issue 39: "the simulator's realism
# named and checked"). 8 hosts, every host link at RATE, two leaves of 4 hosts whose
# uplinks carry RATE each way (4:1 oversubscribed), and the link between hosts SLOW_A and
# SLOW_B at SLOW_RATE: fabscope p2p measures the link matrix (every pair of hosts, both
# ways, 7 rounds of 4 pairs), and fabscope_bench_sim_realism predicts each link's rate
# beside the same flows of its round from the simulator's flow model, then compares
# the p2p findings of both. Needs root (test/vcluster/vcluster.sh).
#
#   bash bench/sim_realism.sh [BUILD_DIR] [RATE_MBIT] [SLOW_RATE_MBIT] [SLOW_A] [SLOW_B]
#
# Defaults: 200 Mbit/s host links (well below what this machine's 2 cores move, so tc
# and not the CPU sets every rate), the link between hosts 1 and 5 (across the leaves) at
# 40 Mbit/s.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
rate="${2:-200}"
slow="${3:-40}"
slow_a="${4:-1}"
slow_b="${5:-5}"
for v in "$rate" "$slow" "$slow_a" "$slow_b"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "sim_realism: '$v' is not a whole number (rates in Mbit/s, hosts 0 to 7)" >&2; exit 2; }
done
if [ "$slow_a" -gt 7 ] || [ "$slow_b" -gt 7 ] || [ "$slow_a" = "$slow_b" ] || [ "$rate" -eq 0 ] || [ "$slow" -eq 0 ]; then
  echo "sim_realism: the slow link joins two different hosts of 0 to 7, at rates above 0 (got $slow_a $slow_b, $slow of $rate Mbit/s)" >&2
  exit 2
fi
if ! why="$(bash "$here/test/vcluster/vcluster.sh" check)"; then
  echo "sim_realism: skipped: the virtual cluster $why"
  exit 77
fi
out="$(mktemp -d /tmp/fsrealism.XXXXXX)"
trap 'rm -rf "$out"' EXIT
source "$here/scripts/mpi-env.sh"
fraction=$(python3 -c "print($slow / $rate)")
bash "$here/test/vcluster/vcluster.sh" run 8 --rate-all "${rate}mbit" --leaves 2 "${rate}mbit" \
  --slow-link "$slow_a" "$slow_b" "${slow}mbit" -- bash -c '
  set -e
  set -- $VC_HOSTS
  printf "SwitchName=leafA Nodes=%s,%s,%s,%s\nSwitchName=leafB Nodes=%s,%s,%s,%s\nSwitchName=spine Switches=leafA,leafB\n" \
    "$@" > '"$out"'/topology.conf
  mapfile -t MPI < "$VC_MPIRUN_ARGS"
  "${MPI[@]}" -np 8 '"$build"'/fabscope p2p --mode bibw --pattern pairs --schedule all -s 1M -n 24 -w 2 \
    --tcp-cc host --fabric '"$out"'/topology.conf --oversubscription 4 --json '"$out"'/measured.json \
    > '"$out"'/p2p.txt 2> '"$out"'/p2p.err || [ $? -le 1 ]'
"$build/bench/fabscope_bench_sim_realism" "$out/measured.json" --leaf-size 4 --oversubscription 4 \
  --slow-link "$slow_a" "$slow_b" "$fraction"
