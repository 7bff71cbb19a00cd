#!/usr/bin/env python3
"""fabscope's nccl sweep against nccl-tests on the same GPUs, sizes and iterations.

Runs nccl-tests' <collective>_perf and `fabscope sweep <collective> --backend nccl`
alternately (--reps times, swapping which goes first), reads nccl-tests' table and
fabscope's JSON report, and prints per size the median out-of-place busbw (algbw when
busbw is 0, as with one rank) of each and their ratio. Target: within 3% (ratio 0.97 to
1.03) from 1 MiB up. Exit 1 when a size from 1 MiB up misses it.

nccl-tests is never committed: build it beside the project from its public source, e.g.
  make -C nccl-tests MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi \\
       CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr/local/cuda
then: bench/nccl_vs_nccl_tests.py --nccl-tests nccl-tests/build [--np N] [--mpirun 'mpirun ...']
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

NCCL_TESTS_BIN = {"allreduce": "all_reduce_perf", "allgather": "all_gather_perf",
                  "reducescatter": "reduce_scatter_perf", "alltoall": "alltoall_perf",
                  "broadcast": "broadcast_perf", "reduce": "reduce_perf", "sendrecv": "sendrecv_perf"}


def parse_nccl_tests(text):
    """size -> (time_us, algbw, busbw) of the out-of-place columns of nccl-tests' table."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) < 13 or line.lstrip().startswith("#") or not f[0].isdigit():
            continue
        try:
            rows[int(f[0])] = (float(f[5]), float(f[6]), float(f[7]))
        except ValueError:
            continue
    return rows


def parse_fabscope(path):
    with open(path) as fh:
        doc = json.load(fh)
    rows = {}
    for p in doc["sweeps"][0]["points"]:
        o = p["out_of_place"]
        rows[p["size_bytes"]] = (o["time_us"], o["algbw_gbps"], o["busbw_gbps"])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nccl-tests", required=True, help="directory with nccl-tests' *_perf binaries")
    ap.add_argument("--fabscope", default="build/release/fabscope")
    ap.add_argument("--collective", default="allreduce", choices=sorted(NCCL_TESTS_BIN))
    ap.add_argument("--np", type=int, default=1, help="ranks (one GPU each)")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root", help="launcher used when --np > 1")
    ap.add_argument("-b", default="1M")
    ap.add_argument("-e", default="1G")
    ap.add_argument("-f", default="2")
    ap.add_argument("-n", default="20")
    ap.add_argument("-w", default="5")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()

    common = ["-b", a.b, "-e", a.e, "-f", a.f, "-n", a.n, "-w", a.w, "-c", "1"]
    launch = shlex.split(a.mpirun) + ["-np", str(a.np)] if a.np > 1 else []
    ours, theirs = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "run.json")
        for rep in range(a.reps):
            order = ["nccl-tests", "fabscope"] if rep % 2 == 0 else ["fabscope", "nccl-tests"]
            for which in order:
                if which == "nccl-tests":
                    cmd = launch + [os.path.join(a.nccl_tests, NCCL_TESTS_BIN[a.collective]), "-g", "1"] + common
                else:
                    cmd = launch + [a.fabscope, "sweep", a.collective, "--backend", "nccl", "--json", report] + common
                print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"{which} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
                rows = parse_nccl_tests(p.stdout) if which == "nccl-tests" else parse_fabscope(report)
                for size, r in rows.items():
                    (theirs if which == "nccl-tests" else ours).setdefault(size, []).append(r)

    use_bus = any(r[2] > 0 for rs in theirs.values() for r in rs)
    col = 2 if use_bus else 1
    print(f"\n{a.collective}, {a.np} rank(s), median of {a.reps} runs each, out of place, "
          f"{'busbw' if use_bus else 'algbw (busbw is 0 at one rank)'} in GB/s")
    print(f"{'size':>12} {'nccl-tests':>11} {'fabscope':>9} {'ratio':>7}  {'time us (nt / fs)':>20}")
    missed = []
    for size in sorted(set(ours) & set(theirs)):
        t = statistics.median(r[col] for r in theirs[size])
        o = statistics.median(r[col] for r in ours[size])
        tt = statistics.median(r[0] for r in theirs[size])
        ot = statistics.median(r[0] for r in ours[size])
        ratio = o / t if t > 0 else float("nan")
        mark = ""
        if size >= 1 << 20 and not 0.97 <= ratio <= 1.03:
            missed.append(size)
            mark = "  <- outside 3%"
        print(f"{size:>12} {t:>11.2f} {o:>9.2f} {ratio:>7.3f}  {tt:>9.1f} / {ot:<9.1f}{mark}")
    if missed:
        print(f"outside 3% at {len(missed)} size(s) from 1 MiB up")
        return 1
    print("within 3% at every size from 1 MiB up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
