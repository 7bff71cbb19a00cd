#!/usr/bin/env python3
"""End-to-end checks of the fabscope binary, run by ctest.

  cli_test.py sweep --np N      a sweep under mpirun: report valid against the schema,
                                public key paths present, results verified, and
                                `fabscope report` prints exactly what the sweep printed
  cli_test.py bad-input         every bad input gets a clear message naming the value,
                                printed once, a non-zero exit, no hang, no report written
  cli_test.py schema            the schema rejects reports that break its rules
  cli_test.py topo              topology offline from fixtures, live, under mpirun, bad files
  cli_test.py report-mutations  `fabscope report` on randomly damaged real reports: exit 0, or
                                exit 2 naming what is wrong; never a crash
  cli_test.py compare           the regression gate on real sweeps: identical, one size slowed,
                                a slowdown inside the noise, differing settings, --strict,
                                bad files; JUnit read by junitparser, Markdown as text
  cli_test.py history           compare against a history and `history` (change points) on copies of one
                                real sweep moved as a whole; imported reports; bad input
  cli_test.py import            every nccl-tests fixture imported, schema-valid, rendered back
                                to the same numbers; bad pastes; --expect; every OSU fixture
                                imported with OSU's figures; an OSU baseline gates --method osu
  cli_test.py faults            a stopped rank named by every survivor within --timeout + 5 s; a killed
                                rank, SIGINT, SIGTERM: the job ends, the old report intact, nothing left
  cli_test.py memory --backend B  every rank's peak resident set within the memory estimate the run
                                was admitted with: each collective at 32 MiB, `sweep all`, p2p
  cli_test.py render --backend B  `fabscope report --format` html/prometheus/markdown/text on every
                                fixture (Prometheus read by its Python parser); --html/--prometheus at
                                the end of a sweep and a p2p equal a re-render; bad formats refused
  cli_test.py hostile-env       canary secrets and non-UTF-8 bytes in the environment: outputs valid,
                                secrets redacted; a p2p whose verdict is fail exits 1
"""
import argparse
import atexit
import copy
import concurrent.futures
import contextlib
import itertools
import json
import re
import os
import shlex
import socket
import statistics
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import jsonschema

TIMEOUT_S = 120


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, **kw)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {TIMEOUT_S}s (a rank hung?): {cmd}")


# Each mpirun gets a session root of its own: Open MPI 4.1's mpiruns that start together race
# to create the shared /tmp/ompi.<host>.<uid> and the loser dies in orte_init (bad-input runs
# two at a time).
_SESSION_ROOT = tempfile.mkdtemp(prefix="fabscope-cli-ompi-")
atexit.register(shutil.rmtree, _SESSION_ROOT, True)
_SESSIONS = itertools.count()


# Where a rank exits non-zero (a bad input, a verdict of 1), Open MPI 4.1's mpirun ends the job
# by sending what is left SIGCONT, SIGTERM and SIGKILL, waiting odls_base_sigkill_timeout (1 s)
# after each, even where every rank has already exited: 2 s of each failing run, most of
# bad-input's 44 s in CI. Those runs wait 0 s; jobs that a test signals or stops while they run
# (start_job: a rank's SIGTERM handler writes the report) keep mpirun's grace.
def mpirun(args, np, *rest, grace=False):
    session = os.path.join(_SESSION_ROOT, str(next(_SESSIONS)))
    quick = [] if grace else ["--mca", "odls_base_sigkill_timeout", "0"]
    return ([args.mpirun, "-np", str(np), "--mca", "orte_tmpdir_base", session] + quick + shlex.split(args.mpi_flags) +
            [args.fabscope] + list(rest))


def validator(args):
    with open(args.schema) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def cmd_sweep(args):
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        colls = ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "gather", "scatter",
                 "sendrecv"]
        p = run(mpirun(args, args.np, "sweep", *colls, "-b", "8", "-e", "256K", "-f", "4", "-n", "3", "-w", "1",
                       "-c", "1", "-d", "float,int8", "-o", "sum,max", "-r", str(args.np - 1), "--backend", args.backend,
                       "--json", path))
        if p.returncode != 0:
            fail(f"sweep exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            fail("report does not match the schema: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5]))
        if doc["schema"] != "fabscope.report/1":
            fail("schema key")
        if doc["context"]["nranks"] != args.np or len(doc["context"]["ranks"]) != args.np:
            fail("rank count in context")
        # 9 collectives; the three reducing ones once per (dtype, op), the others once per dtype.
        if len(doc["sweeps"]) != 3 * 2 * 2 + 6 * 2:
            fail(f"expected 24 sweeps, got {len(doc['sweeps'])}")
        for s in doc["sweeps"]:
            for key in ("collective", "dtype", "op", "backend"):
                if key not in s:
                    fail(f"sweeps[].{key} missing")
            if s["backend"] != args.backend:
                fail("backend")
            if len(s["points"]) != 8:
                fail(f"{s['collective']}: expected 8 sizes (8 B to 128 KiB by 4), got {len(s['points'])}")
            for pt in s["points"]:
                for pl in ("out_of_place", "in_place"):
                    r = pt[pl]
                    if r["wrong"] != 0:
                        fail(f"{s['collective']} {s['dtype']} {s['op']} {pt['size_bytes']} {pl}: wrong={r['wrong']}")
                    if pt["count"] > 0 and not (r["time_us"] > 0 and r["algbw_gbps"] > 0):
                        fail(f"{s['collective']} {pt['size_bytes']}: non-positive time or bandwidth")
                    if len(r["per_rank"]) != args.np:
                        fail("per_rank entries")
                    if abs(r["busbw_gbps"] - r["algbw_gbps"] * s["busbw_factor"]) > 1e-9 * max(1, r["busbw_gbps"]):
                        fail("busbw != algbw * factor")
                    if r["near_floor"] != (r["time_us"] < 5 * s["floor_us"]):
                        fail(f"{s['collective']} {pt['size_bytes']} {pl}: near_floor {r['near_floor']} but time "
                             f"{r['time_us']} us against 5 x floor {s['floor_us']} us")
            if s["method"] != "nccl-tests" or not 0 < s["floor_us"] < 50:
                fail(f"every sweep records its method and a measured floor: {s['method']}, {s['floor_us']}")
        # The table marks the rows near the floor, and only those; its header says the floor.
        rows = [l.split() for l in p.stdout.splitlines() if l[:12].strip().isdigit()]
        points = [pt for s in doc["sweeps"] for pt in s["points"]]
        if len(rows) != len(points):
            fail(f"{len(rows)} table rows for {len(points)} points")
        for row, pt in zip(rows, points):
            near = pt["out_of_place"]["near_floor"] or pt["in_place"]["near_floor"]
            if (row[-1] == "~") != near:
                fail(f"row {' '.join(row)}: marked {row[-1] == '~'}, near_floor {near}")
        if p.stdout.count("# Floor: ") != 9:
            fail("each collective's table says the floor")
        # A clean run passes; the only findings it may have are notes on the curve's shape
        # (loopback on 2 shared cores is not a fabric).
        if doc["verdict"]["result"] != "pass" or any(f["code"] not in ("perf.dip", "perf.plateau")
                                                     for f in doc["findings"]):
            fail(f"a clean run must pass with no findings but perf.dip/perf.plateau: {doc['findings']}")
        env = doc["context"]["environment"]
        if any(not k.startswith(("NCCL_", "UCX_", "OMPI_", "CUDA_")) for k in env):
            fail("environment carries variables beyond NCCL_/UCX_/OMPI_/CUDA_")
        # The report renders the same text the sweep printed, from the JSON alone.
        r = run([args.fabscope, "report", path])
        if r.returncode != 0:
            fail(f"report exited {r.returncode}: {r.stderr}")
        if r.stdout != p.stdout:
            import difflib
            diff = "".join(difflib.unified_diff(p.stdout.splitlines(True), r.stdout.splitlines(True), "sweep", "report"))
            fail("`fabscope report` differs from the sweep's output:\n" + diff[:4000])
        if p.stdout.count("# Collective test starting:") != 9 or "# Verdict: pass" not in p.stdout:
            fail("table output incomplete")
        # No temporary file is left beside the report.
        left = [f for f in os.listdir(tmp) if f != "run.json"]
        if left:
            fail(f"files left beside the report: {left}")
    print("ok")


BAD_SWEEPS = [
    (["sweep", "allreduce", "-b", "foo"], "invalid size 'foo'"),
    (["sweep", "allreduce", "-b", "1M", "-e", "8"], "larger than maximum size -e"),
    (["sweep", "allreduce", "-b", "6", "-e", "64", "-f", "2"], "6 bytes is not a multiple of the 4-byte element size of float"),
    (["sweep", "allreduce", "-d", "double", "-b", "8", "-e", "12"], "12 bytes is not a multiple of the 8-byte element size"),
    (["sweep", "allreduce", "-b", "8", "-e", "1X"], "unknown unit 'X'"),
    (["sweep", "allreducex"], "unknown collective 'allreducex'"),
    (["sweep"], "name at least one collective"),
    (["sweep", "allreduce", "-d", "float17"], "unknown data type 'float17'"),
    (["sweep", "allreduce", "-o", "mean"], "unknown reduction operator 'mean'"),
    (["sweep", "broadcast", "-b", "8", "-e", "8", "-r", "9"], "root -r 9 is not a rank of this job"),
    (["sweep", "allreduce", "-n", "0"], "iterations -n 0"),
    (["sweep", "allreduce", "-a", "7"], "-a/--average 7"),
    (["sweep", "allreduce", "--backend", "carrier-pigeon"], "unknown backend 'carrier-pigeon'"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "tcp", "--tcp-if", "nosuchif0"], "--tcp-if nosuchif0 has no IPv4 address"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "tcp", "--tcp-addr", "203.0.113.77"], "--tcp-addr 203.0.113.77 is not an IPv4 address of this host"),
    (["sweep", "alltoall", "-b", "8", "-e", "8", "--backend", "tcp", "--tcp-cc", "warp9"],
     "--tcp-cc warp9: this host does not let fabscope use it"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--json", "/nonexistent-dir/run.json"], "directory '/nonexistent-dir' does not exist"),
    (["sweep", "allreduce", "--log-level", "loud"], "unknown log level 'loud'"),
    (["sweep", "allreduce", "-n", "many"], "many"),
    (["sweep", "allreduce", "--timeout", "-1"], "--timeout -1"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "verbs"], "backend 'verbs' is unavailable here"),
    (["p2p", "--backend", "verbs"], "backend 'verbs' is unavailable here"),
    (["p2p", "--pattern", "mesh"], "unknown pattern 'mesh'"),
    (["p2p", "--mode", "fast"], "unknown mode 'fast'"),
    (["p2p", "--pair", "0,9"], "--pair 0,9 is not two different ranks of this job"),
    (["p2p", "--pair", "zero"], "--pair 'zero' is not two ranks"),
    (["p2p", "-s", "12Q"], "unknown unit 'Q'"),
    (["p2p", "--window", "0"], "--window 0"),
    (["p2p", "--repeats", "0"], "--repeats 0"),
    (["p2p", "-s", "4K", "-a"], "give either -s SIZE or -a, not both"),
    (["p2p", "--pattern", "pair"], "--pattern pair needs --pair A,B"),
    (["sweep", "allreduce", "--method", "perftest"], "--method perftest does not apply here"),
    (["sweep", "allreduce", "--method", "fast"], "--method 'fast' is not known; allowed: nccl-tests, osu"),
    (["sweep", "allreduce", "--method", "osu", "-z", "1"], "-z 1 contradicts it"),
    (["p2p", "--method", "nccl-tests"], "--method nccl-tests does not apply here"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "-N", "-1"], "-N/--run_cycles -1 is not allowed"),
    (["sweep", "allreduce", "--duration", "5x"], "invalid duration '5x' for --duration"),
    (["sweep", "allreduce", "-S", "2"], "-S/--report_timestamps 2 is not allowed"),
    (["sweep", "allreduce", "--interval", "0"], "invalid duration '0' for --interval"),
    (["sweep", "allreduce", "--max-stalls", "-1"], "--max-stalls -1 is not allowed"),
    (["sweep", "allreduce", "--max-downtime", "-2"], "--max-downtime -2 is not allowed"),
    (["sweep", "allreduce", "--backend", "mpi", "-d", "int8", "-b", "8", "-e", "4G"], "over this backend's limit of 2147483647"),
    (["sweep", "allreduce", "-d", "double", "-b", "8", "-e", "15G"], "lower the maximum size -e"),
    (["sweep", "allreduce", "-G", "-1"], "-G/--cudagraph -1 is not allowed"),
    (["sweep", "allreduce", "-z", "4"], "-z/--blocking 4 is not allowed"),
    (["sweep", "allreduce", "-z", "x"], "--blocking = x"),
    (["sweep", "allreduce", "-G", "2", "-z", "1"], "-G 2 cannot be combined with -z 1"),
    (["sweep", "allreduce", "-G", "2", "--arrivals"], "--arrivals cannot be combined with -G 2"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "-G", "2", "--backend", "mpi"],
     "-G 2 needs a backend that runs on CUDA streams (nccl); backend 'mpi' cannot capture"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "mpi", "--nccl-debug-dir", "/tmp"],
     "--nccl-debug-dir is an option of the nccl backend; this job uses backend 'mpi'"),
    (["p2p", "--backend", "tcp", "--nccl-debug-dir", "/tmp"],
     "--nccl-debug-dir is an option of the nccl backend; this job uses backend 'tcp'"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "mpi", "--share-gpus"],
     "--share-gpus is an option of the nccl backend; this job uses backend 'mpi'"),
    (["diagnose", "--phases", "collective,bogus"], "--phases: unknown phase 'bogus'; allowed: topology, collective"),
    (["diagnose", "--phases", "noise"], "noise repeats the collective and the link matrix"),
    (["diagnose", "--budget", "0"], "--budget 0: give the seconds"),
    (["diagnose", "--budget", "-5"], "--budget -5: give the seconds"),
    (["diagnose", "nosuch"], "unknown collective 'nosuch'"),
    (["diagnose", "-b", "8", "-e", "4"], "minimum size -b 8 is larger than maximum size -e 4"),
    (["diagnose", "-e", "12Q"], "unknown unit 'Q'"),
    (["diagnose", "-f", "1"], "-f/--stepfactor 1: diagnose steps sizes by a factor of 2 or more"),
    # Issue 14's campaign: values that wrapped, hung or were accepted without meaning.
    (["sweep", "allreduce", "--timeout", "nan"], "--timeout nan is not allowed"),
    (["sweep", "allreduce", "--timeout", "inf"], "--timeout inf is not allowed"),
    (["p2p", "--timeout", "nan"], "--timeout nan is not allowed"),
    (["sweep", "allreduce", "-f", "-2"], "-2 is negative"),
    (["sweep", "allreduce", "--seed", "-1"], "-1 is negative"),
    (["sweep", "allreduce", "allreduce"], "collective 'allreduce' is named twice"),
    (["sweep", "all", "all_reduce_perf"], "collective 'all_reduce_perf' is named twice"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--json", "/proc/x.json"], "creating a file in '/proc' fails"),
    (["p2p", "-s", "64G", "--backend", "tcp"], "lower -s"),
    (["p2p", "-s", "0"], "a message must hold at least 1 byte"),
    (["p2p", "--pattern", "ring", "--pair", "0,1"], "give either --pattern ring or --pair 0,1, not both"),
    (["p2p", "--backend", "tcp", "--qps", "2"], "--qps is an option of the verbs backend; this job uses backend 'tcp'"),
    (["p2p", "--backend", "tcp", "--qps", "-1"], "-1 is negative"),
    (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "mpi", "--tcp-if", "lo"],
     "--tcp-if is an option of the tcp backend; this job uses backend 'mpi'"),
    (["p2p", "--backend", "tcp", "--tcp-if", "lo", "--tcp-addr", "127.0.0.1"], "give either --tcp-if lo or --tcp-addr"),
    (["p2p", "--backend", "mpi", "--tcp-cc", "cubic"], "--tcp-cc is an option of the tcp backend; this job uses backend 'mpi'"),
    (["diagnose", "--budget", "nan"], "--budget nan: give the seconds"),
    # A budget too small for one measurement: found by the calibration pass, said once.
    (["diagnose", "--budget", "0.01", "-b", "1M", "-e", "4M", "--backend", "tcp"], "is too small to measure"),
    # Link schedules and fabric descriptions (issue 19).
    (["diagnose", "--schedule", "ring"], "--schedule: unknown link schedule 'ring'; allowed: auto, all"),
    (["diagnose", "--fabric", "/nonexistent/topology.conf"], "--fabric /nonexistent/topology.conf: cannot read"),
    (["diagnose", "--fabric", "/etc/hostname"], "is not KEY=VALUE; allowed keys: SwitchName, Nodes, Switches"),
    (["p2p", "--schedule", "rail", "--mode", "bibw"], "link schedule 'rail' pairs hosts, and this job's 2 ranks all run on"),
    (["p2p", "--schedule", "all"], "measures each pair in both directions at once: give --mode bibw (not bw)"),
    (["p2p", "--schedule", "all", "--mode", "bibw", "--pattern", "ring"], "chooses the pairs itself: give no --pattern"),
    (["p2p", "--schedule", "sample", "--mode", "bibw", "--rounds", "2"], "--rounds 2: a sample needs at least 3 rounds"),
    (["p2p", "--rounds", "5"], "--rounds 5 goes with --schedule sample"),
    (["p2p", "--fabric", "/etc/hostname"], "--fabric /etc/hostname goes with --schedule"),
    (["diagnose", "--oversubscription", "0.5"], "--oversubscription 0.5: a leaf's host-facing capacity over its uplinks', at least 1"),
    (["p2p", "--mode", "bibw", "--schedule", "rail", "--oversubscription", "2"], "--oversubscription 2 describes the leaves of --fabric; give --fabric too"),
]


def cmd_bad_input(args):
    with tempfile.TemporaryDirectory() as tmp:
        previous = os.path.join(tmp, "keep.json")
        with open(previous, "w") as f:
            f.write("{\"previous\": true}\n")
        # Six cases at a time: each is mostly MPI start-up, which waits more than it computes
        # (on 2 cores, 89 cases took 76 s two at a time, 31 s six at a time).
        def one(case):
            argv, expect = case
            # --json names a file that must not be created, unless the case is about --json itself.
            extra = [] if "--json" in argv else ["--json", previous]
            return run(mpirun(args, 2, *(argv + extra)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
            results = list(pool.map(one, BAD_SWEEPS))
        for (argv, expect), p in zip(BAD_SWEEPS, results):
            out = p.stdout + p.stderr
            if p.returncode == 0:
                fail(f"{argv}: exit 0 on bad input\n{out}")
            if expect not in out:
                fail(f"{argv}: message lacks {expect!r}\n{out}")
            if out.count(expect) != 1:
                fail(f"{argv}: message printed {out.count(expect)} times; rank 0 alone must print it\n{out}")
            with open(previous) as f:
                if f.read() != "{\"previous\": true}\n":
                    fail(f"{argv}: the previous report was overwritten")
        # Without a GPU, --backend nccl is unavailable (exit 3), said once, by rank 0.
        listing = run([args.fabscope, "backends"]).stdout
        nccl = [l for l in listing.splitlines() if l.startswith("nccl ")]
        if not nccl:
            fail(f"`fabscope backends` does not list nccl:\n{listing}")
        if nccl[0].split()[2] == "no":  # columns: backend compiled usable detail
            for argv in (["sweep", "allreduce", "-b", "8", "-e", "8", "--backend", "nccl"], ["p2p", "--backend", "nccl"]):
                p = run(mpirun(args, 2, *argv, "--json", previous))
                out = p.stdout + p.stderr
                want = "backend 'nccl' is unavailable here: "
                if p.returncode != 3 or out.count(want) != 1:
                    fail(f"{argv}: exit {p.returncode} (want 3) and {out.count(want)} messages (want 1)\n{out}")
            # auto never picks nccl without a GPU.
            p = run(mpirun(args, 2, "sweep", "allreduce", "-b", "8", "-e", "8", "-n", "1", "--json", previous + ".auto"))
            with open(previous + ".auto") as f:
                if json.load(f)["context"]["backend"] == "nccl":
                    fail("--backend auto chose nccl without a usable GPU")
        else:
            print("nccl is usable here; the no-GPU checks are skipped")
        # `report` on files it cannot use.
        bad_json = os.path.join(tmp, "bad.json")
        with open(bad_json, "w") as f:
            f.write("{\"schema\": \"fabscope.report/1\", \"context\": ")
        cases = [
            ([args.fabscope, "report", os.path.join(tmp, "absent.json")], "absent.json"),
            ([args.fabscope, "report", tmp], "is a directory"),
            ([args.fabscope, "report", bad_json], "is not valid JSON"),
            ([args.fabscope, "report", previous], "schema is missing"),
            ([args.fabscope, "nosuchcommand"], "nosuchcommand"),
        ]
        cases += bad_files(args, tmp)
        for cmd, expect in cases:
            p = run(cmd)
            if p.returncode != 2 or expect not in p.stdout + p.stderr:
                fail(f"{cmd}: exit {p.returncode}, want 2 and {expect!r} in\n{p.stdout}{p.stderr}")
        print("ok")


def bad_files(args, tmp):
    """Files that crashed, hung or exhausted memory before (issue 14): each must be exit 2 naming the problem."""
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path
    huge = write("huge.json", '{"schema": 1e999}')
    deep = write("deep.json", "[" * 200000 + "]" * 200000)
    doc = json.load(open(os.path.join(args.fixtures, "reports", "topo-offline.json")))
    doc["topology"]["hosts"][0]["sources"] = [1]
    wrong_type = write("wrong_type.json", json.dumps(doc))
    expect = write("expect.json", '{"schema": "fabscope.expect/1", "expect": [{"p2p": "bw", "min_bw_gbps": 1e999}]}')
    with open(os.path.join(args.fixtures, "hwloc-xml",
                           "juwels-booster-jwb0004_A100x4-CX6-HDRx4-EPYC7402-NPS4_hwloc2.2.xml")) as f:
        xml = f.read()
    at = xml.index('type="PU"')
    end = xml.index(">", at)
    import re
    no_complete = write("no-complete.xml", xml[:at] + re.sub(r' complete_cpuset="[^"]*"', "", xml[at:end]) + xml[end:])
    f = args.fabscope
    return [
        ([f, "report", fifo], "it is a FIFO; fabscope reads regular files only"),
        ([f, "topo", "--nccl-topo", fifo], "it is a FIFO"),
        ([f, "topo", "--nvidia-smi-topo", "/dev/zero"], "it is a character device"),
        ([f, "compare", fifo, fifo], "it is a FIFO"),
        ([f, "import", "nccl-tests", "/dev/zero", "--json", os.path.join(tmp, "i.json")], "it is a character device"),
        ([f, "report", huge], "number overflow"),
        ([f, "report", deep], "nested deeper than 256 levels"),
        ([f, "report", wrong_type], "topology.hosts[0].sources[0] is not a string"),
        ([f, "topo", "--hwloc-xml", no_complete], "has cpuset but not complete_cpuset"),
        ([f, "sweep", "allreduce", "--expect", expect], "number overflow"),
    ]


def cmd_schema(args):
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        p = run(mpirun(args, 2, "sweep", "allreduce", "broadcast", "-b", "1K", "-e", "1K", "-n", "2", "--backend",
                       "mpi", "--json", path))
        if p.returncode != 0:
            fail(p.stderr)
        with open(path) as f:
            good = json.load(f)
    v.validate(good)
    # --arrivals adds each placement's arrival split, and the report still validates.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "arrivals.json")
        p = run(mpirun(args, 2, "sweep", "allreduce", "-b", "1K", "-e", "64K", "-f", "8", "-n", "4", "--backend",
                       "tcp", "--arrivals", "--json", path))
        if p.returncode not in (0, 1):
            fail(p.stderr)
        with open(path) as f:
            arrivals = json.load(f)
    v.validate(arrivals)
    split = arrivals["sweeps"][0]["points"][0]["out_of_place"]["arrivals"]
    if split["iterations"] != 4 or len(split["ranks"]) != 2:
        fail(f"--arrivals: {split}")
    def mutate(fn):
        d = copy.deepcopy(good)
        fn(d)
        return d
    bad = {
        "number as string": mutate(lambda d: d["sweeps"][0]["points"][0]["out_of_place"].update(time_us="12.5")),
        "N/A for null": mutate(lambda d: d["sweeps"][0]["points"][0]["in_place"].update(wrong="N/A")),
        "boolean as string": mutate(lambda d: d["verdict"].update(result="true")),
        "unknown collective": mutate(lambda d: d["sweeps"][0].update(collective="allreduce_perf")),
        "secret in environment": mutate(lambda d: d["context"]["environment"].update(AWS_SECRET_ACCESS_KEY="x")),
        "missing busbw": mutate(lambda d: d["sweeps"][0]["points"][0]["out_of_place"].pop("busbw_gbps")),
        "wrong schema id": mutate(lambda d: d.update(schema="fabscope.report/2")),
    }
    for what, doc in bad.items():
        if v.is_valid(doc):
            fail(f"schema accepted a report with {what}")
    print("ok")


def cmd_p2p(args):
    """p2p under mpirun: every pattern and mode, schema-valid, the links the schedule names."""
    v = validator(args)
    n = args.np
    cases = [
        (["--pattern", "ring", "--mode", "bw"], n if n > 2 else 2, ("bw_gbps",)),
        (["--pattern", "ring", "--mode", "bibw"], 2 * n if n > 2 else 2, ("bw_gbps",)),
        (["--pattern", "ring", "--mode", "lat"], n, ("lat_us",)),
        (["--pattern", "pairs", "--mode", "bw"], n * (n - 1), ("bw_gbps",)),
        (["--pattern", "pairs", "--mode", "bw", "--retest"], n * (n - 1), ("bw_gbps",)),
        (["--pattern", "pairs", "--mode", "lat"], n * (n - 1) // 2, ("lat_us",)),
        (["--pair", f"0,{n - 1}", "--mode", "bibw"], 2, ("bw_gbps",)),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p2p.json")
        for extra, links, keys in cases:
            p = run(mpirun(args, n, "p2p", *extra, "-s", "4K", "-n", "2000", "-w", "50", "--backend", args.backend,
                           "--json", path))
            if p.returncode not in (0, 1):
                fail(f"p2p {extra} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
            with open(path) as f:
                doc = json.load(f)
            # The exit code is the verdict's. Links of one loopback host can differ by chance
            # on 2 shared cores: a fail verdict here may only come from p2p.* findings.
            if p.returncode != (0 if doc["verdict"]["result"] == "pass" else 1):
                fail(f"p2p {extra}: exit {p.returncode} with verdict {doc['verdict']}")
            if any(not code.startswith("p2p.") for code in doc["verdict"]["failed_codes"]):
                fail(f"p2p {extra}: verdict {doc['verdict']}\n{p.stdout}")
            errors = list(v.iter_errors(doc))
            if errors:
                fail(f"p2p {extra}: report does not match the schema: {errors[0].message} at {list(errors[0].path)}")
            got = doc["p2p"]["links"]
            if len(got) != links:
                fail(f"p2p {extra}: expected {links} links, got {len(got)}")
            for l in got:
                for key in ("src_rank", "dst_rank", "src_host", "dst_host", "size_bytes") + keys:
                    if l.get(key) is None:
                        fail(f"p2p {extra}: link without {key}: {l}")
                if l["size_bytes"] != 4096 or l["src_rank"] == l["dst_rank"]:
                    fail(f"p2p {extra}: bad link {l}")
            r = run([args.fabscope, "report", path])
            if r.returncode != 0 or r.stdout != p.stdout:
                fail(f"p2p {extra}: `fabscope report` differs from what p2p printed")
    print("ok")


def fixture(args, rel):
    return os.path.join(args.fixtures, rel)


def cmd_topo(args):
    """fabscope topo: offline from fixtures, live on this machine and under mpirun; bad inputs."""
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "topo.json")
        # Offline, a known-bad log: exit 0 (warnings do not fail), the finding in the report.
        log = fixture(args, "nccl-logs/slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log")
        p = run([args.fabscope, "topo", "--nccl-log", log, "--json", path])
        if p.returncode != 0:
            fail(f"topo --nccl-log exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        errors = list(v.iter_errors(doc))
        if errors:
            fail(f"topo report does not match the schema: {errors[0].message} at {list(errors[0].path)}")
        codes = [f["code"] for f in doc["findings"]]
        if "topo.hca_filter" not in codes or "topo.hca_filter" not in p.stdout:
            fail(f"no topo.hca_filter for the prefix-matching log: {codes}\n{p.stdout}")
        r = run([args.fabscope, "report", path])
        if r.returncode != 0 or r.stdout != p.stdout:
            fail("`fabscope report` differs from what topo printed")
        # A directory of logs, as sweep --nccl-debug-dir leaves it, reads as its *.log files.
        logdir = os.path.join(tmp, "nccl-logs")
        os.mkdir(logdir)
        shutil.copy(log, os.path.join(logdir, "nccl-aihub0003-r0.log"))
        d = run([args.fabscope, "topo", "--nccl-log", logdir])
        if d.returncode != 0 or d.stdout.replace(os.path.join(logdir, "nccl-aihub0003-r0.log"), log) != p.stdout:
            fail(f"topo --nccl-log DIR differs from the same log given as a file\n{d.stdout}\n{d.stderr}")
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        d = run([args.fabscope, "topo", "--nccl-log", empty])
        if d.returncode != 2 or "holds no *.log file" not in d.stderr:
            fail(f"topo --nccl-log EMPTYDIR: exit {d.returncode}\n{d.stderr}")
        # A matrix, with its legend and NCCL's choice per GPU; a port-down error fails the verdict.
        smi = fixture(args, "nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt")
        p = run([args.fabscope, "topo", "--nvidia-smi-topo", smi, "--json", path])
        if p.returncode != 0 or "GPU3    NODE    NODE    NODE    NODE    NODE    PIX" not in p.stdout \
                or "mlx5_11 PIX" not in p.stdout:
            fail(f"topo --nvidia-smi-topo: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        # Files that describe part of a host: no pass, but what is missing (exit 5).
        rdma = fixture(args, "rdma/slurmv4-tpgds-aihub0007-0008-0009-0012_H100-RoCE_ip-br_ibdev2netdev-per-host-naming-differs.txt")
        partial = os.path.join(tmp, "partial.json")
        q = run([args.fabscope, "topo", "--rdma-info", rdma, "--json", partial])
        if q.returncode != 5 or "# Verdict: inconclusive" not in q.stdout or \
                "hosts tpgds-aihub[0007-0009,0012]: no GPU in the files" not in q.stdout:
            fail(f"topo on ibdev2netdev alone: want exit 5, inconclusive, no GPU on the four hosts\n{q.stdout}\n{q.stderr}")
        with open(partial) as f:
            pdoc = json.load(f)
        if pdoc["verdict"]["result"] != "inconclusive" or len(pdoc["verdict"]["missing"]) != 1 or \
                list(v.iter_errors(pdoc)):
            fail(f"partial topo report: {pdoc['verdict']}")
        # A malformed topology section: exit 2 naming the key (this aborted with exit 134 before).
        with open(path) as f:
            doc = json.load(f)
        for mutate, want in [
            (lambda d: d["topology"]["hosts"][0].update(gpus=5), "topology.hosts[0].gpus is not an array"),
            (lambda d: d["topology"]["hosts"][0]["paths"]["classes"][0].pop(), "topology.hosts[0].paths.classes[0]"),
        ]:
            bad = copy.deepcopy(doc)
            mutate(bad)
            bad_path = os.path.join(tmp, "bad-topology.json")
            with open(bad_path, "w") as f:
                json.dump(bad, f)
            r = run([args.fabscope, "report", bad_path])
            if r.returncode != 2 or want not in r.stderr:
                fail(f"report on a malformed topology: exit {r.returncode} (want 2) and {want!r} in\n{r.stderr}")
        hw = fixture(args, "hwloc-xml/meluxina-mel2001_A100x4-CX6x2-mlx5_0-port-down_hwloc1.11-v1format.xml")
        p = run([args.fabscope, "topo", "--hwloc-xml", hw, "--json", path])
        if p.returncode != 1 or "topo.port_down" not in p.stdout:
            fail(f"topo on a node with a GPU's NIC port down: want exit 1 and topo.port_down\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        if doc["verdict"]["result"] != "fail" or list(v.iter_errors(doc)):
            fail("port-down report: verdict or schema")
        # Named, the host is the one to drain, in the report and on the screen.
        p = run([args.fabscope, "topo", "--hwloc-xml", hw, "--host", "mel2001", "--json", path])
        with open(path) as f:
            doc = json.load(f)
        if p.returncode != 1 or doc["verdict"]["drain"] != ["mel2001"] or doc["verdict"]["drain_hostlist"] != "mel2001" \
                or "# Drain: mel2001 (1 host)" not in p.stdout or list(v.iter_errors(doc)):
            fail(f"topo port down on a named host: want it drained\n{p.stdout}\n{doc['verdict']}")
        # Live, one process: this machine has no GPU and no RDMA device, and says so.
        p = run([args.fabscope, "topo", "--json", path])
        if p.returncode != 0 or "no GPU found" not in p.stdout:
            fail(f"live topo: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        if list(v.iter_errors(doc)) or len(doc["topology"]["hosts"]) != 1 or not doc["topology"]["hosts"][0]["numa"]:
            fail("live topo report: schema, host or NUMA nodes")
        # Live under mpirun: every rank's binding on its node's entry.
        p = run(mpirun(args, 4, "topo", "--json", path))
        if p.returncode != 0:
            fail(f"topo under mpirun -np 4: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        errors = list(v.iter_errors(doc))
        if errors:
            fail(f"mpirun topo report: {errors[0].message} at {list(errors[0].path)}")
        ranks = sorted(r["rank"] for h in doc["topology"]["hosts"] for r in h["ranks"])
        if ranks != [0, 1, 2, 3] or doc["context"]["nranks"] != 4:
            fail(f"mpirun topo: ranks {ranks}")
        # Bad inputs: one clear message each, exit 2, the previous report intact.
        previous = os.path.join(tmp, "keep.json")
        with open(previous, "w") as f:
            f.write("{\"previous\": true}\n")
        trunc = fixture(args, "topo-xml/nccl-tests-256_H200x8-KVM-VM-flat-passthrough_NCCL_TOPO_DUMP.TRUNCATED.xml")
        cases = [
            (["--nccl-topo", os.path.join(tmp, "absent.xml")], "absent.xml"),
            (["--nccl-topo", trunc], "TRUNCATED.xml:"),
            (["--hwloc-xml", trunc], "TRUNCATED.xml:"),
            (["--nvidia-smi-topo", log], "slurmv4-tpgds-aihub0003"),
            (["--nccl-log", smi], "no NCCL INFO lines"),
            (["--nccl-log", log, "--nccl-ib-hca", "mlx5_0:x"], "mlx5_0:x"),
            (["--nccl-log", log, "--expect-rate", "-5"], "--expect-rate"),
            (["--host", "h1"], "--host"),
        ]
        for extra, expect in cases:
            p = run([args.fabscope, "topo", *extra, "--json", previous])
            out = p.stdout + p.stderr
            if p.returncode != 2 or expect not in out or out.count("error:") != 1:
                fail(f"topo {extra}: exit {p.returncode}, want 2 and one message with {expect!r}\n{out}")
            with open(previous) as f:
                if f.read() != "{\"previous\": true}\n":
                    fail(f"topo {extra}: the previous report was overwritten")
        p = run(mpirun(args, 2, "topo", "--nccl-log", log))
        out = p.stdout + p.stderr
        if p.returncode == 0 or out.count("without mpirun") != 1:
            fail(f"topo with files under mpirun: want one message and non-zero exit\n{out}")
    print("ok")


def cmd_report_mutations(args):
    """Each mutation deletes a key or replaces a value, anywhere in a real report, with
    null, a number, a string, an array, an object, a boolean or 2^63."""
    import random
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        sources = []
        for name, argv in [
            ("sweep", mpirun(args, 2, "sweep", "allreduce", "broadcast", "-b", "1K", "-e", "4K", "-f", "4", "-n", "2",
                             "--backend", "tcp", "--arrivals")),
            ("p2p", mpirun(args, 3, "p2p", "--pattern", "pairs", "-s", "4K", "-n", "20", "--backend", "tcp",
                           "--retest")),
            ("topo", [args.fabscope, "topo", "--nccl-topo", fixture(args, "topo-xml/azure-NDv4-A100x8-8HDR-topo.xml"),
                      "--nccl-ib-hca", "mlx5_1", "--host", "n1"]),
        ]:
            path = os.path.join(tmp, name + ".json")
            p = run(argv + ["--json", path])
            if p.returncode not in (0, 1):
                fail(f"{name}: exit {p.returncode}\n{p.stderr}")
            with open(path) as f:
                sources.append(json.load(f))

        def places(doc, at=()):
            yield at
            if isinstance(doc, dict):
                for k, v in doc.items():
                    yield from places(v, at + (k,))
            elif isinstance(doc, list):
                for i, v in enumerate(doc[:3]):
                    yield from places(v, at + (i,))

        values = [None, 5, -1, 1e300, "x", [], {}, True, 2 ** 63, [1, 2], {"a": 1}]
        path = os.path.join(tmp, "mutated.json")
        counts = {}
        for i in range(args.mutations):
            doc = copy.deepcopy(rng.choice(sources))
            at = rng.choice([a for a in places(doc) if a])
            parent = doc
            for k in at[:-1]:
                parent = parent[k]
            if isinstance(parent, dict) and rng.random() < 0.3:
                del parent[at[-1]]
            else:
                parent[at[-1]] = rng.choice(values)
            with open(path, "w") as f:
                json.dump(doc, f)
            r = subprocess.run([args.fabscope, "report", path], capture_output=True, text=True, timeout=TIMEOUT_S)
            counts[r.returncode] = counts.get(r.returncode, 0) + 1
            if r.returncode == 0:
                continue
            if r.returncode != 2 or r.stderr.count("fabscope: error: ") != 1 or \
                    ("malformed report" not in r.stderr and "schema" not in r.stderr):
                fail(f"mutation {i} at {list(at)}: exit {r.returncode}\n{r.stderr[-2000:]}")
        print(f"{args.mutations} mutations: exit codes {counts}")
    print("ok")


def cmd_diagnose(args):
    """diagnose over local ranks: every phase's data, an attribution whose shares add up to
    1, a report that validates, and `fabscope report` printing the same text again."""
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "diag.json")
        p = run(mpirun(args, args.np, "diagnose", "-b", "256K", "-e", "1M", "--budget", "8", "--backend",
                       args.backend, "--json", path))
        if p.returncode not in (0, 1):
            fail(f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            doc = json.load(f)
        v.validate(doc)
        if not p.stdout.startswith("# Diagnosis\n#   allreduce 1 MiB"):
            fail(f"the answer comes first:\n{p.stdout[:500]}")
        d = doc["diagnosis"]
        if d["phases"] != ["topology", "collective", "links", "counters", "noise"] or d["budget_s"] != 8:
            fail(f"diagnosis: {d}")
        if [t["name"] for t in d["timings"]] != ["topology", "collective", "links", "noise"]:
            fail(f"timings: {d['timings']}")
        if not doc["topology"]["hosts"] or len(doc["p2p"]["links"]) != args.np * (args.np - 1):
            fail("the topology and the link matrix (every pair, both directions) belong in the report")
        if len(d["collective_noise"]) != 1 or len(d["collective_noise"][0]["time_us"]) != 3:
            fail(f"the collective measured three times: {d['collective_noise']}")
        if not doc["sweeps"][0]["points"][-1]["out_of_place"]["arrivals"]:
            fail("host-timed backends record arrivals")
        if not all(s["phase"].split(":")[0] in ("collective", "links", "noise") for s in doc["counters"]):
            fail(f"counter samples are named after their phase: {[s['phase'] for s in doc['counters']]}")
        a = doc["attribution"]
        if len(a) != 1 or a[0]["size_bytes"] != 1 << 20 or a[0]["ideal_us"] <= 0:
            fail(f"attribution: {a}")
        if a[0]["excess_us"] > 0 and abs(sum(e["share"] for e in a[0]["entries"]) - 1) > 1e-6:
            fail(f"shares do not add up to 1: {a[0]['entries']}")
        # The rendering exits 0 whatever the verdict (docs/exit-codes.md): the run's own exit
        # is 1 where a loaded machine made one link slow enough to fail it.
        again = run([args.fabscope, "report", path])
        if again.returncode != 0 or again.stdout != p.stdout:
            fail(f"`fabscope report` (exit {again.returncode}) does not print the run's text again:\n"
                 f"{p.stdout}\n---\n{again.stdout}")
        # A subset of the phases: no link matrix, so no ideal time and no attribution.
        path2 = os.path.join(tmp, "coll.json")
        p = run(mpirun(args, args.np, "diagnose", "-b", "256K", "-e", "1M", "--budget", "4", "--phases",
                       "collective", "--backend", args.backend, "--json", path2))
        with open(path2) as f:
            doc = json.load(f)
        v.validate(doc)
        if doc["p2p"] is not None or doc["topology"] is not None or doc["attribution"] or doc["counters"]:
            fail("--phases collective ran more than the collective")
        if "the link matrix was not measured" not in p.stdout:
            fail(f"say why there is no attribution:\n{p.stdout[:400]}")
    print("ok")


def cmd_diagnose_one_rank(args):
    """diagnose on one rank, under mpirun and run directly: exit 0, the phases one rank can run
    (topology, the collective, counters), no link matrix and no attribution, and a verdict
    whose not_judged (JSON) and "not judged" lines (text) say links, noise and attribution
    need 2 or more ranks."""
    v = validator(args)
    between = ["links", "noise", "attribution"]
    with tempfile.TemporaryDirectory() as tmp:
        for how, launch in (("mpirun -np 1", lambda *a: mpirun(args, 1, *a)),
                            ("direct", lambda *a: [args.fabscope] + list(a))):
            path = os.path.join(tmp, "one.json")
            p = run(launch("diagnose", "-b", "256K", "-e", "1M", "--budget", "6", "--backend", args.backend,
                           "--json", path))
            if p.returncode != 0:
                fail(f"{how}: exit {p.returncode}, expected 0\n{p.stdout}\n{p.stderr}")
            doc = check_valid(v, path)
            d = doc["diagnosis"]
            if d["phases"] != ["topology", "collective", "counters"]:
                fail(f"{how}: one rank runs the topology, the collective and the counters: {d['phases']}")
            if [t["name"] for t in d["timings"]] != ["topology", "collective"] or d["link_noise"]:
                fail(f"{how}: timings {d['timings']}, link noise {d['link_noise']}")
            if doc["p2p"] is not None or doc["attribution"] or not doc["sweeps"] or not doc["topology"]["hosts"]:
                fail(f"{how}: the topology and the collective, no link matrix, no attribution")
            verdict = doc["verdict"]
            notes = verdict.get("not_judged", [])
            if verdict["result"] == "inconclusive" or [n.split(":")[0] for n in notes] != between or \
                    not all("needs 2 or more ranks; this job has 1" in n for n in notes):
                fail(f"{how}: the verdict names what one rank cannot judge: {verdict}")
            said = [line for line in p.stdout.splitlines() if line.startswith("#   not judged: ")]
            if [line.split(": ")[1] for line in said] != between or "2 or more ranks" not in said[0]:
                fail(f"{how}: the text says what was not judged:\n{p.stdout[-800:]}")
            if "(one rank has no links)" not in p.stdout:
                fail(f"{how}: the answer says why there is no link rate:\n{p.stdout[:400]}")
            again = run([args.fabscope, "report", path])
            if again.returncode != 0 or again.stdout != p.stdout:
                fail(f"{how}: `fabscope report` does not print the run's text again:\n{again.stdout}")
        # Only phases between ranks asked for: nothing to run, still a valid command.
        path = os.path.join(tmp, "links.json")
        p = run(mpirun(args, 1, "diagnose", "--phases", "links,noise", "--budget", "4", "--backend", args.backend,
                       "--json", path))
        doc = check_valid(v, path) if p.returncode == 0 else None
        if doc is None or doc["diagnosis"]["phases"] != [] or \
                [n.split(":")[0] for n in doc["verdict"].get("not_judged", [])] != ["links", "noise"]:
            fail(f"--phases links,noise on one rank: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    print("ok")


def slowed(doc, collective, size, placement, factor, samples=True):
    """A copy of `doc` with one placement slowed by `factor` (its samples too when `samples`)."""
    d = copy.deepcopy(doc)
    for s in d["sweeps"]:
        if s["collective"] != collective:
            continue
        for pt in s["points"]:
            if pt["size_bytes"] != size:
                continue
            r = pt[placement]
            r["time_us"] *= factor
            r["algbw_gbps"] /= factor
            r["busbw_gbps"] /= factor
            if samples:
                r["iteration_samples_us"] = [x * factor for x in r["iteration_samples_us"]]
                r["iteration_us"] = {k: v * factor for k, v in r["iteration_us"].items()}
            else:  # the loop got slower through one stalled iteration; the others are as before
                r["iteration_samples_us"][0] *= 10
    return d


def steadied(doc, collective, size, placement):
    """A copy of `doc` whose one placement keeps only its samples within 10% of their median.

    On a shared 2-core machine one row's samples can spread wider than a 30% shift (a CI run
    saw the rank test give p=0.072 on 30 against 30), where "within noise" is the right verdict;
    a test of the regression verdict first takes that row's outliers to the 10% band."""
    d = copy.deepcopy(doc)
    for s in d["sweeps"]:
        if s["collective"] != collective:
            continue
        for pt in s["points"]:
            if pt["size_bytes"] == size:
                r = pt[placement]
                xs = r["iteration_samples_us"]
                med = statistics.median(xs)
                r["iteration_samples_us"] = [min(max(x, 0.9 * med), 1.1 * med) for x in xs]
                ys = sorted(r["iteration_samples_us"])
                r["iteration_us"] = {"min": ys[0], "median": statistics.median(ys), "mean": statistics.fmean(ys),
                                     "max": ys[-1], "p99": ys[min(len(ys) - 1, int(0.99 * len(ys)))]}
    return d


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def check_valid(v, path):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail(f"{path} does not match the schema: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5]))
    return doc


def cmd_history(args):
    """compare against a history and `history` on real reports: one sweep, copies of it moved
    as a whole (a quiet history of 1%-apart runs, then a 30% loss), imported nccl-tests
    reports without start times, and bad input (exit 2, nothing written)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from report_edit import scale_report
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.json")
        p = run(mpirun(args, 2, "sweep", "allreduce", "broadcast", "-b", "1K", "-e", "1M", "-f", "4", "-n", "20",
                       "--backend", "mpi", "--json", base))
        if p.returncode not in (0, 1):
            fail(f"sweep exited {p.returncode}\n{p.stdout}{p.stderr}")
        with open(base) as f:
            doc = json.load(f)
        hist = os.path.join(tmp, "history")
        os.makedirs(hist)
        wiggle = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0]
        runs = []
        for i in range(12):
            level = 1.0 if i < 6 else 0.7  # the fabric loses 30% from the 7th run on
            path = write_json(os.path.join(hist, f"run-{i + 1:02d}.json"),
                              scale_report(doc, level * wiggle[i % 6], f"2026-01-01T00:00:{i:02d}.000Z"))
            runs.append(path)
        out = {k: os.path.join(tmp, "out." + k) for k in ("json", "md", "html")}

        def clean():
            for f in out.values():
                if os.path.exists(f):
                    os.remove(f)

        def compare(*argv):
            clean()
            return run([args.fabscope, "compare", *argv, "--json", out["json"], "--markdown", out["md"]])

        # Run 8 against the quiet six: the loss is a regression, except in rows whose own
        # iterations spread so widely (the floor of the run-to-run spread) that 30% is inside them.
        p = compare(*runs[:6], runs[7])
        if p.returncode != 1:
            fail(f"a 30% loss against a quiet history: exit {p.returncode}, want 1\n{p.stdout}{p.stderr}")
        c = check_valid(v, out["json"])["comparison"]
        if len(c["history"]) != 6 or c["correction"] != "benjamini_hochberg" or c["min_history"] != 5:
            fail(f"the history compare's header: {len(c['history'])} runs, {c['correction']}, {c['min_history']}")
        regressed = [r for r in c["rows"] if r["verdict"] == "regression"]
        if any(r["test"] != "history_t" for r in c["rows"]) or 2 * len(regressed) < len(c["rows"]):
            fail(f"most rows must regress by the history's t-test: {len(regressed)} of {len(c['rows'])}\n{p.stdout}")
        for r in c["rows"]:
            if r["verdict"] not in ("regression", "within_noise") or (
                    r["verdict"] == "within_noise" and r["detection_limit"] < 0.3):
                fail(f"a 30% loss is a regression wherever the row's detection limit is below it: {r}")
        for r in c["rows"]:
            if not (r["detection_limit"] and r["history_runs"] == 6 and r["between_run_sd"] is not None
                    and r["within_run_sd"] is not None and 0 <= r["between_share"] <= 1):
                fail(f"a judged row names its runs, its noise and its detection limit: {r}")
        if "t p=" not in p.stdout or "limit" not in p.stdout or "history   6 runs" not in p.stdout:
            fail(f"the text names the history and each row's test:\n{p.stdout}")
        if "**History** 6 runs" not in open(out["md"]).read():
            fail("the Markdown names the history")
        # The same run against the same history through --history DIR (the current report's own
        # file inside the directory is not part of its history): the later runs are there too.
        p = compare("--history", hist, runs[6], "--min-history", "5")
        c = check_valid(v, out["json"])["comparison"]
        if len(c["history"]) != 11 or any(run["path"] == runs[6] for run in c["history"]):
            fail(f"--history DIR: {len(c['history'])} runs, want the 11 others")
        # A run like its history: nothing regresses, exit 0.
        same = write_json(os.path.join(tmp, "same.json"), scale_report(doc, 1.002, "2026-01-02T00:00:00.000Z"))
        p = compare(*runs[:6], same)
        if p.returncode != 0:
            fail(f"a run like its history: exit {p.returncode}\n{p.stdout}")
        # A history of four, or none yet (a CI job's first night): nothing judged, the verdict
        # inconclusive (exit 5), never a pass.
        empty_history = os.path.join(tmp, "first-night")
        os.makedirs(empty_history)
        for argv in (runs[:4], ["--history", empty_history]):
            p = compare(*argv, same)
            c = check_valid(v, out["json"])
            if {r["verdict"] for r in c["comparison"]["rows"]} != {"not_judged"} or p.returncode != 5 \
                    or c["verdict"]["result"] != "inconclusive":
                fail(f"a history of {argv}: exit {p.returncode}, {c['verdict']}\n{p.stdout}")

        # history: the change at run 7, named by its path, in every row; the latest change.
        clean()
        p = run([args.fabscope, "history", hist, "--json", out["json"], "--markdown", out["md"], "--html", out["html"]])
        if p.returncode != 0:
            fail(f"history: exit {p.returncode}\n{p.stdout}{p.stderr}")
        h = check_valid(v, out["json"])["history"]
        if h["order"] != "start_time" or len(h["runs"]) != 12 or h["latest_change"] != 6:
            fail(f"history: order {h['order']}, {len(h['runs'])} runs, latest change {h['latest_change']}")
        for r in h["rows"]:
            cps = r["change_points"]
            step = 1 / 0.7 - 1 if r["metric"] == "time_us" else -0.3  # 30% less bandwidth, 43% more time
            if len(cps) != 1 or cps[0]["index"] != 6 or cps[0]["path"] != runs[6] or not cps[0]["worse"] \
                    or abs(cps[0]["step"] - step) > 0.02 or len(r["values"]) != 12:
                fail(f"history row {r['subject']} {r['size_bytes']}: {cps}")
        if "Latest change: run 7" not in p.stdout or "history.step_worse" not in p.stdout:
            fail(f"history text:\n{p.stdout}")
        html = open(out["html"]).read()
        if html.count('class="plot history"') != len(h["rows"]) or "change at run 7" not in html:
            fail("the HTML plots every row's series with its change point")
        if "Latest change: run 7" not in open(out["md"]).read():
            fail("the Markdown names the latest change")

        # Imported nccl-tests reports carry no start time: the command line's order, said so.
        table = os.path.join(args.fixtures, "nccl-tests",
                             "nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt")
        imported = []
        for i in range(3):
            path = os.path.join(tmp, f"imported-{i}.json")
            p = run([args.fabscope, "import", "nccl-tests", table, "--json", path])
            if p.returncode != 0:
                fail(f"import: exit {p.returncode}\n{p.stderr}")
            imported.append(path)
        clean()
        p = run([args.fabscope, "history", *reversed(imported), "--json", out["json"]])
        h = check_valid(v, out["json"])["history"]
        if p.returncode != 0 or h["order"] != "command_line" or [r["path"] for r in h["runs"]] != imported[::-1]:
            fail(f"imported reports: exit {p.returncode}, order {h['order']}\n{p.stdout}{p.stderr}")
        if "in the order given" not in p.stdout:
            fail(f"the text says how the runs were ordered:\n{p.stdout}")

        # Bad input: exit 2, the value named, nothing written.
        tcp = copy.deepcopy(doc)
        tcp["context"]["backend"] = "tcp"
        for sw in tcp["sweeps"]:
            sw["backend"] = "tcp"
        other_backend = write_json(os.path.join(tmp, "tcp.json"), tcp)
        other = copy.deepcopy(doc)
        for sw in other["sweeps"]:
            sw["collective"] = "alltoall" if sw["collective"] == "allreduce" else "gather"
        other_rows = write_json(os.path.join(tmp, "other.json"), other)
        empty_dir = os.path.join(tmp, "empty")
        os.makedirs(empty_dir)
        bad = [
            (["compare", runs[0]], "only '"),
            (["compare", "--history", hist, runs[0], runs[1]], "takes one report to judge"),
            (["compare", *runs[:5], other_backend], "differ in backend (mpi against tcp)"),
            (["compare", *runs[:5], runs[6], "--min-history", "1"], "--min-history 1 is not allowed"),
            (["compare", runs[0], runs[6], "--min-history", "8"], "--min-history 8 is for a history of runs"),
            (["compare", runs[0], os.path.join(tmp, "absent.json"), runs[1]], "absent.json"),
            (["history", runs[0]], "is one run: a history needs two runs or more"),
            (["history", *runs[:6], other_rows], "measures none of the rows"),
            (["history", *runs[:6], other_backend], "differ in backend"),
            (["history", empty_dir], "holds no report"),
            (["history", *runs, "--max-p", "0"], "--max-p 0 is not allowed"),
            (["history", *runs, "--min-segment", "1"], "--min-segment 1 is not allowed"),
            (["history", *runs, "--min-step", "200%"], "--min-step '200%' is not allowed"),
            (["history", *runs, "--crossover", "12Q"], "12Q"),
        ]
        for argv, want in bad:
            clean()
            p = run([args.fabscope, *argv, "--json", out["json"]])
            if p.returncode != 2 or want not in p.stdout + p.stderr or os.path.exists(out["json"]):
                fail(f"{argv}: exit {p.returncode} (want 2), {want!r} in the message, nothing written\n"
                     f"{p.stdout}{p.stderr}")
    print("ok")


def cmd_compare(args):
    import xml.etree.ElementTree as ET
    import junitparser
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.json")
        p = run(mpirun(args, 2, "sweep", "allreduce", "alltoall", "-b", "1K", "-e", "1M", "-f", "4", "-n", "30",
                       "--backend", args.backend, "--json", base))
        if p.returncode != 0:
            fail(f"sweep exited {p.returncode}\n{p.stdout}{p.stderr}")
        doc = check_valid(v, base)
        for s in doc["sweeps"]:
            for pt in s["points"]:
                if len(pt["out_of_place"]["iteration_samples_us"]) != 30:
                    fail("a sweep report carries every iteration's time")
        out = {k: os.path.join(tmp, "cmp." + k) for k in ("json", "xml", "md")}

        def compare(a, b, *extra):
            for f in out.values():
                if os.path.exists(f):
                    os.remove(f)
            return run([args.fabscope, "compare", a, b, "--json", out["json"], "--junit", out["xml"],
                        "--markdown", out["md"]] + list(extra))

        # Identical reports: every row unchanged, exit 0, a passing JUnit file.
        p = compare(base, base)
        if p.returncode != 0:
            fail(f"identical reports: exit {p.returncode}\n{p.stdout}{p.stderr}")
        c = check_valid(v, out["json"])["comparison"]
        if not c["rows"] or any(r["verdict"] != "unchanged" for r in c["rows"]):
            fail("identical reports must compare unchanged row by row")
        xml = junitparser.JUnitXml.fromfile(out["xml"])
        if xml.failures != 0 or xml.tests < len(c["rows"]):
            fail(f"JUnit of identical reports: {xml.tests} tests, {xml.failures} failures")

        # One size slowed by 30%, its spread kept: exactly that row regresses, exit 1.
        steady = steadied(doc, "alltoall", 262144, "in_place")
        steady_base = write_json(os.path.join(tmp, "steady.json"), steady)
        cur = write_json(os.path.join(tmp, "slow.json"), slowed(steady, "alltoall", 262144, "in_place", 1.3))
        p = compare(steady_base, cur)
        if p.returncode != 1:
            fail(f"a 30% slowdown: exit {p.returncode}, want 1\n{p.stdout}{p.stderr}")
        c = check_valid(v, out["json"])["comparison"]
        reg = [(r["collective"], r["size_bytes"], r["placement"], r["test"]) for r in c["rows"]
               if r["verdict"] == "regression"]
        if reg != [("alltoall", 262144, "in_place", "mann_whitney_u")]:
            fail(f"regressions {reg}, want exactly alltoall 256 KiB in-place by the rank test\n{p.stdout}")
        if "compare.regression" not in p.stdout or "alltoall" not in p.stdout or "256 KiB" not in p.stdout:
            fail(f"the text must name the collective and size:\n{p.stdout}")
        # JUnit: parsed by a real consumer and by the standard library; one failure, named.
        xml = junitparser.JUnitXml.fromfile(out["xml"])
        failed = []
        for suite in xml:
            for case in suite:
                for r in case.result:
                    if isinstance(r, junitparser.Failure):
                        failed.append((suite.name, case.name, r.message))
        if len(failed) != 2 or not any("alltoall" in f[0] and "256 KiB" in f[1] for f in failed):
            fail(f"JUnit failures {failed}: want the regressed row and the verdict")
        root = ET.parse(out["xml"]).getroot()
        if root.tag != "testsuites" or int(root.get("failures")) != 2:
            fail("JUnit root element")
        for case in root.iter("testcase"):
            if not case.get("classname") or not case.get("name"):
                fail("a JUnit test case without classname or name")
        with open(out["md"]) as f:
            md = f.read()
        if not md.startswith("### fabscope compare: **FAIL**") or "| alltoall" not in md or "**regression**" not in md:
            fail(f"Markdown summary:\n{md}")
        if "<details>" not in md or md.count("\n|---") != 2:
            fail(f"Markdown: the moved rows, then every row folded:\n{md}")

        # The loop time up 30% through one stalled iteration: within noise, exit 0.
        cur = write_json(os.path.join(tmp, "noisy.json"), slowed(doc, "allreduce", 1048576, "out_of_place", 1.3, False))
        p = compare(base, cur)
        c = check_valid(v, out["json"])["comparison"]
        noisy = [r for r in c["rows"] if r["verdict"] == "within_noise"]
        if p.returncode != 0 or len(noisy) != 1 or noisy[0]["size_bytes"] != 1048576:
            fail(f"a slowdown inside the noise: exit {p.returncode}, within noise {noisy}\n{p.stdout}")

        # Settings that differ are stated; --strict refuses them.
        other = os.path.join(tmp, "other.json")
        other_backend = "tcp" if args.backend == "mpi" else "mpi"
        p = run(mpirun(args, 3, "sweep", "allreduce", "-b", "1K", "-e", "1M", "-f", "4", "-n", "30",
                       "--backend", other_backend, "--json", other))
        if p.returncode != 0:
            fail(f"sweep exited {p.returncode}\n{p.stdout}{p.stderr}")
        p = compare(base, other)
        if p.returncode not in (0, 1) or f"backend: {args.backend} -> {other_backend}" not in p.stdout \
                or "ranks: 2 -> 3" not in p.stdout or "compare.settings_differ" not in p.stdout:
            fail(f"differing settings must be stated:\n{p.stdout}{p.stderr}")
        missing = [r for r in check_valid(v, out["json"])["comparison"]["rows"] if r["verdict"] == "missing_in_current"]
        if len(missing) != 12 or {r["collective"] for r in missing} != {"alltoall"}:
            fail(f"alltoall is in the baseline only: {len(missing)} missing rows")
        p = compare(base, other, "--strict")
        if p.returncode != 2 or "--strict" not in p.stderr or os.path.exists(out["json"]):
            fail(f"--strict with differing runs: exit {p.returncode}, want 2 and nothing written\n{p.stderr}")

        # Bad input: exit 2, the file or value named, nothing written.
        not_json = os.path.join(tmp, "notjson.json")
        with open(not_json, "w") as f:
            f.write("this is no json\n")
        other_schema = write_json(os.path.join(tmp, "other_schema.json"), dict(doc, schema="fabscope.report/9"))
        nccl_j = write_json(os.path.join(tmp, "nccl.json"), {"version": 3, "config": {}, "results": []})
        cases = [
            ([base, os.path.join(tmp, "absent.json")], "absent.json"),
            ([not_json, base], "'" + not_json + "' is not valid JSON"),
            ([base, other_schema], "has schema 'fabscope.report/9'"),
            ([nccl_j, base], "is nccl-tests -J output, not a fabscope report"),
            ([base, base, "--threshold", "abc"], "--threshold 'abc' is not allowed"),
            ([base, base, "--threshold", "0%"], "--threshold '0%' is not allowed"),
            ([base, base, "--alpha", "2"], "--alpha 2 is not allowed"),
            ([base, base, "--crossover", "lots"], "invalid size 'lots'"),
            ([base, base, "--expect", not_json], "not valid JSON"),
        ]
        for argv, want in cases:
            p = compare(*argv)
            if p.returncode != 2 or want not in p.stderr:
                fail(f"compare {argv}: exit {p.returncode}, want 2 and {want!r} in\n{p.stderr}")
            if any(os.path.exists(f) for f in out.values()):
                fail(f"compare {argv}: an output was written on bad input")
        # An expectation the current run misses fails it.
        expect = write_json(os.path.join(tmp, "expect.json"), {"schema": "fabscope.expect/1", "expect": [
            {"collective": "allreduce", "from_bytes": "1M", "min_busbw_gbps": 100000}]})
        p = compare(base, base, "--expect", expect)
        if p.returncode != 1 or "perf.below_expected" not in p.stdout:
            fail(f"--expect below the bar: exit {p.returncode}\n{p.stdout}")
    print("ok")


def table_numbers(text):
    """The 13 fields of every table row in nccl-tests' text."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 13 and f[0].isdigit():
            rows.append(f)
    return rows


def cmd_import(args):
    v = validator(args)
    fixtures = sorted(os.listdir(os.path.join(args.fixtures, "nccl-tests")))
    with tempfile.TemporaryDirectory() as tmp:
        for name in fixtures:
            src = os.path.join(args.fixtures, "nccl-tests", name)
            out = os.path.join(tmp, name + ".json")
            p = run([args.fabscope, "import", "nccl-tests", src, "--json", out])
            if p.returncode != 0:
                fail(f"import {name}: exit {p.returncode}\n{p.stdout}{p.stderr}")
            doc = check_valid(v, out)
            if doc["context"]["imported"]["tool"] != "nccl-tests" or doc["context"]["start_time"] is not None:
                fail(f"{name}: an imported report is marked so, and null where the file says nothing")
            with open(src) as f:
                original = table_numbers(f.read())
            r = run([args.fabscope, "report", out])
            rendered = table_numbers(r.stdout)
            if r.returncode != 0 or len(rendered) != len(original) or not original:
                fail(f"{name}: `report` of the import gives {len(rendered)} rows, the file has {len(original)}")
            for a, b in zip(original, rendered):
                same = all(a[i] == b[i] for i in (0, 1, 2, 3, 4, 8, 12)) and \
                    all(float(a[i]) == float(b[i]) for i in (5, 6, 7, 9, 10, 11))
                if not same:
                    fail(f"{name}: round trip changed a row:\n{' '.join(a)}\n{' '.join(b)}")
            if any(f["code"] == "perf.dip" for f in doc["findings"]):
                fail(f"{name}: a healthy table gives no dip: {doc['findings']}")
        # Two imports compare like any reports.
        a, b = (os.path.join(tmp, fixtures[i] + ".json") for i in (0, 1))
        p = run([args.fabscope, "compare", a, b])
        if p.returncode not in (0, 1) or "hosts:" not in p.stdout:
            fail(f"compare of two imports:\n{p.stdout}{p.stderr}")
        # Truncated or garbled pastes, and other bad input: exit 2 naming the file and line.
        with open(os.path.join(args.fixtures, "nccl-tests", fixtures[0])) as f:
            text = f.read()
        cut = os.path.join(tmp, "cut.log")
        with open(cut, "w") as f:
            f.write(text[:text.rfind("# Out of bounds") - 30])
        nothing = os.path.join(tmp, "nothing.log")
        with open(nothing, "w") as f:
            f.write("just a shell session\n$ ls\n")
        keep = os.path.join(tmp, "keep.json")
        cases = [
            (["nccl-tests", cut], "'" + cut + "' line"),
            (["nccl-tests", nothing], "no nccl-tests table found"),
            (["nccl-tests", os.path.join(tmp, "absent.log")], "absent.log"),
            (["nosuch", cut], "import format 'nosuch' is not known"),
            (["nccl-tests", cut, "--nranks", "2"], "--nranks is for import osu"),
            (["nccl-tests", os.path.join(args.fixtures, "nccl-tests", fixtures[0]), "--collective", "allrduce"],
             "--collective: "),
        ]
        for argv, want in cases:
            p = run([args.fabscope, "import"] + argv + ["--json", keep])
            if p.returncode != 2 or want not in p.stderr or os.path.exists(keep):
                fail(f"import {argv}: exit {p.returncode}, want 2, {want!r} and nothing written\n{p.stderr}")
        import_osu(args, v, tmp)
        # Expectations on an import: the Dell table's bandwidth is below 500 GB/s.
        expect = write_json(os.path.join(tmp, "expect.json"), {"schema": "fabscope.expect/1", "expect": [
            {"collective": "allreduce", "from_bytes": "1G", "min_busbw_gbps": 500}]})
        dell = [n for n in fixtures if "Dell" in n][0]
        p = run([args.fabscope, "import", "nccl-tests", os.path.join(args.fixtures, "nccl-tests", dell),
                 "--expect", expect])
        if p.returncode != 1 or "perf.below_expected" not in p.stdout or "of the bar" not in p.stdout:
            fail(f"--expect on an import: exit {p.returncode}\n{p.stdout}{p.stderr}")
    print("ok")


def osu_rows(text):
    """OSU's printed rows: (size, first figure) in order."""
    rows = []
    for line in text.splitlines():
        if "<stderr>" in line:
            continue
        f = re.sub(r"^\[\d+,\d+\]<stdout>:", "", line).split()  # mpirun --tag-output
        if len(f) >= 2 and f[0].isdigit():
            rows.append((int(f[0]), float(f[1])))
    return rows


def import_osu(args, v, tmp):
    """Every real OSU output imports (schema-valid, marked, the figures as printed); bad
    files exit 2 naming the line; an OSU baseline gates a fabscope --method osu run."""
    folder = os.path.join(args.fixtures, "osu")
    for name in sorted(n for n in os.listdir(folder) if n.startswith("osu_")):
        src = os.path.join(folder, name)
        out = os.path.join(tmp, name + ".json")
        p = run([args.fabscope, "import", "osu", src, "--json", out])
        failing = "validate_fail" in name  # OSU printed Fail: wrong results, verdict fail
        if p.returncode != (1 if failing else 0):
            fail(f"import osu {name}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        doc = check_valid(v, out)
        if doc["context"]["imported"]["tool"] != "osu-micro-benchmarks":
            fail(f"{name}: not marked as imported from OSU: {doc['context']['imported']}")
        with open(src, errors="replace") as f:
            printed = osu_rows(f.read())
        if doc["p2p"]:
            if doc["p2p"]["method"] != "osu" or doc["p2p"]["floor_us"] is not None:
                fail(f"{name}: p2p method {doc['p2p']['method']}, floor {doc['p2p']['floor_us']}")
            links = [l for l in doc["p2p"]["links"] if l["src_rank"] == 0]
            got = [(l["size_bytes"], l["lat_us"] if doc["p2p"]["mode"] == "lat" else
                    l["bw_gbps"] * 1000 * (2 if doc["p2p"]["mode"] == "bibw" else 1)) for l in links]
        else:
            got = []
            for s in doc["sweeps"]:
                if s["method"] != "osu" or s["floor_us"] is not None:
                    fail(f"{name}: sweep method {s['method']}, floor {s['floor_us']}")
                got += [(p["size_bytes"], p["out_of_place"]["time_us"]) for p in s["points"]]
        if len(got) != len(printed) or any(a[0] != b[0] or abs(a[1] - b[1]) > 1e-6 * max(1, b[1])
                                           for a, b in zip(got, printed)):
            fail(f"{name}: imported {got[:4]}... where OSU printed {printed[:4]}...")
        if failing and not any(f["code"].startswith("sweep.wrong") or "wrong" in f["code"] for f in doc["findings"]):
            fail(f"{name}: OSU's Fail row gives no finding: {doc['findings']}")
    # Bad files: exit 2 naming file and line, nothing written.
    with open(os.path.join(folder, "osu_allreduce_float.txt")) as f:
        text = f.read()
    garbled = os.path.join(tmp, "garbled.txt")
    with open(garbled, "w") as f:
        f.write(text.replace("\n16 ", "\n16 x", 1))
    cut = os.path.join(tmp, "cut_osu.txt")
    with open(cut, "w") as f:
        f.write(text[:text.rindex(".") - 1])
    keep = os.path.join(tmp, "keep-osu.json")
    for argv, want in [(["osu", garbled], "'" + garbled + "' line 6"), (["osu", cut], "'" + cut + "' line"),
                       (["osu", os.path.join(args.fixtures, "nccl-tests", sorted(os.listdir(
                           os.path.join(args.fixtures, "nccl-tests")))[0])], "no OSU"),
                       (["osu", os.path.join(folder, "osu_latency.txt"), os.path.join(folder, "osu_bw.txt")],
                        "one mode"),
                       (["osu", garbled, "--nranks", "0"], "--nranks 0 is not allowed")]:
        p = run([args.fabscope, "import"] + argv + ["--json", keep])
        if p.returncode != 2 or want not in p.stderr or os.path.exists(keep):
            fail(f"import {argv}: exit {p.returncode}, want 2, {want!r} and nothing written\n{p.stderr}")
    # An OSU baseline gates a fabscope run timed the OSU way: the rows line up and compare.
    base = os.path.join(tmp, "osu-base.json")
    run([args.fabscope, "import", "osu", os.path.join(folder, "osu_allreduce_float.txt"), "--nranks", "2",
         "--json", base])
    cur = os.path.join(tmp, "osu-cur.json")
    p = run(mpirun(args, 2, "sweep", "allreduce", "--backend", "mpi", "--method", "osu", "-b", "8", "-e", "64K",
                   "-f", "2", "-c", "0", "--json", cur))
    if p.returncode != 0:
        fail(f"sweep --method osu: exit {p.returncode}\n{p.stdout}{p.stderr}")
    doc = check_valid(v, cur)
    if doc["sweeps"][0]["method"] != "osu" or doc["sweeps"][0]["points"][0]["out_of_place"]["iterations"] != 1000 \
            or doc["sweeps"][0]["points"][-1]["out_of_place"]["iterations"] != 100:
        fail(f"--method osu: method and OSU's iteration counts by size not in the report")
    p = run([args.fabscope, "compare", base, cur])
    rows = [l for l in p.stdout.splitlines() if re.match(r"^\s+\d+ (B|KiB)\s+(time_us|busbw_gbps)\s+[0-9.]+\s+[0-9.]+", l)]
    if p.returncode not in (0, 1) or len(rows) < 14:
        fail(f"compare of an OSU baseline and a --method osu run: exit {p.returncode}, {len(rows)} rows\n{p.stdout}")


def fabscope_pids(marker):
    """rank -> pid of the fabscope processes whose environment holds `marker`."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "fabscope":
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
        except OSError:
            continue
        if env.get(b"FABSCOPE_FAULT_TEST") == marker.encode() and b"OMPI_COMM_WORLD_RANK" in env:
            out[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
    return out


def start_job(args, np, argv, marker, log):
    env = dict(os.environ, FABSCOPE_FAULT_TEST=marker)
    p = subprocess.Popen(mpirun(args, np, *argv, grace=True), stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pids = fabscope_pids(marker)
        if len(pids) == np:
            return p, pids
        time.sleep(0.1)
    p.kill()
    fail(f"{argv}: {np} ranks did not start")


def wait_job(p, what, limit):
    """The job's exit code, or a failure naming `what` where it has not ended within `limit` seconds."""
    try:
        return p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(f"{what}: the job did not end within {limit} s")


def into_timed_loop(log_path, row=r"\(elements\)", then=1.5, within=30):
    """Waits until the job's log has a line matching `row` (by default the table's header: the timed loop
    comes next), then `then` seconds more, so that the ranks are as far into the loop whatever their
    start-up took (a fixed wait from the start fell short beside other tests)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with open(log_path, errors="replace") as f:
            if re.search(row, f.read(), re.M):
                break
        time.sleep(0.1)
    else:
        fail(f"the job printed no line matching {row!r} within {within} s")
    time.sleep(then)


def leftovers(directory, keep):
    return sorted(f for f in os.listdir(directory) if f not in keep)


def cmd_faults(args):
    """Faults under mpirun: a stopped rank is named by every survivor within --timeout + 5 s, and rank 0, when
    it is not the one stopped, writes the report so far with run.hang, naming what each rank that answers waits
    on (tcp: the peer, the message and the link); a killed rank, SIGINT and SIGTERM end the job, rank 0 writing
    the report so far as the signal reaches it. Rank 0 frozen (cgroup freezer, so the launcher cannot continue
    it): rank 1 writes the report in its place, with the points measured. Each report is whole and valid (or,
    where no rank could write, the previous one survives), and nothing is left beside it."""
    v = validator(args)
    timeout = 3
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        previous = "{\"previous\": true}\n"
        long_sweep = ["sweep", "allreduce", "-b", "256K", "-e", "256K", "-n", "10000000", "-w", "0", "-c", "0",
                      "--timeout", str(timeout), "--json", report]
        cases = []
        for backend in ("tcp", "mpi"):
            for stopped in (0, 2):
                cases.append((f"rank {stopped} stopped ({backend})", backend, stopped, "STOP"))
        cases += [("rank 1 killed (tcp)", "tcp", 1, "KILL"), ("mpirun interrupted (SIGINT)", "mpi", None, "INT"),
                  ("mpirun terminated (SIGTERM)", "tcp", None, "TERM"), ("rank 0 terminated (SIGTERM)", "mpi", 0, "TERM")]
        for what, backend, rank, sig in cases:
            with open(report, "w") as f:
                f.write(previous)
            log_path = os.path.join(tmp, "job.log")
            with open(log_path, "w") as log:
                p, pids = start_job(args, 3, long_sweep + ["--backend", backend], f"{os.getpid()}-{what}", log)
                into_timed_loop(log_path)
                target = p.pid if rank is None else pids[rank]
                t0 = time.monotonic()
                os.kill(target, getattr(signal, "SIG" + sig))
                code = wait_job(p, what, timeout + 25)
                took = time.monotonic() - t0
            for pid in pids.values():  # a stopped rank that mpirun could not end
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            with open(log_path, errors="replace") as f:
                out = f.read()
            print(f"{what}: exit {code} after {took:.1f} s")
            if code == 0:
                fail(f"{what}: exit 0\n{out}")
            if sig == "STOP":
                if took > timeout + 5:
                    fail(f"{what}: named after {took:.1f} s, past --timeout {timeout} + 5 s\n{out}")
                lines = [l for l in out.splitlines() if "no progress for" in l]
                survivors = [l for l in lines if not l.startswith(f"[r{rank} ")]
                # Each other rank names the hang, or one does and ends the job first: the last
                # then finds its connection to that rank closed (tcp, CI at 744498b) and says so.
                others = [r for r in range(3) if r != rank]
                named = {r for r in others if any(l.startswith(f"[r{r} ") for l in survivors)}
                closed = [r for r in others if r not in named and any(
                    l.startswith(f"[r{r} ") and "closed the connection" in l for l in out.splitlines())]
                # mpirun ends the job as the first survivor exits: on a loaded machine the other's
                # watchdog may not have fired by then, nor (tcp) its connection to the first closed (a
                # CI pass that started this test beside the browser's, twice over mpi; beside it here,
                # over tcp), and mpirun's abort is its last word.
                aborted = "the job has been aborted" in out
                if not named or (len(named) + len(closed) != 2 and not aborted):
                    fail(f"{what}: want a hang message from each of the 2 other ranks (or from one, the "
                         f"other's connection to it closed)\n{out}")
                for l in survivors:
                    if f"stopped progressing: rank {rank} (" not in l:
                        fail(f"{what}: the message does not name rank {rank}:\n{l}")
            elif took > 15:
                fail(f"{what}: the job took {took:.1f} s to end")
            with open(report) as f:
                text = f.read()
            if text == previous:
                # Only where rank 0 could not write: it was the rank stopped, or the kill came first.
                if not (sig == "STOP" and rank == 0) and sig != "KILL":
                    fail(f"{what}: rank 0 wrote no report\n{out}")
            else:
                try:
                    doc = json.loads(text)
                except ValueError as e:
                    fail(f"{what}: the report is not whole: {e}")
                v.validate(doc)
                ended = doc["timeline"]["ended_by"]
                found = {f["code"] for f in doc["findings"]}
                hang = doc["timeline"].get("hang", "")
                if sig == "STOP" and rank != 0:
                    if ended != "watchdog" or "run.hang" not in found:
                        fail(f"{what}: want rank 0's report ended by the watchdog with run.hang: {ended} {found}")
                    if "no progress for" not in hang:
                        fail(f"{what}: run.hang must quote the watchdog: {hang!r}")
                    # The rank that still answers says what it waits on: over fabscope's engine (tcp) the
                    # peer, the message and the link.
                    if backend == "tcp" and not re.search(r"rank 1 \([^)]*\) waits for a .* (receive from|send to) "
                                                          r"rank \d \(.*, open [\d.]+ s, over tcp ", hang):
                        fail(f"{what}: run.hang must say what rank 1 waits on: {hang!r}")
                elif sig == "STOP" and ended == "watchdog":
                    # Rank 0 stopped: rank 1 stands in for it as the watchdogs fire (the launcher may then
                    # continue and terminate rank 0, which writes as for any signal, below). Or the first
                    # survivor to exit ends the job, the launcher continues rank 0 (SIGCONT) before rank 1
                    # has written, and rank 0's own watchdog names its own stop: on a loaded machine (the
                    # browser's test beside it, CI at 4ecd0ad twice) rank 0 ran again 2.3 s after the stop.
                    own = f"stopped progressing: this rank, {rank} (" in hang and "did not run for" in hang
                    if "run.hang" not in found or not (hang.startswith("written by rank 1 ") or own):
                        fail(f"{what}: want rank 1's report in rank 0's place, or rank 0's own naming its "
                             f"stop: {hang!r} {found}")
                # A stopped rank 0 is continued and terminated by the launcher (SIGCONT, then SIGTERM) once
                # the others' watchdogs end the job: it then writes as for any signal.
                elif not ended.startswith("signal SIG") or "run.interrupted" not in found:
                    fail(f"{what}: want a report ended by the signal, with run.interrupted: {ended} {found}")
                print(f"{what}: report written, ended by {ended}")
            left = leftovers(tmp, {"r.json", "job.log"})
            if left:
                fail(f"{what}: files left beside the report: {left}")
        frozen_rank0(args, v, tmp, timeout)
        stuck_then_stopped(args, tmp, timeout)
    print("ok")


def stuck_then_stopped(args, tmp, timeout):
    """A rank whose measuring thread is stuck (frozen alone in a cgroup v1 freezer: its heartbeat thread still
    answers), then stopped whole 1 s before the others' watchdogs fire: the survivors look again for a silence
    window before they blame no rank, and name it. What a loaded machine does to a stopped rank (the others'
    last progress came before the stop), made certain."""
    if not have_freezer("rank 2 stuck, then stopped"):
        return
    argv = ["sweep", "allreduce", "-b", "256K", "-e", "256K", "-n", "10000000", "-w", "0", "-c", "0",
            "--backend", "tcp", "--timeout", str(timeout)]
    log_path = os.path.join(tmp, "stuck.log")
    pids = {}
    with freezer_group("fabscope-stuck", pids) as group:
        with open(log_path, "w") as log:
            p, started = start_job(args, 3, argv, f"{os.getpid()}-stuck", log)
            pids.update(started)
            into_timed_loop(log_path)
            with open(os.path.join(group, "tasks"), "w") as f:
                f.write(str(pids[2]))  # the main thread only: the one that measures
            with open(os.path.join(group, "freezer.state"), "w") as f:
                f.write("FROZEN")
            t0 = time.monotonic()
            time.sleep(timeout - 1)
            os.kill(pids[2], signal.SIGSTOP)
            code = wait_job(p, "rank 2 stuck, then stopped", timeout + 25)
            took = time.monotonic() - t0
    out = open(log_path, errors="replace").read()
    print(f"rank 2 stuck, then stopped: exit {code} after {took:.1f} s")
    survivors = [l for l in out.splitlines() if "no progress for" in l and not l.startswith("[r2 ")]
    if code == 0 or not survivors:
        fail(f"rank 2 stuck, then stopped: want the survivors' watchdogs to end the job (exit {code})\n{out}")
    for l in survivors:
        if "stopped progressing: rank 2 (" not in l:
            fail(f"rank 2 stuck, then stopped: the survivor does not name rank 2:\n{l}")
    if took > timeout + 6:
        fail(f"rank 2 stuck, then stopped: named after {took:.1f} s, past --timeout {timeout} + 6 s\n{out}")


FREEZER = "/sys/fs/cgroup/freezer"


def have_freezer(what):
    """Whether a cgroup v1 freezer is writable here; says the case is skipped where not."""
    if os.path.isdir(FREEZER) and os.access(FREEZER, os.W_OK):
        return True
    print(f"{what}: skipped, no writable cgroup v1 freezer at {FREEZER}")
    return False


@contextlib.contextmanager
def freezer_group(name, pids):
    """A cgroup v1 freezer group for one case. On leaving, the job's processes (`pids`, a dict the body fills)
    are killed, the group thawed (a frozen process dies only once thawed) and removed."""
    group = os.path.join(FREEZER, f"{name}-{os.getpid()}")
    os.mkdir(group)
    try:
        yield group
    finally:
        for pid in pids.values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        with open(os.path.join(group, "freezer.state"), "w") as f:
            f.write("THAWED")
        time.sleep(0.2)
        os.rmdir(group)


def frozen_rank0(args, v, tmp, timeout):
    """Rank 0 frozen in a cgroup (v1 freezer) for good: the launcher cannot continue or end it, so it writes
    nothing; rank 1 writes the report so far in its place, from its copy of the points measured."""
    if not have_freezer("rank 0 frozen"):
        return
    report = os.path.join(tmp, "frozen.json")
    argv = ["sweep", "allreduce", "-b", "64K", "-e", "64K", "-n", "20", "-w", "0", "-N", "0", "--backend", "tcp",
            "--timeout", str(timeout), "--json", report]
    pids = {}
    with freezer_group("fabscope-faults", pids) as group:
        with open(os.path.join(tmp, "frozen.log"), "w") as log:
            p, started = start_job(args, 3, argv, f"{os.getpid()}-frozen", log)
            pids.update(started)
            into_timed_loop(os.path.join(tmp, "frozen.log"), row=r"^\s+65536\s", then=0.5)  # a cycle measured
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(pids[0]))
            with open(os.path.join(group, "freezer.state"), "w") as f:
                f.write("FROZEN")
            deadline = time.monotonic() + timeout + 10
            while time.monotonic() < deadline and not os.path.exists(report):
                time.sleep(0.2)
            time.sleep(1)
            # Read before thawing: thawed, rank 0 ends by the launcher's signals.
            text = open(report).read() if os.path.exists(report) else ""
            with open(os.path.join(group, "freezer.state"), "w") as f:
                f.write("THAWED")
            wait_job(p, "rank 0 frozen, then thawed", 20)
    out = open(os.path.join(tmp, "frozen.log"), errors="replace").read()
    if not text:
        fail(f"rank 0 frozen: no report written within --timeout + 10 s\n{out}")
    doc = json.loads(text)
    v.validate(doc)
    t = doc["timeline"]
    points = sum(len(s["points"]) for s in doc["sweeps"])
    print(f"rank 0 frozen: {t['hang'][:120]}... ({points} point(s), {t['cycles_completed']} cycles)")
    if t["ended_by"] != "watchdog" or not t["hang"].startswith("written by rank 1 ") or \
            "rank 0 (" not in t["hang"] or "run.hang" not in {f["code"] for f in doc["findings"]}:
        fail(f"rank 0 frozen: want rank 1's report with run.hang naming rank 0: {t['ended_by']} {t['hang']!r}")
    if points != 1 or t["cycles_completed"] < 1 or not t["intervals"]:
        fail(f"rank 0 frozen: want the point and the cycles measured before: {points} point(s), "
             f"{t['cycles_completed']} cycles, {len(t['intervals'])} intervals")


def cmd_hostile_env(args):
    """Canary secrets and bytes that are not UTF-8 in the environment: the run finishes, every output is
    written and valid, and no canary reaches any of them."""
    v = validator(args)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environb)
        env.update({b"NCCL_BAD": b"\xff\xfe", b"NCCL_SECRET": b"canary-1", b"UCX_PASSWORD": b"canary-2",
                    b"OMPI_MCA_my_secret": b"canary-3", b"CUDA_API_TOKEN": b"canary-4",
                    b"NCCL_IB_HCA": b"mlx5_\xff"})
        out = {k: os.path.join(tmp, "r." + k) for k in ("json", "junit", "markdown")}
        cmd = mpirun(args, 2, "sweep", "allreduce", "-b", "8", "-e", "1K", "-n", "2", "--backend", args.backend,
                     "--json", out["json"], "--junit", out["junit"], "--markdown", out["markdown"])
        print("$ " + " ".join(cmd))
        p = subprocess.run([c.encode() for c in cmd], capture_output=True, timeout=TIMEOUT_S, env=env)
        if p.returncode != 0:
            fail(f"exit {p.returncode}\n{p.stdout!r}\n{p.stderr!r}")
        for path in out.values():
            with open(path, "rb") as f:
                data = f.read()
            if b"canary" in data:
                fail(f"a canary secret reached {path}")
            data.decode("utf-8")  # valid UTF-8 throughout
        if b"canary" in p.stdout + p.stderr:
            fail("a canary secret was printed")
        with open(out["json"]) as f:
            doc = json.load(f)
        v.validate(doc)
        envs = doc["context"]["environment"]
        for name in ("NCCL_SECRET", "UCX_PASSWORD", "OMPI_MCA_my_secret", "CUDA_API_TOKEN",
                     "OMPI_MCA_orte_precondition_transports"):
            if envs.get(name) != "<redacted>":
                fail(f"{name} is {envs.get(name)!r}, want <redacted>")
        if envs.get("NCCL_BAD") != "\ufffd\ufffd":
            fail(f"NCCL_BAD is {envs.get('NCCL_BAD')!r}: bytes that are not UTF-8 become U+FFFD")
        # p2p whose verdict is fail exits 1 on every rank.
        bar = os.path.join(tmp, "e.json")
        with open(bar, "w") as f:
            f.write('{"schema": "fabscope.expect/1", "expect": [{"p2p": "bw", "min_bw_gbps": 100000}]}')
        p = run(mpirun(args, 2, "p2p", "-n", "20", "--backend", args.backend, "--expect", bar))
        if p.returncode != 1 or "Verdict: fail" not in p.stdout:
            fail(f"p2p with a failed verdict: exit {p.returncode}, want 1\n{p.stdout}{p.stderr}")
    print("ok")


def cmd_memory(args):
    """The memory estimate a run is admitted with holds what the ranks really used: every rank's peak resident set
    (VmHWM, in the report) is at most the estimate, for each collective alone, all of them in one run, and p2p."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        runs = [["sweep", c, "-b", "32M", "-e", "32M", "-n", "1", "-w", "0"] for c in
                ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "gather", "scatter",
                 "sendrecv")]
        # Every collective in one run at 64 MiB, the buffers sized for the largest of them; without
        # verification (the runs above verify each collective), which halves the time (65 s to 31 s).
        # One type: int8 and float each peak at 0.92 of the estimate (mpi, 3 ranks), and the two
        # together took 22 s of this test's 42.
        runs.append(["sweep", "all", "-b", "64M", "-e", "64M", "-n", "1", "-w", "0", "-c", "0", "-d", "float"])
        runs.append(["p2p", "-s", "16M", "-n", "4", "-w", "0", "--mode", "bibw"])
        worst = 0
        for argv in runs:
            p = run(mpirun(args, args.np, *argv, "--backend", args.backend, "--json", out))
            # Exit 1 is a verdict (p2p's links on 3 oversubscribed ranks are now and then uneven
            # enough to flag one, CI at af4861a): this test judges memory, not the links.
            if p.returncode not in (0, 1):
                fail(f"{argv}: exit {p.returncode}\n{p.stdout}{p.stderr}")
            with open(out) as f:
                ctx = json.load(f)["context"]
            estimate = ctx["memory_estimate_bytes"]
            peaks = [r["peak_rss_bytes"] for r in ctx["ranks"]]
            if not estimate or None in peaks:
                fail(f"{argv}: no estimate ({estimate}) or a rank's peak missing ({peaks})")
            ratio = max(peaks) / estimate
            worst = max(worst, ratio)
            print(f"{' '.join(argv[:2])}: peak {max(peaks) / 2**20:.0f} MiB of {estimate / 2**20:.0f} MiB estimated "
                  f"({ratio:.2f})")
            if ratio > 1:
                fail(f"{argv}: a rank used {max(peaks)} bytes, past the {estimate} the run was admitted with")
        print(f"ok (worst peak/estimate {worst:.2f})")


# Words the command-line fuzz draws from: every subcommand, options of all of them (given
# to the wrong one too), and values good and bad for each kind.
FUZZ_COMMANDS = ["sweep", "p2p", "topo", "report", "compare", "import", "diagnose", "triage", "backends", "nosuch",
                 ""]
FUZZ_OPTIONS = ["-b", "-e", "-f", "-i", "-n", "-w", "-c", "-d", "-o", "-r", "-s", "-a", "-z", "-m", "-G",
                "--minbytes", "--maxbytes", "--iters", "--warmup_iters", "--check", "--datatype", "--op",
                "--root", "--backend", "--timeout", "--log-level", "--json", "--expect", "--pattern", "--pair",
                "--mode", "--seed", "--qps", "--tcp-if", "--tcp-addr", "--tcp-cc", "--nccl-ib-hca", "--nccl-debug-dir",
                "--hwloc-xml", "--nccl-topo", "--nvidia-smi-topo", "--host", "--budget", "--threshold",
                "--baseline", "--help", "--version", "--", "-", "--=", "---x"]
FUZZ_VALUES = ["8", "0", "1", "-1", "1K", "64K", "1M", "1.5K", "1e3", "8X", "", " ", "nan", "inf", "-inf",
               "18446744073709551616", "99999999999999999999999", "0x10", "1,2", "0,1", "0,0", "1-", "a-b",
               "allreduce", "all", "allgather", "alltoall", "broadcast", "sendrecv", "float", "int8", "bfloat16",
               "sum", "prod", "avg", "ring", "bisection", "bw", "lat", "tcp", "mpi", "nccl", "verbs", "auto",
               "debug", "trace", "lo", "127.0.0.1", "::1", "256.0.0.1", "eth99", "mlx5_0:1", "=", "../", "/",
               "/proc/x.json", "/dev/zero", "/dev/null", "%s%n", "\u00e9t\u00e9", b"\xff\xfe".decode("utf-8", "surrogateescape"),
               "x" * 5000]


def cmd_triage(args):
    """`fabscope triage` on the ticket-like directory test/fixtures/triage and on real files: exit codes (1 for an
    error finding, 5 inconclusive, 0 pass, 2 for a path that does not exist), the report valid against the schema
    and rendered again by `report`, the answer first, every file listed as taken."""
    v = validator(args)
    tdir = os.path.join(args.fixtures, "triage")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.json")
        junit_all = os.path.join(tmp, "all.xml")
        p = run([args.fabscope, "triage", tdir, "--json", out, "--junit", junit_all])
        if p.returncode != 1:
            fail(f"triage of the written ticket must fail (errors planted): exit {p.returncode}\n{p.stdout}{p.stderr}")
        # Its findings quote versions in apostrophes ('2.21.5+cuda12.4'): written as &#39;, the JUnit file parses.
        import xml.etree.ElementTree as ET
        messages = [f.get("message") for f in ET.parse(junit_all).getroot().iter("failure")]
        if not any("'" in m for m in messages):
            fail(f"JUnit of the written ticket: a finding with an apostrophe, parsed back: {messages}")
        doc = check_valid(v, out)
        files = doc["triage"]["files"]
        if len(files) != len(os.listdir(tdir)):
            fail(f"every file is listed: {len(files)} of {len(os.listdir(tdir))}")
        kinds = {os.path.basename(f["path"]): f["kinds"] for f in files}
        if kinds["written_dmesg-xid79-aer-linkflap-oom.txt"] != ["kernel-log"] or \
                kinds["written_binary-core-excerpt.bin"] != []:
            fail(f"files are taken by content: {kinds}")
        first = doc["findings"][0]
        if doc["triage"]["answer_code"] != first["code"] or first["severity"] != "error":
            fail(f"the answer is the first finding, an error: {doc['triage']} {first}")
        if not first["evidence"]["lines"] or not all(q["line"] > 0 for q in first["evidence"]["lines"]):
            fail(f"the answer quotes its lines with file and line number: {first['evidence']}")
        if "# Most likely: " + first["code"] not in p.stdout or p.stdout.index("# Most likely") > p.stdout.index("# Files"):
            fail(f"the text starts with the answer:\n{p.stdout}")
        r = run([args.fabscope, "report", out])
        if r.returncode != 0 or "# Most likely: " + first["code"] not in r.stdout:
            fail(f"`report` renders the triage again:\n{r.stdout}{r.stderr}")
        # One rank of eight: inconclusive (exit 5), saying what is missing; never pass, in
        # JUnit (the verdict skipped) and Markdown neither.
        junit, md = os.path.join(tmp, "t.xml"), os.path.join(tmp, "t.md")
        p = run([args.fabscope, "triage", os.path.join(tdir, "written_one-rank-of-eight.log"), "--json", out,
                 "--junit", junit, "--markdown", md])
        doc = check_valid(v, out)
        if p.returncode != 5 or doc["verdict"]["result"] != "inconclusive" or len(doc["verdict"]["missing"]) != 2:
            fail(f"one rank of eight is inconclusive (exit 5): exit {p.returncode} {doc['verdict']}")
        with open(junit) as f:
            xml = f.read()
        if '<skipped message="verdict inconclusive: ' not in xml or "1 of 8 ranks" not in xml:
            fail(f"JUnit marks an inconclusive verdict skipped, saying what is missing:\n{xml}")
        with open(md) as f:
            text = f.read()
        if "**INCONCLUSIVE**" not in text or "1 of 8 ranks" not in text:
            fail(f"Markdown says inconclusive and what is missing:\n{text}")
        # A real, healthy nccl-tests table alone: nothing wrong, but nothing gives its NICs' rates, so its
        # bandwidth is not called healthy (exit 5, saying so).
        table = os.path.join(args.fixtures, "nccl-tests",
                             "nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt")
        p = run([args.fabscope, "triage", table])
        if p.returncode != 5 or "no NIC rates in the files" not in p.stdout:
            fail(f"a healthy table alone is inconclusive: exit {p.returncode}\n{p.stdout}{p.stderr}")
        # A real healthy node, GPUs and NICs 1:1 on PIX paths, and a real NIC's counters without an error: pass.
        good = [os.path.join(args.fixtures, "nvidia-smi-topo", "sglang-24966_H20x8-8NIC-1to1-PIX_topo-m.txt"),
                os.path.join(args.fixtures, "ib-counters",
                             "ethq-issue8_ConnectX-4Lx-mlx5_core-fw14.23_ethtool-S_leading-whitespace-stripped.txt")]
        p = run([args.fabscope, "triage", *good])
        if p.returncode != 0 or "# Nothing wrong found in these files" not in p.stdout:
            fail(f"a healthy node passes: exit {p.returncode}\n{p.stdout}{p.stderr}")
        # The real ticket of nccl-tests#256: the VM's table and NCCL's topology dump: busbw 27% of the NICs.
        vm = [os.path.join(args.fixtures, "nccl-tests",
                           "nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt"),
              os.path.join(args.fixtures, "nccl-logs", "nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log")]
        p = run([args.fabscope, "triage", *vm, "--json", out])
        doc = check_valid(v, out)
        if p.returncode != 1 or doc["triage"]["answer_code"] != "nccl_tests.below_nics" or \
                "# Most likely: nccl_tests.below_nics" not in p.stdout or "27% of the 400.0 GB/s" not in p.stdout:
            fail(f"the VM ticket: busbw far below its NICs first: exit {p.returncode}\n{p.stdout}{p.stderr}")
        # A path that does not exist: exit 2 naming it, and no report written.
        os.remove(out)
        p = run([args.fabscope, "triage", os.path.join(tmp, "nope"), "--json", out])
        if p.returncode != 2 or "nope" not in p.stderr or os.path.exists(out):
            fail(f"a missing path is exit 2 naming it, nothing written: exit {p.returncode} {p.stderr}")
    print("ok")


def cmd_cli_fuzz(args):
    """Random command lines from FUZZ_* words, run directly (one process): each ends with an exit code the
    docs/exit-codes.md lists, by no signal, without a crash trace, within its time, with an error said when it fails,
    and leaves a --json file whole or absent."""
    import random
    rng = random.Random(args.seed)
    bad = ("terminate called", "Segmentation fault", "Aborted", "core dumped", "what():", "bad_alloc",
           "AddressSanitizer", "stack smashing")
    codes = {}
    messages = set()  # distinct first lines of stderr: how many different checks were reached
    with tempfile.TemporaryDirectory() as tmp:
        files = {"@report": os.path.join(args.fixtures, "reports", "topo-offline.json"),
                 "@xml": os.path.join(args.fixtures, "hwloc-xml",
                                      "juwels-booster-jwb0004_A100x4-CX6-HDRx4-EPYC7402-NPS4_hwloc2.2.xml"),
                 "@out": os.path.join(tmp, "out.json"), "@dir": tmp}
        for case in range(args.count):
            argv = [rng.choice(FUZZ_COMMANDS)]
            if argv[0] in ("sweep", "diagnose") and rng.random() < 0.8:
                argv.append(rng.choice(["allreduce", "all", "allgather", "reducescatter", "alltoall", "x"]))
            for _ in range(rng.randint(0, 5)):
                r = rng.random()
                if r < 0.75:  # an option and a value: past the parser, into the checks
                    argv += [rng.choice(FUZZ_OPTIONS), rng.choice(FUZZ_VALUES)]
                elif r < 0.85:
                    argv.append(rng.choice(FUZZ_OPTIONS))
                elif r < 0.9:
                    argv.append(rng.choice(FUZZ_VALUES))
                else:
                    argv.append(files[rng.choice(sorted(files))])
            if argv[0] == "sweep" and not any(a in ("-e", "--maxbytes") for a in argv):
                argv += ["-e", "64K"]  # a valid sweep stays short
            argv = [a for a in argv if a != ""] if rng.random() < 0.5 else argv
            cmd = [os.path.abspath(args.fabscope)] + argv
            print(f"# case {case} (seed {args.seed})", flush=True)
            shown = " ".join(shlex.quote(c) for c in cmd).encode("utf-8", "backslashreplace").decode()
            print("$ " + shown, flush=True)
            try:
                p = subprocess.run([os.fsencode(c) for c in cmd], capture_output=True, timeout=90, cwd=tmp)
            except subprocess.TimeoutExpired:
                fail(f"case {case}: no exit within 90 s: {shown}")
            out = (p.stdout + p.stderr).decode("utf-8", "replace")
            codes[p.returncode] = codes.get(p.returncode, 0) + 1
            if p.stderr.strip():
                messages.add(p.stderr.decode("utf-8", "replace").strip().splitlines()[0][:60])
            if p.returncode < 0 or p.returncode not in (0, 1, 2, 3, 4, 5):
                fail(f"case {case}: exit {p.returncode} (a signal, or a code docs/exit-codes.md does not list): {shown}\n{out}")
            if any(b in out for b in bad):
                fail(f"case {case}: a crash trace in the output: {shown}\n{out}")
            if p.returncode >= 2 and not p.stderr.strip():
                fail(f"case {case}: exit {p.returncode} without a word on stderr: {shown}\n{out}")
            if os.path.exists(files["@out"]):
                try:
                    with open(files["@out"]) as f:
                        json.load(f)
                except ValueError as e:
                    fail(f"case {case}: {files['@out']} is not whole JSON ({e}): {shown}")
                os.remove(files["@out"])
            left = [n for n in os.listdir(tmp) if ".tmp." in n]
            if left:
                fail(f"case {case}: temporaries left behind: {left}: {shown}")
    print(f"{args.count} command lines, exit codes {dict(sorted(codes.items()))}, {len(messages)} distinct messages")
    print("ok")


RENDER_FIXTURES = ["sweep-mpi-np3", "p2p-tcp-np3", "topo-offline", "diagnose-tcp-np3", "compare",
                   "import-nccl-tests"]


def check_prometheus(path, what):
    """The exposition read by the Python client's parser (a real one), every family a gauge."""
    from prometheus_client.parser import text_string_to_metric_families
    with open(path) as f:
        text = f.read()
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser raises ValueError and others on bad lines
        fail(f"{what}: the Prometheus parser rejects it: {e}")
    names = {fam.name for fam in families}
    for fam in families:
        if fam.type != "gauge" or not fam.name.startswith("fabscope_") or not fam.samples:
            fail(f"{what}: family {fam.name} type {fam.type} with {len(fam.samples)} samples")
    for want in ("fabscope_run_info", "fabscope_verdict", "fabscope_findings"):
        if want not in names:
            fail(f"{what}: no {want} in {sorted(names)}")
    return {fam.name: fam for fam in families}


def cmd_render(args):
    """`fabscope report --format` on every fixture; --html/--prometheus at the end of real runs
    give exactly what `fabscope report` renders from their JSON; bad inputs refused whole."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in RENDER_FIXTURES:
            src = fixture(args, f"reports/{name}.json")
            with open(src) as f:
                doc = json.load(f)
            for fmt, ext in (("html", "html"), ("prometheus", "prom"), ("markdown", "md"), ("text", "txt")):
                out = os.path.join(tmp, f"{name}.{ext}")
                r = run([args.fabscope, "report", src, "--format", fmt, "-o", out])
                if r.returncode != 0 or r.stdout or not os.path.getsize(out):
                    fail(f"{name} --format {fmt}: exit {r.returncode}, stdout {len(r.stdout)} bytes: {r.stderr}")
                stdout = run([args.fabscope, "report", src, "--format", fmt])
                with open(out) as f:
                    if stdout.returncode != 0 or stdout.stdout != f.read():
                        fail(f"{name} --format {fmt}: stdout differs from -o")
            fams = check_prometheus(os.path.join(tmp, f"{name}.prom"), name)
            verdict = {s.labels["result"]: s.value for s in fams["fabscope_verdict"].samples}
            if verdict.get(doc["verdict"]["result"]) != 1 or sum(verdict.values()) != 1:
                fail(f"{name}: fabscope_verdict {verdict}, the report says {doc['verdict']['result']}")
            if doc["sweeps"]:
                busbw = fams["fabscope_busbw_bytes_per_second"].samples
                placements = sum(1 for s in doc["sweeps"] for p in ("out_of_place", "in_place")
                                 if any(pt[p] for pt in s["points"]))
                if len(busbw) != placements:
                    fail(f"{name}: {len(busbw)} busbw series, want {placements}")
        # Two reports as HTML: the first drawn beside the second; text renders each in turn.
        a, b = fixture(args, "reports/sweep-mpi-np3.json"), fixture(args, "reports/import-nccl-tests.json")
        r = run([args.fabscope, "report", a, b, "--format", "html"])
        if r.returncode != 0 or f">{a} out-of-place</text>" not in r.stdout:
            fail(f"two reports as HTML: exit {r.returncode}, baseline series missing: {r.stderr}")
        r = run([args.fabscope, "report", a, b])
        if r.returncode != 0 or f"# {a}\n" not in r.stdout or f"# {b}\n" not in r.stdout:
            fail(f"two reports as text: exit {r.returncode}: {r.stderr}")
        # Refused whole: nothing written, exit 2, the bad value named.
        out = os.path.join(tmp, "refused.out")
        for argv, needle in (
                (["--format", "pdf"], "pdf"),
                (["--format", "prometheus", a], "one report"),
                (["--format", "html", "-o", "/nonexistent-dir/x.html"], "/nonexistent-dir"),
                (["--format", "html", "-o", out, os.path.join(tmp, "missing.json")], "missing.json"),
                (["--format", "json"], "-o FILE")):
            r = run([args.fabscope, "report", a] + argv + ([] if "-o" in argv else []))
            if r.returncode != 2 or needle not in r.stderr or os.path.exists(out):
                fail(f"report {argv}: exit {r.returncode}, want 2 naming {needle!r}: {r.stderr}")
        # A real run writes them at the end, from the same report: identical to a re-render.
        os.chdir(tmp)
        for cmd in (["sweep", "-b", "8", "-e", "64K", "-f", "4", "-n", "5", "-w", "1", "allreduce", "alltoall"],
                    ["p2p", "--pattern", "pairs", "-s", "64K", "-n", "20"]):
            tag = cmd[0]
            r = run(mpirun(args, 3, *cmd, "--backend", args.backend, "--json", f"{tag}.json",
                           "--html", f"{tag}.html", "--prometheus", f"{tag}.prom", "--markdown", f"{tag}.md"))
            if r.returncode not in (0, 1):
                fail(f"{tag} with --html: exit {r.returncode}: {r.stderr}")
            for fmt, ext in (("html", "html"), ("prometheus", "prom"), ("markdown", "md")):
                again = run([args.fabscope, "report", f"{tag}.json", "--format", fmt])
                with open(f"{tag}.{ext}") as f:
                    if again.returncode != 0 or again.stdout != f.read():
                        fail(f"{tag}: --{fmt} written at the end differs from `report --format {fmt}`")
            check_prometheus(f"{tag}.prom", tag)
            leftovers = [f for f in os.listdir(tmp) if f.startswith(".")]
            if leftovers:
                fail(f"{tag}: temporaries left: {leftovers}")
    print("ok")


def cmd_nccl_profile(args):
    """NCCL's profiler plugin without a GPU: profiles written by the plugin itself (driven as NCCL drives it by
    fabscope_profile_replay: 4 ranks in a ring, rank 2's sends to rank 3 four times slower), an NCCL log naming each
    channel's NIC, then `diagnose --import-profile`: the section, the finding naming the link and its NIC, the schema,
    the text and `report` again; every bad input refused with exit 2, naming it; --nccl-profile off the nccl backend."""
    v = validator(args)
    build = os.path.dirname(os.path.abspath(args.fabscope))
    replay = os.path.join(build, "fabscope_profile_replay")
    plugin = os.path.join(build, "libnccl-profiler-fabscope.so")
    host = socket.gethostname()
    with tempfile.TemporaryDirectory() as tmp:
        prof = os.path.join(tmp, "profile")
        os.mkdir(prof)
        p = run([replay, "replay", plugin, prof, "4", "2", "3", "4"])
        if p.returncode != 0 or len(os.listdir(prof)) != 4:
            fail(f"the plugin writes one file per rank: {os.listdir(prof)}\n{p.stdout}{p.stderr}")
        pid = json.load(open(os.path.join(prof, sorted(os.listdir(prof))[0])))["pid"]
        log = os.path.join(tmp, "nccl.log")
        with open(log, "w") as f:
            f.write(f"{host}:{pid}:{pid} [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>\n")
            for r in range(4):
                for ch in range(2):
                    f.write(f"{host}:{pid}:{pid} [0] NCCL INFO Channel {ch:02d}/0 : {r}[0] -> {(r + 1) % 4}[0] [send] "
                            f"via NET/IB/{r % 2}/GDRDMA\n")
                    f.write(f"{host}:{pid}:{pid} [0] NCCL INFO Channel {ch:02d}/0 : {(r + 3) % 4}[0] -> {r}[0] [receive] "
                            f"via NET/IB/{r % 2}/GDRDMA\n")
        out, html = os.path.join(tmp, "d.json"), os.path.join(tmp, "d.html")
        p = run([args.fabscope, "diagnose", "--import-profile", prof, "--nccl-log", log, "--json", out, "--html", html])
        doc = check_valid(v, out)
        sec = doc["nccl_profile"]
        if p.returncode != 0 or sec["status"] != "collected" or len(sec["ranks"]) != 4 or len(sec["points"]) != 1:
            fail(f"diagnose --import-profile: exit {p.returncode}, {sec['status']}: {sec['detail']}\n{p.stdout}{p.stderr}")
        point = sec["points"][0]
        if (point["collective"], point["size_bytes"], point["calls"], len(point["links"])) != ("allreduce", 16 << 20, 3, 8):
            fail(f"one all-reduce of 16 MiB, 3 calls, 8 links (4 ranks x send, recv): {point['collective']} "
                 f"{point['size_bytes']} {point['calls']} {len(point['links'])}")
        nics = {(l["rank"], l["direction"]): l["nic"] for l in point["links"]}
        if nics[(2, "send")] != "mlx5_0" or nics[(3, "recv")] != "mlx5_1":
            fail(f"each link's NIC from the log's channel lines: {nics}")
        found = [f for f in doc["findings"] if f["code"] == "nccl.link_wait"]
        if len(found) != 1 or found[0]["subject"] != f"rank 2 ({host}) -> rank 3 ({host}) over mlx5_0" or \
                not 3 <= found[0]["evidence"]["factor"] <= 5:
            fail(f"nccl.link_wait names the slow link and its NIC: {doc['findings']}")
        if "NCCL network wait" not in p.stdout or "2 -> 3" not in p.stdout:
            fail(f"the text shows the links NCCL waited on:\n{p.stdout}")
        r = run([args.fabscope, "report", out])
        if r.returncode != 0 or "NCCL network wait" not in r.stdout:
            fail(f"`report` renders the profile again:\n{r.stdout}{r.stderr}")
        md, prom = os.path.join(tmp, "d.md"), os.path.join(tmp, "d.prom")
        r = run([args.fabscope, "report", out, "--format", "markdown", "-o", md])
        r2 = run([args.fabscope, "report", out, "--format", "prometheus", "-o", prom])
        if r.returncode != 0 or r2.returncode != 0 or "| allreduce | 16 MiB |" not in open(md).read() or \
                "| 2 -> 3 | mlx5_0 |" not in open(md).read():
            fail(f"Markdown has the longest-waiting link:\n{open(md).read() if os.path.exists(md) else r.stderr}")
        fams = check_prometheus(prom, "diagnose --import-profile")
        waits = {s.labels["rank"]: s.value for s in fams["fabscope_nccl_network_wait_seconds"].samples}
        # The replay's waits are sleeps: on a loaded 2-core machine the others' grow, so the
        # ratio is held loosely here (the finding above checks the factor).
        others = sorted(v for k, v in waits.items() if k != "2")
        if len(waits) != 4 or max(waits, key=waits.get) != "2" or not 2 <= waits["2"] / others[1] <= 5:
            fail(f"Prometheus: each sending link's network wait per call: {waits}")
        html_text = open(html).read()
        if 'id="nccl-profile"' not in html_text or "mlx5_0" not in html_text:
            fail("the HTML report has the NCCL wait section")
        # Without the log: the same waits, the NIC unknown, and said so.
        p = run([args.fabscope, "diagnose", "--import-profile", prof, "--json", out])
        doc = check_valid(v, out)
        if p.returncode != 0 or "no NCCL log joined" not in doc["nccl_profile"]["detail"] or \
                any(l["nic"] for l in doc["nccl_profile"]["points"][0]["links"]):
            fail(f"without --nccl-log: {doc['nccl_profile']['detail']}")
        # Bad inputs: exit 2, the value named, nothing written.
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        foreign = os.path.join(tmp, "foreign")
        os.mkdir(foreign)
        with open(os.path.join(foreign, "fabscope-profile-x.json"), "w") as f:
            json.dump({"results": [], "config": {}}, f)
        cut = os.path.join(tmp, "cut")
        os.mkdir(cut)
        with open(os.path.join(cut, "fabscope-profile-y.json"), "w") as f:
            f.write(open(os.path.join(prof, sorted(os.listdir(prof))[0])).read()[:300])
        bad_out = os.path.join(tmp, "bad.json")
        for argv, expect in [
                (["--import-profile", os.path.join(tmp, "nope")], "nope"),
                (["--import-profile", empty], "FABSCOPE_PROFILE_DIR"),
                (["--import-profile", foreign], "not a profile of fabscope's NCCL profiler plugin"),
                (["--import-profile", cut], "fabscope-profile-y.json"),
                (["--import-profile", prof, "--nccl-log", os.path.join(tmp, "nolog")], "nolog"),
                (["--nccl-log", log], "goes with --import-profile"),
                (["--import-profile", prof, "--json", os.path.join(tmp, "no", "dir.json")], "dir.json")]:
            p = run([args.fabscope, "diagnose"] + argv + ([] if "--json" in argv else ["--json", bad_out]))
            if p.returncode != 2 or expect not in p.stderr or os.path.exists(bad_out):
                fail(f"diagnose {argv}: exit {p.returncode}, expected 2 and '{expect}', nothing written:\n{p.stderr}")
    # --nccl-profile needs the nccl backend.
    for cmd in (["sweep", "allreduce", "-b", "8", "-e", "8", "-n", "1"], ["diagnose", "--budget", "5"]):
        p = run(mpirun(args, 1, *cmd, "--nccl-profile", "--backend", "tcp"))
        if p.returncode != 2 or "--nccl-profile profiles NCCL and needs --backend nccl" not in p.stderr:
            fail(f"{cmd[0]} --nccl-profile --backend tcp: exit {p.returncode}\n{p.stderr}")
    print("ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["sweep", "bad-input", "schema", "p2p", "topo", "report-mutations", "history",
                                        "diagnose", "diagnose-one-rank", "compare", "import", "faults", "hostile-env", "memory", "cli-fuzz",
                                           "triage", "render", "nccl-profile"])
    ap.add_argument("--fabscope", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--schema", required=True)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--backend", default="mpi")
    ap.add_argument("--mutations", type=int, default=400)
    ap.add_argument("--count", type=int, default=150, help="cli-fuzz: command lines to try")
    ap.add_argument("--seed", type=int, default=1, help="cli-fuzz: the random sequence")
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
    args = ap.parse_args()
    {"sweep": cmd_sweep, "bad-input": cmd_bad_input, "history": cmd_history, "schema": cmd_schema, "p2p": cmd_p2p,
     "topo": cmd_topo,
     "report-mutations": cmd_report_mutations, "diagnose": cmd_diagnose,
     "diagnose-one-rank": cmd_diagnose_one_rank, "compare": cmd_compare,
     "import": cmd_import, "faults": cmd_faults, "hostile-env": cmd_hostile_env,
     "memory": cmd_memory, "cli-fuzz": cmd_cli_fuzz, "triage": cmd_triage,
     "render": cmd_render, "nccl-profile": cmd_nccl_profile}[args.command](args)


if __name__ == "__main__":
    main()
