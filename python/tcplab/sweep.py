"""Parameter sweeps: a grid over any scenario field, times seeds, in parallel.

    sweep = tl.Sweep(net.scenario(duration="600s"),
                     grid={"links.bottleneck.loss.per": [0.001, 0.005, 0.01],
                           "flows.tcp0.cc": ["newreno", "westwoodplus"]},
                     seeds=range(5), db="per.db")
    if __name__ == "__main__":           # worker processes import this script
        df = sweep.run(jobs=2)           # or dask="tcp://host:8786"

Grid keys are dotted paths into the scenario: list elements are found by
name (`links.bottleneck`, `flows.tcp0`; a link without a name is `a-b`, a
flow `kind` + index) or by index (`links.1`). Each finished run is stored at
once in the study's SQLite file (see :mod:`tcplab.store`); a rerun skips what
is stored, so an interrupted sweep resumes where it stopped, and retries the
runs that failed. A run that raises is stored as failed with its error, and
the sweep goes on. Sweeps on one store at the same time share the work: each
claims a run before computing it.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import multiprocessing
import numbers
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import tomllib

from tcplab import _core
from tcplab.errors import ScenarioError, SweepError, SweepInterrupted
from tcplab.scenario import Scenario, scenario_json
from tcplab.schema import columns
from tcplab.store import RENEW_S, Holder, Store, StoreError, build_id, canonical, run_key

#: Set to a file path to have every executed run append its key there (used
#: by the tests to count executions; handy to audit a resume).
EXEC_LOG_ENV = "TCPLAB_SWEEP_EXEC_LOG"
#: For tests of crash handling: a worker exits abruptly on runs with this seed.
CRASH_SEED_ENV = "TCPLAB_SWEEP_CRASH_SEED"

#: The exit code of a worker that found itself re-running the user's script
#: (an unguarded ``Sweep.run`` at the top level of the main module).
MAIN_GUARD_EXIT = 86
#: The exit code of a worker whose parent (the sweep) died.
PARENT_GONE_EXIT = 87
#: How often (seconds) a worker checks that its parent is alive.
PARENT_POLL_S = 0.2
#: How often (seconds) a sweep looks at runs that other sweeps are computing.
POLL_S = 0.5
#: How many times a run is tried on Dask when its worker dies (KilledWorker).
DASK_TRIES = 3
#: The most values one range of a grid may give, and runs one sweep may have.
MAX_VALUES = 100_000
MAX_RUNS = 1_000_000
#: Summary fields that measure this machine, not the simulation: never stored.
_TIMING_FIELDS = ("wall_seconds", "events_per_second")

_MAIN_GUARD_MESSAGE = (
    "a sweep's worker process re-ran the script that starts the sweep and reached "
    "Sweep.run() again: put the code that runs the sweep under "
    "`if __name__ == \"__main__\":` (worker processes import the main script; see "
    "docs/sweeps.md)")

try:  # numbers of other types (numpy, Decimal) as plain JSON data, fields named
    from tcplab.scenario import plain as _plain
except ImportError:  # pragma: no cover - an older scenario module
    def _plain(value: Any, path: str = "") -> Any:
        return value


# ---- grids ----------------------------------------------------------------------


def _find(items: list[Any], part: str, kind: str, path: str) -> Any:
    if part.isdigit() and int(part) < len(items):
        return items[int(part)]
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if name is None:
            name = f"{item.get('a')}-{item.get('b')}" if kind == "links" else \
                f"{item.get('kind')}{i}"
        if name == part:
            return item
    raise ScenarioError(f"grid: '{path}': no {kind[:-1]} named '{part}'", path,
                        f"no {kind[:-1]} named '{part}'")


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted-path field of scenario data (lists by element name or index)."""
    if not isinstance(path, str) or not path or any(not p for p in path.split(".")):
        raise ScenarioError(f"grid: {path!r} is not a dotted path such as "
                            "'links.bottleneck.rate'", str(path), "not a dotted path")
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


_RANGE_FORMS = "a list of values, or a range {start, stop, num} / {start, stop, step}"


def _range_error(key: str, problem: str, allowed: str) -> ScenarioError:
    return ScenarioError(f"grid: '{key}': {problem} (allowed: {allowed})", key, problem, allowed)


def _range_number(spec: dict[str, Any], part: str, key: str) -> int | float:
    v = spec[part]
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
        raise _range_error(key, f"{part} = {v!r} is not a number", "a finite number")
    return int(v) if isinstance(v, numbers.Integral) else float(v)


def _grid_value(value: Any, key: str) -> Any:
    """A value of a grid list as plain data: a variant or a Python controller by its spec."""
    from tcplab.cc import CongestionControl, Variant, pinned_spec

    if isinstance(value, Variant):
        return value.to_spec()
    if isinstance(value, CongestionControl):
        try:
            return pinned_spec({"flows": [{"cc": "python"}]}, {0: value})["flows"][0]["cc"]
        except ScenarioError as e:
            raise ScenarioError(f"grid: '{key}': {e.problem}", key, e.problem,
                                e.allowed) from None
    return _plain(value, key)


def expand_values(spec: Any, key: str) -> list[Any]:
    """A grid entry: a list, or a range table {start, stop, num} / {start, stop, step}.

    A range of integers (start, stop and step all integers) gives integers;
    ``stop`` is included when the steps reach it. A negative step counts
    down from a start above stop. Anything else is refused with a
    ScenarioError naming the grid key.
    """
    if isinstance(spec, list | tuple):
        if not spec:
            raise _range_error(key, "the list has no values", "a non-empty list")
        return [_grid_value(v, key) for v in spec]
    if not (isinstance(spec, dict) and {"start", "stop"} <= spec.keys()):
        raise _range_error(key, f"{spec!r} is neither a list nor a range", _RANGE_FORMS)
    unknown = sorted(set(spec) - {"start", "stop", "num", "step"})
    if unknown:
        raise _range_error(key, f"unknown range field '{unknown[0]}'",
                           "start, stop and num or step")
    if ("num" in spec) == ("step" in spec):
        raise _range_error(key, "a range needs exactly one of num and step",
                           "{start, stop, num} or {start, stop, step}")
    start, stop = _range_number(spec, "start", key), _range_number(spec, "stop", key)
    if "num" in spec:
        n = spec["num"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= MAX_VALUES:
            raise _range_error(key, f"num = {n!r} is not a count of values",
                               f"a whole number from 1 to {MAX_VALUES:,}")
        n = int(n)
        start, stop = float(start), float(stop)
        return [start + (stop - start) * i / (n - 1) for i in range(n)] if n > 1 else [start]
    step = _range_number(spec, "step", key)
    if step == 0:
        raise _range_error(key, "step = 0 never reaches stop", "a non-zero step")
    if (stop - start) * step < 0:
        raise _range_error(key, f"step = {step!r} goes away from stop = {stop!r} (start = "
                           f"{start!r}), so the range has no values",
                           "a positive step when start <= stop, a negative one when "
                           "start > stop")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_VALUES:
        raise _range_error(key, f"the range has {count:,} values",
                           f"at most {MAX_VALUES:,} values per range")
    if all(isinstance(spec[k], numbers.Integral) and not isinstance(spec[k], bool)
           for k in ("start", "stop", "step")):
        end = stop + 1 if step > 0 else stop - 1
        return list(range(int(start), int(end), int(step)))  # integers stay integers
    start, step = float(start), float(step)
    return [start + i * step for i in range(count)]


#: Columns of the result rows; a grid parameter never takes one of these names.
RESULT_COLUMNS = {c["name"] for c in columns("flows")} | {"key", "seed", "end_s"}


def short_names(keys: Iterable[str]) -> dict[str, str]:
    """Column names for grid keys: the last path part, where that is unambiguous.

    A key keeps its full path when its last part is not unique or names a
    result column (``flows.tcp0.cc`` stays whole: each flow row has its own ``cc``).
    """
    keys = list(keys)
    last = [k.split(".")[-1] for k in keys]
    return {k: (s if last.count(s) == 1 and s not in RESULT_COLUMNS else k)
            for k, s in zip(keys, last, strict=True)}


def _seed(value: Any, where: str = "seeds") -> int:
    """A seed: a whole number from 0 to 2**64 - 1."""
    if not isinstance(value, bool) and isinstance(value, numbers.Integral) \
            and 0 <= int(value) < 2**64:
        return int(value)
    raise ScenarioError(f"{where}: {value!r} is not a seed (allowed: whole numbers from 0 to "
                        "2**64 - 1)", where, f"{value!r} is not a seed",
                        "whole numbers from 0 to 2**64 - 1")


@dataclass
class RunSpec:
    """One run of a sweep: its parameters, seed, resolved scenario and key."""

    params: dict[str, Any]
    seed: int
    scenario: dict[str, Any]
    key: str


def spec_key(resolved: dict[str, Any], metrics: list[str] | None) -> str:
    """The key of a run of a sweep: its resolved scenario, the kept metrics, the build.

    The memory budget is left out: it decides whether a run may start, not
    what it computes.
    """
    scenario = {k: v for k, v in resolved.items() if k != "memory_budget"}
    return run_key({"scenario": scenario, "metrics": metrics})


# ---- execution (in the workers) -------------------------------------------------


def _has_python_cc(data: dict[str, Any]) -> bool:
    for f in data.get("flows") or []:
        cc = f.get("cc") if isinstance(f, dict) else None
        if cc == "python" or (isinstance(cc, dict) and cc.get("name") == "python"):
            return True
    return False


def execute(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one scenario (in a worker); never raises: failures are returned."""
    t0 = time.perf_counter()
    try:
        log = os.environ.get(EXEC_LOG_ENV)
        if log:
            with open(log, "a") as f:
                f.write(payload["key"] + "\n")
        scenario = payload["scenario"]
        crash = os.environ.get(CRASH_SEED_ENV)
        if crash and scenario.get("seed") == int(crash):
            os._exit(3)
        controllers = None
        if _has_python_cc(scenario):
            from tcplab.cc import controllers_for

            controllers = controllers_for(scenario) or None
        from tcplab.results import Results

        raw = Results(_core.run_json(scenario_json(scenario), controllers)).raw
        keep = payload.get("metrics")
        if keep:
            base = ["flow", "kind", "src", "dst", "cc"]
            raw["flows"] = [{k: v for k, v in r.items() if k in base or k in keep}
                            for r in raw["flows"]]
        summary = {k: v for k, v in raw["summary"].items() if k not in _TIMING_FIELDS}
        results = {"flows": raw["flows"], "links": raw["links"], "summary": summary,
                   "intervals": raw.get("intervals", [])}
        return {"key": payload["key"], "status": "ok", "results": results,
                "wall_s": time.perf_counter() - t0, "build": build_id()}
    except Exception as e:  # noqa: BLE001 - a failed run is data, not a crash
        return {"key": payload["key"], "status": "failed",
                "error": f"{type(e).__name__}: {e}", "wall_s": time.perf_counter() - t0}


def _worker_init(parent: int) -> None:
    """Set up a local worker: Ctrl-C is the parent's to handle; die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), name="tcplab-watch-parent",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:
    # Polling, not PR_SET_PDEATHSIG: that fires when the thread that started
    # the worker ends, not the process.
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(PARENT_GONE_EXIT)


def _in_spawned_import() -> bool:
    """Whether this is a spawned worker importing the main script (an unguarded sweep).

    A spawned process imports the main script as ``__mp_main__`` before it
    starts (multiprocessing marks that phase as ``_inheriting``).
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        return True
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and \
                frame.f_globals.get("__name__") == "__mp_main__":
            return True
        frame = frame.f_back
    return False


def _refuse_unguarded() -> None:
    """In a worker re-running an unguarded script: leave at once, with a code the parent knows."""
    if _in_spawned_import():
        sys.stderr.flush()
        os._exit(MAIN_GUARD_EXIT)


# ---- progress and status --------------------------------------------------------


class Progress:
    """A one-line progress bar on a terminal; quiet otherwise (CI, files)."""

    def __init__(self, total: int, skipped: int, enabled: bool | None = None) -> None:
        self.total, self.skipped = total, skipped
        self.ok = self.failed = self.elsewhere = 0
        self.t0 = time.perf_counter()
        if enabled is None:
            enabled = sys.stderr.isatty() and not os.environ.get("CI")
        self.enabled = enabled

    def update(self, status: str) -> None:
        """Count one finished run ("ok", "failed", or "elsewhere": by another sweep)."""
        if status == "ok":
            self.ok += 1
        elif status == "elsewhere":
            self.elsewhere += 1
        else:
            self.failed += 1
        if not self.enabled:
            return
        done = self.ok + self.failed + self.elsewhere
        rate = done / max(time.perf_counter() - self.t0, 1e-9)
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        eta_s = time.strftime("%H:%M:%S", time.gmtime(eta)) if math.isfinite(eta) else "--"
        other = f", {self.elsewhere} by other sweeps" if self.elsewhere else ""
        sys.stderr.write(f"\r[{done}/{self.total}] {self.ok} ok, {self.failed} failed{other}, "
                         f"{self.skipped} already stored, ETA {eta_s} ")
        sys.stderr.flush()

    def close(self) -> None:
        """End the progress line."""
        if self.enabled:
            sys.stderr.write("\n")


def failure_lines(failed: pd.DataFrame) -> list[str]:
    """One line per distinct error of failed runs (rows of ``Store.runs``), most frequent first."""
    groups: dict[str, list[Any]] = {}
    for _, r in failed.iterrows():
        g = groups.setdefault(str(r["error"]), [0, int(r["seed"]), r["params"]])
        g[0] += 1
    out = []
    for error, (n, seed, params) in sorted(groups.items(), key=lambda x: (-x[1][0], x[0])):
        runs = f"{n} runs (e.g. seed {seed}" if n > 1 else f"1 run (seed {seed}"
        error = " ".join(error.split())
        out.append(f"  failed, {runs} {canonical(params)}): {error}")
    return out


@dataclass
class SweepStatus:
    """What the store holds of one sweep's runs (its own runs only)."""

    name: str
    db: Path
    total: int
    ok: int
    failed: int
    #: The failed runs (rows of ``Store.runs``).
    failures: pd.DataFrame

    @property
    def stored(self) -> int:
        """Runs stored, ok or failed."""
        return self.ok + self.failed

    def lines(self) -> list[str]:
        """The summary as text: one line, then one line per distinct error."""
        return [f"{self.name}: {self.stored} of {self.total} runs stored in {self.db} "
                f"({self.failed} failed)", *failure_lines(self.failures)]


def sweep_status(db: str | Path, name: str, specs: list[RunSpec]) -> SweepStatus:
    """Count a sweep's own runs in its store, with its failures."""
    keys = {s.key for s in specs}
    with Store(db) as store:
        runs = store.runs(keys=keys)
    failed = runs[runs["status"] == "failed"].reset_index(drop=True)
    return SweepStatus(name, Path(db), len(keys), int((runs["status"] == "ok").sum()),
                       len(failed), failed)


# ---- the sweep ------------------------------------------------------------------


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
        if isinstance(self.seeds, numbers.Integral) or isinstance(self.seeds, str | bytes):
            raise ScenarioError(f"seeds: {self.seeds!r} is not a list of seeds (allowed: a "
                                "list or range of whole numbers)", "seeds", "not a list",
                                "a list or range of whole numbers")
        self.seeds = [_seed(x) for x in self.seeds]  # an iterator would be used up
        if not self.seeds:
            raise ScenarioError("seeds: no seeds (allowed: at least one)", "seeds",
                                "no seeds", "at least one seed")
        if not isinstance(self.grid, dict):
            raise ScenarioError(f"grid: a table of dotted paths to values, not "
                                f"{type(self.grid).__name__}", "grid", "not a table")
        if "seed" in self.grid:
            raise ScenarioError("grid: 'seed' is set by the sweep's seeds; list them in seeds",
                                "seed", "seed in the grid", "seeds = [...]")

    def _base(self) -> dict[str, Any]:
        """The scenario data, each Python controller named by import path (plain data)."""
        if "pcap" in self.scenario.data:
            raise ScenarioError("a sweep cannot write packet traces (every run would write the "
                                "same files); trace single runs instead", "pcap",
                                "no pcap in a sweep")
        from tcplab.cc import pinned_spec

        return pinned_spec(self.scenario.data, self.scenario.custom)

    def runs(self) -> list[RunSpec]:
        """Every run of the study, with its resolved scenario and key.

        Raises:
            ScenarioError: a grid entry, a seed or a Python controller cannot
                be used (a class defined inside a function, say).
        """
        base = self._base()
        keys = list(self.grid)
        values = [expand_values(self.grid[k], k) for k in keys]
        total = math.prod(len(v) for v in values) * len(self.seeds)
        if total > MAX_RUNS:
            raise ScenarioError(f"grid: the sweep has {total:,} runs (allowed: at most "
                                f"{MAX_RUNS:,})", "grid", f"{total:,} runs",
                                f"at most {MAX_RUNS:,} runs")
        names = short_names(keys)
        python = _has_python_cc(base) or any(
            _has_python_cc({"flows": [{"cc": v}]}) for vs in values for v in vs)
        out = []
        for combo in itertools.product(*values):
            for seed in self.seeds:
                data = copy.deepcopy(base)
                for k, v in zip(keys, combo, strict=True):
                    set_path(data, k, copy.deepcopy(v))
                data["seed"] = seed
                resolved = _resolve(data, python)
                params = {names[k]: v for k, v in zip(keys, combo, strict=True)}
                out.append(RunSpec(params, seed, resolved, spec_key(resolved, self.metrics)))
        return out

    def definition(self) -> dict[str, Any]:
        """What makes this study itself: everything but its grid values and seeds.

        The base scenario (with the fields the grid sets left out, and without
        the seed, the memory budget and the source hashes of Python
        controllers), the grid's keys and the kept metrics. A store holds one
        study of each name: another definition under the same name is refused.
        """
        base = self._base()
        for k in self.grid:
            try:
                set_path(base, k, None)
            except ScenarioError:
                pass
        base.pop("seed", None)
        base.pop("memory_budget", None)
        for f in base.get("flows") or []:
            if isinstance(f, dict) and isinstance(f.get("cc"), dict):
                f["cc"].pop("source", None)
        return {"scenario": _plain(base), "grid": sorted(self.grid), "metrics": self.metrics}

    def run(self, jobs: int | None = None, dask: str | Any | None = None,
            progress: bool | None = None, retry_failed: bool = True) -> pd.DataFrame:
        """Run what is not stored yet; return this sweep's stored flow rows as a DataFrame.

        Args:
            jobs: local worker processes (default: all cores).
            dask: the address of a Dask scheduler, or a ``dask.distributed.Client``;
                the same sweep then runs on that cluster.
            progress: force the progress bar on or off (default: on a terminal).
            retry_failed: run again the runs stored as failed (default); False
                keeps their failures.

        Raises:
            SweepInterrupted: Ctrl-C (a ``KeyboardInterrupt``); every finished
                run is stored, and running the sweep again resumes.
            SweepError: the sweep was started from an unguarded script, or
                the Dask scheduler cannot be reached.
            ScenarioError: a grid entry is wrong, or the store holds another
                study of this name.
        """
        _refuse_unguarded()
        return run_specs(self.runs(), self.db, self.name, jobs=jobs, dask=dask,
                         progress=progress, metrics=self.metrics,
                         definition=self.definition(), retry_failed=retry_failed)

    def status(self) -> SweepStatus:
        """How many of this sweep's runs are stored and failed, and why they failed."""
        return sweep_status(self.db, self.name, self.runs())


def _resolve(data: dict[str, Any], python: bool) -> dict[str, Any]:
    """A run's scenario with every default filled in, or as written if it is invalid.

    An invalid run is keyed by its data as written; its worker raises the
    error again and the run is stored as failed with it.
    """
    try:
        controllers = None
        if python:
            from tcplab.cc import controllers_for, pinned_spec

            data = pinned_spec(data)  # a python cc set by the grid gets its source hash
            controllers = controllers_for(data) or None
        text = _scenario_json(data)
        return json.loads(_core.check_json(text, controllers))
    except ScenarioError:
        return _plain_or_raw(data)


def _scenario_json(data: dict[str, Any]) -> str:
    return json.dumps(_plain(data), allow_nan=False)


def _plain_or_raw(data: dict[str, Any]) -> dict[str, Any]:
    try:
        return _plain(data)
    except ScenarioError:
        return data


def _difference(old: Any, new: Any, path: str = "") -> str:
    """Where two definitions first differ, as text."""
    if path in ("grid", "metrics"):
        where = {"grid": "the grid's keys", "metrics": "the kept metrics"}[path]
        return f"{where}: {_short(old)} there, {_short(new)} here"
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new), key=str):
            if k not in old or k not in new or canonical(old[k]) != canonical(new[k]):
                sub = f"{path}.{k}" if path else str(k)
                if k not in old:
                    return f"{sub} is set here, not there"
                if k not in new:
                    return f"{sub} is set there, not here"
                return _difference(old[k], new[k], sub)
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if canonical(a) != canonical(b):
                return _difference(a, b, f"{path}[{i}]")
    return f"{path or 'the study'}: {_short(old)} there, {_short(new)} here"


def _short(value: Any) -> str:
    text = canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def run_specs(specs: list[RunSpec], db: str | Path, name: str, *, jobs: int | None = None,
              dask: str | Any | None = None, progress: bool | None = None,
              metrics: list[str] | None = None, definition: dict[str, Any] | None = None,
              retry_failed: bool = True) -> pd.DataFrame:
    """Run the specs not stored in ``db`` yet (and those that failed); return their rows.

    Each run is claimed in the store before it is computed and stored as soon
    as it finishes; runs other sweeps are computing are waited for (or taken
    over when their sweep died). ``definition`` (see :meth:`Sweep.definition`)
    is recorded for the study ``name``; another one already recorded under
    that name is refused.
    """
    _refuse_unguarded()
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ScenarioError(f"jobs: {jobs!r} is not a number of worker processes (allowed: 1 "
                            "or more)", "jobs", "not a number of processes", "1 or more")
    since = time.time()
    holder = Holder.current()
    first: dict[str, RunSpec] = {}
    for s in specs:  # grid values that resolve alike are one run
        first.setdefault(s.key, s)
    unique = list(first.values())
    keys = {s.key for s in unique}

    def conflict(old: dict[str, Any]) -> None:
        raise ScenarioError(
            f"{db} already holds a different study named '{name}' "
            f"({_difference(old, definition)}); give this study another name (or db), or "
            f"move {db} aside to start afresh", "name", "another study has this name",
            "a name of its own")

    with Store(db, write=True) as store:
        store.set_study(name, definition, [s.key for s in unique], conflict)
        statuses = store.statuses()
        todo = [s for s in unique if statuses.get(s.key) != "ok"
                and (retry_failed or s.key not in statuses)]
        bar = Progress(len(todo), len(unique) - len(todo), progress)
        work = _Work(store, holder, todo, since, lambda s: bar.update("elsewhere"), metrics)
        sigint = _Sigint()

        def record(s: RunSpec, out: dict[str, Any]) -> None:
            if out["status"] == "ok" and out.get("build") != build_id():
                # A worker (e.g. on a Dask cluster) runs another build of the core.
                out = {"key": out["key"], "status": "failed",
                       "error": f"the worker runs another tcplab build ({out.get('build')}), "
                                f"not this one ({build_id()})"}
            with sigint.deferred():
                store.put(key=s.key, study=name, params=s.params, seed=s.seed,
                          status=out["status"], scenario=s.scenario,
                          results=out.get("results"), error=out.get("error"),
                          wall_s=out.get("wall_s"), holder=holder.id)
            bar.update(out["status"])

        leases = _Leases(Path(db), holder)
        try:
            leases.start()
            sigint.install()
            if dask is not None:
                _run_dask(work, dask, record)
            else:
                _run_local(work, jobs or os.cpu_count() or 1, record)
        except KeyboardInterrupt:
            stored = store.statuses()
            raise SweepInterrupted(sum(k in stored for k in keys), len(keys)) from None
        finally:
            sigint.restore()
            leases.stop()
            try:
                store.release(holder)
            except StoreError:
                pass
            bar.close()
        return store.flows(keys=keys)


# ---- sharing the work between sweeps --------------------------------------------


class _Work:
    """The runs a sweep has to compute, claimed one by one as workers are free."""

    def __init__(self, store: Store, holder: Holder, todo: list[RunSpec], since: float,
                 elsewhere: Callable[[RunSpec], None], metrics: list[str] | None) -> None:
        self.store, self.holder, self.since, self.metrics = store, holder, since, metrics
        self.queue: deque[RunSpec] = deque(todo)
        self.again: deque[RunSpec] = deque()  # ours, to submit again
        self.waiting: dict[str, RunSpec] = {}  # claimed by other sweeps
        self.elsewhere = elsewhere
        self.next_poll = 0.0

    def take(self) -> RunSpec | None:
        """The next run to compute, claimed; None when there is none right now."""
        if self.again:
            return self.again.popleft()
        while True:
            while self.queue:
                s = self.queue.popleft()
                state = self.store.claim(s.key, self.holder, self.since)
                if state == "claimed":
                    return s
                if state == "stored":
                    self.elsewhere(s)
                else:
                    self.waiting[s.key] = s
            if not self.waiting or time.monotonic() < self.next_poll:
                return None
            self.next_poll = time.monotonic() + POLL_S
            stored, free = self.store.poll(set(self.waiting), self.since)
            for k in stored:
                self.elsewhere(self.waiting.pop(k))
            if not free:
                return None
            self.queue.extend(self.waiting.pop(k) for k in sorted(free))

    def payload(self, s: RunSpec) -> dict[str, Any]:
        """What a worker gets to run ``s``."""
        return {"key": s.key, "scenario": s.scenario, "metrics": self.metrics}

    def give_back(self, s: RunSpec) -> None:
        """A claimed run that could not be submitted: it is next."""
        self.again.appendleft(s)

    @property
    def finished(self) -> bool:
        """Whether every run is computed, or stored by another sweep."""
        return not (self.queue or self.again or self.waiting)


class _Leases(threading.Thread):
    """Renews the leases of a sweep's claims every few seconds, on its own connection."""

    def __init__(self, db: Path, holder: Holder) -> None:
        super().__init__(name="tcplab-leases", daemon=True)
        self.db, self.holder = db, holder
        self.done = threading.Event()

    def run(self) -> None:  # noqa: D102
        store = None
        try:
            while not self.done.wait(RENEW_S):
                try:
                    store = store or Store(self.db, write=True)
                    store.renew(self.holder)
                except StoreError:
                    pass  # busy or gone: the next round tries again
        finally:
            if store is not None:
                store.close()

    def stop(self) -> None:
        """End the thread (it ends within a moment)."""
        self.done.set()


class _Sigint:
    """Ctrl-C while a run is being stored takes effect once it is stored, not half-way."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False
        self.old: Any = None

    def install(self) -> None:
        """Take over SIGINT, if it has Python's default handler and this is the main thread."""
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.old = signal.signal(signal.SIGINT, self._handler)

    def restore(self) -> None:
        """Give SIGINT back its handler."""
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)
            self.old = None

    def _handler(self, signum: int, frame: Any) -> None:
        if self.depth:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """A section that Ctrl-C does not cut short."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
        if not self.depth and self.pending:
            self.pending = False
            raise KeyboardInterrupt


# ---- executors ------------------------------------------------------------------


def _pool(jobs: int, ctx: Any) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                               initargs=(os.getpid(),))


def _check_main_guard(procs: dict[int, Any]) -> None:
    """After a pool broke: raise SweepError if a worker left on re-running the script.

    The pool's own thread may be reaping the workers at this moment, so their
    exit codes are read again for a short while until every one is known.
    """
    deadline = time.monotonic() + 2.0
    while True:
        codes = [proc.exitcode for proc in procs.values()]
        if MAIN_GUARD_EXIT in codes:
            raise SweepError(_MAIN_GUARD_MESSAGE)
        if None not in codes or time.monotonic() > deadline:
            return
        time.sleep(0.02)


def _run_local(work: _Work, jobs: int, record: Callable[[RunSpec, dict[str, Any]], None],
               ) -> None:
    """Run in a process pool with at most ``jobs`` runs in flight.

    When a worker process crashes, only the runs in flight can be to blame:
    each is re-run alone, and a run that crashes its worker alone twice is
    reported as failed; the others' results are kept. If the caller stops
    (Ctrl-C, an error), finished runs are stored, pending runs cancelled and
    the workers ended.
    """
    ctx = multiprocessing.get_context("spawn")
    while True:
        suspects: list[RunSpec] = []
        pool = _pool(jobs, ctx)
        procs: dict[int, Any] = {}
        inflight: dict[Any, RunSpec] = {}
        clean = False
        try:
            while True:
                broken = False
                while len(inflight) < jobs:
                    s = work.take()
                    if s is None:
                        break
                    try:
                        inflight[pool.submit(execute, work.payload(s))] = s
                    except BrokenProcessPool:
                        # A worker crashed since the last wait: this run never
                        # started, so it goes back, not to the suspects.
                        work.give_back(s)
                        broken = True
                        break
                    procs.update(getattr(pool, "_processes", None) or {})
                if not broken:
                    if not inflight:
                        if work.finished:
                            break
                        time.sleep(POLL_S)
                        continue
                    done, _ = wait(set(inflight), timeout=POLL_S, return_when=FIRST_COMPLETED)
                    for fut in done:
                        s = inflight.pop(fut)
                        try:
                            out = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            suspects.append(s)
                            continue
                        record(s, out)
                if broken:
                    _check_main_guard(procs)
                    suspects += list(inflight.values())
                    inflight.clear()
                    break
            clean = True
        except BaseException:
            _keep_finished(inflight, record)
            raise
        finally:
            if clean:
                pool.shutdown(wait=True)
            else:
                _abandon(pool)
        for s in suspects:
            record(s, _run_alone(work.payload(s), ctx))
        if work.finished:
            return


def _keep_finished(inflight: dict[Any, RunSpec],
                   record: Callable[[RunSpec, dict[str, Any]], None]) -> None:
    """Store the runs that finished while the sweep was being stopped."""
    for fut, s in list(inflight.items()):
        if fut.done() and not fut.cancelled() and fut.exception() is None:
            record(s, fut.result())


def _run_alone(p: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """A run suspected of crashing its worker, alone in a fresh worker (twice at most)."""
    for _ in range(2):
        pool = _pool(1, ctx)
        procs: dict[int, Any] = {}
        clean = False
        try:
            fut = pool.submit(execute, p)
            procs.update(getattr(pool, "_processes", None) or {})
            try:
                out = fut.result()
            except BrokenProcessPool:
                _check_main_guard(procs)
                clean = True
                continue
            clean = True
            return out
        finally:
            if clean:
                pool.shutdown(wait=True)
            else:
                _abandon(pool)
    return {"key": p["key"], "status": "failed",
            "error": "the worker process crashed (twice, running alone) on this run"}


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once: cancel what is queued and end the workers."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


def _run_dask(work: _Work, dask: str | Any,
              record: Callable[[RunSpec, dict[str, Any]], None]) -> None:
    """Run on a Dask cluster: as many runs in flight as it has threads, twice over.

    A run whose worker dies (``KilledWorker``) is submitted again, up to
    :data:`DASK_TRIES` times in all; then it is stored as failed.
    """
    from dask.distributed import Client, KilledWorker

    own = not isinstance(dask, Client)
    if own:
        try:
            client = Client(dask)
        except (OSError, ValueError, TypeError) as e:
            raise SweepError(f"cannot reach the Dask scheduler at {dask!r}: {e}") from None
    else:
        client = dask
    inflight: dict[Any, RunSpec] = {}
    tries: dict[str, int] = {}
    capacity, next_size = 1, 0.0
    try:
        while True:
            if time.monotonic() >= next_size:
                capacity = max(1, 2 * sum(client.nthreads().values()))
                next_size = time.monotonic() + 5.0
            while len(inflight) < capacity:
                s = work.take()
                if s is None:
                    break
                inflight[client.submit(execute, work.payload(s), pure=False)] = s
            if not inflight:
                if work.finished:
                    return
                time.sleep(POLL_S)
                continue
            done = [f for f in inflight if f.done()]
            if not done:
                time.sleep(0.05)
                continue
            for fut in done:
                s = inflight.pop(fut)
                try:
                    out = fut.result()
                except KilledWorker:
                    n = tries[s.key] = tries.get(s.key, 0) + 1
                    if n < DASK_TRIES:
                        inflight[client.submit(execute, work.payload(s), pure=False)] = s
                        continue
                    out = {"key": s.key, "status": "failed",
                           "error": f"KilledWorker: the Dask workers running this run died "
                                    f"({n} tries); see the workers' logs"}
                except Exception as e:  # noqa: BLE001 - cancelled, lost: the run failed
                    out = {"key": s.key, "status": "failed", "error": f"{type(e).__name__}: {e}"}
                record(s, out)
    except BaseException:
        for fut, s in list(inflight.items()):
            if fut.done() and fut.status == "finished":
                record(s, fut.result())
        client.cancel(list(inflight))
        raise
    finally:
        if own:
            client.close()


# ---- study files ----------------------------------------------------------------


def _read_text(p: Path) -> str:
    try:
        from tcplab.scenario import read_text_file
    except ImportError:  # pragma: no cover - an older scenario module
        read_text_file = None
    if read_text_file is not None:
        return read_text_file(p, "study file")
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"no such study file: {p}", "", "no such study file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{p} is a directory, not a study file", "", "a directory") \
            from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot read {p}: {e}", "", "cannot read") from None


def load_study(path: str | Path) -> Sweep:
    """Read a study file (TOML).

    Fields: ``name``; ``db`` (default: ``<name>.db`` beside the file);
    ``seeds`` (a list, or a count n for 1..n); ``metrics`` (flow columns to keep;
    default all); ``scenario`` (an inline scenario table, or ``scenario_file``, a
    path relative to the study); ``grid`` (dotted path -> list or range).
    Anything wrong with the file is a ScenarioError naming the field.
    """
    p = Path(path)
    text = _read_text(p)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: not valid TOML: {e}", "", f"not valid TOML: {e}") from None
    except RecursionError:
        raise ScenarioError(f"{p}: nested too deeply", "", "nested too deeply") from None
    allowed = {"name", "db", "seeds", "metrics", "scenario", "scenario_file", "grid"}
    unknown = set(data) - allowed
    if unknown:
        bad = sorted(unknown)[0]
        raise ScenarioError(f"{p.name}: unknown field '{bad}' (allowed: "
                            f"{', '.join(sorted(allowed))})", bad, "unknown field")

    def expect(key: str, ok: bool, what: str) -> None:
        if not ok:
            raise ScenarioError(f"{p.name}: {key} = {data[key]!r} is not {what}", key,
                                f"not {what}", what)

    name = data.get("name", p.stem)
    if "name" in data:
        expect("name", isinstance(name, str) and bool(name.strip()) and not
               any(c in name for c in "/\\\0"), "a name (a non-empty string without slashes)")
    if "db" in data:
        expect("db", isinstance(data["db"], str) and bool(data["db"].strip()), "a file name")
    if "metrics" in data:
        expect("metrics", isinstance(data["metrics"], list) and bool(data["metrics"]) and
               all(isinstance(m, str) for m in data["metrics"]), "a list of flow columns")
    if "grid" in data:
        expect("grid", isinstance(data["grid"], dict), "a table of dotted paths to values")
    seeds = data.get("seeds", 1)
    if isinstance(seeds, list):
        expect("seeds", bool(seeds), "a count or a non-empty list of seeds")
        seeds = [_seed(s, "seeds") for s in seeds]
    else:
        expect("seeds", not isinstance(seeds, bool) and isinstance(seeds, int) and
               1 <= seeds <= MAX_RUNS, f"a count from 1 to {MAX_RUNS:,} or a list of seeds")
        seeds = list(range(1, seeds + 1))
    if "scenario_file" in data:
        expect("scenario_file", isinstance(data["scenario_file"], str), "a file name")
        try:
            scenario = Scenario.from_toml(p.parent / data["scenario_file"])
        except ScenarioError:
            raise
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
            raise ScenarioError(f"{p.name}: scenario_file: cannot read "
                                f"{data['scenario_file']}: {e}", "scenario_file",
                                "cannot read") from None
    elif "scenario" in data:
        expect("scenario", isinstance(data["scenario"], dict), "a table (a scenario)")
        scenario = Scenario(data["scenario"])
    else:
        raise ScenarioError(f"{p.name}: a study needs 'scenario' or 'scenario_file'",
                            "scenario", "an inline table or a file")
    db = p.parent / data.get("db", f"{name}.db")
    return Sweep(scenario, grid=data.get("grid", {}), seeds=seeds, db=db, name=name,
                 metrics=data.get("metrics"))
