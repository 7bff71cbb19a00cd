#!/usr/bin/env python3
"""How many corpus tickets fabscope triage still explains when each line of the paste comes
behind what a launcher or collector writes before it (issue 37): kubectl logs --prefix, srun
--label, mpirun --tag-output, a Markdown quote or code block, terminal colours, HTML escapes,
CRLF, a fence, an RFC 3339 timestamp. Only the tuning half is read unless --half says otherwise
(the held-out half is a blind measure: no reader is tuned on it), and only tickets explained as
written; healthy artifacts are counted for false findings in every shape.

  python3 bench/triage_shapes.py --fabscope build/release/fabscope [--tickets DIR] [--half tuning|held-out|all]
"""
import argparse
import glob
import hashlib
import html
import json
import os
import subprocess
import sys
import tempfile


def die(msg):
    print("error: " + msg, file=sys.stderr)
    sys.exit(2)


def each_line(prefix):
    return lambda t: "".join(prefix + line + "\n" for line in t.splitlines())


SHAPES = {
    "as written": lambda t: t,
    "kubectl --prefix": each_line("[pod/train-worker-0/pytorch] "),
    "srun --label": each_line("3: "),
    "mpirun --tag-output": each_line("[1,3]<stdout>:"),
    "Markdown quote": each_line("> "),
    "Markdown indented": each_line("    "),
    "timestamped": each_line("2026-11-28T01:02:03.456789Z "),
    "coloured": lambda t: "".join("\x1b[0;32m" + line + "\x1b[0m\n" for line in t.splitlines()),
    "HTML-escaped": html.escape,
    "CRLF": lambda t: t.replace("\n", "\r\n"),
    "fenced": lambda t: "```\n" + t + ("" if t.endswith("\n") else "\n") + "```\n",
}


def held_out(name):  # as test/cli/triage_corpus_test.py chooses it
    return hashlib.sha256(name.encode()).digest()[0] % 2 == 1


def codes_of(fabscope, text, work):
    paste, out = os.path.join(work, "paste.txt"), os.path.join(work, "t.json")
    with open(paste, "w") as f:
        f.write(text)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([fabscope, "triage", paste, "--json", out], capture_output=True, text=True)
    if not os.path.exists(out):
        die(f"{fabscope} triage wrote no report (exit {r.returncode}): {r.stderr.strip()[:300]}")
    with open(out) as f:
        doc = json.load(f)
    return {x["code"] for x in doc.get("findings", []) if x.get("severity") in ("error", "warning")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fabscope", required=True)
    ap.add_argument("--tickets", default=os.path.join(os.path.dirname(__file__), "..", "test", "fixtures", "tickets"))
    ap.add_argument("--half", choices=["tuning", "held-out", "all"], default="tuning")
    a = ap.parse_args()
    if not (os.path.isfile(a.fabscope) and os.access(a.fabscope, os.X_OK)):
        die(f"--fabscope {a.fabscope!r} is not an executable file")
    metas = sorted(p for p in glob.glob(os.path.join(a.tickets, "*.json")) if not p.endswith("floor.json"))
    if not metas:
        die(f"--tickets {a.tickets!r} holds no ticket (NAME.json beside NAME.txt)")
    kept = {k: [0, 0] for k in SHAPES}
    lost = {k: [] for k in SHAPES}
    false = {k: 0 for k in SHAPES}
    healthy = 0
    with tempfile.TemporaryDirectory() as work:
        for path in metas:
            name = os.path.basename(path)[:-5]
            try:
                with open(path) as f:
                    meta = json.load(f)
                with open(os.path.join(a.tickets, name + ".txt"), errors="replace") as f:
                    text = f.read()
            except (OSError, ValueError) as e:
                die(f"ticket {name}: {e}")
            if a.half != "all" and held_out(name + ".txt") != (a.half == "held-out"):
                continue
            if meta.get("healthy"):
                healthy += 1
                for k, make in SHAPES.items():
                    false[k] += bool(codes_of(a.fabscope, make(text), work))
                continue
            want = set(meta.get("expect", []))
            if not codes_of(a.fabscope, text, work) & want:
                continue
            for k, make in SHAPES.items():
                ok = bool(codes_of(a.fabscope, make(text), work) & want)
                kept[k][0] += ok
                kept[k][1] += 1
                if not ok:
                    lost[k].append(name)
    print(f"{a.half} half: tickets explained as written, still explained in each shape; healthy with a finding")
    for k in SHAPES:
        got, of = kept[k]
        shown = " ".join(lost[k][:3]) + (" ..." if len(lost[k]) > 3 else "")
        print(f"  {k:20s} {got:3d}/{of:<3d} healthy flagged {false[k]}/{healthy}  {shown}")


if __name__ == "__main__":
    main()
