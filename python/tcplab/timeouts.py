"""Time limits of a sweep's runs (``run_timeout``): stopping a run, and killing its worker.

A run past its limit is stopped inside its worker (:func:`time_limit`) and
stored as failed with the reason, so the sweep goes on and the next sweep
tries it again; a worker that does not stop is killed by the sweep
(:func:`overdue`).
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class RunTimeout(BaseException):  # noqa: N818 - named as what happened, like KeyboardInterrupt
    """A run went past the sweep's ``run_timeout`` (wall clock) and was stopped.

    A ``BaseException``, as ``KeyboardInterrupt`` is, so that a controller's
    own ``except Exception`` cannot swallow it.
    """

    def __init__(self, seconds: float | None = None) -> None:
        limit = f" ({seconds:g} s of wall-clock time)" if seconds is not None else ""
        super().__init__(f"the run took longer than the sweep's run timeout{limit} and was "
                         "stopped")


def timed_out(seconds: float) -> str:
    """The error text of a run stopped by its time limit."""
    return f"RunTimeout: {RunTimeout(seconds)}"


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`RunTimeout` in this thread once ``seconds`` of wall time have passed.

    In a process's main thread (local workers) SIGALRM does it: the core's
    run loop runs Python's signal handlers every 50 ms, and Python code (a
    controller's hook) runs them between bytecodes. In another thread (a
    Dask worker's) a watchdog sets the exception asynchronously in this
    thread: it reaches Python code, that is a Python controller's next hook.
    """
    if not seconds:
        yield
        return
    if threading.current_thread() is threading.main_thread():
        def alarm(signum: int, frame: Any) -> None:
            raise RunTimeout(seconds)

        old = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return
    tid, lock, inside = threading.get_ident(), threading.Lock(), [True]

    def fire() -> None:
        with lock:
            if inside[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid),
                                                           ctypes.py_object(RunTimeout))
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            inside[0] = False
            timer.cancel()
            # An exception set but not yet raised must not surface later, elsewhere.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)


#: How long past its time limit a run's worker may take to stop before it is killed.
KILL_GRACE_S = 10.0


def overdue(work: Any, inflight: dict[Any, Any], started: dict[Any, float],
            record: Callable[[Any, dict[str, Any]], None]) -> bool:
    """Whether a run's worker failed to stop at its time limit; if so, the pool must go.

    A run past its limit stops itself (:func:`time_limit`); one
    whose worker is still busy :data:`KILL_GRACE_S` later (stuck where no
    signal reaches it) is stored as failed, the workers are killed, and the
    other runs in flight are computed again.
    """
    if not work.timeout:
        return False
    now = time.monotonic()
    late = [f for f in inflight if now - started[f] > work.timeout + KILL_GRACE_S]
    if not late:
        return False
    for f in late:
        s = inflight.pop(f)
        record(s, {"key": s.key, "status": "failed", "error": timed_out(work.timeout) +
                   "; its worker did not stop and was killed"})
    for s in inflight.values():
        work.give_back(s)
    inflight.clear()
    return True
