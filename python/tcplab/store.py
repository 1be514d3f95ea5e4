"""The embedded results store: one SQLite file per study, no server.

Each finished run is written in its own transaction as soon as it finishes,
so a sweep stopped by Ctrl-C, a killed process or a crash loses nothing that
finished, and a rerun skips every run already stored. A run is identified by
its key: a hash of its fully resolved scenario (every default filled in,
canonical JSON, so field order does not matter) and the tcplab version, so
results of another configuration or another version are never mixed in.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import __version__

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    study TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    scenario TEXT NOT NULL,
    results TEXT,
    version TEXT NOT NULL,
    wall_s REAL,
    finished_at REAL NOT NULL
);
"""


def canonical(obj: Any) -> str:
    """JSON with sorted keys and no whitespace: equal data, equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def build_id() -> str:
    """A fingerprint of the compiled core: a rebuild with other behaviour gets other keys."""
    global _BUILD_ID
    if _BUILD_ID is None:
        from tcplab import _core

        path = getattr(_core, "__file__", None)
        data = Path(path).read_bytes() if path else _core.__version__.encode()
        _BUILD_ID = hashlib.sha256(data).hexdigest()[:16]
    return _BUILD_ID


_BUILD_ID: str | None = None


def run_key(resolved_scenario: dict[str, Any], version: str | None = None) -> str:
    """The key of a run: sha256 of its resolved scenario, the version and the core's build."""
    if version is None:
        version = f"{__version__}+{build_id()}"
    h = hashlib.sha256()
    h.update(version.encode())
    h.update(b"\0")
    h.update(canonical(resolved_scenario).encode())
    return h.hexdigest()


class Store:
    """A study's results in one SQLite file (WAL mode, a transaction per run)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=60)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        """Close the database."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done_keys(self) -> set[str]:
        """Keys of the runs already stored (finished or failed)."""
        return {row[0] for row in self.conn.execute("SELECT key FROM runs")}

    def put(self, *, key: str, study: str, params: dict[str, Any], seed: int, status: str,
            scenario: dict[str, Any], results: dict[str, Any] | None = None,
            error: str | None = None, wall_s: float | None = None) -> None:
        """Store one run, atomically; storing a key twice keeps the first."""
        with self.conn:
            self.conn.execute(
                "INSERT OR IGNORE INTO runs (key, study, params, seed, status, error, scenario, "
                "results, version, wall_s, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (key, study, canonical(params), seed, status, error, canonical(scenario),
                 None if results is None else json.dumps(results, allow_nan=True),
                 __version__, wall_s, time.time()),
            )

    def runs(self) -> pd.DataFrame:
        """One row per stored run: key, study, seed, status, error, params, version, wall_s."""
        rows = self.conn.execute(
            "SELECT key, study, seed, status, error, params, version, wall_s FROM runs "
            "ORDER BY finished_at, key").fetchall()
        df = pd.DataFrame(rows, columns=["key", "study", "seed", "status", "error", "params",
                                         "version", "wall_s"])
        df["params"] = df["params"].map(json.loads)
        return df

    def failures(self) -> pd.DataFrame:
        """The runs that failed, with their error text."""
        r = self.runs()
        return r[r["status"] == "failed"].reset_index(drop=True)

    def flows(self, keys: set[str] | None = None) -> pd.DataFrame:
        """One row per (successful run, flow): the grid parameters, seed and flow metrics.

        ``keys`` restricts it to those runs (a sweep passes its own).
        """
        return self._table("flows", keys)

    def intervals(self, keys: set[str] | None = None) -> pd.DataFrame:
        """One row per (successful run, flow, interval), when the scenario set `interval`."""
        return self._table("intervals", keys)

    def _table(self, name: str, keys: set[str] | None = None) -> pd.DataFrame:
        rows = self.conn.execute(
            "SELECT key, params, seed, results FROM runs WHERE status = 'ok' "
            "ORDER BY finished_at, key").fetchall()
        frames = []
        for key, params, seed, results in rows:
            if keys is not None and key not in keys:
                continue
            data = json.loads(results).get(name, [])
            if not data:
                continue
            df = pd.DataFrame(data)
            for k, v in json.loads(params).items():
                df.insert(0, k if k not in df.columns else f"param:{k}", [v] * len(df))
            df.insert(0, "seed", seed)
            df.insert(0, "key", key)
            frames.append(df)
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)
