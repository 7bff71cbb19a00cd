#!/usr/bin/env python3
"""fabscope beside the peer tools, in one run, alternating: is what fabscope prints what
the operation costs, at every size?

Each method against its peer, 2 ranks on this host (Open MPI over shared memory,
OMPI_MCA_btl=self,vader, unless the environment sets it):

  nccl-tests  `fabscope sweep C --backend mpi -c 0` (default method) against the bare loop
              (bench/bare_loop.cpp: the same back-to-back MPI calls, offsets and
              warm-up with nothing around them), out of place and in place, for allreduce,
              allgather, alltoall, broadcast and reduce at 8 B, 1 KiB and 16 KiB to 16 MiB.
              Target: <= 1.10x at 8 B and 1 KiB.
  osu         `fabscope sweep C --backend mpi --method osu -c 0` against OSU 7.4's osu_C
              -T mpi_float (OSU's own iteration counts on both sides). OSU's size for
              allgather and alltoall is each rank's message: fabscope's size is 2x it.
  p2p         `fabscope p2p --pair 0,1 --mode lat -s 8` (--method perftest: the median;
              --method osu: the loop's mean) against osu_latency -m 8:8 (target <= 1.10x);
              `--mode bw -s 1M` against osu_bw -m 1M:1M (target >= 0.95x).
  tcp         `fabscope p2p --backend tcp --mode lat -s 14` (median) against sockperf
              ping-pong -m 14's median (target <= 1.05x); `--mode bw -s 1M` against
              iperf3 -c 127.0.0.1 (one stream; target >= 0.95x).

Every pair is measured --reps times (default 5), swapping which goes first each time. Per
figure: the median of each, ratio = fabscope median / peer median, and paired = the
median of the per-repetition ratios (less sensitive to load that comes and goes). Exit 1
when a target is missed, 2 when something fails.

OSU is built from ../shared/peers/osu-micro-benchmarks-7.4.tar.gz into --osu-build (about
10 s), or taken from OSU_DIR (a built osu-micro-benchmarks-7.4 tree).

  bench/peer_parity.py [--fabscope build/release/fabscope] [--reps 5] [--only nccl-tests,osu,p2p,tcp]
                       [--json peer_parity.json]
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COLLECTIVES = ["allreduce", "allgather", "alltoall", "broadcast", "reduce"]
OSU_BIN = {"allreduce": "osu_allreduce", "allgather": "osu_allgather", "alltoall": "osu_alltoall",
           "broadcast": "osu_bcast", "reduce": "osu_reduce"}
# OSU prints each rank's message for these: fabscope's (nccl-tests') size is nranks times it.
OSU_PER_RANK = {"allgather", "alltoall"}
NP = 2
KIB, MIB = 1024, 1024 * 1024
# nccl-tests method: (sizes as -b -e -f, iterations, warm-up)
SMALL = ("8", "1K", "128", 20000, 200)       # 8 B and 1 KiB
LARGE = ("16K", "16M", "4", 40, 5)           # 16 KiB .. 16 MiB, x4
OSU_SIZES = [8, 1 * KIB, 16 * KIB, 256 * KIB, 4 * MIB, 16 * MIB]


class Failure(Exception):
    pass


def env():
    e = dict(os.environ)
    e.setdefault("OMPI_MCA_btl", "self,vader")
    e.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    if os.geteuid() == 0:
        e["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        e["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return e


def run(cmd, timeout=600):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env(), timeout=timeout)
    if p.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-2000:]}")
    return p.stdout


def mpirun(*args):
    return ["mpirun", "-np", str(NP), *args]


# ---------------------------------------------------------------- OSU
def build_osu(build_dir):
    if os.environ.get("OSU_DIR"):
        root = os.environ["OSU_DIR"]
    else:
        tarball = os.path.join(ROOT, "..", "shared", "peers", "osu-micro-benchmarks-7.4.tar.gz")
        root = os.path.join(build_dir, "osu-micro-benchmarks-7.4")
        if not os.path.exists(os.path.join(root, "c/mpi/pt2pt/standard/osu_bw")):
            if not os.path.exists(tarball):
                raise Failure(f"no OSU: {tarball} is missing and OSU_DIR is not set")
            os.makedirs(build_dir, exist_ok=True)
            with tarfile.open(tarball) as t:
                t.extractall(build_dir)
            print(f"# building OSU 7.4 in {root} ...", flush=True)
            p = subprocess.run("./configure CC=mpicc CXX=mpicxx >/dev/null && make -j2 -C c/mpi/collective/blocking "
                               ">/dev/null && make -j2 -C c/mpi/pt2pt/standard >/dev/null", shell=True, cwd=root,
                               env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                raise Failure(f"building OSU failed:\n{p.stdout[-2000:]}")
    bins = {}
    for c, b in OSU_BIN.items():
        bins[c] = os.path.join(root, "c/mpi/collective/blocking", b)
    for b in ("osu_latency", "osu_bw"):
        bins[b] = os.path.join(root, "c/mpi/pt2pt/standard", b)
    for b, path in bins.items():
        if not os.access(path, os.X_OK):
            raise Failure(f"OSU binary {path} is missing")
    return bins


def osu_table(text):
    """size -> first figure (latency in us, or MB/s) of OSU's printed table."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0].isdigit():
            rows[int(f[0])] = float(f[1])
    return rows


# ---------------------------------------------------------------- fabscope
def fabscope_sweep(fab, coll, extra, tmp):
    out = os.path.join(tmp, "sweep.json")
    run(mpirun(fab, "sweep", coll, "--backend", "mpi", "-c", "0", "--json", out, *extra))
    with open(out) as fh:
        doc = json.load(fh)
    s = doc["sweeps"][0]
    rows = {p["size_bytes"]: (p["out_of_place"]["time_us"], p["in_place"]["time_us"]) for p in s["points"]}
    return rows, s.get("floor_us")


def fabscope_p2p(fab, backend, mode, size, extra, tmp, mpi_env=True):
    out = os.path.join(tmp, "p2p.json")
    run(mpirun(fab, "p2p", "--backend", backend, "--pair", "0,1", "--mode", mode, "-s", size, "--json", out, *extra))
    with open(out) as fh:
        doc = json.load(fh)
    link = doc["p2p"]["links"][0]
    return link["lat_us"] if mode == "lat" else link["bw_gbps"], doc["p2p"].get("floor_us")


def bare(bare_bin, coll, b, e, f, n, w):
    rows = {}
    for line in run(mpirun(bare_bin, coll, "-b", b, "-e", e, "-f", f, "-n", str(n), "-w", str(w))).splitlines():
        parts = line.split()
        if len(parts) == 3:
            rows[int(parts[0])] = (float(parts[1]), float(parts[2]))
    return rows


# ---------------------------------------------------------------- sockperf, iperf3
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sockperf_median(seconds=3):
    port = free_port()
    server = subprocess.Popen(["sockperf", "server", "--tcp", "-i", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        text = run(["sockperf", "ping-pong", "--tcp", "-i", "127.0.0.1", "-p", str(port), "-m", "14", "-t",
                    str(seconds)])
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=10)
    m = re.search(r"percentile 50\.000 =\s*([0-9.]+)", text)
    if not m:
        raise Failure(f"no median in sockperf's output:\n{text[-1500:]}")
    return float(m.group(1))


def iperf3_gbps(seconds=3):
    port = free_port()
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        doc = json.loads(run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds), "-J"]))
    finally:
        server.wait(timeout=20)
    return doc["end"]["sum_received"]["bits_per_second"] / 8e9


# ---------------------------------------------------------------- comparison
class Figure:
    def __init__(self, section, name, unit, target=None, higher_is_better=False):
        self.section, self.name, self.unit = section, name, unit
        self.target, self.higher = target, higher_is_better
        self.fab, self.peer = [], []

    def add(self, fab, peer):
        self.fab.append(fab)
        self.peer.append(peer)

    def summary(self):
        fm, pm = statistics.median(self.fab), statistics.median(self.peer)
        ratio = fm / pm if pm else float("nan")
        paired = statistics.median([f / p for f, p in zip(self.fab, self.peer) if p])
        met = None
        if self.target is not None:
            met = ratio >= self.target if self.higher else ratio <= self.target
        return {"section": self.section, "figure": self.name, "unit": self.unit, "fabscope": fm, "peer": pm,
                "ratio": ratio, "paired": paired, "target": self.target, "higher_is_better": self.higher,
                "met": met, "fabscope_samples": self.fab, "peer_samples": self.peer}


def alternate(reps, a, b):
    """Runs a() and b() reps times, swapping which goes first; yields (a_result, b_result)."""
    for rep in range(reps):
        if rep % 2 == 0:
            ra = a()
            rb = b()
        else:
            rb = b()
            ra = a()
        yield ra, rb


def size_name(n):
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB} MiB"
    if n >= KIB and n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} B"


def section_nccl_tests(args, figures, tmp):
    for coll in COLLECTIVES:
        for (b, e, f, n, w) in (SMALL, LARGE):
            fab_args = ["-b", b, "-e", e, "-f", f, "-n", str(n), "-w", str(w)]
            for fab_rows, bare_rows in alternate(args.reps, lambda: fabscope_sweep(args.fabscope, coll, fab_args,
                                                                                    tmp)[0],
                                                 lambda: bare(args.bare_loop, coll, b, e, f, n, w)):
                for size, (oop, ip) in fab_rows.items():
                    if size not in bare_rows:
                        continue
                    for placement, fv, bv in (("out-of-place", oop, bare_rows[size][0]),
                                              ("in-place", ip, bare_rows[size][1])):
                        key = ("nccl-tests", coll, size, placement)
                        if key not in figures:
                            target = 1.10 if size in (8, KIB) else None
                            figures[key] = Figure("nccl-tests vs bare loop",
                                                  f"{coll} {size_name(size)} {placement}", "us", target)
                        figures[key].add(fv, bv)
        print(f"# nccl-tests method: {coll} done", flush=True)


def section_osu(args, figures, osu, tmp):
    for coll in COLLECTIVES:
        scale = NP if coll in OSU_PER_RANK else 1
        fab_sizes = [s * scale for s in OSU_SIZES]
        max_fab = max(fab_sizes)

        def fab():
            rows = {}
            # one run over OSU's sizes (x4 from 16 KiB; 8 B and 1 KiB apart)
            for b, e, f in ((fab_sizes[0], fab_sizes[1], fab_sizes[1] // fab_sizes[0]),
                            (fab_sizes[2], max_fab, 16)):
                r, _ = fabscope_sweep(args.fabscope, coll, ["--method", "osu", "-b", str(b), "-e", str(e), "-f",
                                                            str(f)], tmp)
                rows.update({k: v[0] for k, v in r.items()})
            return rows

        def peer():
            return osu_table(run(mpirun(osu[coll], "-T", "mpi_float", "-m", f"{OSU_SIZES[0]}:{OSU_SIZES[-1]}")))

        for fab_rows, osu_rows in alternate(args.reps, fab, peer):
            for s in OSU_SIZES:
                fs = s * scale
                if fs not in fab_rows or s not in osu_rows:
                    continue
                key = ("osu", coll, s)
                if key not in figures:
                    label = f"{coll} {size_name(fs)}" + (f" (OSU {size_name(s)} per rank)" if scale > 1 else "")
                    figures[key] = Figure("osu method vs OSU 7.4", label, "us")
                figures[key].add(fab_rows[fs], osu_rows[s])
        print(f"# osu method: {coll} done", flush=True)


def section_p2p(args, figures, osu, tmp):
    for method, name in (("perftest", "median"), ("osu", "loop mean")):
        key = ("p2p", "lat", method)
        figures[key] = Figure("p2p (mpi) vs OSU 7.4", f"latency 8 B, --method {method} ({name}) vs osu_latency",
                              "us", 1.10)
        for f, p in alternate(args.reps,
                              lambda: fabscope_p2p(args.fabscope, "mpi", "lat", "8",
                                                   ["--method", method, "-n", "20000"], tmp)[0],
                              lambda: osu_table(run(mpirun(osu["osu_latency"], "-m", "8:8")))[8]):
            figures[key].add(f, p)
    key = ("p2p", "bw")
    figures[key] = Figure("p2p (mpi) vs OSU 7.4", "bandwidth 1 MiB vs osu_bw", "GB/s", 0.95, True)
    for f, p in alternate(args.reps,
                          lambda: fabscope_p2p(args.fabscope, "mpi", "bw", "1M", ["-n", "2000"], tmp)[0],
                          lambda: osu_table(run(mpirun(osu["osu_bw"], "-m", f"{MIB}:{MIB}")))[MIB] / 1000):
        figures[key].add(f, p)
    print("# p2p (mpi) done", flush=True)


def section_tcp(args, figures, tmp):
    key = ("tcp", "lat")
    figures[key] = Figure("p2p (tcp) vs sockperf, iperf3", "latency 14 B median vs sockperf ping-pong", "us", 1.05)
    for f, p in alternate(args.reps,
                          lambda: fabscope_p2p(args.fabscope, "tcp", "lat", "14", ["-n", "50000"], tmp)[0],
                          lambda: sockperf_median()):
        figures[key].add(f, p)
    key = ("tcp", "bw")
    figures[key] = Figure("p2p (tcp) vs sockperf, iperf3", "bandwidth 1 MiB vs iperf3 (one stream)", "GB/s", 0.95,
                          True)
    for f, p in alternate(args.reps,
                          lambda: fabscope_p2p(args.fabscope, "tcp", "bw", "1M", ["-n", "4000"], tmp)[0],
                          lambda: iperf3_gbps()):
        figures[key].add(f, p)
    print("# tcp done", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabscope", default=os.path.join(ROOT, "build/release/fabscope"))
    ap.add_argument("--bare-loop", default=os.path.join(ROOT, "build/release/bench/fabscope_bench_bare_loop"))
    ap.add_argument("--osu-build", default="/tmp/fabscope-peer-parity")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="nccl-tests,osu,p2p,tcp")
    ap.add_argument("--json", help="also write every figure and sample here")
    args = ap.parse_args()
    sections = set(args.only.split(","))
    unknown = sections - {"nccl-tests", "osu", "p2p", "tcp"}
    if unknown or args.reps < 1:
        print(f"peer_parity: --only takes nccl-tests, osu, p2p, tcp (not {', '.join(sorted(unknown))}); "
              "--reps >= 1", file=sys.stderr)
        return 2
    for tool in ["mpirun"] + (["sockperf", "iperf3"] if "tcp" in sections else []):
        if not shutil.which(tool):
            print(f"peer_parity: {tool} is not installed (scripts/install-deps.sh installs it)", file=sys.stderr)
            return 2
    for path in (args.fabscope, args.bare_loop):
        if not os.access(path, os.X_OK):
            print(f"peer_parity: {path} is not built (cmake --build --preset release)", file=sys.stderr)
            return 2
    figures = {}
    started = time.time()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            osu = build_osu(args.osu_build) if sections & {"osu", "p2p"} else {}
            if "nccl-tests" in sections:
                section_nccl_tests(args, figures, tmp)
            if "osu" in sections:
                section_osu(args, figures, osu, tmp)
            if "p2p" in sections:
                section_p2p(args, figures, osu, tmp)
            if "tcp" in sections:
                section_tcp(args, figures, tmp)
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"peer_parity: {e}", file=sys.stderr)
        return 2
    rows = [f.summary() for f in figures.values()]
    print(f"# peer_parity: {NP} ranks on {socket.gethostname()} ({os.cpu_count()} cores), {args.reps} alternating "
          f"repetitions, {time.time() - started:.0f} s; ratio = fabscope median / peer median, paired = median of "
          "per-repetition ratios")
    section = None
    missed = 0
    for r in rows:
        if r["section"] != section:
            section = r["section"]
            print(f"\n## {section}")
            print(f"{'figure':58} {'fabscope':>10} {'peer':>10} {'unit':>5} {'ratio':>6} {'paired':>6}  target")
        target = ""
        if r["target"] is not None:
            target = f"{'>=' if r['higher_is_better'] else '<='} {r['target']:.2f} {'met' if r['met'] else 'MISSED'}"
            missed += 0 if r["met"] else 1
        print(f"{r['figure']:58} {r['fabscope']:10.3f} {r['peer']:10.3f} {r['unit']:>5} {r['ratio']:6.3f} "
              f"{r['paired']:6.3f}  {target}")
    bcast = [r for r in rows if r["figure"].startswith("broadcast") and r["section"].startswith("nccl-tests")]
    if bcast:
        print("\n## broadcast, out of place / in place (fabscope, nccl-tests method)")
        by = {}
        for r in bcast:
            size, placement = r["figure"].rsplit(" ", 1)
            by.setdefault(size, {})[placement] = r["fabscope"]
        for size, v in by.items():
            if "out-of-place" in v and "in-place" in v:
                print(f"{size:30} {v['out-of-place']:10.3f} {v['in-place']:10.3f} us  {v['out-of-place'] / v['in-place']:6.3f}")
    print(f"\n# {missed} target(s) missed")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"ranks": NP, "reps": args.reps, "figures": rows}, fh, indent=1)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
