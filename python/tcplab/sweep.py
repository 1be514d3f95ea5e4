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
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import tomllib

from tcplab import _core
from tcplab.errors import (  # noqa: F401 - re-exported: docs name tcplab.sweep.SweepInterrupted
    ScenarioError,
    StoreError,
    SweepError,
    SweepInterrupted,
)
from tcplab.grid import (  # noqa: F401 - re-exported: tcplab.sweep's names stay
    MAX_RUNS,
    MAX_VALUES,
    RESULT_COLUMNS,
    _seed,
    expand_values,
    set_path,
    short_names,
)
from tcplab.runner import (  # noqa: F401 - re-exported
    DASK_TRIES,
    POLL_S,
    Progress,
    RunSpec,
    _difference,
    run_specs,
    spec_key,
)
from tcplab.scenario import Scenario
from tcplab.scenario import plain as _plain
from tcplab.store import Store, canonical
from tcplab.worker import (  # noqa: F401 - re-exported
    CRASH_SEED_ENV,
    EXEC_LOG_ENV,
    MAIN_GUARD_EXIT,
    PARENT_GONE_EXIT,
    PARENT_POLL_S,
    _has_python_cc,
    _refuse_unguarded,
    execute,
)

# ---- status ---------------------------------------------------------------------


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
    #: The most wall-clock seconds one run may take (None: no limit); a run past
    #: it is stopped and stored as failed with the reason, and retried by the
    #: next sweep as any failed run is.
    run_timeout: float | None = None

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
            KeyboardInterrupt: Ctrl-C; every finished run is stored, a line on
                stderr says how to resume (running the sweep again), and the
                script ends as Python's do on Ctrl-C (``SweepInterrupted``,
                a subclass, under the ``tcplab`` command).
            SweepError: the sweep was started from an unguarded script, or
                the Dask scheduler cannot be reached.
            ScenarioError: a grid entry is wrong, or the store holds another
                study of this name.
        """
        _refuse_unguarded()
        specs = self.runs()
        _drop_damaged(self.db, {s.key for s in specs})
        return run_specs(specs, self.db, self.name, jobs=jobs, dask=dask,
                         progress=progress, metrics=self.metrics,
                         definition=self.definition(), retry_failed=retry_failed,
                         run_timeout=self.run_timeout)

    def results(self, table: str = "flows") -> pd.DataFrame:
        """The stored rows of one table of this sweep, with its grid columns and seed.

        ``table`` is ``"flows"`` (one row per run and flow), ``"links"`` (per
        run and link direction: drops, AQM drops, marks, utilisation, sojourn
        percentiles), ``"intervals"`` (per run, flow and interval, when the
        scenario sets ``interval``) or ``"transfers"`` (per run and transfer
        of a workload or a Transfer: size, completion time, slowdown). Grid
        values that are tables appear as their labels (``red(min_th=20)``).
        Runs not stored yet are left out; nothing is computed.
        """
        keys = {s.key for s in self.runs()}
        if not Path(self.db).exists():
            raise StoreError(f"no such results store: {self.db} (run the sweep first)")
        with Store(self.db) as store:
            return store.table(table, keys=keys)

    def status(self) -> SweepStatus:
        """How many of this sweep's runs are stored and failed, and why they failed."""
        return sweep_status(self.db, self.name, self.runs())


def _drop_damaged(db: str | Path, keys: set[str]) -> None:
    """Delete this sweep's stored runs whose rows cannot be decoded, so that it recomputes them."""
    if not Path(db).exists():
        return
    with Store(db, write=True) as store:
        bad = store.damaged(keys)
        if bad:
            import sys

            print(f"warning: {db}: {len(bad)} stored runs were damaged; computing them again",
                  file=sys.stderr)
            store.drop(bad)


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
        return json.loads(_core.check_json(data, controllers))
    except ScenarioError:
        return _plain_or_raw(data)


def _plain_or_raw(data: dict[str, Any]) -> dict[str, Any]:
    try:
        return _plain(data)
    except ScenarioError:
        return data



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

