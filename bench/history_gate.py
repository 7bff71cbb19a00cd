#!/usr/bin/python3
"""The regression gate against a history of runs (issue 38): false alarms, detection rate,
change points and read speed, measured here. bench/README.md, "history gate", has the figures.

  history_gate.py series DIR --np N --backend B [--runs 20]   run N local sweeps into DIR/run-NN.json
  history_gate.py measure DIR [--fabscope F]                  the gate's figures over that series
  history_gate.py speed [--reports 1000] [--fabscope F]       1,000 reports of 9 collectives x 24 sizes

`measure` counts, at the defaults:
  pairs     single-baseline compare of each run against the one before: pairs with a
            regression, and regression rows in all;
  history   compare of run i against runs 1..i-1 for i = 6..N (a history of 5 or more):
            regression rows (the target is 0);
  scaled    the same series with runs 11..N scaled to `--factor` (0.9) of their bandwidth
            in the reports: run 11 against runs 1..10, the share of rows flagged as
            regressions (the detection rate), and `history` over the scaled series: the
            rows whose change point lands on run 11 (+-1);
  steady    `history` over the unscaled series: rows with any change point (false ones).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "tools"))
from report_edit import scale_report  # noqa: E402


def fabscope_default():
    return os.path.join(ROOT, "build", "release", "fabscope")


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p


def compare_rows(fabscope, baselines, current, tmp):
    out = os.path.join(tmp, "cmp.json")
    run_json([fabscope, "compare", *baselines, current, "--json", out])
    with open(out) as f:
        return json.load(f)["comparison"]["rows"]


def history_rows(fabscope, paths, tmp):
    out = os.path.join(tmp, "hist.json")
    run_json([fabscope, "history", *paths, "--json", out])
    with open(out) as f:
        return json.load(f)["history"]["rows"]


def cmd_series(a):
    os.makedirs(a.dir, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for i in range(1, a.runs + 1):
        path = os.path.join(a.dir, f"run-{i:02d}.json")
        cmd = ["mpirun", "-np", str(a.np), "--oversubscribe", a.fabscope, "sweep", *a.collectives.split(","),
               "-b", a.begin, "-e", a.end, "-f", "4", "-n", str(a.iters), "--backend", a.backend, "--json", path]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode not in (0, 1):
            sys.exit(f"run {i}: exit {p.returncode}\n{p.stderr}")
        print(f"run {i}: {path}", flush=True)


def cmd_measure(a):
    runs = sorted(glob.glob(os.path.join(a.dir, "run-*.json")))
    n = len(runs)
    if n < 12:
        sys.exit(f"{a.dir}: {n} runs; measure needs 12 or more")
    with tempfile.TemporaryDirectory() as tmp:
        pair_alarms = pair_rows = rows_per = 0
        for i in range(1, n):
            rows = compare_rows(a.fabscope, [runs[i - 1]], runs[i], tmp)
            rows_per = len(rows)
            bad = sum(r["verdict"] == "regression" for r in rows)
            pair_rows += bad
            pair_alarms += bad > 0
        hist_rows = hist_alarms = 0
        limits = []
        for i in range(5, n):
            rows = compare_rows(a.fabscope, runs[:i], runs[i], tmp)
            bad = sum(r["verdict"] == "regression" for r in rows)
            hist_rows += bad
            hist_alarms += bad > 0
            limits += [r["detection_limit"] for r in rows if r.get("detection_limit") is not None and i == 10]
        # The scaled series: runs 11.. at factor.
        scaled = []
        for i, path in enumerate(runs):
            with open(path) as f:
                doc = json.load(f)
            if i >= 10:
                doc = scale_report(doc, a.factor)
            out = os.path.join(tmp, f"scaled-{i + 1:02d}.json")
            with open(out, "w") as f:
                json.dump(doc, f)
            scaled.append(out)
        rows = compare_rows(a.fabscope, scaled[:10], scaled[10], tmp)
        judged = [r for r in rows if r["test"] == "history_t"]
        flagged = sum(r["verdict"] == "regression" for r in judged)
        hrows = history_rows(a.fabscope, scaled, tmp)
        at_step = sum(any(abs(c["index"] - 10) <= 1 and c["worse"] for c in r["change_points"]) for r in hrows)
        steady = history_rows(a.fabscope, runs, tmp)
        false_points = sum(len(r["change_points"]) for r in steady)
        false_rows = sum(bool(r["change_points"]) for r in steady)
    limits.sort()
    med = limits[len(limits) // 2] if limits else float("nan")
    print(f"series {a.dir}: {n} runs, {rows_per} rows each")
    print(f"  pairs    single-baseline compare, run i against i-1: {pair_alarms} of {n - 1} pairs with a regression, "
          f"{pair_rows} regression rows")
    print(f"  history  run i against runs 1..i-1, i = 6..{n}: {hist_alarms} of {n - 5} compares with a regression, "
          f"{hist_rows} regression rows; median detection limit at 10 runs {100 * med:.1f}%")
    print(f"  scaled   runs 11..{n} at {a.factor}: run 11 against runs 1..10 flags {flagged} of {len(judged)} rows "
          f"({100 * flagged / max(1, len(judged)):.0f}%); history puts a worse change at run 11 +-1 in {at_step} of "
          f"{len(hrows)} rows ({100 * at_step / max(1, len(hrows)):.0f}%)")
    print(f"  steady   history over the unscaled series: {false_rows} of {len(steady)} rows with a change point "
          f"({false_points} in all)")


def cmd_speed(a):
    """--reports copies of one real report of 9 collectives x 24 sizes, each with its own
    small noise; `compare --history` of one more and `history` over all, timed."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        base = os.path.join(tmp, "base.json")
        cmd = ["mpirun", "-np", "2", "--oversubscribe", a.fabscope, "sweep", "all", "-b", "8", "-e", "64M", "-f", "2",
               "-n", "5", "-w", "1", "--backend", "mpi", "--json", base]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode not in (0, 1):
            sys.exit(f"the base sweep: exit {p.returncode}\n{p.stderr}")
        with open(base) as f:
            doc = json.load(f)
        sizes = {len(s["points"]) for s in doc["sweeps"]}
        hist = os.path.join(tmp, "history")
        os.makedirs(hist)
        import random
        rng = random.Random(1)
        t0 = time.time()
        for i in range(a.reports):
            d = scale_report(doc, 1 + rng.gauss(0, 0.02))
            d["context"]["start_time"] = f"2026-01-01T00:00:{i // 1000:02d}.{i % 1000:03d}Z"
            with open(os.path.join(hist, f"run-{i:04d}.json"), "w") as f:
                json.dump(d, f, indent=2)
        made = time.time() - t0
        cur = os.path.join(tmp, "current.json")
        with open(cur, "w") as f:
            json.dump(scale_report(doc, 0.9), f, indent=2)
        mb = sum(os.path.getsize(p) for p in glob.glob(os.path.join(hist, "*.json"))) / 2**20
        t0 = time.time()
        p = subprocess.run([a.fabscope, "compare", "--history", hist, cur, "--json", os.path.join(tmp, "c.json")],
                           capture_output=True, text=True)
        t_compare = time.time() - t0
        t0 = time.time()
        q = subprocess.run([a.fabscope, "history", hist, "--json", os.path.join(tmp, "h.json")], capture_output=True,
                           text=True)
        t_history = time.time() - t0
    print(f"{a.reports} reports of {len(doc['sweeps'])} collectives x {max(sizes)} sizes ({mb:.0f} MiB, made in "
          f"{made:.0f} s): compare --history {t_compare:.2f} s (exit {p.returncode}), history {t_history:.2f} s "
          f"(exit {q.returncode})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("series")
    s.add_argument("dir")
    s.add_argument("--np", type=int, default=2)
    s.add_argument("--backend", default="mpi")
    s.add_argument("--runs", type=int, default=20)
    s.add_argument("--collectives", default="allreduce,allgather,alltoall,broadcast")
    s.add_argument("--begin", default="1K")
    s.add_argument("--end", default="4M")
    s.add_argument("--iters", type=int, default=20)
    m = sub.add_parser("measure")
    m.add_argument("dir")
    m.add_argument("--factor", type=float, default=0.9)
    sp = sub.add_parser("speed")
    sp.add_argument("--reports", type=int, default=1000)
    for p in (s, m, sp):
        p.add_argument("--fabscope", default=fabscope_default())
    a = ap.parse_args()
    {"series": cmd_series, "measure": cmd_measure, "speed": cmd_speed}[a.cmd](a)


if __name__ == "__main__":
    main()
