#!/usr/bin/env bash
# fabscope triage on one big NCCL log: a real 16-rank log (test/fixtures/nccl-logs) repeated
# until it reaches SIZE_MB, each copy as another communicator's lines would be (the same
# processes). Prints the wall time, MB/s and peak resident memory (GNU time), and the verdict.
#   bash bench/triage_big_log.sh [SIZE_MB (default 100)] [FABSCOPE (default build/release/fabscope)]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
size_mb="${1:-100}"
fabscope="${2:-$here/build/release/fabscope}"
src="$here/test/fixtures/nccl-logs/slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
log="$dir/big.log"
target=$((size_mb * 1024 * 1024))
cp "$src" "$log"
while [ "$(stat -c %s "$log")" -lt "$target" ]; do cat "$log" "$log" >"$dir/next" && mv "$dir/next" "$log"; done
truncate -s "$target" "$log"
bytes=$(stat -c %s "$log")
rc=0
/usr/bin/time -f "%e %M" -o "$dir/time" "$fabscope" triage "$log" --json "$dir/t.json" >"$dir/out" || rc=$?
case "$rc" in  # a verdict (pass, fail, inconclusive), not a failure to run
  0 | 1 | 5) ;;
  *) echo "fabscope triage failed (exit $rc)" >&2; cat "$dir/out" >&2; exit 1 ;;
esac
read -r secs kb < <(tail -1 "$dir/time")
python3 - "$bytes" "$secs" "$kb" "$dir/t.json" <<'PY'
import json, sys
b, s, kb, path = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
doc = json.load(open(path))
print(f"{b / 2**20:.0f} MiB in {s:.2f} s: {b / 2**20 / max(s, 1e-9):.0f} MiB/s, peak {kb / 1024:.0f} MiB resident; "
      f"verdict {doc['verdict']['result']}, {len(doc['findings'])} findings, note: {doc['triage']['files'][0]['note']!r}")
PY
