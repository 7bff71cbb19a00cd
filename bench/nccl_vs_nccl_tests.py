#!/usr/bin/env python3
"""fabscope's nccl sweep against nccl-tests on the same GPUs, sizes and iterations.

Runs nccl-tests' <collective>_perf and `fabscope sweep <collective> --backend nccl`
alternately (--reps alternations, swapping which tool goes first each time), reads
nccl-tests' table and fabscope's JSON report, and compares the out-of-place busbw (algbw
when busbw is 0, as with one rank) in PAIRS: per size, the ratio fabscope / nccl-tests of
each alternation's two runs, then the median of those ratios (with their min and max).
Target: within 3% (median paired ratio 0.97 to 1.03) from 1 MiB up. Exit 0 when every
size from 1 MiB up of every collective meets it, 1 when one misses, 2 when a run failed
or gave nothing to compare.

--collective takes a name, a list (space or comma separated) or `all` (the nine:
allreduce allgather reducescatter alltoall broadcast reduce gather scatter sendrecv).
--batch times every collective in one fabscope run per alternation (one start instead of
one per collective; nccl-tests still runs one binary per collective), which is what makes
nine collectives fit a short GPU lease. --budget stops starting runs once the next one
would end past it, and the summary covers the pairs completed.

Ranks sharing a GPU (--np N --share-gpus, e.g. two ranks on a one-GPU machine): fabscope
gets --share-gpus, and each nccl-tests rank runs through a wrapper that sets
NCCL_HOSTID=fakehost<rank> (so that NCCL connects the ranks through its network transport)
and NCCL_TESTS_DEVICE=0 (so that nccl-tests takes the one GPU). The launcher keeps
mpirun's default binding unless --mpirun says otherwise.

nccl-tests is never committed: build it beside the project from its public source with
bench/build-nccl-tests.sh, then e.g.
  bench/nccl_vs_nccl_tests.py --nccl-tests carry/nccl-tests --collective all -b 1M -e 1G --reps 5
  bench/nccl_vs_nccl_tests.py --nccl-tests carry/nccl-tests --np 2 --share-gpus --collective all \\
      -b 1M -e 64M --reps 3 --batch --json parity-np2.json
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time

NCCL_TESTS_BIN = {"allreduce": "all_reduce_perf", "allgather": "all_gather_perf",
                  "reducescatter": "reduce_scatter_perf", "alltoall": "alltoall_perf",
                  "broadcast": "broadcast_perf", "reduce": "reduce_perf", "gather": "gather_perf",
                  "scatter": "scatter_perf", "sendrecv": "sendrecv_perf"}
ALL = ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "gather",
       "scatter", "sendrecv"]
LOW, HIGH = 0.97, 1.03
JUDGED_FROM = 1 << 20

# The wrapper each nccl-tests rank runs through when ranks share a GPU (as
# /work/shared/gpu/hostid-wrap.sh did): its own NCCL host id, the GPU every rank takes.
HOSTID_WRAP = ('r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}; '
               'export NCCL_HOSTID="fakehost$r" NCCL_TESTS_DEVICE=${NCCL_TESTS_DEVICE:-0}; exec "$@"')


def parse_nccl_tests(text):
    """size -> (time_us, algbw, busbw, wrong) of the out-of-place columns of nccl-tests' table."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) < 13 or line.lstrip().startswith("#") or not f[0].isdigit():
            continue
        try:
            wrong = int(f[8]) if f[8].isdigit() else 0
            rows[int(f[0])] = (float(f[5]), float(f[6]), float(f[7]), wrong)
        except ValueError:
            continue
    return rows


def parse_fabscope(path):
    """collective -> size -> (time_us, algbw, busbw, wrong), out of place."""
    with open(path) as fh:
        doc = json.load(fh)
    out = {}
    for sweep in doc.get("sweeps", []):
        rows = out.setdefault(sweep["collective"], {})
        for p in sweep["points"]:
            o = p["out_of_place"]
            rows[p["size_bytes"]] = (o["time_us"], o["algbw_gbps"], o["busbw_gbps"], o.get("wrong") or 0)
    return out


def collectives_of(values):
    names = []
    for v in values:
        for name in v.replace(",", " ").split():
            if name == "all":
                names.extend(ALL)
            elif name in NCCL_TESTS_BIN:
                names.append(name)
            else:
                raise argparse.ArgumentTypeError(
                    f"unknown collective {name!r}: one of {' '.join(ALL)} or all")
    return list(dict.fromkeys(names))


def quote(cmd):
    return " ".join(shlex.quote(c) for c in cmd)


class Runner:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.t0 = time.monotonic()
        self.longest = {}        # kind -> longest run so far (s), to judge --budget
        self.failures = []
        self.skipped = 0
        self.count = 0
        launch = shlex.split(a.mpirun) + ["-np", str(a.np)] if a.np > 1 else []
        self.launch = launch
        self.common = ["-b", a.b, "-e", a.e, "-f", a.f, "-n", a.n, "-w", a.w, "-c", a.check]

    def fits(self, *kinds):
        """Whether runs of these kinds, one after the other, would end within --budget."""
        if not self.a.budget:
            return True
        guess = sum(self.longest.get(k, self.longest.get("any", 0.0)) for k in kinds)
        return time.monotonic() - self.t0 + guess <= self.a.budget

    def skip(self, what, runs):
        self.skipped += runs
        print(f"# budget: {what} not started ({time.monotonic() - self.t0:.0f} s of "
              f"{self.a.budget:g} s spent)", flush=True)

    def run(self, kind, label, cmd):
        """Runs one command; returns its stdout, or None when it failed or was not started."""
        if not self.fits(kind):
            self.skip(label, 1)
            return None
        self.count += 1
        print("$ " + quote(cmd), flush=True)
        start = time.monotonic()
        # Its own session, so that a run past --timeout goes with its ranks (mpirun's too).
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 errors="replace", start_new_session=True)
        except OSError as e:
            self.failures.append(f"{label}: {e}")
            print(f"# {label}: {e}", flush=True)
            return None
        try:
            out, err = p.communicate(timeout=self.a.timeout or None)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            rc, err = "timeout", err + f"\nkilled after {self.a.timeout:.0f} s"
        took = time.monotonic() - start
        self.longest[kind] = max(self.longest.get(kind, 0.0), took)
        self.longest["any"] = max(self.longest.get("any", 0.0), took)
        if self.a.keep:
            with open(os.path.join(self.a.keep, f"{self.count:03d}-{label}.log"), "w") as fh:
                fh.write(f"$ {quote(cmd)}\n# rc={rc} {took:.1f} s\n{out}\n--- stderr\n{err}")
        print(f"#   rc={rc} {took:.1f} s", flush=True)
        if rc != 0:
            tail = "\n".join((out + err).strip().splitlines()[-8:])
            self.failures.append(f"{label}: exited {rc}")
            print(f"# {label} exited {rc}:\n{tail}", flush=True)
            return None
        return out

    def nccl_tests(self, coll, rep):
        binary = os.path.join(self.a.nccl_tests, NCCL_TESTS_BIN[coll])
        wrap = ["bash", "-c", HOSTID_WRAP, "hostid-wrap"] if self.a.share_gpus else []
        out = self.run("nccl-tests", f"r{rep}-nccl-tests-{coll}",
                       self.launch + wrap + [binary, "-g", "1"] + self.common)
        return None if out is None else {coll: parse_nccl_tests(out)}

    def fabscope(self, colls, rep):
        report = os.path.join(self.tmp, f"r{rep}-{'-'.join(colls) if len(colls) < 3 else 'batch'}.json")
        cmd = self.launch + [self.a.fabscope, "sweep"] + colls + ["--backend", self.a.backend, "--json", report]
        if self.a.share_gpus:
            cmd.append("--share-gpus")
        label = f"r{rep}-fabscope-{colls[0] if len(colls) == 1 else 'batch'}"
        out = self.run("fabscope-batch" if len(colls) > 1 else "fabscope", label, cmd + self.common)
        if out is None:
            return None
        try:
            rows = parse_fabscope(report)
        except (OSError, ValueError, KeyError) as e:
            self.failures.append(f"{label}: no report ({e})")
            return None
        if self.a.keep:
            os.replace(report, os.path.join(self.a.keep, f"{self.count:03d}-{label}.json"))
        return rows


def summarize(a, colls, pairs, theirs, ours):
    """Prints the paired table per collective; returns (per-collective results, any miss)."""
    results, missed_any = {}, False
    for coll in colls:
        sizes = sorted({s for rep in pairs.get(coll, []) for s in rep})
        t_all = [r for rep in theirs.get(coll, []) for r in rep.values()]
        use_bus = any(r[2] > 0 for r in t_all)
        col = 2 if use_bus else 1
        metric = "busbw" if use_bus else "algbw (busbw is 0 here)"
        npairs = len(pairs.get(coll, []))
        print(f"\n{coll}, {a.np} rank(s){', sharing the GPU' if a.share_gpus else ''}, {npairs} paired "
              f"run(s), out of place, {metric} in GB/s; ratio = fabscope / nccl-tests per pair")
        if not sizes:
            print("  nothing to compare (no complete pair)")
            results[coll] = {"metric": metric.split()[0], "pairs": 0, "sizes": [], "judged": 0, "within": 0}
            missed_any = True
            continue
        print(f"{'size':>12} {'nccl-tests':>11} {'fabscope':>9} {'median':>7} {'min':>6} {'max':>6}"
              f"  {'time us (nt / fs)':>20}")
        rows, judged, within = [], 0, 0
        for size in sizes:
            ratios, nt_bw, fs_bw, nt_us, fs_us, wrong = [], [], [], [], [], 0
            for rep in pairs[coll]:
                if size not in rep:
                    continue
                t, o = rep[size]
                nt_bw.append(t[col]); fs_bw.append(o[col]); nt_us.append(t[0]); fs_us.append(o[0])
                wrong += t[3] + o[3]
                ratios.append(o[col] / t[col] if t[col] > 0 else float("nan"))
            med = statistics.median(ratios)
            ok = LOW <= med <= HIGH
            mark = ""
            if size >= JUDGED_FROM:
                judged += 1
                within += ok
                if not ok:
                    mark = "  <- outside 3%"
            if wrong:
                mark += f"  <- {wrong} wrong value(s)"
            print(f"{size:>12} {statistics.median(nt_bw):>11.2f} {statistics.median(fs_bw):>9.2f} {med:>7.3f}"
                  f" {min(ratios):>6.3f} {max(ratios):>6.3f}  {statistics.median(nt_us):>9.1f} / "
                  f"{statistics.median(fs_us):<9.1f}{mark}")
            rows.append({"size_bytes": size, "ratios": ratios, "median_ratio": med, "min_ratio": min(ratios),
                         "max_ratio": max(ratios), "nccl_tests_gbps": nt_bw, "fabscope_gbps": fs_bw,
                         "nccl_tests_time_us": nt_us, "fabscope_time_us": fs_us, "wrong": wrong,
                         "within": ok})
        if within < judged:
            missed_any = True
        results[coll] = {"metric": metric.split()[0], "pairs": npairs, "sizes": rows, "judged": judged,
                         "within": within}
    print(f"\nsummary: {a.np} rank(s){' sharing the GPU' if a.share_gpus else ''}, -b {a.b} -e {a.e} "
          f"-n {a.n} -w {a.w}; sizes from 1 MiB up whose median paired ratio is within {LOW}-{HIGH}")
    for coll in colls:
        r = results[coll]
        meds = [s["median_ratio"] for s in r["sizes"] if s["size_bytes"] >= JUDGED_FROM]
        span = f"median ratios {min(meds):.3f}-{max(meds):.3f}" if meds else "no size compared"
        print(f"  {coll:<14} {r['within']:>2}/{r['judged']:<2} within  ({r['pairs']} pair(s); {span})")
    return results, missed_any


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nccl-tests", required=True, help="directory with nccl-tests' *_perf binaries")
    ap.add_argument("--fabscope", default="build/release/fabscope")
    ap.add_argument("--collective", nargs="+", default=["allreduce"], metavar="NAME",
                    help=f"one or more of {' '.join(ALL)} (space or comma separated), or all")
    ap.add_argument("--np", type=int, default=1, help="ranks (one GPU each, or sharing with --share-gpus)")
    ap.add_argument("--share-gpus", action="store_true",
                    help="ranks share the GPU(s): fabscope --share-gpus; nccl-tests per rank with "
                         "NCCL_HOSTID=fakehost<rank> and NCCL_TESTS_DEVICE=0")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root", help="launcher used when --np > 1")
    ap.add_argument("--backend", default="nccl", help="fabscope's backend (default nccl)")
    ap.add_argument("-b", default="1M")
    ap.add_argument("-e", default="1G")
    ap.add_argument("-f", default="2")
    ap.add_argument("-n", default="20")
    ap.add_argument("-w", default="5")
    ap.add_argument("-c", "--check", default="1", help="verification passes per size, both tools (default 1)")
    ap.add_argument("--reps", type=int, default=3, help="alternations; the first tool swaps each time")
    ap.add_argument("--batch", action="store_true",
                    help="one fabscope run per alternation for every collective (nccl-tests: one per collective)")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds: start no run that would end past this (judged by the longest of its kind)")
    ap.add_argument("--timeout", type=float, default=0, help="seconds one run may take (default: no limit)")
    ap.add_argument("--keep", help="directory to keep every run's output and fabscope's reports in")
    ap.add_argument("--json", help="write every paired ratio here")
    a = ap.parse_args()
    try:
        colls = collectives_of(a.collective)
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    if a.share_gpus and a.np < 2:
        print("# --share-gpus with one rank: nothing is shared", file=sys.stderr)
    missing = [b for b in (os.path.join(a.nccl_tests, NCCL_TESTS_BIN[c]) for c in colls) if not os.access(b, os.X_OK)]
    if missing:
        print("nccl-tests binaries missing (build them with bench/build-nccl-tests.sh): " + " ".join(missing),
              file=sys.stderr)
        return 2
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)

    theirs, ours = {}, {}   # collective -> [rep -> {size: row}] (None where a run failed)
    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(a, tmp)
        for rep in range(a.reps):
            nt_first = rep % 2 == 0
            if a.batch:
                # A whole alternation or none: half of one is no pair.
                if rep and not r.fits(*(["nccl-tests"] * len(colls) + ["fabscope-batch"])):
                    r.skip(f"alternation {rep}", len(colls) + 1)
                    continue
                got_nt, got_fs = {}, None
                for which in (["nt", "fs"] if nt_first else ["fs", "nt"]):
                    if which == "nt":
                        for coll in colls:
                            got_nt.update(r.nccl_tests(coll, rep) or {})
                    else:
                        got_fs = r.fabscope(colls, rep) or {}
                for coll in colls:
                    theirs.setdefault(coll, []).append(got_nt.get(coll))
                    ours.setdefault(coll, []).append(got_fs.get(coll))
            else:
                for coll in colls:
                    if rep and not r.fits("nccl-tests", "fabscope"):
                        r.skip(f"alternation {rep} of {coll}", 2)
                        continue
                    got = {}
                    for which in (["nt", "fs"] if nt_first else ["fs", "nt"]):
                        got[which] = (r.nccl_tests(coll, rep) if which == "nt" else r.fabscope([coll], rep)) or {}
                    theirs.setdefault(coll, []).append(got["nt"].get(coll))
                    ours.setdefault(coll, []).append(got["fs"].get(coll))

    # Pairs: the two tools' rows of one alternation, sizes both have.
    pairs = {}
    for coll in colls:
        for t, o in zip(theirs.get(coll, []), ours.get(coll, [])):
            if t and o:
                pairs.setdefault(coll, []).append({s: (t[s], o[s]) for s in sorted(set(t) & set(o))})
    results, missed = summarize(a, colls, pairs, theirs, ours)
    if r.failures:
        print(f"{len(r.failures)} run(s) failed: " + "; ".join(r.failures))
    if r.skipped:
        print(f"{r.skipped} run(s) not started: --budget {a.budget:g} s reached")
    print(f"{r.count} run(s) in {time.monotonic() - r.t0:.0f} s")
    rc = 2 if r.failures or not pairs else (1 if missed else 0)
    if a.json:
        doc = {"np": a.np, "share_gpus": a.share_gpus, "reps": a.reps, "batch": a.batch,
               "sizes": {"b": a.b, "e": a.e, "f": a.f}, "iters": {"n": a.n, "w": a.w, "c": a.check},
               "target": [LOW, HIGH], "judged_from_bytes": JUDGED_FROM, "collectives": results,
               "failures": r.failures, "runs_not_started": r.skipped, "exit": rc}
        with open(a.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    print("within 3% at every size from 1 MiB up" if rc == 0 else
          ("outside 3% at some size from 1 MiB up" if rc == 1 else "a run failed or nothing was compared"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
