#!/usr/bin/env python3
"""How many of an NCCL release's own warnings `fabscope triage` gives a meaning to.

Every WARN("...") format string in NCCL's sources (a checkout, or a bare clone and a
tag) becomes one log line as NCCL prints it (`host:pid:tid [0] file:line NCCL WARN
text`, each conversion filled with a plausible value), triaged alone; the line's code is
counted: a specific one, or nccl.warn (read, with no meaning of its own). The WARNs are
NCCL's, not any ticket's: what an on-call engineer may paste, measured without tuning on
the tickets' corpus.

  bench/nccl_warn_coverage.py --fabscope build/release/fabscope --nccl-git /path/to/nccl.git --ref v2.28.9-1
  bench/nccl_warn_coverage.py --fabscope build/release/fabscope --nccl-src /path/to/nccl [--list]

--list prints every warning with its code (those left to nccl.warn first).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

WARN = re.compile(r'WARN\(\s*"((?:[^"\\]|\\.)*)"')
CONVERSION = re.compile(r'%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?([sdiuxXpfgc])')
FILL = {"s": "mlx5_0", "p": "0x7f3a2c000000", "f": "1.5", "g": "1.5", "c": "x"}


def sources(args):
    """(path, text) of every C/C++/CUDA source under src/."""
    exts = (".cc", ".cu", ".h", ".cpp", ".hpp")
    if args.nccl_src:
        for root, _, files in os.walk(os.path.join(args.nccl_src, "src")):
            for f in files:
                if f.endswith(exts):
                    path = os.path.join(root, f)
                    with open(path, errors="replace") as fh:
                        yield os.path.relpath(path, args.nccl_src), fh.read()
        return
    git = ["git", "--git-dir", args.nccl_git]
    names = subprocess.run(git + ["ls-tree", "-r", "--name-only", args.ref, "src"], capture_output=True, text=True,
                           check=True).stdout.split()
    for name in names:
        if name.endswith(exts):
            text = subprocess.run(git + ["show", f"{args.ref}:{name}"], capture_output=True, text=True,
                                  errors="replace", check=True).stdout
            yield name, text


def warnings(args):
    seen = set()
    for path, text in sources(args):
        for m in WARN.finditer(text):
            fmt = m.group(1)
            line = CONVERSION.sub(lambda c: FILL.get(c.group(1), "3"), fmt).replace("%%", "%").replace("\\n", "")
            key = (path, line)
            if key not in seen:
                seen.add(key)
                yield path, text.count("\n", 0, m.start()) + 1, line


def error(message):
    print(f"nccl_warn_coverage.py: error: {message}", file=sys.stderr)
    return 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabscope", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--nccl-src", help="an NCCL checkout")
    src.add_argument("--nccl-git", help="an NCCL git directory (with --ref)")
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if not (os.path.isfile(args.fabscope) and os.access(args.fabscope, os.X_OK)):
        return error(f"--fabscope {args.fabscope!r} is not an executable file")
    if args.nccl_src and not os.path.isdir(os.path.join(args.nccl_src, "src")):
        return error(f"--nccl-src {args.nccl_src!r} has no src/ directory: give the root of an NCCL checkout")
    if args.nccl_git:
        ok = subprocess.run(["git", "--git-dir", args.nccl_git, "rev-parse", "--verify", "--quiet",
                             f"{args.ref}^{{commit}}"], capture_output=True, text=True)
        if ok.returncode != 0:
            return error(f"--nccl-git {args.nccl_git!r} has no commit {args.ref!r} (--ref): give an NCCL git "
                         "directory and one of its tags, such as v2.28.9-1")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (path, lineno, text) in enumerate(warnings(args)):
            d = os.path.join(tmp, str(i))
            os.mkdir(d)
            short = path[4:] if path.startswith("src/") else path
            with open(os.path.join(d, "nccl.log"), "w") as f:
                f.write(f"node1:1234:1250 [0] {short}:{lineno} NCCL WARN {text}\n")
            out = os.path.join(d, "t.json")
            subprocess.run([args.fabscope, "triage", d, "--json", out], capture_output=True, text=True)
            try:
                with open(out) as f:
                    doc = json.load(f)
                # Any area: NCCL's warnings of the NVSwitch fabric or a container are read as
                # nvlink.* and container.* findings.
                found = sorted({x["code"] for x in doc["findings"] if x["severity"] in ("error", "warning")})
            except (OSError, ValueError, KeyError):
                found = ["(no report)"]
            rows.append((path, text, found))
    if not rows:
        return error("no WARN(\"...\") found under src/: not an NCCL source tree")
    specific = [r for r in rows if r[2] and r[2] != ["nccl.warn"] and r[2] != ["(no report)"]]
    by_code = collections.Counter(c for r in specific for c in r[2])
    print(f"{len(rows)} WARN wordings in {args.nccl_src or args.nccl_git + ' ' + args.ref}; "
          f"{len(specific)} given a specific code, {len(rows) - len(specific)} left to nccl.warn")
    for code, n in by_code.most_common():
        print(f"  {code:<32} {n}")
    if args.list:
        for path, text, found in sorted(rows, key=lambda r: (r[2] != ["nccl.warn"], r[0])):
            print(f"{','.join(found):<32} {path}: {text[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
