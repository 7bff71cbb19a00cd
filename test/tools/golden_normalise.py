#!/usr/bin/env python3
"""Normalises one output for test/tools/golden_outputs.sh: MODE exact keeps every value but
those that change from run to run (times, host names, git id, paths, versions); MODE shape
also replaces every number by '#' and, in JSON, keeps keys and strings but not numbers."""
import json
import re
import sys

VOLATILE_KEYS = {"started", "finished", "start", "time", "timestamp", "date", "git", "version",
                 "hostname", "host_name", "elapsed_s", "wall_s", "pid", "generated"}


def norm_text(text, mode, src, build):
    text = text.replace(build, "BUILD").replace(src, "SRC")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?", "TIME", text)
    text = re.sub(r"git [0-9a-f]{7,40}(-dirty)?", "git GIT", text)
    text = re.sub(r'(git_id"?[:=] ?")[0-9a-f]{7,40}(-dirty)?"', r'\1GIT"', text)
    text = re.sub(r"\([0-9a-f]{12}(-dirty)?\)", "(GIT)", text)
    text = re.sub(r"fabscope \d+\.\d+\.\d+", "fabscope VERSION", text)
    text = re.sub(r"/tmp/tmp\.\w+", "TMP", text)
    text = re.sub(r"(_timestamp_seconds(\{[^}]*\})?) [0-9.e+]+", r"\1 TIME", text)
    if mode == "shape":
        text = re.sub(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", "#", text)
        text = re.sub(r"[ \t]+", " ", text)
    return text


def norm_json(value, mode, key=""):
    if isinstance(value, dict):
        return {k: ("VOLATILE" if k in VOLATILE_KEYS else norm_json(v, mode, k)) for k, v in value.items()}
    if isinstance(value, list):
        items = [norm_json(v, mode) for v in value]
        if mode == "shape":  # measured lists may differ in length: keep the distinct shapes
            seen = []
            for it in items:
                if it not in seen:
                    seen.append(it)
            return seen
        return items
    if mode == "shape" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "#"
    return value


def main():
    mode, path, src, build = sys.argv[1:5]
    data = open(path, "rb").read()
    try:
        text = data.decode()
    except UnicodeDecodeError:
        sys.stdout.write(f"<{len(data)} bytes, not UTF-8>\n")
        return
    try:
        doc = json.loads(text)
    except ValueError:
        sys.stdout.write(norm_text(text, mode, src, build))
        return
    out = json.dumps(norm_json(doc, mode), indent=1, sort_keys=True)
    sys.stdout.write(norm_text(out, mode, src, build) + "\n")


main()
