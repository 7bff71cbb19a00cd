"""Edits of fabscope reports for tests and benchmarks: a run made faster or slower as a
whole, the way a fabric that lost bandwidth would show it."""
import copy


def scale_report(doc, factor, start_time=None):
    """A copy of `doc` whose every sweep point and p2p link moved `factor` times the bandwidth:
    bandwidths times it, times (and every iteration's time) divided by it. `start_time`, when
    given, replaces the run's start time (a series needs them apart)."""
    d = copy.deepcopy(doc)
    for s in d.get("sweeps", []):
        for p in s["points"]:
            for placement in ("out_of_place", "in_place"):
                r = p.get(placement)
                if not r:
                    continue
                r["time_us"] /= factor
                r["algbw_gbps"] *= factor
                r["busbw_gbps"] *= factor
                if r.get("iteration_samples_us"):
                    r["iteration_samples_us"] = [x / factor for x in r["iteration_samples_us"]]
                if r.get("iteration_us"):
                    r["iteration_us"] = {k: v / factor if isinstance(v, (int, float)) else v
                                         for k, v in r["iteration_us"].items()}
    for link in (d.get("p2p") or {}).get("links", []):
        if isinstance(link.get("bw_gbps"), (int, float)):
            link["bw_gbps"] *= factor
    if start_time is not None:
        d["context"]["start_time"] = start_time
    return d
