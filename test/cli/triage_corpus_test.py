#!/usr/bin/env python3
"""Scores `fabscope triage` on real ticket artifacts (test/fixtures/tickets/, issue 37).

Each NAME.txt there is a paste copied from a public ticket as the source shows it (a few
healthy ones are fabscope's own runs on a lent GPU, named as such); NAME.json
says where it came from, the cause its thread states, and the finding codes that name that
cause ("expect": any one of them counts), or "healthy": true for a paste that shows nothing
wrong. Each artifact is triaged alone, as an on-call engineer would paste it:

  explained  a ticket artifact whose findings (error or warning) include an expected code
  false      a healthy artifact with an error or a warning (info findings are not faults)

The held-out half (the first byte of the SHA-256 of the file name odd) is scored apart: no
reader change may be tuned on it. The test prints both scores and every miss (a held-out
miss by its name only, unless --show-held-out), and fails
when an artifact or its record is malformed, when triage crashes or exits other than 0, 1
or 5, when a report breaks the report schema (with --schema), or against test/fixtures/tickets/floor.json, a ratchet: an artifact it lists as
explained is no longer explained, or a healthy artifact it does not list gets a false
finding. A reader change adds to the first list and takes from the second, never the
reverse (--write-floor writes both as they are now).

  triage_corpus_test.py --fabscope BUILD/fabscope --tickets test/fixtures/tickets [--verbose] [--show-held-out] [--write-floor]
      [--schema schema/fabscope.report.schema.json]
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

TIMEOUT_S = 120
REQUIRED = ("source", "title", "what", "shape", "stated_cause", "healthy", "expect")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def held_out(name):
    return hashlib.sha256(name.encode()).digest()[0] % 2 == 1


def half(rec):
    return "[held-out]" if rec["held_out"] else "[tuning]"


def load_records(tickets):
    records = []
    for entry in sorted(os.listdir(tickets)):
        if not entry.endswith(".json") or entry == "floor.json":
            continue
        name = entry[:-len(".json")]
        paste = os.path.join(tickets, name + ".txt")
        with open(os.path.join(tickets, entry)) as f:
            rec = json.load(f)
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            fail(f"{entry}: missing {missing}")
        if not os.path.isfile(paste):
            fail(f"{entry}: no {name}.txt beside it")
        # A public ticket's address, or (healthy artifacts only) fabscope's own run, named.
        if not rec["source"].startswith(("https://", "http://")) and not (rec["healthy"] and rec["source"].startswith("fabscope's own run")):
            fail(f"{entry}: source is neither a public address nor (healthy) fabscope's own run: {rec['source']}")
        if rec["healthy"] != (not rec["expect"]):
            fail(f"{entry}: a healthy artifact expects nothing, a ticket at least one code: {rec['expect']}")
        rec["name"] = name
        rec["paste"] = paste
        rec["held_out"] = held_out(name + ".txt")
        records.append(rec)
    return records


def triage(fabscope, paste, tmp, validator=None):
    out = os.path.join(tmp, "t.json")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([fabscope, "triage", paste, "--json", out], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    if p.returncode not in (0, 1, 5):
        fail(f"triage {paste} exited {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    with open(out) as f:
        doc = json.load(f)
    if validator is not None:
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            fail(f"triage {paste}: the report breaks the schema at {list(errors[0].path)}: {errors[0].message}")
    return [(x["code"], x["severity"]) for x in doc["findings"]], doc["verdict"]["result"]


def score(records, fabscope, verbose, show_held_out, validator=None):
    by_half = {False: {"tickets": 0, "explained": 0, "healthy": 0, "false": 0},
               True: {"tickets": 0, "explained": 0, "healthy": 0, "false": 0}}
    misses, explained, false_healthy = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rec in records:
            findings, verdict = triage(fabscope, rec["paste"], tmp, validator)
            faults = [c for c, sev in findings if sev in ("error", "warning")]
            s = by_half[rec["held_out"]]
            if rec["healthy"]:
                s["healthy"] += 1
                if faults:
                    s["false"] += 1
                    false_healthy.append(rec["name"])
                    misses.append(f"  healthy {half(rec)} {rec['name']}: {faults}")
            else:
                s["tickets"] += 1
                if any(c in rec["expect"] for c in faults):
                    s["explained"] += 1
                    explained.append(rec["name"])
                elif rec["held_out"] and not show_held_out:
                    misses.append(f"  missed  {half(rec)} {rec['name']}")  # nothing to tune a reader on
                else:
                    misses.append(f"  missed  {half(rec)} {rec['name']}: want {rec['expect']} "
                                  f"({rec['stated_cause'][:90]}); got {faults or 'nothing'}, verdict {verdict}")
            if verbose and (show_held_out or not rec["held_out"]):
                print(f"  {rec['name']}: {verdict} {findings}")
    return by_half, misses, explained, false_healthy


def rate(n, d):
    return n / d if d else 1.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabscope", required=True)
    ap.add_argument("--tickets", required=True)
    ap.add_argument("--verbose", action="store_true")
    # The held-out half's misses are named only: their causes and findings are what a
    # reader could be tuned on. For reporting on it, not for building readers.
    ap.add_argument("--show-held-out", action="store_true")
    ap.add_argument("--write-floor", action="store_true")
    ap.add_argument("--schema", help="validate each triage report against the report schema")
    a = ap.parse_args()
    validator = None
    if a.schema:
        import jsonschema
        with open(a.schema) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
    records = load_records(a.tickets)
    if not records:
        fail(f"no artifacts in {a.tickets}")
    by_half, misses, explained, false_healthy = score(records, a.fabscope, a.verbose, a.show_held_out, validator)
    total = {k: by_half[False][k] + by_half[True][k] for k in by_half[False]}
    print("triage on real tickets (test/fixtures/tickets):")
    for label, s in (("all", total), ("tuning half", by_half[False]), ("held-out half", by_half[True])):
        print(f"{label:>13}: explained {s['explained']}/{s['tickets']} "
              f"({100 * rate(s['explained'], s['tickets']):.0f}%), "
              f"healthy with a false finding {s['false']}/{s['healthy']}")
    if misses:
        print("\n".join(misses))
    floor_path = os.path.join(a.tickets, "floor.json")
    if a.write_floor:
        with open(floor_path, "w") as f:
            json.dump({"explained": explained, "false_healthy_allowed": false_healthy}, f, indent=2)
            f.write("\n")
        print(f"wrote {floor_path}")
        return
    with open(floor_path) as f:
        floor = json.load(f)
    lost = sorted(set(floor["explained"]) - set(explained))
    if lost:
        fail(f"no longer explained (floor.json lists them): {lost}")
    new_false = sorted(set(false_healthy) - set(floor["false_healthy_allowed"]))
    if new_false:
        fail(f"healthy artifacts with a new false finding: {new_false}")
    print(f"ok: the {len(floor['explained'])} artifacts floor.json lists are still explained, and no healthy one "
          f"has a new false finding")


if __name__ == "__main__":
    main()
