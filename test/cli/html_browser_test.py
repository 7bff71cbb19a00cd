#!/usr/bin/env python3
"""`fabscope report --format html` pages checked in a real browser (Debian's headless Chromium).

  html_browser_test.py --fabscope BIN --fixtures DIR --artifacts DIR [--chromium PATH]

Every report in DIR/reports/*.json, and a synthetic 512-rank p2p report, is rendered to HTML. Each page
is loaded with a recorder script injected first in <head> (window errors, failed loads, CSP violations,
console.error/warn, resource entries), with all traffic sent to a local proxy that counts connections.
The dumped DOM must hold the verdict, one busbw plot per sweep and the link heatmap. Each page is also
screenshotted into the artifacts folder. Before any of that, hand-written pages prove that the harness
sees a blocked load, a network request and a thrown error. Exit 0 pass, 1 fail, 77 skip (no chromium).
"""
import argparse
import collections
import copy
import html.parser
import json
import os
import random
import re
import shutil
import socket
import sys
import struct
import tempfile
import threading
import zlib

from cli_test import fail, run  # the same helpers as the other CLI checks

CSP = ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; img-src data:\">")
# Chromium's own traffic (component updates, sign-in, optimization guide, network time) goes to Google
# service hosts even with background networking off, and which ones varies from run to run: those are
# not counted, except the hosts a web page could load from (web fonts, script CDNs), which are.
BROWSER_DOMAINS = (".google.com", ".googleapis.com", ".gvt1.com", ".googleusercontent.com")
PAGE_HOSTS = {"fonts.googleapis.com", "fonts.gstatic.com", "ajax.googleapis.com", "storage.googleapis.com",
              "maps.googleapis.com", "www.gstatic.com"}


def browser_own(host):
    return host not in PAGE_HOSTS and ("." + host).endswith(BROWSER_DOMAINS)


RECORDER = """<script>(function(){
var errs = window.__fabscopeErrors = [];
function add(kind, text){ errs.push(kind + ": " + text); }
window.addEventListener("error", function(e){
  var t = e.target;
  if (t && t !== window && t.tagName) add("load", t.tagName + " " + (t.src || t.href || ""));
  else add("error", e.message + " at " + e.filename + ":" + e.lineno);
}, true);
window.addEventListener("unhandledrejection", function(e){ add("rejection", String(e.reason)); });
document.addEventListener("securitypolicyviolation", function(e){
  add("csp", e.violatedDirective + " blocked " + e.blockedURI); }, true);
["error", "warn"].forEach(function(m){ var orig = console[m];
  console[m] = function(){ add("console." + m, Array.prototype.join.call(arguments, " "));
                           return orig.apply(console, arguments); }; });
window.addEventListener("load", function(){ setTimeout(function(){
  var pre = document.createElement("pre"); pre.id = "fabscope-test-result"; pre.hidden = true;
  pre.textContent = JSON.stringify({errors: errs,
    resources: performance.getEntriesByType("resource").map(function(e){ return e.name; })});
  document.body.appendChild(pre); }, 0); });
})();</script>"""


class Proxy:
    """A TCP listener standing in for an HTTP proxy: every connection is a network request."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.requests = []
        self.drained = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.sock.accept()
            with conn:
                conn.settimeout(5)
                try:
                    line = conn.recv(4096).split(b"\r\n")[0].decode("latin-1")
                except OSError:
                    line = "(nothing read)"
            if line == "fabscope-drain":
                self.drained.set()
                continue
            # A connection closed without a byte is Chromium's own preconnect, not a request the page
            # made (one read as a request under load: CI at 8ff39d5, three tests at a time).
            if line == "":
                continue
            # "CONNECT host:443 HTTP/1.1" or "GET http://host/path HTTP/1.1"
            m = re.match(r"\S+ (?:\w+://)?([^/:\s]+)", line)
            if not (m and browser_own(m.group(1))):
                self.requests.append(line)

    def take(self):
        """The page requests seen so far; connections are accepted in order, so a last one of our own
        marks the point where every earlier one has been counted."""
        self.drained.clear()
        with socket.create_connection(("127.0.0.1", self.port)) as c:
            c.sendall(b"fabscope-drain\r\n")
        if not self.drained.wait(10):
            fail("the proxy listener stopped answering")
        got, self.requests = self.requests, []
        return got


def chromium(args, proxy, url, *extra):
    """Runs headless Chromium on url; returns (stdout, console lines from stderr, page requests)."""
    proxy.take()
    with tempfile.TemporaryDirectory() as profile:
        p = run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,"
                 "OptimizationHintsFetching,OptimizationGuideModelDownloading,MediaRouter", "--enable-logging=stderr",
                 "--v=0", f"--proxy-server=http://127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>",
                 "--virtual-time-budget=5000", *extra, url])
    if p.returncode != 0:
        fail(f"chromium exited {p.returncode} on {url}\nstderr:\n{p.stderr[-4000:]}")
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]  # INFO:CONSOLE:N] or (N)]
    return p.stdout, console, proxy.take()


class Dom(html.parser.HTMLParser):
    """The dumped DOM as a flat list of elements, each with its attributes and its ancestors' indexes."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self, text):
        super().__init__()
        self.elements, self.stack, self.result = [], [], None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), list(self.stack)))
        if tag not in self.VOID:
            self.stack.append(len(self.elements) - 1)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), list(self.stack)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.elements[self.stack[i]][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.stack and self.elements[self.stack[-1]][1].get("id") == "fabscope-test-result":
            self.result = (self.result or "") + data

    def by_id(self, ident):
        return [i for i, e in enumerate(self.elements) if e[1].get("id") == ident]


def png_drawn(path):
    """True when the PNG's pixel data holds more than a handful of byte values: a blank page has ~4."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    idat, i = b"", 8
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        idat += data[i + 8:i + 8 + size] if kind == b"IDAT" else b""
        i += 12 + size
    return len(set(zlib.decompress(idat))) > 16


def classes(el):
    return (el[1].get("class") or "").split()


def load(args, proxy, path, tmp, *extra):
    """Loads an instrumented copy of the page (with `extra`, Chromium's other flags: a screenshot
    taken of the same load, the recorder's result hidden); returns (Dom, problems the page caused)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<head\b[^>]*>", text, re.I)
    if not m:
        return None, ["no <head> to put the recorder in"]
    probe = os.path.join(tmp, "instrumented-" + os.path.basename(path))
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text[:m.end()] + RECORDER + text[m.end():])
    out, console, requests = chromium(args, proxy, "file://" + probe, "--dump-dom", *extra)
    dom = Dom(out)
    problems = [f"network request through the proxy: {r}" for r in requests]
    problems += [f"console: {c}" for c in console if args.console_seen]
    if dom.result is None:
        return dom, problems + ["no #fabscope-test-result in the DOM: the load handler never ran"]
    result = json.loads(dom.result)
    problems += result["errors"]
    problems += [f"loaded resource {r}" for r in result["resources"] if r != "file://" + probe]
    return dom, problems


def self_check(args, proxy, tmp):
    """The harness must see a blocked load, a network request and a throw, and pass a clean page."""
    pages = {
        "blocked-img": (CSP, '<img src="http://fabscope.invalid/x.png">'),
        "network": ("", '<img src="http://fabscope.invalid/x.png">'
                        '<link rel="stylesheet" href="http://fonts.googleapis.com/css?family=Roboto">'),
        "throws": (CSP, '<script>throw new Error("fabscope-self-check")</script>'),
        "clean": (CSP, '<p id="p">x</p><script>document.getElementById("p").textContent = "ok";</script>'),
    }
    args.console_seen = False
    seen = {}
    for name, (meta, body) in pages.items():
        path = os.path.join(tmp, name + ".html")
        with open(path, "w") as f:
            f.write(f'<!doctype html><html><head><meta charset="utf-8">{meta}<title>t</title></head>'
                    f'<body>{body}</body></html>\n')
        seen[name] = load(args, proxy, path, tmp)[1]
        print(f"self-check {name}: {seen[name]}")
    if not any(p.startswith("csp:") for p in seen["blocked-img"]):
        fail("harness cannot see a CSP violation (an <img> from http://fabscope.invalid)")
    for host in "fabscope.invalid", "fonts.googleapis.com":
        if not any(p.startswith("network request") and host in p for p in seen["network"]):
            fail(f"harness cannot see a network request to {host} (the proxy saw no connection)")
    if not any(p.startswith("error:") and "fabscope-self-check" in p for p in seen["throws"]):
        fail("harness cannot see an uncaught exception")
    if seen["clean"]:
        fail(f"harness reports problems on a clean page: {seen['clean']}")
    # Chromium's stderr CONSOLE lines are a second channel: use them if this version prints them.
    _, console, _ = chromium(args, proxy, "file://" + os.path.join(tmp, "throws.html"), "--dump-dom")
    args.console_seen = any("fabscope-self-check" in c for c in console)
    print("chromium stderr console lines: " + ("used" if args.console_seen else "not printed by this version"))


def synthetic_report(fixtures, path, n=512):
    """p2p-tcp-np3.json grown to n ranks on n/8 hosts, every ordered pair measured at one size."""
    with open(os.path.join(fixtures, "reports", "p2p-tcp-np3.json")) as f:
        doc = json.load(f)
    rng = random.Random(512)
    ctx = doc["context"]
    ctx["nranks"] = n
    ctx["ranks"] = [dict(copy.deepcopy(ctx["ranks"][0]), rank=i, host=f"h{i // 8:03d}", pid=10000 + i,
                         local_rank=i % 8, peak_rss_bytes=None) for i in range(n)]
    ctx["hosts"] = sorted({r["host"] for r in ctx["ranks"]})
    template = doc["p2p"]["links"][0]
    links = []
    for s in range(n):
        for d in range(n):
            if s != d:
                bw = rng.uniform(2.8, 3.2) if rng.random() < 0.001 else rng.uniform(9.5, 10.5)
                links.append(dict(template, round=0, repeat=0, src_rank=s, dst_rank=d, src_host=f"h{s // 8:03d}",
                                  dst_host=f"h{d // 8:03d}", size_bytes=1 << 20, bw_gbps=bw, bw_peak_gbps=bw * 1.02,
                                  msg_rate_mpps=bw * 1e9 / (1 << 20) / 1e6))
    doc["p2p"].update(pattern="pairs", links=links, alone=[])
    doc.update(findings=[], counters=[],
               verdict={"result": "pass", "failed_codes": [], "drain": [], "drain_hostlist": "", "missing": []})
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def check_contract(name, doc, dom):
    """The elements the page promises: verdict, busbw plots, link heatmap."""
    def bad(msg):
        fail(f"{name}.html: {msg}")

    verdicts = dom.by_id("verdict")
    if len(verdicts) != 1:
        bad(f"{len(verdicts)} elements with id=verdict, want 1")
    if dom.elements[verdicts[0]][1].get("data-verdict") != doc["verdict"]["result"]:
        bad(f"#verdict data-verdict={dom.elements[verdicts[0]][1].get('data-verdict')!r}, "
            f"the report says {doc['verdict']['result']!r}")

    plots = [e for e in dom.elements if e[0] == "svg" and "busbw" in classes(e)]
    got = collections.Counter(e[1].get("data-collective") for e in plots)
    if doc.get("sweeps"):
        want = collections.Counter(s["collective"] for s in doc["sweeps"])
    elif doc.get("comparison") is not None:
        want = collections.Counter({r["collective"] for r in doc["comparison"]["rows"] if r.get("section") == "sweep"})
    else:
        want = collections.Counter()
    if got != want:
        bad(f"busbw plots by data-collective {dict(got)}, want {dict(want)}")

    maps = dom.by_id("link-heatmap")
    if doc.get("p2p") is None:
        if maps:
            bad("a #link-heatmap in a report without p2p")
        return
    if len(maps) != 1 or dom.elements[maps[0]][0] != "svg":
        bad(f"{len(maps)} elements with id=link-heatmap, want one <svg>")
    n, attrs = doc["context"]["nranks"], dom.elements[maps[0]][1]
    if attrs.get("data-n") != str(n):
        bad(f"#link-heatmap data-n={attrs.get('data-n')!r}, want {n}")
    if n <= 64:
        cells = sum(1 for e in dom.elements if maps[0] in e[2] and "cell" in classes(e))
        if cells != n * n:
            bad(f"#link-heatmap has {cells} .cell elements, want {n * n}")
    elif attrs.get("data-cells") != str(n * n):
        bad(f"#link-heatmap data-cells={attrs.get('data-cells')!r}, want {n * n}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabscope", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--chromium")
    args = ap.parse_args()
    args.chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not args.chromium or not shutil.which(args.chromium):
        print("SKIP: chromium not found (install Debian's chromium)")
        sys.exit(77)
    os.makedirs(args.artifacts, exist_ok=True)
    proxy = Proxy()
    with tempfile.TemporaryDirectory() as tmp:
        self_check(args, proxy, tmp)
        reports = sorted(os.path.join(args.fixtures, "reports", f)
                         for f in os.listdir(os.path.join(args.fixtures, "reports")) if f.endswith(".json"))
        big = os.path.join(tmp, "p2p-synthetic-np512.json")
        synthetic_report(args.fixtures, big)
        print(f"synthetic 512-rank report: {os.path.getsize(big)} bytes")
        for report in reports + [big]:
            name = os.path.basename(report)[:-len(".json")]
            page = os.path.join(tmp, name + ".html")
            p = run([args.fabscope, "report", report, "--format", "html", "-o", page])
            if p.returncode != 0:
                fail(f"report --format html on {name} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
            if not os.path.isfile(page) or os.path.getsize(page) == 0:
                fail(f"report --format html on {name} wrote no page (or an empty one) at {page}")
            print(f"{name}.html: {os.path.getsize(page)} bytes")
            with open(report) as f:
                doc = json.load(f)
            shot = os.path.join(os.path.abspath(args.artifacts), f"report-{name}.png")
            if os.path.exists(shot):
                os.remove(shot)
            # One Chromium run a page: its DOM and its screenshot of the same load (two runs a page,
            # about 3.7 s each, were most of this test's 64 s alone).
            dom, problems = load(args, proxy, page, tmp, "--screenshot=" + shot, "--window-size=1280,2400")
            if problems:
                fail(f"{name}.html in chromium:\n  " + "\n  ".join(problems))
            check_contract(name, doc, dom)
            if not os.path.isfile(shot) or os.path.getsize(shot) <= 1000 or not png_drawn(shot):
                fail(f"no screenshot of {name}.html, or a blank one, at {shot}")
    print(f"screenshots in {os.path.abspath(args.artifacts)}")
    print("all pages passed")


if __name__ == "__main__":
    main()
