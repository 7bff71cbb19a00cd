#!/usr/bin/env python3
"""Every collective against the physical limit of the links (issue 23).

Brings up the project's virtual cluster (test/vcluster/vcluster.sh, root) with every
host's link limited to one rate in both directions (--rate-all: a switch whose ports all
run at it), runs every collective of fabscope's own engine (tcp backend) and the same
through the mpi backend (Open MPI over TCP, for reference) at one size with verification
on, and prints bus bandwidth / link rate per collective, out of place and in place. The
limit is 1.0 for every collective: the bus-bandwidth factor counts what each host's one
link must carry. Several rates show whether the ratio depends on the rate. Over TCP
the payload can reach at most 1448/1514 = 0.956 of a link's rate (Ethernet, IP and TCP
headers with timestamps, 1500-byte MTU): that is the practical ceiling.

  sudo python3 bench/link_limit.py --fabscope build/release/fabscope \\
      [--hosts 4,8] [--rates 400,200] [--backends tcp,mpi] [--size 16M] [--iters 10] [--warmup 5]
      [--tcp-cc default|host|NAME] [--idle-restart on|off] [--json out.json]

--tcp-cc is passed to fabscope's --tcp-cc: `default` (the default) passes nothing, so the
engine runs fabscope's own default (cubic, since issue 36); `host` keeps the host's, which
is bbr on the development machine (see bench/README); a name sets that one. Open MPI's
connections always use the host's.
--idle-restart on (the default, the kernel's) leaves net.ipv4.tcp_slow_start_after_idle=1
in every host, as a user's hosts have it; off sets it to 0, as HPC hosts are often tuned:
all-to-all's rounds leave each connection idle for most of an iteration, and with it on
each round may restart in slow start against the round trip of a loaded port (bench/README).

Each (hosts, rate) pair is one cluster; each collective one mpirun inside it.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

COLLECTIVES = ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"]


def measure(a, hosts, rate_mbit, tmp):
    """One cluster of `hosts` at `rate_mbit`: every collective and backend; {(coll, backend): (oop, ip)}."""
    lines = ['mapfile -t MPI < "$VC_MPIRUN_ARGS"', "set -e"]
    runs = []
    for backend in a.backends:
        for coll in COLLECTIVES:
            out = os.path.join(tmp, f"{hosts}-{rate_mbit}-{backend}-{coll}.json")
            argv = [a.fabscope, "sweep", coll, "-b", a.size, "-e", a.size, "-n", str(a.iters), "-w", str(a.warmup),
                    "--backend", backend, "--json", out]
            if backend == "tcp" and a.tcp_cc != "default":
                argv += ["--tcp-cc", a.tcp_cc]
            lines.append('"${MPI[@]}" -np %d %s >/dev/null' % (hosts, " ".join(shlex.quote(x) for x in argv)))
            runs.append((coll, backend, out))
    cmd = ["bash", a.vcluster, "run", str(hosts), "--rate-all", f"{rate_mbit}mbit"]
    if a.idle_restart == "off":
        cmd += ["--sysctl", "net.ipv4.tcp_slow_start_after_idle=0"]
    cmd += ["--", "bash", "-c", "\n".join(lines)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        sys.exit(f"the cluster run failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    link_gbps = rate_mbit * 1e6 / 8 / 1e9  # GB/s, as busbw is
    got = {}
    for coll, backend, out in runs:
        with open(out) as f:
            pt = json.load(f)["sweeps"][0]["points"][0]
        got[(coll, backend)] = tuple(pt[k]["busbw_gbps"] / link_gbps if pt.get(k) else None
                                     for k in ("out_of_place", "in_place"))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabscope", default="build/release/fabscope")
    ap.add_argument("--vcluster", default=os.path.join(os.path.dirname(__file__), "..", "test", "vcluster",
                                                       "vcluster.sh"))
    ap.add_argument("--hosts", default="4,8", help="host counts, comma separated (default 4,8)")
    ap.add_argument("--rates", default="400,200", help="link rates in Mbit/s, comma separated (default 400,200)")
    ap.add_argument("--backends", default="tcp,mpi")
    ap.add_argument("--size", default="16M")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--tcp-cc", default="default",
                    help="fabscope's --tcp-cc: default (pass nothing: fabscope's default, cubic), host, or a name")
    ap.add_argument("--idle-restart", default="on", choices=["on", "off"],
                    help="net.ipv4.tcp_slow_start_after_idle in every host (default on: 1, the kernel's)")
    ap.add_argument("--json", help="write the ratios here")
    a = ap.parse_args()
    try:
        hosts = [int(x) for x in a.hosts.split(",")]
        rates = [int(x) for x in a.rates.split(",")]
    except ValueError:
        sys.exit(f"--hosts {a.hosts!r} and --rates {a.rates!r} must be comma-separated integers")
    a.backends = a.backends.split(",")
    if any(b not in ("tcp", "mpi") for b in a.backends):
        sys.exit(f"--backends {a.backends}: tcp, mpi")
    check = subprocess.run(["bash", a.vcluster, "check"], capture_output=True, text=True)
    if check.returncode != 0:
        sys.exit(f"the virtual cluster cannot run here: {check.stdout.strip()}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in hosts:
            for r in rates:
                results[(n, r)] = measure(a, n, r, tmp)
    cols = [(n, r) for n in hosts for r in rates]
    print(f"# bus bandwidth / link rate, {a.size}, {a.iters} iterations after {a.warmup} warm-up, verification on "
          f"(out of place / in place); tcp congestion control: {a.tcp_cc}, slow start after idle: {a.idle_restart}; "
          f"ceiling over TCP: 0.956")
    print(f"# {'collective':<14} {'backend':<8}" + "".join(f"{f'{n} hosts {r} Mbit/s':>22}" for n, r in cols))
    fmt = lambda v: "-" if v is None else f"{v:.3f}"
    for backend in a.backends:
        for coll in COLLECTIVES:
            cells = "".join(f"{fmt(results[c][(coll, backend)][0]) + ' / ' + fmt(results[c][(coll, backend)][1]):>22}"
                            for c in cols)
            print(f"  {coll:<14} {backend:<8}{cells}")
    if a.json:
        doc = [{"hosts": n, "rate_mbit": r, "collective": coll, "backend": be, "out_of_place": v[0], "in_place": v[1]}
               for (n, r), got in results.items() for (coll, be), v in got.items()]
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
