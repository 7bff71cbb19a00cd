#!/usr/bin/env python3
"""The tcp engine's figures, measured in one run (issue 3):

1. tcp ring all-reduce bus bandwidth at 16 MiB and above against the mpi backend
   (Open MPI forced onto TCP with --mca btl tcp,self), same ranks, same sizes;
   target: tcp >= 90% of mpi.
2. tcp ring all-reduce bus bandwidth against the single-stream point-to-point
   bandwidth that `fabscope p2p` measures on the same ranks; target >= 80%.

Runs alternate between the two backends so that machine noise hits both; each
figure is the median over the repetitions.

  python3 bench/tcp_engine.py --fabscope build/release/fabscope [--np 4] [--reps 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabscope", default="build/release/fabscope")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    mpirun = ["mpirun", "-np", str(a.np), "--oversubscribe", "--mca", "btl", "tcp,self"]
    if os.geteuid() == 0:
        mpirun.append("--allow-run-as-root")
    sizes = [16 << 20, 32 << 20, 64 << 20]
    busbw = {"tcp": {s: [] for s in sizes}, "mpi": {s: [] for s in sizes}}
    p2p_pair, p2p_ring = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for rep in range(a.reps):
            order = ["tcp", "mpi"] if rep % 2 == 0 else ["mpi", "tcp"]
            for backend in order:
                run(mpirun + [a.fabscope, "sweep", "allreduce", "-b", "16M", "-e", "64M", "-f", "2", "-n",
                              str(a.iters), "-w", "2", "-c", "0", "--backend", backend, "--json", out])
                doc = json.load(open(out))
                for pt in doc["sweeps"][0]["points"]:
                    busbw[backend][pt["size_bytes"]].append(pt["out_of_place"]["busbw_gbps"])
            run(mpirun + [a.fabscope, "p2p", "--pair", "0,1", "--mode", "bw", "-s", "4M", "-n", "64", "-w", "8",
                          "--window", "16", "--backend", "tcp", "--json", out])
            p2p_pair.append(json.load(open(out))["p2p"]["links"][0]["bw_gbps"])
            run(mpirun + [a.fabscope, "p2p", "--pattern", "ring", "--mode", "bw", "-s", "4M", "-n", "64", "-w", "8",
                          "--window", "16", "--backend", "tcp", "--json", out])
            p2p_ring.append(statistics.median(l["bw_gbps"] for l in json.load(open(out))["p2p"]["links"]))
    med = statistics.median
    pair, ring = med(p2p_pair), med(p2p_ring)
    print(f"# fabscope tcp engine, {a.np} ranks, {a.reps} alternating repetitions, medians; Open MPI on btl tcp,self")
    print(f"# p2p single stream (--pair 0,1, 4 MiB): {pair:.3f} GB/s; p2p ring, all links at once (median link): {ring:.3f} GB/s")
    print(f"{'size':>10} {'tcp busbw':>10} {'mpi busbw':>10} {'tcp/mpi':>8} {'tcp/p2p':>8} {'tcp/ring':>9}")
    rows = []
    for s in sizes:
        t, m = med(busbw["tcp"][s]), med(busbw["mpi"][s])
        rows.append({"size_bytes": s, "tcp_busbw_gbps": t, "mpi_busbw_gbps": m, "tcp_over_mpi": t / m,
                     "tcp_over_p2p_single": t / pair, "tcp_over_p2p_ring": t / ring})
        print(f"{s >> 20:>7} MiB {t:>10.3f} {m:>10.3f} {t / m:>8.3f} {t / pair:>8.3f} {t / ring:>9.3f}")
    ok_mpi = all(r["tcp_over_mpi"] >= 0.9 for r in rows)
    ok_p2p = all(r["tcp_over_p2p_single"] >= 0.8 for r in rows)
    print(f"# target tcp >= 90% of mpi: {'met' if ok_mpi else 'MISSED'}; tcp >= 80% of single-stream p2p: "
          f"{'met' if ok_p2p else 'MISSED'}")
    if a.json:
        json.dump({"np": a.np, "reps": a.reps, "p2p_single_gbps": pair, "p2p_ring_median_gbps": ring, "rows": rows,
                   "samples": {"busbw": {b: {str(k): v for k, v in d.items()} for b, d in busbw.items()},
                               "p2p_single": p2p_pair, "p2p_ring": p2p_ring}}, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
