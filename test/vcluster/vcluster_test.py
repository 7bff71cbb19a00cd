#!/usr/bin/env python3
"""fabscope across hosts, on the virtual cluster (vcluster.sh), with faults we inject.

  vcluster_test.py sweeps   sweeps over tcp and mpi across 4 hosts complete and verify;
                            topo gathers every host's topology
  vcluster_test.py slow     one host rate-limited to a tenth: its links are the slowest,
                            it is named, and no other link is flagged
  vcluster_test.py slowlink the traffic between two hosts only limited to a tenth: p2p
                            --retest names that link (both directions, slow alone too),
                            no host, and drains its two hosts
  vcluster_test.py noise    iperf3 between two hosts: their link shows lower bandwidth
                            and more variance than a quiet run, and the counters show
                            bytes fabscope did not send
  vcluster_test.py sample_schedule  8 hosts under two leaves (--fabric), one slow: p2p --schedule sample
                            finds it within 4 rounds plus suspects; diagnose --schedule rail too

  vcluster_test.py diagnose_slowlink   diagnose on 6 hosts, the link between two limited to a
                            tenth: at least 70% of the excess is that link (the busiest in the
                            engine's trace), nothing else flagged
  vcluster_test.py diagnose_budget_offring   6 hosts, the link between two that are not ring neighbours at a
                            fortieth, --budget 25: the run holds its budget (the slow link's flows move what
                            they can in the round's time), names the link first and drains its hosts
                            (diagnose_budget_offring_60s, diagnose_budget_ring_60s: the issue's 6 hosts and 60 s)
  vcluster_test.py diagnose_slowhost   one host limited: the host is named, not its links one by one
  vcluster_test.py diagnose_noise      iperf3 between two hosts: counters.foreign_traffic names them; the
                            attribution names them as noise (foreign bytes and variation as
                            evidence) whenever the repeats vary, and never a link, host or rank
  vcluster_test.py diagnose_straggler  rank 3's process stopped and continued from outside, over
                            and over: rank.straggler names it, it holds the largest share, no
                            link or host is blamed, and the verdict passes
  vcluster_test.py same_hostname       every host called 'node' (cloned images): the nodes are told apart by
                                       MPI, the tcp backend connects over the cluster, the report names node#0..2
  vcluster_test.py diagnose_healthy    two runs on a quiet cluster (tcp, mpi): pass, and no
                            warning or error about a link, host or rank
  vcluster_test.py compare_gate        the CI gate: two quiet sweeps compare as a pass; a sweep
                            with one host limited to a tenth fails it (exit 1), naming
                            allreduce and its sizes in the findings and in JUnit

Exits 77 (skipped, with the reason) where this machine cannot host the cluster.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import jsonschema

SKIP = 77


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


class Cluster:
    def __init__(self, args, tmp):
        self.a = args
        self.tmp = tmp
        with open(args.schema) as f:
            self.validator = jsonschema.Draft202012Validator(json.load(f))

    def run(self, hosts, fabscope_runs, faults=(), verdict_fail=False, any_verdict=False, preamble=(), env=None,
            lines=(), timeout=240):
        """Brings up `hosts`, runs each fabscope argument list under mpirun there, tears down.
        With verdict_fail, each run must end with exit 1 (ran, verdict fail); with
        any_verdict, with 0 or 1 (a measurement whose judgement does not matter); else with 0.
        `lines`: shell lines run after those (\"$FABSCOPE\" is the binary, MPI the launcher)."""
        script = ['mapfile -t MPI < "$VC_MPIRUN_ARGS"', "set -e", f"FABSCOPE={shlex.quote(self.a.fabscope)}",
                  *preamble]
        for argv in fabscope_runs:
            line = '"${MPI[@]}" -np %d %s %s' % (hosts, shlex.quote(self.a.fabscope),
                                                 " ".join(shlex.quote(x) for x in argv))
            if verdict_fail:
                script.append(f"if {line}; then echo 'exit 0 where the verdict must fail'; exit 3; "
                              "elif [ $? -ne 1 ]; then exit 2; fi")
            elif any_verdict:
                script.append(f"{line} || [ $? -eq 1 ]")
            else:
                script.append(line)
        script.extend(lines)
        cmd = ["bash", self.a.vcluster, "run", str(hosts), *faults, "--", "bash", "-c", "\n".join(script)]
        print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
        if p.returncode != 0:
            fail(f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        return p.stdout

    def report(self, name):
        with open(os.path.join(self.tmp, name)) as f:
            doc = json.load(f)
        errors = list(self.validator.iter_errors(doc))
        if errors:
            fail(f"{name} does not match the schema: {errors[0].message} at {list(errors[0].path)}")
        return doc

    def path(self, name):
        return os.path.join(self.tmp, name)


def sweeps(c):
    runs = []
    for backend in ("tcp", "mpi"):
        runs.append(["sweep", "all", "-b", "8", "-e", "1M", "-f", "8", "-n", "2", "-c", "1", "-d", "float,int32",
                     "-o", "sum,max", "-r", "3", "--backend", backend, "--json", c.path(f"{backend}.json")])
    runs.append(["topo", "--json", c.path("topo.json")])
    c.run(4, runs)
    # topo across the 4 hosts: one entry per host, each with its rank's binding; the
    # hosts are alike (the same machine), so none is pointed out as different.
    topo = c.report("topo.json")
    hosts = topo["topology"]["hosts"]
    if sorted(h["host"] for h in hosts) != sorted(topo["context"]["hosts"]) or len(hosts) != 4:
        fail(f"topo: expected the 4 hosts, got {[h['host'] for h in hosts]}")
    if any(len(h["ranks"]) != 1 or not h["numa"] for h in hosts):
        fail("topo: each host needs its NUMA nodes and its one rank's binding")
    if any(f["code"] == "topo.host_differs" for f in topo["findings"]) or topo["verdict"]["result"] != "pass":
        fail(f"topo: alike hosts flagged: {topo['findings']}")
    for backend in ("tcp", "mpi"):
        doc = c.report(f"{backend}.json")
        if len(doc["context"]["hosts"]) != 4:
            fail(f"{backend}: expected 4 hosts, got {doc['context']['hosts']}")
        if backend == "tcp" and "198.18." not in doc["context"]["backend_library"]:
            fail(f"tcp did not use the cluster's addresses: {doc['context']['backend_library']}")
        checked = 0
        for s in doc["sweeps"]:
            for pt in s["points"]:
                for pl in ("out_of_place", "in_place"):
                    if pt[pl]["wrong"] != 0:
                        fail(f"{backend} {s['collective']} {pt['size_bytes']} {pl}: wrong={pt[pl]['wrong']}")
                    checked += 1
        if doc["verdict"]["result"] != "pass" or checked < 100:
            fail(f"{backend}: verdict {doc['verdict']}, {checked} checked results")
        # Interface counters around each sweep, from every host, with its eth0 moving bytes.
        sampled = {s["host"] for s in doc["counters"] if any(i["name"] == "eth0" and i["rx_bytes"] > 0
                                                             for i in s["interfaces"])}
        if sampled != set(doc["context"]["hosts"]) or len(doc["counters"]) != 4 * len(doc["sweeps"]):
            fail(f"{backend}: counters not sampled on every host around every sweep: {sorted(sampled)}")
    print("ok")


def links_of(doc):
    return doc["p2p"]["links"]


def share_of_quiet(c, what, divisor=10):
    """1/divisor (a tenth by default) of the quiet cluster's median ring link, in Mbit/s:
    the rate a fault gets."""
    # Only the median matters here: on this 2-core machine one quiet link is now and then
    # below half of it (a p2p.slow_link finding, exit 1), which does not move the median.
    quiet_args = ["p2p", "--pattern", "ring", "-s", "1M", "-n", "30", "-w", "4", "--window", "8"]
    c.run(4, [quiet_args + ["--json", c.path("quiet.json")]], any_verdict=True)
    quiet = statistics.median(l["bw_gbps"] for l in links_of(c.report("quiet.json")))
    rate_mbit = max(10, int(quiet * 8000 / divisor))
    print(f"quiet ring median {quiet:.3f} GB/s; {what} limited to {rate_mbit} Mbit/s")
    return rate_mbit


def slow(c):
    rate_mbit = share_of_quiet(c, "host 2")
    # 100 MiB per link: tens of milliseconds on a healthy link, long enough that one
    # scheduler hiccup on this 2-core machine does not halve a link's average (with 20
    # messages, a healthy link was flagged now and then, with this build and the last).
    # The host's congestion control (bbr here), not fabscope's default cubic: the healthy
    # links of this cluster are bound by its 2 cores, not by a link, and cubic's bursts
    # share the cores unevenly (one healthy link at 0.72 GB/s beside one at 1.58, flagged
    # p2p.slow_link; issue 36). Over rate-limited links cubic reads them evenly
    # (bench/link_limit.py).
    cc = ["--tcp-cc", "host"]
    # --retest: a healthy link caught in a scheduler stall (one in a CI run here, at a
    # moment when the quiet ring ran at half its usual 3 GB/s) is measured again alone and
    # read as p2p.congested_link, a warning that drains nothing, not as a slow link.
    c.run(4, [["p2p", "--pattern", "ring", "-s", "1M", "-n", "100", "-w", "4", "--window", "8", *cc, "--retest",
               "--json", c.path("ring.json")],
              ["p2p", "--pattern", "pairs", "-s", "1M", "-n", "100", "-w", "2", "--window", "8", *cc, "--retest",
               "--json", c.path("pairs.json")]],
          faults=["--slow", "2", f"{rate_mbit}mbit"], verdict_fail=True)
    for name in ("ring.json", "pairs.json"):
        doc = c.report(name)
        slow_host = doc["context"]["ranks"][2]["host"]
        if doc["verdict"]["result"] != "fail" or doc["verdict"]["drain"] != [slow_host]:
            fail(f"{name}: a slow host must fail the verdict and be the one host to drain: {doc['verdict']}")
        touching = [l["bw_gbps"] for l in links_of(doc) if slow_host in (l["src_host"], l["dst_host"])]
        avoiding = [l["bw_gbps"] for l in links_of(doc) if slow_host not in (l["src_host"], l["dst_host"])]
        ratio = statistics.median(touching) / statistics.median(avoiding)
        print(f"{name}: host {slow_host} links {touching}, others {avoiding}, ratio {ratio:.3f}")
        if max(touching) >= min(avoiding):
            fail(f"{name}: the slow host's links are not the slowest")
        if ratio > 0.3:
            fail(f"{name}: slow host at {ratio:.2f} of the others, expected about 0.1")
        codes = [(f["code"], f["subject"]) for f in doc["findings"]]
        if ("p2p.slow_host", f"host {slow_host}") not in codes:
            fail(f"{name}: no p2p.slow_host finding for {slow_host}: {codes}")
        others = [x for x in codes if x[0].startswith("p2p.") and x != ("p2p.slow_host", f"host {slow_host}")
                  and x[0] != "p2p.congested_link"]
        if others:
            fail(f"{name}: other links or hosts flagged: {others}")
    print("ok")


def slowlink(c):
    rate_mbit = share_of_quiet(c, "the link between hosts 1 and 2")
    # The host's congestion control, as in slow(): cubic over core-bound links read a
    # healthy host slow once in CI (issue 36).
    c.run(4, [["p2p", "--pattern", "pairs", "-s", "1M", "-n", "100", "-w", "2", "--window", "8", "--tcp-cc", "host", "--retest",
               "--json", c.path("pairs.json")]],
          faults=["--slow-link", "1", "2", f"{rate_mbit}mbit"], verdict_fail=True)
    doc = c.report("pairs.json")
    ranks = doc["context"]["ranks"]
    h1, h2 = ranks[1]["host"], ranks[2]["host"]
    slow = {(l["src_rank"], l["dst_rank"]): l["bw_gbps"] for l in links_of(doc)}
    others = [bw for k, bw in slow.items() if k not in ((1, 2), (2, 1))]
    print(f"1->2 {slow[(1, 2)]:.3f}, 2->1 {slow[(2, 1)]:.3f}, others {sorted(others)}")
    if max(slow[(1, 2)], slow[(2, 1)]) >= min(others):
        fail("the limited link is not the slowest")
    codes = sorted((f["code"], f["subject"]) for f in doc["findings"] if f["code"].startswith("p2p."))
    want = sorted([("p2p.slow_link", f"link 1 -> 2 ({h1} -> {h2})"), ("p2p.slow_link", f"link 2 -> 1 ({h2} -> {h1})")])
    if codes != want:
        fail(f"want exactly the two directions of the slow link, got {codes}")
    alone = {(l["src_rank"], l["dst_rank"]) for l in doc["p2p"]["alone"]}
    if alone != {(1, 2), (2, 1)}:
        fail(f"--retest should measure exactly the two suspects alone, measured {sorted(alone)}")
    for f in doc["findings"]:
        if f["code"] == "p2p.slow_link" and not f["evidence"]["alone"] < 0.5 * f["evidence"]["reference"]:
            fail(f"the link must be slow alone too: {f['evidence']}")
    if doc["verdict"]["drain"] != sorted([h1, h2]):
        fail(f"drain the link's two hosts: {doc['verdict']}")
    print("ok")


def noise(c):
    # Two hosts, so no idle rank competes for this small machine's cores, and host 1's
    # link capped in both runs, so that the link and not the CPU bounds the transfer.
    # The host's congestion control, as the neighbour's iperf3 has: under fabscope's default
    # cubic against the neighbour's bbr the link read 0.83 of quiet, not below 0.8 (issue 36).
    args = ["p2p", "--pair", "0,1", "-s", "1M", "-n", "40", "-w", "8", "--window", "8", "--repeats", "12",
            "--tcp-cc", "host"]
    link = ["--slow", "1", "1600mbit"]
    c.run(2, [args + ["--json", c.path("quiet.json")]], faults=link)
    c.run(2, [args + ["--json", c.path("noisy.json")]], faults=link + ["--noise", "0", "1"])
    q, n = c.report("quiet.json"), c.report("noisy.json")
    qb = [l["bw_gbps"] for l in links_of(q)]
    nb = [l["bw_gbps"] for l in links_of(n)]
    q_cv = statistics.stdev(qb) / statistics.mean(qb)
    n_cv = statistics.stdev(nb) / statistics.mean(nb)
    print(f"quiet {statistics.mean(qb):.3f} GB/s (cv {q_cv:.3f}), noisy {statistics.mean(nb):.3f} GB/s (cv {n_cv:.3f})")
    if statistics.mean(nb) >= 0.8 * statistics.mean(qb):
        fail("the noisy link is not clearly slower than the quiet one")
    if n_cv <= q_cv:
        fail("the noisy link does not vary more than the quiet one")
    # The counters show bytes that fabscope did not send, on the noisy hosts only.
    hosts = [r["host"] for r in n["context"]["ranks"]]
    flagged = {f["subject"] for f in n["findings"] if f["code"] == "counters.foreign_traffic"}
    if not flagged or not flagged <= {f"host {hosts[0]}", f"host {hosts[1]}"}:
        fail(f"counters.foreign_traffic should name host 0 and/or 1 only: {flagged}")
    if any(f["code"] == "counters.foreign_traffic" for f in q["findings"]):
        fail("the quiet run reports foreign traffic")
    sent = [s for s in n["counters"] if s["host"] == hosts[0]]
    eth_tx = sum(i.get("tx_bytes", 0) for s in sent for i in s["interfaces"] if i["name"] != "lo")
    fab_tx = sum(s["fabscope_tx_bytes"] for s in sent)
    print(f"host 0 interfaces sent {eth_tx} bytes while fabscope sent {fab_tx}")
    # The bound counters.foreign_traffic uses: TCP/IP and MPI overhead stay under 1.25x.
    if eth_tx <= 1.25 * fab_tx:
        fail("host 0's counters do not show the noise")
    print("ok")


# diagnose runs on 6 hosts: the issue asks for 6 or 8; 6 ranks of the tcp engine keep this
# 2-core machine's scheduling noise below what the link findings would flag.
DIAG_HOSTS = 6
DIAG_ARGS = ["diagnose", "-b", "1M", "-e", "4M", "--budget", "25"]
LINK_CODES = ("p2p.", "rank.", "counters.", "topo.")


def diagnose_doc(c, name, hosts=DIAG_HOSTS):
    doc = c.report(name)
    att = doc["attribution"]
    if len(att) != 1 or att[0]["collective"] != "allreduce":
        fail(f"{name}: one attribution for allreduce expected: {att}")
    a = att[0]
    shares = sum(e["share"] for e in a["entries"])
    if a["excess_us"] > 0 and abs(shares - 1) > 1e-6:
        fail(f"{name}: shares add up to {shares}, not 1: {a['entries']}")
    if [p["name"] for p in doc["diagnosis"]["timings"]] != ["topology", "collective", "links", "noise"]:
        fail(f"{name}: phases {doc['diagnosis']['timings']}")
    if len(doc["topology"]["hosts"]) != hosts or not doc["sweeps"] or not doc["p2p"]["links"]:
        fail(f"{name}: every phase's data belongs in the report")
    print(f"{name}: {a['measured_us']:.0f} us against {a['ideal_us']:.0f} us; "
          + ", ".join(f"{e['kind']} {e['subject']} {e['share']:.2f}" for e in a["entries"]))
    return doc, a


def flagged(doc, severities=("warning", "error")):
    return sorted((f["code"], f["subject"]) for f in doc["findings"]
                  if f["severity"] in severities and f["code"].startswith(LINK_CODES))


def diagnose_slowlink(c):
    # A twentieth: the quiet rate is measured on 4 hosts, and diagnose's 6 share the 2 cores, so
    # their links run below it; at a tenth, the CI run of 960d2a8 read the slowed link at 0.55 of
    # the median, past p2p.slow_link's half, in both tries.
    rate_mbit = share_of_quiet(c, "the link between hosts 1 and 2", divisor=20)
    # tcp with the host's congestion control, as in diagnose_healthy: with cubic, the CI run of
    # 3ceac06 flagged three and five links beside the slowed one, in both of its tries.
    c.run(DIAG_HOSTS, [DIAG_ARGS + ["--backend", "tcp", "--tcp-cc", "host", "--json", c.path("d.json")]],
          faults=["--slow-link", "1", "2", f"{rate_mbit}mbit"], verdict_fail=True)
    doc, a = diagnose_doc(c, "d.json")
    ranks = doc["context"]["ranks"]
    h1, h2 = ranks[1]["host"], ranks[2]["host"]
    top = a["entries"][0]
    if top["kind"] != "link" or top["ranks"] != [1, 2] or top["share"] < 0.7:
        fail(f"at least 70% of the excess must be link 1 -> 2: {top}")
    # Over the tcp engine the link's part is measured from the trace: it was the busiest.
    busy = {(b["src_rank"], b["dst_rank"]): b["busy_us"] for b in doc["diagnosis"]["link_busy"]}
    if a["method"] != "engine_trace" or max(busy, key=busy.get) != (1, 2):
        fail(f"the engine's trace must find link 1 -> 2 busiest: {a['method']} {busy}")
    if any(e["kind"] in ("link", "host", "rank") for e in a["entries"][1:]):
        fail(f"no other link, host or rank may be blamed: {a['entries']}")
    want = sorted([("p2p.slow_link", f"link 1 -> 2 ({h1} -> {h2})"), ("p2p.slow_link", f"link 2 -> 1 ({h2} -> {h1})")])
    if flagged(doc) != want:
        fail(f"want exactly the slow link's two directions flagged, got {flagged(doc)}")
    if doc["verdict"]["drain"] != sorted([h1, h2]):
        fail(f"drain the link's two hosts: {doc['verdict']}")
    print("ok")


def diagnose_small_budget(c):
    """A fabric too slow for the budget to hold every size (issue 39): 3 hosts, the link
    between hosts 1 and 2 at 40 Mbit/s, 256 KiB to 4 MiB in --budget 10. Calibrating the sizes
    takes more than the collective's share; diagnose keeps the smaller sizes, names the
    slow link at the largest kept, and says which sizes it left out and the budget that would
    measure them (it refused before: exit 2)."""
    c.run(3, [["diagnose", "-b", "256K", "-e", "4M", "--budget", "10", "--backend", "tcp",
               "--json", c.path("d.json")]], faults=["--slow-link", "1", "2", "40mbit"], verdict_fail=True)
    doc = c.report("d.json")
    notes = [n for n in doc["verdict"]["not_judged"] if "--budget 10 s holds the collective phase up to" in n]
    if len(notes) != 1 or "4 MiB" not in notes[0] or "give --budget" not in notes[0]:
        fail(f"the sizes left out, and the budget that would measure them: {doc['verdict']['not_judged']}")
    largest = max(p["size_bytes"] for s in doc["sweeps"] for p in s["points"])
    a = doc["attribution"][0]
    if largest >= 4 << 20 or a["size_bytes"] != largest:
        fail(f"measured up to {largest}, attributed at {a['size_bytes']}: the largest kept size")
    # On 3 hosts a link's two ends are two of the three hosts: the link, or one of its hosts
    # with the link as evidence, holds the excess.
    top = a["entries"][0]
    named = (top["kind"] == "link" and sorted(top["ranks"]) == [1, 2]) or \
        (top["kind"] == "host" and str(top["evidence"].get("link", "")).startswith("link 1 -> 2"))
    if not named or top["share"] < 0.7:
        fail(f"the slow link must hold the excess: {a['entries']}")
    print(f"kept up to {largest} bytes; {top['kind']} {top['subject']} {top['share']:.2f}; {notes[0]}")
    print("ok")


def budget_held(c, hosts, pair, args, budget):
    """Issue 39 item 5: one link at a fortieth of the quiet cluster's, diagnose under `budget`: the
    run ends within it (its phases within the budget, the whole run within it plus start-up and
    analysis), names the link in the answer's first lines, and drains its two hosts. The link's
    flows are bounded by the round's time: they moved fewer messages than the others."""
    rate_mbit = share_of_quiet(c, f"the link between hosts {pair[0]} and {pair[1]}", divisor=40)
    t0 = time.monotonic()
    out = c.run(hosts, [["diagnose", "--backend", "tcp", *args, "--json", c.path("d.json")]],
                faults=["--slow-link", str(pair[0]), str(pair[1]), f"{rate_mbit}mbit"], verdict_fail=True, timeout=600)
    wall = time.monotonic() - t0
    doc = c.report("d.json")
    phases = sum(p["seconds"] for p in doc["diagnosis"]["timings"])
    print(f"wall {wall:.1f} s, phases {phases:.1f} s of --budget {budget}: "
          + ", ".join(f"{p['name']} {p['seconds']:.1f}" for p in doc["diagnosis"]["timings"]))
    if phases > budget or wall > budget * 1.1 + 15:
        fail(f"the budget was not held: phases {phases:.1f} s, the run {wall:.1f} s, --budget {budget}")
    ranks = doc["context"]["ranks"]
    a, b = (ranks[i]["host"] for i in pair)
    answer = out[out.index("# Diagnosis"):].splitlines()[:8]
    print("\n".join(answer))
    if not any(f"link {pair[0]} -> {pair[1]}" in l or f"link {pair[1]} -> {pair[0]}" in l for l in answer):
        fail("the answer's first lines must name the slow link")
    if doc["verdict"]["drain"] != sorted([a, b]):
        fail(f"drain the link's two hosts: {doc['verdict']}")
    slow = [l for l in doc["p2p"]["links"] if {l["src_rank"], l["dst_rank"]} == set(pair)]
    others = [l["iterations"] for l in doc["p2p"]["links"] if {l["src_rank"], l["dst_rank"]} != set(pair)]
    print(f"messages per flow: the slow link's {sorted(l['iterations'] for l in slow)}, the others' median "
          f"{statistics.median(others)}")
    return doc


def diagnose_budget_offring(c):
    """CI's size: the link between hosts 1 and 4 (not ring neighbours) at a fortieth, the other diagnose tests'
    sizes and --budget 25 (6 hosts: on 4, one host's three links are too few against this machine's noise)."""
    budget_held(c, DIAG_HOSTS, (1, 4), DIAG_ARGS[1:], 25)
    print("ok")


def diagnose_budget_offring_60s(c):
    """The issue's case: 6 hosts, link 1-4 (off the ring) at a fortieth, the default budget (60 s)."""
    budget_held(c, 6, (1, 4), [], 60)
    print("ok")


def diagnose_budget_ring_60s(c):
    """6 hosts, link 3-4 (ring neighbours) at a fortieth, the default budget (60 s)."""
    budget_held(c, 6, (3, 4), [], 60)
    print("ok")


def diagnose_slowhost(c):
    # A 20th: the quiet ring is 4 ranks at 1 MiB, the diagnosis's links 6 ranks at 512 KiB, bound
    # by the 2 cores at about a tenth of the ring (a CI run at af4861a: ring 3.75 GB/s, links
    # 0.39), so a tenth left host 2 as fast as the others and the run passed.
    rate_mbit = share_of_quiet(c, "host 2", divisor=20)
    # The host's congestion control, as in diagnose_slowlink: with cubic, the CI run of 92395aa
    # flagged an unrelated link beside the slow host in both of its tries.
    c.run(DIAG_HOSTS, [DIAG_ARGS + ["--backend", "tcp", "--tcp-cc", "host", "--json", c.path("d.json")]],
          faults=["--slow", "2", f"{rate_mbit}mbit"], verdict_fail=True)
    doc, a = diagnose_doc(c, "d.json")
    h2 = doc["context"]["ranks"][2]["host"]
    top = a["entries"][0]
    if top["kind"] != "host" or top["hosts"] != [h2] or top["share"] < 0.7:
        fail(f"the slow host must hold the excess: {top}")
    if flagged(doc) != [("p2p.slow_host", f"host {h2}")]:
        fail(f"the host, not its links one by one: {flagged(doc)}")
    if doc["verdict"]["drain"] != [h2]:
        fail(f"drain the slow host: {doc['verdict']}")
    print("ok")


def sample_schedule(c):
    """8 hosts under two leaves (a Slurm topology.conf), host 5 slow: p2p --schedule sample
    measures within the leaves, then across, then the suspects with more partners; the
    slow host is found and the rest of the host pairs are said to be inferred."""
    # A 25th, not a tenth: the rail diagnose below moves 64 KiB messages among 8 ranks on
    # 2 cores, whose healthy links are bound by the cores at a fraction of the quiet 4-rank
    # ring's 1 MiB rate (0.48 GB/s in one CI run, against a ring of 3.1), so a tenth (0.31)
    # left the slow host at 0.6 of the median, above p2p.slow_host's 0.5, and it passed.
    rate_mbit = share_of_quiet(c, "host 5", divisor=25)
    fabric = c.path("topology.conf")
    preamble = [f'set -- $VC_HOSTS; printf "SwitchName=leafA Nodes=%s,%s,%s,%s\\nSwitchName=leafB '
                f'Nodes=%s,%s,%s,%s\\nSwitchName=spine Switches=leafA,leafB\\n" "$@" > {shlex.quote(fabric)}']
    # The host's congestion control, as in slow(): 8 hosts' healthy links here are bound by
    # 2 cores, not by a link, and cubic shares the cores unevenly between them.
    cc = ["--tcp-cc", "host"]
    args = ["p2p", "--schedule", "sample", "--rounds", "4", "--fabric", fabric, "--mode", "bibw", "-s", "1M",
            "-n", "30", "-w", "4", "--window", "8", "--retest", *cc]
    c.run(8, [args + ["--json", c.path("s.json")],
              # Small chunks (-e 512K / 8 ranks: 64 KiB): the slow host's flows stay short.
              ["diagnose", "--schedule", "rail", "--phases", "links", "-b", "256K", "-e", "512K", "--budget", "8",
               "--backend", "tcp", *cc, "--json", c.path("r.json")]],
          faults=["--slow", "5", f"{rate_mbit}mbit"], verdict_fail=True, preamble=preamble)
    doc = c.report("s.json")
    cov = doc["p2p"]["coverage"]
    print(f"sample: {cov}")
    hosts = doc["context"]["hosts"]
    h5 = doc["context"]["ranks"][5]["host"]
    if [s["name"] for s in doc["fabric"]["switches"]] != ["leafA", "leafB", "spine"] or \
            doc["fabric"]["switches"][1]["hosts"] != hosts[4:]:
        fail(f"the fabric description belongs in the report: {doc['fabric']}")
    if cov["schedule"] != "sample" or cov["rounds"] != 4 or cov["intra_leaf_rounds"] != 2 or cov["hosts"] != 8 \
            or cov["host_pairs"] != 28:
        fail(f"4 rounds, the first 2 within the leaves (4 hosts each), of 28 host pairs: {cov}")
    if cov["adaptive_rounds"] < 1 or not 0 < cov["measured_host_pairs"] < 28:
        fail(f"the suspects get more partners, and not every pair is measured: {cov}")
    if cov["measured_host_pairs"] + cov["inferred_slow"] + cov["inferred_healthy"] + cov["unjudged"] != 28:
        fail(f"every pair not measured is judged or said unjudged: {cov}")
    if sum(1 for l in doc["p2p"]["links"] if h5 in (l["src_host"], l["dst_host"])
                                                 and l["round"] >= 4) < 2:
        fail(f"the slow host is a suspect: it gets partners after the sampled rounds: {cov}")
    measured = {tuple(sorted((l["src_host"], l["dst_host"]))) for l in doc["p2p"]["links"]}
    for a, b in measured:
        same_leaf = (hosts.index(a) < 4) == (hosts.index(b) < 4)
        rnd = min(l["round"] for l in doc["p2p"]["links"] if {l["src_host"], l["dst_host"]} == {a, b})
        if rnd < 2 and not same_leaf:
            fail(f"the first rounds stay within the leaves: {a} {b} in round {rnd}")
    if ("p2p.slow_host", f"host {h5}") not in flagged(doc):
        fail(f"the slow host must be found by the sample: {flagged(doc)}")
    rail = c.report("r.json")
    rcov = rail["p2p"]["coverage"]
    if rcov["schedule"] != "rail" or rcov["rounds"] != 7 or rcov["measured_host_pairs"] != 28:
        fail(f"diagnose --schedule rail measures every host pair in 7 rounds: {rcov}")
    if ("p2p.slow_host", f"host {h5}") not in flagged(rail):
        fail(f"diagnose must find the slow host: {flagged(rail)}")
    print("ok")


def diagnose_noise(c):
    # The host's congestion control, as in diagnose_healthy (an af4861a CI run read a quiet host's
    # links at half their peers' with cubic beside the neighbour).
    c.run(DIAG_HOSTS, [DIAG_ARGS + ["--backend", "tcp", "--tcp-cc", "host", "--json", c.path("d.json")]],
          faults=["--noise", "0", "1"])
    doc, a = diagnose_doc(c, "d.json")
    ranks = doc["context"]["ranks"]
    noisy = sorted([ranks[0]["host"], ranks[1]["host"]])
    foreign = sorted(f["hosts"][0] for f in doc["findings"] if f["code"] == "counters.foreign_traffic")
    if not foreign or not set(foreign) <= set(noisy):
        fail(f"counters.foreign_traffic must name hosts 0 and/or 1 only: {foreign}")
    noise = [e for e in a["entries"] if e["kind"] == "noise" and e["hosts"]]
    # On 2 cores the links are CPU-bound: the neighbour's bursts may slow every link alike
    # and leave the repeats steady. Then there is nothing to name the noise by, and the
    # attribution may leave it unexplained; where the repeats vary (attribution.h's
    # kNoiseCv), or where it names noise at all, the noisy hosts must be the ones named.
    varied = [r["cv"] for r in doc["diagnosis"]["collective_noise"]
              if r["size_bytes"] == a["size_bytes"] and r["cv"] >= 0.05 and a["measured_us"] > min(r["time_us"])]
    if noise:
        if not set(noise[0]["hosts"]) <= set(noisy):
            fail(f"the noisy hosts must be named as noise in the attribution: {a['entries']}")
        ev = noise[0]["evidence"]
        if not ev.get("foreign_bytes") or "link_cv" not in ev and "cv" not in ev:
            fail(f"the noise entry needs foreign bytes and variation as evidence: {ev}")
    elif varied:
        fail(f"the repeats varied (cv {varied}) beside foreign traffic: noise must be named: {a['entries']}")
    else:
        print("the neighbour slowed every link alike and the repeats were steady: nothing to name it by")
    if any(code.startswith(("p2p.slow", "rank.")) for code, _ in flagged(doc)):
        fail(f"noise is not a slow link, host or rank: {flagged(doc)}")
    print("ok")


def diagnose_straggler(c):
    # tcp with the host's congestion control, as in diagnose_healthy: cubic's bursts over links
    # bound by this machine's 2 cores read a quiet pair as a slow link now and then (a CI run
    # flagged 5->0 at 0.33 GB/s beside a median of 0.82).
    c.run(DIAG_HOSTS, [DIAG_ARGS + ["--backend", "tcp", "--tcp-cc", "host", "--json", c.path("d.json")]],
          faults=["--stop", "3"])
    doc, a = diagnose_doc(c, "d.json")
    h3 = doc["context"]["ranks"][3]["host"]
    stragglers = [f for f in doc["findings"] if f["code"] == "rank.straggler"]
    if [f["subject"] for f in stragglers] != [f"rank 3 on {h3}"]:
        fail(f"rank.straggler must name rank 3 alone: {[f['subject'] for f in stragglers]}")
    top = a["entries"][0]
    if top["kind"] != "rank" or top["ranks"] != [3]:
        fail(f"rank 3 must hold the largest share: {a['entries']}")
    if any(e["kind"] in ("link", "host") for e in a["entries"]):
        fail(f"no link or host may be blamed for a straggler: {a['entries']}")
    # No link or host is blamed: no error, and the verdict passes. (The link matrix does not
    # yet discount a stopped endpoint: its links can be p2p.congested_link warnings, slow
    # beside other flows while the rank was stopped, fine alone.)
    if flagged(doc, severities=("error",)) or doc["verdict"]["result"] != "pass":
        fail(f"no link or host may be flagged as faulty: {flagged(doc)} {doc['verdict']}")
    print("ok")


def diagnose_healthy(c):
    # tcp with the host's congestion control: as in slow(), cubic's bursts over links bound
    # by this machine's 2 cores read a healthy pair as congested now and then (CI, issue 36).
    cc = {"tcp": ["--tcp-cc", "host"], "mpi": []}
    runs = [DIAG_ARGS + ["--backend", b, *cc[b], "--json", c.path(f"h{i}.json")]
            for i, b in enumerate(["tcp", "mpi"])]
    c.run(DIAG_HOSTS, runs)
    for i in range(len(runs)):
        doc, a = diagnose_doc(c, f"h{i}.json")
        if doc["verdict"]["result"] != "pass" or flagged(doc):
            fail(f"run {i}: a quiet cluster must pass with nothing flagged: {doc['verdict']} {flagged(doc)}")
        if any(e["kind"] in ("link", "host", "rank") for e in a["entries"]):
            fail(f"run {i}: no link, host or rank may be blamed on a quiet cluster: {a['entries']}")
    print("ok")


def compare_gate(c):
    """The CI gate end to end: a baseline sweep on the quiet cluster, a second quiet one,
    and one with host 2 limited to a tenth. The quiet pair passes the gate; the slowed run
    fails it (exit 1) with allreduce and the sizes named, in the text and in JUnit."""
    import junitparser
    # From 1 MiB: below it an allreduce on these 4 ranks sharing 2 cores takes under a
    # millisecond, and a quiet run's 256 KiB row once halved against the other (CI, stop 32),
    # beyond the 50% threshold; at 1-4 MiB quiet runs differ by about 10%.
    # The host's congestion control, as in slow() and diagnose_healthy(): these 4 ranks' links
    # are bound by 2 cores, and cubic shares the cores unevenly from run to run (a quiet pair
    # once differed by 60% at 1 MiB, CI at 538b473).
    sweep = ["sweep", "allreduce", "-b", "1M", "-e", "4M", "-f", "2", "-n", "20", "--backend", "tcp",
             "--tcp-cc", "host"]
    c.run(4, [sweep + ["--json", c.path("base.json")], sweep + ["--json", c.path("again.json")]], any_verdict=True)
    # Host 2's link at a tenth of what the baseline's allreduce moved over each link (its
    # busbw at the largest size), not of a p2p ring link's rate: on these 2 cores the
    # allreduce is bound by the CPUs at a fraction of the links' rate, and a tenth of a
    # ring link once slowed it by only 45%, inside the gate's threshold (CI, stop 50).
    largest = max(c.report("base.json")["sweeps"][0]["points"], key=lambda p: p["size_bytes"])
    rate_mbit = max(10, int(largest["out_of_place"]["busbw_gbps"] * 8000 / 10))
    print(f"baseline allreduce busbw {largest['out_of_place']['busbw_gbps']:.3f} GB/s at "
          f"{largest['size_bytes']} B; host 2 limited to {rate_mbit} Mbit/s")
    c.run(4, [sweep + ["--json", c.path("slow.json")]], faults=["--slow", "2", f"{rate_mbit}mbit"], any_verdict=True)
    # A wide threshold: a tcp cluster of namespaces on 2 shared cores varies from run to
    # run by more than a real fabric would; a tenth of a link's rate is far beyond it.
    gate = ["--threshold", "50%"]
    quiet = subprocess.run([c.a.fabscope, "compare", c.path("base.json"), c.path("again.json"), *gate],
                           capture_output=True, text=True, timeout=60)
    print(quiet.stdout[-2500:])
    if quiet.returncode != 0:
        fail(f"two quiet runs must pass the gate: exit {quiet.returncode}\n{quiet.stdout}{quiet.stderr}")
    p = subprocess.run([c.a.fabscope, "compare", c.path("base.json"), c.path("slow.json"), *gate,
                        "--junit", c.path("gate.xml"), "--json", c.path("gate.json")],
                       capture_output=True, text=True, timeout=60)
    print(p.stdout[-2500:])
    if p.returncode != 1:
        fail(f"a host at a tenth of its rate must fail the gate: exit {p.returncode}\n{p.stdout}{p.stderr}")
    doc = c.report("gate.json")
    reg = sorted({r["size_bytes"] for r in doc["comparison"]["rows"] if r["verdict"] == "regression"})
    if 4 << 20 not in reg or any(r["collective"] != "allreduce" for r in doc["comparison"]["rows"]):
        fail(f"the largest size must regress: regressed sizes {reg}")
    finding = [f for f in doc["findings"] if f["code"] == "compare.regression"]
    if not finding or "allreduce" not in finding[0]["message"] or "4 MiB" not in finding[0]["message"]:
        fail(f"compare.regression must name the collective and sizes: {finding}")
    xml = junitparser.JUnitXml.fromfile(c.path("gate.xml"))
    failed = [case.name for suite in xml for case in suite if any(isinstance(r, junitparser.Failure)
                                                                   for r in case.result)]
    if "4 MiB busbw_gbps" not in failed:
        fail(f"JUnit must fail the 4 MiB row: {failed}")
    print("ok")


def same_hostname(c):
    """Cloned images: every host is called 'node'. MPI's shared-memory split tells the nodes apart: the tcp backend
    connects over the cluster's addresses (not loopback, where it waited 60 s before), and the report names each
    node 'node#K'."""
    runs = [["sweep", "allreduce", "alltoall", "-b", "8", "-e", "64K", "-f", "8", "-n", "2", "--backend", backend,
             "--timeout", "30", "--json", c.path(f"{backend}.json")] for backend in ("tcp", "mpi")]
    start = time.monotonic()
    c.run(3, runs, faults=("--same-hostname", "node"))
    took = time.monotonic() - start
    for backend in ("tcp", "mpi"):
        doc = c.report(f"{backend}.json")
        if doc["context"]["hosts"] != ["node#0", "node#1", "node#2"]:
            fail(f"{backend}: hosts {doc['context']['hosts']}, want node#0..node#2")
        if [r["host"] for r in doc["context"]["ranks"]] != ["node#0", "node#1", "node#2"]:
            fail(f"{backend}: ranks' hosts {doc['context']['ranks']}")
        if doc["verdict"]["result"] != "pass":
            fail(f"{backend}: verdict {doc['verdict']}")
    lib = c.report("tcp.json")["context"]["backend_library"]
    if "198.18." not in lib:
        fail(f"tcp did not use the cluster's addresses: {lib}")
    if took > 60:
        fail(f"the runs took {took:.0f} s: a rank waited for connections")
    print(f"ok ({took:.1f} s)")


# A soak as an acceptance run does it, on the tcp backend across 4 hosts: one size, many
# iterations per point (most of the wall time timed), cycles for SOAK_S seconds, rows
# timestamped, the JSON report.
SOAK_S = 60
SOAK_ARGS = ["sweep", "allreduce", "-b", "1M", "-e", "1M", "-n", "400", "-c", "0", "--backend", "tcp", "-S", "1"]


def codes(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


def soak_checks(doc, stdout):
    """What every soak report holds: cycles, intervals with every host's counters, each host's link watched,
    the table rows timestamped."""
    t = doc["timeline"]
    hosts = doc["context"]["hosts"]
    if t["cycles_completed"] < 3 or not t["intervals"]:
        fail(f"a {SOAK_S} s soak ran {t['cycles_completed']} cycles in {len(t['intervals'])} intervals")
    if not t["links_watched"] or sorted(l["host"] for l in t["links"] if l["link"] == "eth0") != sorted(hosts):
        fail(f"every host's eth0 must be watched: {[(l['host'], l['link']) for l in t['links']]}")
    seen = {h["host"] for iv in t["intervals"] for h in iv["hosts"]}
    if seen != set(hosts):
        fail(f"the intervals must carry every host's counters: {sorted(seen)}")
    rows = [l for l in stdout.splitlines() if l.strip() and not l.startswith("#") and l.split()[0] == "1048576"]
    if len(rows) < t["cycles_completed"] or any(not l.rstrip(" ~").endswith("Z") for l in rows):
        fail(f"-S: every cycle's row must end with its time: {rows[:3]}")
    return t


def soak_flap(c):
    events = c.path("events.log")
    down_at = round(SOAK_S * 5 / 12)  # 25 s into a 60 s soak, 12 s into a 30 s one
    out = c.run(4, [SOAK_ARGS + ["--duration", f"{SOAK_S}s", "--json", c.path("soak.json"),
                                 "--html", c.path("soak.html")]],
                faults=["--link-down", "2", str(down_at), "3"], env={"VC_EVENT_LOG": events}, verdict_fail=True)
    doc = c.report("soak.json")
    # What the run printed at its end, and `fabscope report` of its JSON: the timeline table and the link.
    again = subprocess.run([c.a.fabscope, "report", c.path("soak.json")], capture_output=True, text=True)
    for text, where in ((out, "the run's output"), (again.stdout, "fabscope report")):
        if "# Timeline:" not in text or " eth0: 1 flap, " not in text:
            fail(f"{where} lacks the timeline or the flapped link:\n{text[-2000:]}")
    with open(c.path("soak.html")) as f:
        html = f.read()
    if 'id="timeline"' not in html or "Links that went down" not in html or "Stalls" not in html:
        fail("the HTML report lacks the timeline section, its stalls or its link")
    t = soak_checks(doc, out)
    with open(events) as f:
        ev = dict(line.split() for line in f if line.strip())
    down, up = float(ev["down"]), float(ev["up"])
    host2 = doc["context"]["ranks"][2]["host"]
    flapped = [l for l in t["links"] if l["flaps"] > 0]
    print(f"link down {down:.2f} .. {up:.2f}; flapped {[(l['host'], l['link'], l['flaps'], l['downtime_s']) for l in flapped]}")
    if [(l["host"], l["link"]) for l in flapped] != [(host2, "eth0")]:
        fail(f"one flap, on {host2} eth0 only: {flapped}")
    if not 2.0 <= flapped[0]["downtime_s"] <= 4.5:
        fail(f"{host2} eth0 down {flapped[0]['downtime_s']} s; 3 s were injected")
    flaps = codes(doc, "link.flap")
    if [(f["subject"], f["severity"]) for f in flaps] != [(f"{host2} eth0", "error")]:
        fail(f"link.flap must name {host2} eth0 as an error: {flaps}")
    stalls = codes(doc, "sweep.stall")
    for s in stalls:
        print(f"stall: {s['message']}")
    starts = [st["start_unix_s"] for st in t["stalls"]]
    if not any(abs(x - down) <= 2 for x in starts):
        fail(f"no stall within 2 s of the link loss at {down:.2f}: stalls at {starts}")
    if not any(f"while {host2} eth0 was down" in s["message"] for s in stalls):
        fail("the stall must say which link was down")
    # Over the engine, the ranks' heartbeats said what they waited on: one of them on rank 2, over tcp.
    waits = [w for st in t["stalls"] for w in st.get("waits", [])]
    print(f"waits heard during the stalls: {waits}")
    if not any(f"rank 2 ({host2}), open " in w and ", over tcp 198.18." in w for w in waits):
        fail(f"a stall must name a rank's wait on rank 2 ({host2}) and its link: {waits}")
    if doc["verdict"]["result"] != "fail" or host2 not in doc["verdict"]["drain"]:
        fail(f"verdict: {doc['verdict']}")
    print("ok")


def soak_healthy(c):
    out = c.run(4, [SOAK_ARGS + ["--duration", f"{SOAK_S}s", "--json", c.path("soak.json")]])
    doc = c.report("soak.json")
    t = soak_checks(doc, out)
    bad = codes(doc, "sweep.stall") + codes(doc, "link.flap")
    if bad or t["stalls"] or any(l["flaps"] for l in t["links"]):
        fail(f"a healthy soak has no stall or flap: {[f['message'] for f in bad]}")
    if t["ended_by"] != "duration" or doc["verdict"]["result"] != "pass":
        fail(f"ended by {t['ended_by']}, verdict {doc['verdict']}")
    print(f"ok ({t['cycles_completed']} cycles, {len(t['intervals'])} intervals)")


def soak_sigterm(c):
    # mpirun passes SIGTERM on to every rank (and kills them a second or two later).
    args = " ".join(shlex.quote(x) for x in SOAK_ARGS + ["-N", "0", "--json", c.path("soak.json")])
    out = c.run(4, [], lines=[f'"${{MPI[@]}}" -np 4 "$FABSCOPE" {args} & pid=$!',
                              "sleep 8", 'kill -TERM "$pid"', 'set +e', 'wait "$pid"', 'echo "mpirun exit $?"'])
    print(out.strip().splitlines()[-1])
    doc = c.report("soak.json")
    t = doc["timeline"]
    if not t["ended_by"].startswith("signal SIGTERM") or t["cycles_completed"] < 1:
        fail(f"ended by {t['ended_by']} after {t['cycles_completed']} cycles")
    if not doc["sweeps"] or not doc["sweeps"][0]["points"] or not t["intervals"]:
        fail("the report must hold the first cycle and the intervals run")
    if not codes(doc, "run.interrupted"):
        fail(f"no run.interrupted finding: {[f['code'] for f in doc['findings']]}")
    print(f"ok ({t['cycles_completed']} cycles, ended by {t['ended_by']})")


def hang_cutoff(c):
    """The hang of issue 22: host 2 cut off from the others for 20 s, under --timeout 10. Within --timeout + 6 s
    of the cut, rank 0 writes the report of what was measured, ended by the watchdog, whose run.hang names rank 2
    as the silent one and what the ranks still answering waited on (the peer, the message open, the link); each
    survivor prints its own wait; the job ends with exit 4 and nothing is left beside the report."""
    events = c.path("events.log")
    cut_at, cut_for, timeout = 6, 20, 10
    args = " ".join(shlex.quote(x) for x in SOAK_ARGS + ["-N", "0", "--timeout", str(timeout),
                                                        "--json", c.path("hang.json")])
    out = c.run(4, [], faults=["--link-down", "2", str(cut_at), str(cut_for)], env={"VC_EVENT_LOG": events},
                lines=['set +e', f'"${{MPI[@]}}" -np 4 "$FABSCOPE" {args} 2>&1', 'echo "mpirun exit $?"'],
                timeout=300)
    print("\n".join(l[:400] for l in out.strip().splitlines() if "no progress" in l or "exit" in l))
    if "mpirun exit 0" in out:
        fail("a run the watchdog ended must not exit 0")
    doc = c.report("hang.json")
    with open(events) as f:
        down = float(dict(line.split() for line in f if line.strip())["down"])
    written = os.path.getmtime(c.path("hang.json"))
    host2 = doc["context"]["ranks"][2]["host"]
    t = doc["timeline"]
    print(f"report written {written - down:.1f} s after the cut; ended by {t['ended_by']}")
    print(f"run.hang: {t['hang']}")
    if t["ended_by"] != "watchdog" or not codes(doc, "run.hang"):
        fail(f"want a report ended by the watchdog with run.hang: {t['ended_by']}")
    if written - down > timeout + 6:
        fail(f"the report came {written - down:.1f} s after the cut, past --timeout {timeout} + 6 s")
    hang = t["hang"]
    if not hang.startswith("[r0 ") or f"rank 2 ({host2}, silent" not in hang:
        fail(f"rank 0's run.hang must name rank 2 ({host2}) as silent: {hang!r}")
    # The ranks still answering say what they wait on; one at least waits on rank 2, over tcp to its address.
    addr2 = "198.18."
    waits = re.findall(r"rank (\d) \([^)]*\) waits for (a [^;]*)", hang)
    if not waits or not any(f"from rank 2 ({host2})" in w or f"to rank 2 ({host2})" in w for _, w in waits):
        fail(f"run.hang must say who waits on rank 2, with the message: {hang!r}")
    if not all(", open " in w and f", over tcp {addr2}" in w for _, w in waits):
        fail(f"each wait names the message's age and the link: {waits}")
    survivors = [l for l in out.splitlines() if "no progress for" in l and not l.startswith("[r2 ")]
    if not any("this rank waits for a " in l for l in survivors):
        fail("the survivors must print what they wait on:\n" + "\n".join(survivors))
    if doc["verdict"]["result"] != "fail":
        fail(f"verdict {doc['verdict']}")
    left = sorted(f for f in os.listdir(c.tmp) if f.startswith("hang.json") and f != "hang.json")
    if left:
        fail(f"files left beside the report: {left}")
    print(f"ok ({len(waits)} waits named, {t['cycles_completed']} cycles before the cut)")


def main():
    global SOAK_S
    ap = argparse.ArgumentParser()
    tests = {"sweeps": sweeps, "slow": slow, "slowlink": slowlink, "noise": noise, "sample_schedule": sample_schedule,
             "diagnose_slowlink": diagnose_slowlink, "diagnose_slowhost": diagnose_slowhost,
             "diagnose_small_budget": diagnose_small_budget, "diagnose_budget_offring": diagnose_budget_offring,
             "diagnose_budget_offring_60s": diagnose_budget_offring_60s,
             "diagnose_budget_ring_60s": diagnose_budget_ring_60s,
             "diagnose_noise": diagnose_noise, "diagnose_straggler": diagnose_straggler,
             "diagnose_healthy": diagnose_healthy, "compare_gate": compare_gate,
             "same_hostname": same_hostname, "soak_flap": soak_flap, "soak_healthy": soak_healthy,
             "soak_sigterm": soak_sigterm, "hang_cutoff": hang_cutoff}
    ap.add_argument("test", choices=sorted(tests))
    ap.add_argument("--fabscope", required=True)
    ap.add_argument("--vcluster", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--soak-s", type=int, default=SOAK_S,
                    help=f"the soaks' length in seconds (default {SOAK_S}; CI runs them for 20)")
    a = ap.parse_args()
    SOAK_S = a.soak_s
    check = subprocess.run(["bash", a.vcluster, "check"], capture_output=True, text=True)
    if check.returncode != 0:
        print(f"SKIP: the virtual cluster cannot run here: {check.stdout.strip()} {check.stderr.strip()}")
        sys.exit(SKIP)
    if a.test in ("noise", "diagnose_noise") and subprocess.run(["sh", "-c", "command -v iperf3"], capture_output=True).returncode:
        print("SKIP: the noisy-neighbour test needs iperf3 (scripts/install-deps.sh installs it)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        tests[a.test](Cluster(a, tmp))


if __name__ == "__main__":
    main()
