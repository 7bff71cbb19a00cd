#!/usr/bin/env python3
"""Runs a command and checks how it ended: within --within seconds, with the exit code
--exit, and with output matching --expect. For tests whose point is a time bound (a
hung rank must end the job soon after --timeout), which ctest's TIMEOUT alone does not
check.

  bounded_run.py --within S --exit N --expect REGEX -- COMMAND...
"""
import argparse
import re
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--within", type=float, required=True, help="seconds the command may take, launch included")
    ap.add_argument("--exit", type=int, required=True, help="the exit code it must end with")
    ap.add_argument("--expect", required=True, help="a regular expression its output must match")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.within)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        print(f"FAIL: still running after {args.within:g} s\n{out}")
        return 1
    took = time.monotonic() - start
    out = p.stdout + p.stderr
    print(out)
    print(f"exit {p.returncode} after {took:.1f} s")
    if p.returncode != args.exit:
        print(f"FAIL: exit {p.returncode}, want {args.exit}")
        return 1
    if not re.search(args.expect, out):
        print(f"FAIL: the output does not match {args.expect!r}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
