"""Behaviour check: the same result bytes before and after a change meant to preserve them.

Runs every example, every run of every quick study, and the benchmark
scenarios, and hashes what each produces: flows.csv and links.csv as
``Results.save`` writes them, the drop log, TCP event log and per-interval
table as CSV, and every recorded time series as CSV. The expected hashes
are in bench/hashes.json, recorded before the change:

    python bench/hashes.py --record     # before: write bench/hashes.json
    python bench/hashes.py              # after: compare; exit 1 on any difference

A change that means to alter results records anew and says in its commit
which cases changed and why.

The cellular study's cases need mahimahi's traces (found as
tcplab.traces.resolve finds them: TCPLAB_TRACES, the folder of `tcplab
traces download`, ../shared/traces/mahimahi). Without them those cases are
reported as skipped, not as missing, and do not change the exit code;
--record refuses to run without them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import tcplab as tl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXPECTED = HERE / "hashes.json"
SKIPPED: dict[str, str] = {}
"""Case-name prefixes that cases() could not run here, with the reason."""
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "examples"))


def digest(res: tl.Results) -> dict[str, str]:
    """sha256 (16 hex digits) of each table and of the time series, as CSV."""
    def h(text: str | bytes) -> str:
        data = text.encode() if isinstance(text, str) else text
        return hashlib.sha256(data).hexdigest()[:16]

    with tempfile.TemporaryDirectory() as tmp:
        res.save(tmp)
        out = {name: h((Path(tmp) / name).read_bytes()) for name in ("flows.csv", "links.csv")}
    for table in ("drops", "events", "intervals"):
        df = getattr(res, table)
        if len(df):
            out[f"{table}.csv"] = h(df.to_csv(index=False))
    if res.traces():
        out["traces.csv"] = h(res.series_frame().to_csv(index=False))
    return out


def cases() -> Iterator[tuple[str, Callable[[], tl.Results]]]:
    """(name, run) of every case."""
    for p in sorted((ROOT / "examples").glob("*.toml")):
        if "[grid]" in p.read_text():  # a study file: each of its runs
            from tcplab.sweep import load_study

            for i, spec in enumerate(load_study(p).runs()):
                yield f"example {p.name} run {i}", lambda s=spec: tl.Scenario(s.scenario).run()
        else:
            yield f"example {p.name}", lambda p=p: tl.load(p).run()

    def aimd() -> tl.Results:
        import aimd as example

        return example.westwood_path(example.Aimd()).run(duration="60s", seed=1,
                                                         trace=["cwnd"])
    yield "example aimd.py", aimd

    from tcplab import studies
    from tcplab import traces as mahimahi

    for name, study in studies.STUDIES.items():
        if name == "cellular" and mahimahi.missing(None, tl.presets.CELLULAR_TRACES[0])[1]:
            SKIPPED[f"quick study {name} run "] = (f"no mahimahi traces {mahimahi.looked_in()}; "
                                                   "get them with `tcplab traces download`")
            continue
        for i, spec in enumerate(studies._specs(study, True)):
            yield f"quick study {name} run {i}", lambda s=spec: tl.Scenario(s.scenario).run()

    from tcp import TRACES, dumbbell

    yield "bench/tcp.py single", lambda: dumbbell(1).run(duration=60, seed=1)
    yield "bench/tcp.py shared", lambda: dumbbell(100).run(duration=60, seed=1)
    yield "bench/tcp.py traced", lambda: dumbbell(100).run(duration=60, seed=1, trace=TRACES)
    for n in (1, 10, 100, 1000, 10000):
        yield (f"bench/dumbbell.py N={n}",
               lambda n=n: dumbbell(n, mss=1448, rcv_buf="1MiB").run(duration="30s", seed=1))

    import engine

    yield "bench/engine.py forwarding", lambda: engine.chain(50, 8, "15Mbps").run(
        duration=10, seed=1)

    import peers

    for kind, arg in [("dumbbell", 1), ("dumbbell", 10), ("dumbbell", 100),
                      ("westwood", "newreno"), ("westwood", "westwoodplus"),
                      ("westwood", "vegas")]:
        yield (f"bench/peers.py {kind} {arg}",
               lambda k=kind, a=arg: peers.tcplab_scenario(k, a, 30 if k == "dumbbell" else 600,
                                                          False).run())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--record", action="store_true", help="write bench/hashes.json")
    p.add_argument("-k", help="only cases whose name contains this")
    a = p.parse_args()
    if os.environ.get("TCPLAB_BENCH_BASELINE_PACKETS"):
        # bench/tcp.py's dumbbell would switch limited transmit off.
        sys.exit("TCPLAB_BENCH_BASELINE_PACKETS is set: unset it (it changes the "
                 "benchmark scenarios' packets) and run again")
    t0 = time.perf_counter()
    got = {}
    for name, run in cases():
        if a.k and a.k not in name:
            continue
        got[name] = digest(run())
    if a.record and SKIPPED:
        sys.exit("--record needs every case; skipped: " + "; ".join(
            f"{prefix.strip()}...: {why}" for prefix, why in SKIPPED.items()))
    if a.record:
        EXPECTED.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(got)} cases in {EXPECTED} ({time.perf_counter() - t0:.0f} s)")
        return
    want = json.loads(EXPECTED.read_text())
    differ = [n for n in got if want.get(n) != got[n]]
    skipped = [n for n in want if n not in got and (not a.k or a.k in n)
               and any(n.startswith(prefix) for prefix in SKIPPED)]
    missing = [n for n in want if n not in got and not a.k and n not in skipped]
    for n in differ:
        changed = sorted(k for k in set(got[n]) | set(want.get(n, {}))
                         if got[n].get(k) != want.get(n, {}).get(k))
        print(f"DIFFERENT  {n}: {', '.join(changed)}")
    for n in missing:
        print(f"MISSING    {n}")
    for prefix, why in SKIPPED.items():
        n = sum(1 for name in skipped if name.startswith(prefix))
        if n:
            print(f"SKIPPED    {prefix.strip()}... ({n} cases): {why}")
    same = len(got) - len(differ)
    print(f"{same} of {len(got)} cases identical to bench/hashes.json"
          + (f", {len(skipped)} skipped" if skipped else "")
          + f" ({time.perf_counter() - t0:.0f} s)")
    sys.exit(1 if differ or missing else 0)


if __name__ == "__main__":
    main()
