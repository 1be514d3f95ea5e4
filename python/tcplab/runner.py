"""Running a sweep's runs.

Each run is claimed in the store, computed by a local worker process or on
Dask, and stored as it finishes; sweeps on one store share the work, and
Ctrl-C stops a sweep cleanly.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab.errors import ScenarioError, SweepError, SweepInterrupted
from tcplab.store import RENEW_S, Holder, Store, StoreError, build_id, canonical, run_key
from tcplab.timeouts import overdue
from tcplab.worker import (
    MAIN_GUARD_EXIT,
    _refuse_unguarded,
    _worker_init,
    execute,
)

#: How often (seconds) a sweep looks at runs that other sweeps are computing.
POLL_S = 0.5
#: How many times a run is tried on Dask when its worker dies (KilledWorker).
DASK_TRIES = 3

_MAIN_GUARD_MESSAGE = (
    "a sweep's worker process re-ran the script that starts the sweep and reached "
    "Sweep.run() again: put the code that runs the sweep under "
    "`if __name__ == \"__main__\":` (worker processes import the main script; see "
    "docs/sweeps.md)")


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
              retry_failed: bool = True, run_timeout: float | None = None) -> pd.DataFrame:
    """Run the specs not stored in ``db`` yet (and those that failed); return their rows.

    Each run is claimed in the store before it is computed and stored as soon
    as it finishes; runs other sweeps are computing are waited for (or taken
    over when their sweep died). ``definition`` (see :meth:`Sweep.definition`)
    is recorded for the study ``name``; another one already recorded under
    that name is refused. A run that takes longer than ``run_timeout``
    seconds of wall time is stopped and stored as failed with the reason.

    Ctrl-C stores the runs that finished and stops the workers. Under the
    ``tcplab`` command it raises :class:`SweepInterrupted` (the command
    prints its message and exits 130). From a script or a notebook it prints
    that message on stderr (``interrupted: 41 of 75 runs stored; run the
    same command to resume``) and raises a plain ``KeyboardInterrupt``, so
    an interrupted script exits as Python's do on Ctrl-C (130 in a shell).
    """
    _refuse_unguarded()
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ScenarioError(f"jobs: {jobs!r} is not a number of worker processes (allowed: 1 "
                            "or more)", "jobs", "not a number of processes", "1 or more")
    if run_timeout is not None and (isinstance(run_timeout, bool) or not isinstance(
            run_timeout, int | float) or not 0 < run_timeout < math.inf):
        raise ScenarioError(f"run_timeout: {run_timeout!r} is not a time limit (allowed: a "
                            "number of seconds above 0)", "run_timeout", "not a time limit",
                            "a number of seconds above 0")
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
        work.timeout = run_timeout
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
        interrupted = None
        try:
            leases.start()
            sigint.install()
            if dask is not None:
                _run_dask(work, dask, record)
            else:
                _run_local(work, jobs or os.cpu_count() or 1, record)
        except KeyboardInterrupt:
            stored = store.statuses()
            interrupted = SweepInterrupted(sum(k in stored for k in keys), len(keys))
        finally:
            sigint.restore()
            leases.stop()
            try:
                store.release(holder)
            except StoreError:
                pass
            bar.close()
        if interrupted is not None:
            if _under_the_command():
                raise interrupted  # `tcplab` prints its line and exits 130
            # A script or notebook: the line, then a plain KeyboardInterrupt, with
            # which Python ends a script as Ctrl-C does (exit code 130 in a shell).
            print(interrupted, file=sys.stderr, flush=True)
            raise KeyboardInterrupt  # Ctrl-C: the line above says how to resume
        return store.flows(keys=keys)


_CLI = Path(__file__).with_name("cli.py")


def _under_the_command() -> bool:
    """Whether the `tcplab` command (tcplab/cli.py) runs this sweep, not a script.

    The command prints a SweepInterrupted's line itself and exits 130; a
    subclass of KeyboardInterrupt that reaches the top of a script makes
    Python print a traceback and exit 1, so scripts get a plain one.
    """
    cli = os.path.realpath(_CLI)
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith("cli.py") and \
                os.path.realpath(frame.f_code.co_filename) == cli:
            return True
        frame = frame.f_back
    return False


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
        #: The wall-clock limit of one run (seconds), or None.
        self.timeout: float | None = None

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
        return {"key": s.key, "scenario": s.scenario, "metrics": self.metrics,
                "timeout": self.timeout}

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
        started: dict[Any, float] = {}
        clean = stuck = False
        try:
            while True:
                broken = False
                while len(inflight) < jobs:
                    s = work.take()
                    if s is None:
                        break
                    try:
                        fut = pool.submit(execute, work.payload(s))
                        inflight[fut], started[fut] = s, time.monotonic()
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
                    stuck = overdue(work, inflight, started, record)
                    if stuck:
                        break
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
            if clean and not stuck:
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


