"""Parameter sweeps: a grid over any scenario field, times seeds, in parallel.

    sweep = tl.Sweep(net.scenario(duration="600s"),
                     grid={"links.bottleneck.loss.per": [0.001, 0.005, 0.01],
                           "flows.tcp0.cc": ["newreno", "westwoodplus"]},
                     seeds=range(5), db="per.db")
    df = sweep.run(jobs=2)               # or dask="tcp://host:8786"

Grid keys are dotted paths into the scenario: list elements are found by
name (`links.bottleneck`, `flows.tcp0`; a link without a name is `a-b`, a
flow `kind` + index) or by index (`links.1`). Each finished run is stored at
once in the study's SQLite file (see :mod:`tcplab.store`); a rerun skips what
is stored, so an interrupted sweep resumes where it stopped. A run that
raises is stored as failed with its error, and the sweep goes on.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import tomllib

from tcplab import _core
from tcplab.errors import ScenarioError
from tcplab.scenario import Scenario
from tcplab.store import Store, build_id, run_key

#: Set to a file path to have every executed run append its key there (used
#: by the tests to count executions; handy to audit a resume).
EXEC_LOG_ENV = "TCPLAB_SWEEP_EXEC_LOG"
#: For tests of crash handling: a worker exits abruptly on runs with this seed.
CRASH_SEED_ENV = "TCPLAB_SWEEP_CRASH_SEED"


# ---- grids ----------------------------------------------------------------------


def _find(items: list[Any], part: str, kind: str, path: str) -> Any:
    if part.isdigit() and int(part) < len(items):
        return items[int(part)]
    for i, item in enumerate(items):
        name = item.get("name")
        if name is None:
            name = f"{item['a']}-{item['b']}" if kind == "links" else f"{item.get('kind')}{i}"
        if name == part:
            return item
    raise ScenarioError(f"grid: '{path}': no {kind[:-1]} named '{part}'", path,
                        f"no {kind[:-1]} named '{part}'")


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted-path field of scenario data (lists by element name or index)."""
    parts = path.split(".")
    node: Any = data
    k = 0
    while k < len(parts) - 1:
        part = parts[k]
        if not isinstance(node, dict) or node.get(part) is None:
            where = ".".join(parts[:k + 1])
            raise ScenarioError(
                f"grid: '{path}': '{where}' is not set in the scenario; put the whole "
                f"table in the grid instead", path, "a path through existing tables")
        nxt = node[part]
        if isinstance(nxt, list):
            if k + 1 >= len(parts) - 1:
                raise ScenarioError(f"grid: '{path}' names a list element, not a field",
                                    path, "a field inside the element")
            node = _find(nxt, parts[k + 1], part, path)
            k += 2
        else:
            node = nxt
            k += 1
    if not isinstance(node, dict):
        raise ScenarioError(f"grid: '{path}' does not lead to a table", path, "a dotted path")
    node[parts[-1]] = value


def expand_values(spec: Any, key: str) -> list[Any]:
    """A grid entry: a list, or a range table {start, stop, num} / {start, stop, step}."""
    if isinstance(spec, list):
        if not spec:
            raise ScenarioError(f"grid: '{key}' has no values", key, "a non-empty list")
        return list(spec)
    if isinstance(spec, dict) and {"start", "stop"} <= spec.keys():
        start, stop = spec["start"], spec["stop"]
        if "step" in spec and all(isinstance(spec[k], int) for k in ("start", "stop", "step")):
            return list(range(start, stop + 1, spec["step"]))  # integers stay integers
        start, stop = float(start), float(stop)
        if "num" in spec:
            n = int(spec["num"])
            return [start + (stop - start) * i / (n - 1) for i in range(n)] if n > 1 else [start]
        if "step" in spec:
            step = float(spec["step"])
            n = int(math.floor((stop - start) / step + 1e-9)) + 1
            return [start + i * step for i in range(n)]
    raise ScenarioError(
        f"grid: '{key}' must be a list of values or a range {{start, stop, num|step}}",
        key, "a list, or {start, stop, num} / {start, stop, step}")


#: Columns of the result rows; a grid parameter never takes one of these names.
RESULT_COLUMNS = {
    "key", "seed", "flow", "kind", "src", "dst", "start_s", "sent_packets", "sent_bytes",
    "delivered_packets", "delivered_bytes", "lost_queue", "lost_error", "in_flight_packets",
    "goodput_bps", "delay_min_s", "delay_mean_s", "delay_max_s", "throughput_bps",
    "unique_sent_bps", "retransmitted_segments", "retransmission_ratio", "timeouts",
    "fast_retransmits", "completion_time_s", "acked_bytes", "ack_packets", "acks_lost", "cc",
    "recovery", "mss", "end_s",
}


def short_names(keys: Iterable[str]) -> dict[str, str]:
    """Column names for grid keys: the last path part, where that is unambiguous.

    A key keeps its full path when its last part is not unique or names a
    result column (``flows.tcp0.cc`` stays whole: each flow row has its own ``cc``).
    """
    keys = list(keys)
    last = [k.split(".")[-1] for k in keys]
    return {k: (s if last.count(s) == 1 and s not in RESULT_COLUMNS else k)
            for k, s in zip(keys, last, strict=True)}


@dataclass
class RunSpec:
    """One run of a sweep: its parameters, seed, resolved scenario and key."""

    params: dict[str, Any]
    seed: int
    scenario: dict[str, Any]
    key: str


# ---- execution ------------------------------------------------------------------


def execute(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one scenario (in a worker); never raises: failures are returned."""
    t0 = time.perf_counter()
    try:
        log = os.environ.get(EXEC_LOG_ENV)
        if log:
            with open(log, "a") as f:
                f.write(payload["key"] + "\n")
        crash = os.environ.get(CRASH_SEED_ENV)
        if crash and payload["scenario"].get("seed") == int(crash):
            os._exit(3)
        text, _scenario, _series = _core.run_json(json.dumps(payload["scenario"]))
        raw = json.loads(text)
        keep = payload.get("metrics")
        if keep:
            base = ["flow", "kind", "src", "dst", "cc"]
            raw["flows"] = [{k: v for k, v in r.items() if k in base or k in keep}
                            for r in raw["flows"]]
        results = {"flows": raw["flows"], "links": raw["links"], "summary": raw["summary"],
                   "intervals": raw.get("intervals", [])}
        return {"key": payload["key"], "status": "ok", "results": results,
                "wall_s": time.perf_counter() - t0, "build": build_id()}
    except Exception as e:  # noqa: BLE001 - a failed run is data, not a crash
        return {"key": payload["key"], "status": "failed",
                "error": f"{type(e).__name__}: {e}", "wall_s": time.perf_counter() - t0}


class Progress:
    """A one-line progress bar on a terminal; quiet otherwise (CI, files)."""

    def __init__(self, total: int, skipped: int, enabled: bool | None = None) -> None:
        self.total, self.skipped = total, skipped
        self.ok = self.failed = 0
        self.t0 = time.perf_counter()
        if enabled is None:
            enabled = sys.stderr.isatty() and not os.environ.get("CI")
        self.enabled = enabled

    def update(self, status: str) -> None:
        """Count one finished run and redraw."""
        if status == "ok":
            self.ok += 1
        else:
            self.failed += 1
        if not self.enabled:
            return
        done = self.ok + self.failed
        rate = done / max(time.perf_counter() - self.t0, 1e-9)
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        eta_s = time.strftime("%H:%M:%S", time.gmtime(eta)) if math.isfinite(eta) else "--"
        sys.stderr.write(f"\r[{done}/{self.total}] {self.ok} ok, {self.failed} failed, "
                         f"{self.skipped} already stored, ETA {eta_s} ")
        sys.stderr.flush()

    def close(self) -> None:
        """End the progress line."""
        if self.enabled:
            sys.stderr.write("\n")


@dataclass
class Sweep:
    """A grid of scenario variations times seeds, stored in ``db`` as runs finish."""

    scenario: Scenario
    grid: dict[str, Any] = field(default_factory=dict)
    seeds: Iterable[int] = (1,)
    db: str | Path = "sweep.db"
    name: str = "sweep"
    metrics: list[str] | None = None

    def __post_init__(self) -> None:
        self.seeds = [int(x) for x in self.seeds]  # an iterator would be used up

    def runs(self) -> list[RunSpec]:
        """Every run of the study, with its resolved scenario and key."""
        if "pcap" in self.scenario.data:
            raise ScenarioError("a sweep cannot write packet traces (every run would write the "
                                "same files); trace single runs instead", "pcap",
                                "no pcap in a sweep")
        if self.scenario.custom:
            raise ScenarioError("a sweep cannot run variants written in Python (they do not "
                                "cross to worker processes); use a built-in variant", "cc",
                                "built-in variants")
        keys = list(self.grid)
        values = [expand_values(self.grid[k], k) for k in keys]
        names = short_names(keys)
        out = []
        for combo in itertools.product(*values):
            for seed in self.seeds:
                data = copy.deepcopy(self.scenario.data)
                for k, v in zip(keys, combo, strict=True):
                    set_path(data, k, v)
                data["seed"] = int(seed)
                try:
                    resolved = json.loads(_core.check_json(json.dumps(data)))
                except ScenarioError:
                    # Keyed by its data as written; the worker will raise the
                    # error, and the run is stored as failed with it.
                    resolved = data
                params = {names[k]: v for k, v in zip(keys, combo, strict=True)}
                key = run_key({"scenario": resolved, "metrics": self.metrics})
                out.append(RunSpec(params, int(seed), resolved, key))
        return out

    def run(self, jobs: int | None = None, dask: str | Any | None = None,
            progress: bool | None = None) -> pd.DataFrame:
        """Run what is not stored yet; return all stored flow rows as a DataFrame.

        Args:
            jobs: local worker processes (default: all cores).
            dask: the address of a Dask scheduler, or a ``dask.distributed.Client``;
                the same sweep then runs on that cluster.
            progress: force the progress bar on or off (default: on a terminal).
        """
        return run_specs(self.runs(), self.db, self.name, jobs=jobs, dask=dask,
                         progress=progress, metrics=self.metrics)


def run_specs(specs: list[RunSpec], db: str | Path, name: str, *, jobs: int | None = None,
              dask: str | Any | None = None, progress: bool | None = None,
              metrics: list[str] | None = None) -> pd.DataFrame:
    """Run the specs not stored in ``db`` yet; return all stored flow rows."""
    with Store(db) as store:
        done = store.done_keys()
        todo = [s for s in specs if s.key not in done]
        bar = Progress(len(todo), len(specs) - len(todo), progress)
        by_key = {s.key: s for s in todo}

        def record(out: dict[str, Any]) -> None:
            s = by_key[out["key"]]
            if out["status"] == "ok" and out.get("build") != build_id():
                # A worker (e.g. on a Dask cluster) runs another build of the core.
                out = {"key": out["key"], "status": "failed",
                       "error": f"the worker runs another tcplab build ({out.get('build')}), "
                                f"not this one ({build_id()})"}
            store.put(key=s.key, study=name, params=s.params, seed=s.seed,
                      status=out["status"], scenario=s.scenario,
                      results=out.get("results"), error=out.get("error"),
                      wall_s=out.get("wall_s"))
            bar.update(out["status"])

        payloads = [{"key": s.key, "scenario": s.scenario, "metrics": metrics} for s in todo]
        try:
            outs = (_run_dask(payloads, dask) if dask is not None
                    else _run_local(payloads, jobs or os.cpu_count() or 1))
            for out in outs:
                record(out)
        finally:
            bar.close()
        return store.flows(keys={s.key for s in specs})


def _run_local(payloads: list[dict[str, Any]], jobs: int) -> Iterator[dict[str, Any]]:
    """Run in a process pool with at most ``jobs`` runs in flight.

    When a worker process crashes, only the runs in flight can be to blame:
    each is re-run alone, and a run that crashes its worker alone twice is
    reported as failed; the others' results are kept. If the caller stops
    (Ctrl-C, an error), pending runs are cancelled and the workers terminated.
    """
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = list(reversed(payloads))
    while queue:
        suspects: list[dict[str, Any]] = []
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
        finished = False
        try:
            inflight: dict[Any, dict[str, Any]] = {}
            while queue or inflight:
                broken = False
                while queue and len(inflight) < jobs:
                    p = queue.pop()
                    try:
                        inflight[pool.submit(execute, p)] = p
                    except BrokenProcessPool:
                        # A worker crashed since the last wait: this run never
                        # started, so it goes back to the queue, not to the
                        # suspects.
                        queue.append(p)
                        broken = True
                        break
                if not broken:
                    done, _ = wait(set(inflight), return_when=FIRST_COMPLETED)
                    for fut in done:
                        p = inflight.pop(fut)
                        try:
                            yield fut.result()
                        except BrokenProcessPool:
                            broken = True
                            suspects.append(p)
                if broken:
                    suspects += list(inflight.values())
                    break
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _abandon(pool)
        for p in suspects:
            yield _run_alone(p, ctx)


def _run_alone(p: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """A run suspected of crashing its worker, alone in a fresh worker (twice at most)."""
    for _ in range(2):
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            try:
                return pool.submit(execute, p).result()
            except BrokenProcessPool:
                continue
    return {"key": p["key"], "status": "failed",
            "error": "the worker process crashed (twice, running alone) on this run"}


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once: cancel what is queued and end the workers."""
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()


def _run_dask(payloads: list[dict[str, Any]], dask: str | Any) -> Iterator[dict[str, Any]]:
    from dask.distributed import Client, as_completed

    client = dask if isinstance(dask, Client) else Client(dask)
    try:
        futures = client.map(execute, payloads, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        if not isinstance(dask, Client):
            client.close()


# ---- study files ----------------------------------------------------------------


def load_study(path: str | Path) -> Sweep:
    """Read a study file (TOML).

    Fields: ``name``; ``db`` (default: ``<name>.db`` beside the file);
    ``seeds`` (a list, or a count n for 1..n); ``metrics`` (flow columns to keep;
    default all); ``scenario`` (an inline scenario table, or ``scenario_file``, a
    path relative to the study); ``grid`` (dotted path -> list or range).
    """
    p = Path(path)
    data = tomllib.loads(p.read_text())
    allowed = {"name", "db", "seeds", "metrics", "scenario", "scenario_file", "grid"}
    unknown = set(data) - allowed
    if unknown:
        bad = sorted(unknown)[0]
        raise ScenarioError(f"{p.name}: unknown field '{bad}' (allowed: "
                            f"{', '.join(sorted(allowed))})", bad, "unknown field")
    if "scenario_file" in data:
        scenario = Scenario.from_toml(p.parent / data["scenario_file"])
    elif "scenario" in data:
        scenario = Scenario(data["scenario"])
    else:
        raise ScenarioError(f"{p.name}: a study needs 'scenario' or 'scenario_file'",
                            "scenario", "an inline table or a file")
    seeds = data.get("seeds", 1)
    seeds = list(range(1, int(seeds) + 1)) if isinstance(seeds, int) else list(seeds)
    name = data.get("name", p.stem)
    db = p.parent / data.get("db", f"{name}.db")
    return Sweep(scenario, grid=data.get("grid", {}), seeds=seeds, db=db, name=name,
                 metrics=data.get("metrics"))
