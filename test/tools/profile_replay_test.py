#!/usr/bin/env python3
"""fabscope's NCCL profiler plugin driven by fabscope_profile_replay (no GPU), then read back.

overlap: steps of several channels in flight together, as NCCL's proxy keeps them. The
    report's wait per call is wall-clock: the union of the steps' intervals, within what the
    driver's own clock bracketed, and never more than a call took; the steps' sum (the old
    figure) is many times the call, so this fails with it.
sweep: every collective at the default size with its calls enqueued back to back, as the
    proxy sees them: no event is dropped, every operation and step the driver made is in
    the files.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"{' '.join(argv)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def profiles(d):
    files = sorted(glob.glob(os.path.join(d, "fabscope-profile-*.json")))
    if not files:
        fail(f"the plugin wrote nothing into {d}")
    return [json.load(open(f)) for f in files]


def cmd_overlap(args):
    channels, steps, wait_us, calls = 4, 8, 20000, 3
    with tempfile.TemporaryDirectory() as tmp:
        prof = os.path.join(tmp, "profile")
        os.mkdir(prof)
        seen = json.loads(run([args.replay, "overlap", args.plugin, prof, str(channels), str(steps), str(wait_us),
                               str(calls)]).stdout)
        [raw] = profiles(prof)
        if raw["dropped_events"] != 0:
            fail(f"dropped events: {raw['dropped_events']}")
        call_us = seen["call_us"] / calls  # the driver's clock: first event to last, per call
        out = os.path.join(tmp, "d.json")
        p = run([args.fabscope, "diagnose", "--import-profile", prof, "--json", out])
        doc = json.load(open(out))
        [point] = doc["nccl_profile"]["points"]
        if point["calls"] != calls:
            fail(f"{point['calls']} calls, expected {calls}")
        links = {l["direction"]: l for l in point["links"]}
        for direction, state in (("send", "SendWait"), ("recv", "RecvWait")):
            l = links[direction]
            wall = l["network_wall_us_per_call"]
            lo, hi = seen[f"{direction}_wall_lo_us"] / calls, seen[f"{direction}_wall_hi_us"] / calls
            # The steps' sum, as the plugin's bins have it (the figure the report showed before).
            summed = sum(b["states"].get(state, {}).get("ns", 0) for b in raw["bins"]
                         if b["direction"] == direction) / 1e3 / calls
            print(f"{direction}: wall {wall:.1f} us per call, the driver's union {lo:.1f}..{hi:.1f}, "
                  f"call {call_us:.1f} us, steps' sum {summed:.1f} us")
            if l["channels"] != channels or l["steps"] != channels * steps * calls:
                fail(f"{direction}: {l['channels']} channels, {l['steps']} steps")
            if summed < 4 * call_us:
                fail(f"{direction}: the steps did not overlap (sum {summed:.1f} us, call {call_us:.1f} us)")
            if not wall <= call_us:
                fail(f"{direction}: {wall:.1f} us of {state} per call, more than the call's {call_us:.1f} us")
            if not lo - 1 <= wall <= hi + 1:
                fail(f"{direction}: {wall:.1f} us of {state} per call; the union of the steps' intervals is "
                     f"{lo:.1f}..{hi:.1f} us")
            if abs(l["wall_us"][state] / calls - wall) > 1e-6 * max(wall, 1):
                fail(f"{direction}: wall_us.{state} / calls {l['wall_us'][state] / calls} != {wall}")
        if "(wall, us/call)" not in p.stdout or "wall-clock" not in p.stdout:
            fail(f"the text's headers say the wait is wall-clock time:\n{p.stdout}")
    print("ok")


def cmd_sweep(args):
    # 8 ranks and 16 channels dropped 2 events with the plugin's old 64-record probe; 64
    # and 256 ranks overflowed its rings and key table.
    for nranks, channels in ((2, 4), (8, 16), (64, 16), (256, 32)):
        with tempfile.TemporaryDirectory() as tmp:
            out = run([args.replay, "sweep", args.plugin, tmp, str(nranks), str(channels)]).stdout
            driven = {}
            for line in out.splitlines():
                _, rank, _, ops, _, steps = line.split()
                driven[int(rank)] = (int(ops), int(steps))
            docs = profiles(tmp)
            if len(docs) != 2:
                fail(f"{nranks} ranks: {len(docs)} files, expected ranks 0 and 1")
            for d in docs:
                got = (sum(b["ops"] for b in d["bins"]), sum(b["steps"] for b in d["bins"]))
                done = sum(b["done_steps"] for b in d["bins"])
                print(f"{nranks} ranks, {channels} channels, rank {d['rank']}: {d['dropped_events']} dropped, "
                      f"{got[0]} operations, {got[1]} steps")
                if d["dropped_events"] != 0:
                    fail(f"{nranks} ranks, {channels} channels: rank {d['rank']} dropped {d['dropped_events']} events")
                if got != driven[d["rank"]] or done != got[1]:
                    fail(f"rank {d['rank']}: (operations, steps) {got}, {done} done; the driver made "
                         f"{driven[d['rank']]}")
                if any(k["func"] == "unknown" and k["calls"] for k in d["keys"]) or \
                        any(b["key"] == 0 for b in d["bins"]):
                    fail(f"rank {d['rank']}: operations without their call (the event ring or key table full)")
    print("ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["overlap", "sweep"])
    ap.add_argument("--replay", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--fabscope")
    args = ap.parse_args()
    {"overlap": cmd_overlap, "sweep": cmd_sweep}[args.command](args)


if __name__ == "__main__":
    main()
