"""The embedded results store: one SQLite file per study, no server.

Each finished run is written in its own transaction as soon as it finishes,
so a sweep stopped by Ctrl-C, a killed process or a crash loses nothing that
finished, and a rerun skips every run already stored. A run is identified by
its key: a hash of its fully resolved scenario (every default filled in,
canonical JSON, so field order does not matter) and the tcplab version, so
results of another configuration or another version are never mixed in.

Besides the runs, the file holds:

- ``claims``: the runs being computed right now, and by whom (host, process,
  the process's start time, a lease renewed every few seconds), so that
  sweeps running at the same time on one store share the work, and a run
  claimed by a sweep that died is taken over at once (same host) or when
  its lease runs out (another host);
- ``studies`` and ``study_runs``: each study's definition (everything but
  its grid values and seeds) and the runs of its latest invocation, so that
  reports count and show only a study's own, current runs.

``Store(path)`` opens an existing store read-only and never creates one;
a sweep opens it with ``write=True``. A store is marked as tcplab's
(``PRAGMA application_id``, with its schema version in ``user_version``):
a sweep refuses to write into any other non-empty SQLite file. A store in a
folder the reader cannot write (where SQLite cannot make its WAL side
files) is read as an immutable file. A row that cannot be decoded is
skipped with a warning naming the store and the run, and the next sweep
recomputes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
import urllib.parse
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import __version__
from tcplab.claims import Holder, expired, holder_gone, process_start  # noqa: F401 - re-exported
from tcplab.errors import StoreError

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
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    host TEXT NOT NULL,
    boot TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_start TEXT NOT NULL,
    lease_until REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS studies (
    name TEXT PRIMARY KEY,
    definition TEXT,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS study_runs (
    study TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (study, key)
);
"""

#: ``PRAGMA application_id`` of a tcplab store: "TcpL" in ASCII.
APPLICATION_ID = 0x5463704C
#: ``PRAGMA user_version``: the version of the store's tables.
SCHEMA_VERSION = 1
#: The tables a tcplab store may hold (one made before stores were marked has some of them).
_OWN_TABLES = {"runs", "claims", "studies", "study_runs"}

#: The tables of a run's results a store holds, as :meth:`Store.table` reads them.
TABLES = ("flows", "links", "intervals", "transfers")
#: The columns of a ``transfers`` row: each finished or unfinished transfer of a workload.
TRANSFER_COLUMNS = ("flow", "src", "dst", "start_s", "transfer_bytes", "completion_time_s",
                    "slowdown", "cc")

#: A claim not renewed for this long (seconds) is taken over by another sweep.
LEASE_S = 30.0
#: How often (seconds) a sweep renews the leases of its claims.
RENEW_S = 5.0

#: SQLite's result codes for a file that is not a database, or a damaged one.
_DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


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


# ---- the store ---------------------------------------------------------------------


class Store:
    """A study's results in one SQLite file (WAL mode, a transaction per run).

    Args:
        path: the store's file.
        write: open it to store runs, creating it if needed (a sweep does);
            otherwise it is opened read-only, and a missing file, a file that
            is not a store or a damaged one raise :class:`StoreError`.
    """

    def __init__(self, path: str | Path, *, write: bool = False) -> None:
        self.path = Path(path)
        self.write = write
        self._tables: set[str] = set()
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a results store")
        if not write and not self.path.exists():
            raise StoreError(f"no such results store: {self.path}")
        with self._guard():
            self.conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        """The connection, checked; closed again if the file cannot be used."""
        if self.write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        else:
            conn = self._open_read()
        try:
            if self.write:
                self._set_up(conn)
            else:
                self._check_mark(conn)
                self._tables = {r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if "runs" not in self._tables:
                    raise StoreError(f"{self.path} is not a tcplab results store (it has no "
                                     "runs table)")
            # A file that is not a database fails here; damage further in fails
            # when it is read (every query goes through _guard).
            conn.execute("SELECT count(*) FROM runs").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_read(self) -> sqlite3.Connection:
        """A read-only connection; an immutable one where SQLite cannot add its side files.

        Reading a store in WAL mode makes SQLite create a shared-memory file
        beside it; in a folder the reader cannot write that fails ("attempt
        to write a readonly database"). Such a store, which no sweep can be
        writing, is then read as immutable.
        """
        base = "file:" + urllib.parse.quote(str(self.path.resolve()))
        conn = sqlite3.connect(base + "?mode=ro", uri=True, timeout=60, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as e:
            conn.close()
            text = str(e)
            if "readonly" not in text and "unable to open" not in text:
                raise
        return sqlite3.connect(base + "?mode=ro&immutable=1", uri=True, timeout=60,
                               isolation_level=None)

    def _check_mark(self, conn: sqlite3.Connection) -> bool:
        """Check that the file is a tcplab store, or empty; whether it still needs its mark.

        A file marked by another application, or one holding tables that are
        not a store's, is refused, naming the file; so is a store made by a
        newer tcplab. A store made before stores were marked is recognised
        by its tables.
        """
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} is a results store of a newer tcplab (store "
                                 f"version {version}; this one reads up to "
                                 f"{SCHEMA_VERSION}); upgrade tcplab")
            return version < SCHEMA_VERSION
        ours = "runs" in tables and tables <= _OWN_TABLES
        if app != 0 or (tables and not ours):
            what = (f"application id {app:#x}" if app != 0
                    else f"tables {', '.join(sorted(tables))}")
            raise StoreError(f"{self.path} is not a tcplab results store (an SQLite database "
                             f"of another application: {what}); name a new file for the "
                             "results")
        return True

    def _set_up(self, conn: sqlite3.Connection) -> None:
        """Mark the file, WAL mode and the tables, waiting for sweeps that open the same new file.

        Switching a new file to WAL takes an exclusive lock, and SQLite answers
        "database is locked" at once, without its busy timeout, to a second
        process doing the same: so the setup is retried for up to a minute.
        """
        deadline = time.monotonic() + 60
        while True:
            try:
                if self._check_mark(conn):
                    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(SCHEMA)
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e) \
                        or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    # -- errors, transactions ------------------------------------------------------

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn SQLite's errors into one-line :class:`StoreError` messages."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            code = getattr(e, "sqlite_errorcode", None)
            if code in _DAMAGED or (code is None and not isinstance(e, sqlite3.OperationalError)):
                raise StoreError(
                    f"{self.path} is not a tcplab results store or is damaged ({e}); move it "
                    "aside and run the sweep again to recompute") from None
            raise StoreError(f"{self.path}: cannot use the results store ({e})") from None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, taken at once (BEGIN IMMEDIATE), committed or rolled back."""
        with self._guard():
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[Any]:
        with self._guard():
            return self.conn.execute(sql, tuple(args)).fetchall()

    def _has(self, table: str) -> bool:
        return self.write or table in self._tables

    def close(self) -> None:
        """Close the database; a sweep's store leaves WAL mode when no one else has it open.

        A store in WAL mode needs side files to be read, which a reader
        cannot make in a folder it cannot write; a store that is not in
        use is therefore left in SQLite's default journal mode. While
        another sweep has it open, the switch fails and WAL stays.
        """
        if self.write:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA journal_mode=DELETE")
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------

    def done_keys(self) -> set[str]:
        """Keys of the runs already stored (finished or failed)."""
        return {row[0] for row in self._query("SELECT key FROM runs")}

    def statuses(self) -> dict[str, str]:
        """The status ("ok" or "failed") of every stored run, by key."""
        return dict(self._query("SELECT key, status FROM runs"))

    def put(self, *, key: str, study: str, params: dict[str, Any], seed: int, status: str,
            scenario: dict[str, Any], results: dict[str, Any] | None = None,
            error: str | None = None, wall_s: float | None = None,
            holder: str | None = None) -> None:
        """Store one run, atomically, and release its claim.

        A run stored as "ok" is kept as it is; a failed run is replaced by a
        newer attempt.
        """
        with self._tx() as c:
            c.execute(
                "INSERT INTO runs (key, study, params, seed, status, error, scenario, results, "
                "version, wall_s, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(key) DO UPDATE SET study = excluded.study, params = "
                "excluded.params, seed = excluded.seed, status = excluded.status, error = "
                "excluded.error, scenario = excluded.scenario, results = excluded.results, "
                "version = excluded.version, wall_s = excluded.wall_s, finished_at = "
                "excluded.finished_at WHERE runs.status != 'ok'",
                (key, study, canonical(params), seed, status, error, canonical(scenario),
                 None if results is None else json.dumps(results, allow_nan=True),
                 __version__, wall_s, time.time()),
            )
            if holder is not None:
                c.execute("DELETE FROM claims WHERE key = ? AND holder = ?", (key, holder))

    # -- claims --------------------------------------------------------------------

    def claim(self, key: str, holder: Holder, since: float) -> str:
        """Try to claim a run for ``holder``.

        Returns "claimed" (it is ours to compute), "stored" (it is stored as
        ok, or was stored at or after ``since``, by another sweep) or "busy"
        (another live sweep holds it).
        """
        now = time.time()
        with self._tx() as c:
            row = c.execute("SELECT status, finished_at FROM runs WHERE key = ?",
                            (key,)).fetchone()
            if row is not None and (row[0] == "ok" or row[1] >= since):
                return "stored"
            held = c.execute("SELECT holder, host, boot, pid, pid_start, lease_until FROM claims "
                             "WHERE key = ?", (key,)).fetchone()
            if held is not None and held[0] != holder.id and not expired(held, now):
                return "busy"
            c.execute("INSERT OR REPLACE INTO claims (key, holder, host, boot, pid, pid_start, "
                      "lease_until) VALUES (?,?,?,?,?,?,?)",
                      (key, holder.id, holder.host, holder.boot, holder.pid, holder.start,
                       now + LEASE_S))
        return "claimed"

    def poll(self, keys: set[str], since: float) -> tuple[set[str], set[str]]:
        """Of ``keys`` (claimed by others): those stored since ``since``, and those now free.

        A key is free when no one holds it, or its holder is gone (same host)
        or let its lease run out.
        """
        now = time.time()
        # Runs stored as ok before ``since`` were never waited for: only newer rows matter.
        stored = {k for (k,) in self._query("SELECT key FROM runs WHERE finished_at >= ?",
                                            (since,)) if k in keys}
        held = {r[0]: r[1:] for r in self._query(
            "SELECT key, holder, host, boot, pid, pid_start, lease_until FROM claims")}
        free = {k for k in keys - stored if k not in held or expired(held[k], now)}
        return stored, free

    def renew(self, holder: Holder) -> None:
        """Extend the leases of every claim of ``holder``."""
        with self._tx() as c:
            c.execute("UPDATE claims SET lease_until = ? WHERE holder = ?",
                      (time.time() + LEASE_S, holder.id))

    def release(self, holder: Holder) -> None:
        """Drop every claim of ``holder`` (its sweep ends or is interrupted)."""
        with self._tx() as c:
            c.execute("DELETE FROM claims WHERE holder = ?", (holder.id,))

    def claims(self) -> pd.DataFrame:
        """The runs claimed right now: key, holder, host, pid, lease_until."""
        rows = self._query("SELECT key, holder, host, pid, lease_until FROM claims") \
            if self._has("claims") else []
        return pd.DataFrame(rows, columns=["key", "holder", "host", "pid", "lease_until"])

    # -- studies -------------------------------------------------------------------

    def set_study(self, name: str, definition: dict[str, Any] | None, keys: Iterable[str],
                  conflict: Any = None) -> None:
        """Record a study's definition and the runs of its latest invocation.

        When the store already holds a study of this name with another
        definition, ``conflict(old_definition)`` is called inside the
        transaction (it raises to refuse); without it the new one replaces it.
        """
        with self._tx() as c:
            row = c.execute("SELECT definition FROM studies WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is not None and definition is not None:
                old = json.loads(row[0])
                if canonical(old) != canonical(definition) and conflict is not None:
                    conflict(old)
            c.execute("INSERT OR REPLACE INTO studies (name, definition, updated_at) "
                      "VALUES (?,?,?)",
                      (name, None if definition is None else canonical(definition), time.time()))
            c.execute("DELETE FROM study_runs WHERE study = ?", (name,))
            c.executemany("INSERT OR IGNORE INTO study_runs (study, key) VALUES (?,?)",
                          [(name, k) for k in keys])

    def studies(self) -> list[str]:
        """The names of the studies in the store, most recently run last."""
        names: list[str] = []
        if self._has("studies"):
            names = [r[0] for r in self._query("SELECT name FROM studies ORDER BY updated_at")]
        older = [r[0] for r in self._query("SELECT DISTINCT study FROM runs ORDER BY study")]
        return [n for n in older if n not in names] + names

    def current_keys(self, study: str | None = None) -> set[str]:
        """The runs of a study's latest invocation (of every study's, when None).

        A study stored before studies were recorded counts all its runs.
        """
        recorded: dict[str, set[str]] = {}
        if self._has("study_runs"):
            for name, key in self._query("SELECT study, key FROM study_runs"):
                recorded.setdefault(name, set()).add(key)
            for (name,) in self._query("SELECT name FROM studies"):
                recorded.setdefault(name, set())
        names = [study] if study is not None else self.studies()
        if study is not None and study not in self.studies():
            raise StoreError(f"{self.path} holds no study named {study!r} (studies: "
                             f"{', '.join(self.studies()) or 'none'})")
        out: set[str] = set()
        for name in names:
            if name in recorded:
                out |= recorded[name]
            else:
                out |= {r[0] for r in self._query("SELECT key FROM runs WHERE study = ?",
                                                  (name,))}
        return out

    # -- reading -------------------------------------------------------------------

    def runs(self, keys: set[str] | None = None, study: str | None = None,
             current: bool = True) -> pd.DataFrame:
        """One row per stored run: key, study, seed, status, error, params, version, wall_s.

        By default the current runs of every study (those of each study's
        latest invocation); ``study`` restricts them to one study's, ``keys``
        to those runs; ``current=False`` gives every row of the file, stale
        ones (of earlier versions of a study) included.
        """
        keys = self._select(keys, study, current)
        rows = self._query(
            "SELECT key, study, seed, status, error, params, version, wall_s FROM runs "
            "ORDER BY finished_at, key")
        if keys is not None:
            rows = [r for r in rows if r[0] in keys]
        df = pd.DataFrame(rows, columns=["key", "study", "seed", "status", "error", "params",
                                         "version", "wall_s"])
        df["params"] = df["params"].map(json.loads)
        return df

    def failures(self, keys: set[str] | None = None, study: str | None = None,
                 current: bool = True) -> pd.DataFrame:
        """The runs that failed, with their error text (chosen as in :meth:`runs`)."""
        r = self.runs(keys, study, current)
        return r[r["status"] == "failed"].reset_index(drop=True)

    def flows(self, keys: set[str] | None = None, study: str | None = None,
              current: bool = True) -> pd.DataFrame:
        """One row per (successful run, flow): the grid parameters, seed and flow metrics.

        The runs are chosen as in :meth:`runs`: by default the current runs
        of every study, never the stale rows of earlier invocations; a sweep
        passes its own ``keys``.
        """
        return self._table("flows", self._select(keys, study, current))

    def intervals(self, keys: set[str] | None = None, study: str | None = None,
                  current: bool = True) -> pd.DataFrame:
        """One row per (successful run, flow, interval), when the scenario set `interval`."""
        return self._table("intervals", self._select(keys, study, current))

    def links(self, keys: set[str] | None = None, study: str | None = None,
              current: bool = True) -> pd.DataFrame:
        """One row per (successful run, link direction): drops, marks, utilisation, sojourn.

        The runs are chosen as in :meth:`flows`; each row has the run's grid
        parameters and seed, as a flow row does.
        """
        return self._table("links", self._select(keys, study, current))

    def transfers(self, keys: set[str] | None = None, study: str | None = None,
                  current: bool = True) -> pd.DataFrame:
        """One row per (successful run, transfer): a workload's or a Transfer's size and FCT.

        The columns of :data:`TRANSFER_COLUMNS`, whatever ``metrics`` the
        sweep kept of its flow rows. A run stored before transfers were
        stored gives those of its flow rows that still have the columns.
        """
        return self._table("transfers", self._select(keys, study, current))

    def table(self, name: str, keys: set[str] | None = None, study: str | None = None,
              current: bool = True) -> pd.DataFrame:
        """The rows of one of :data:`TABLES` (``"flows"``, ``"links"``, ...), as its method does."""
        if name not in TABLES:
            raise ValueError(f"table: {name!r} is not a table of a store (allowed: "
                             f"{', '.join(TABLES)})")
        return self._table(name, self._select(keys, study, current))

    def _select(self, keys: set[str] | None, study: str | None,
                current: bool) -> set[str] | None:
        if keys is not None:
            return set(keys)
        if study is not None or current:
            return self.current_keys(study)
        return None

    def _table(self, name: str, keys: set[str] | None = None) -> pd.DataFrame:
        from tcplab.labels import label

        rows = self._query(
            "SELECT key, params, seed, results FROM runs WHERE status = 'ok' "
            "ORDER BY finished_at, key")
        frames = []
        for key, params, seed, results in rows:
            if keys is not None and key not in keys:
                continue
            try:
                tables = json.loads(results)
                grid = json.loads(params)
                data = tables.get(name) if name != "transfers" or "transfers" in tables \
                    else transfers_of(tables.get("flows", []))
            except (ValueError, TypeError, AttributeError) as e:
                warnings.warn(f"{self.path}: run {key} is damaged ({e}); its rows are left "
                              "out, and the next sweep recomputes it", stacklevel=3)
                continue
            if not data:
                continue
            df = pd.DataFrame(data)
            for k, v in grid.items():
                df.insert(0, k if k not in df.columns else f"param:{k}", [label(v)] * len(df))
            df.insert(0, "seed", seed)
            df.insert(0, "key", key)
            frames.append(df)
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def damaged(self, keys: Iterable[str] | None = None) -> list[str]:
        """Keys of runs stored as ok whose parameters or results cannot be decoded."""
        wanted = None if keys is None else set(keys)
        # SQLite's json_valid is strict JSON: the NaN and Infinity that results may
        # hold are swapped for a number first, so that only real damage fails.
        check = ("json_valid(replace(replace({c}, 'Infinity', '0'), 'NaN', '0'))")
        rows = self._query(
            "SELECT key FROM runs WHERE status = 'ok' AND NOT (coalesce("
            + check.format(c="results") + ", 0) AND coalesce("
            + check.format(c="params") + ", 0))")
        return [k for (k,) in rows if wanted is None or k in wanted]

    def drop(self, keys: Iterable[str]) -> None:
        """Delete stored runs (damaged ones, which a sweep then computes again)."""
        with self._tx() as c:
            c.executemany("DELETE FROM runs WHERE key = ?", [(k,) for k in keys])


def transfers_of(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's transfer rows from its flow rows: those with a transfer size."""
    out = []
    for r in flows:
        size = r.get("transfer_bytes")
        if isinstance(size, int | float) and size > 0:
            out.append({c: r.get(c) for c in TRANSFER_COLUMNS})
    return out
