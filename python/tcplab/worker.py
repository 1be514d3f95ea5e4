"""What runs inside a sweep's worker processes.

One run, which never raises (a failure is returned as data), and the guards
that end a worker whose parent died or that re-ran an unguarded script.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any

from tcplab import _core
from tcplab.labels import relabel_cc
from tcplab.store import build_id, transfers_of
from tcplab.timeouts import RunTimeout, time_limit, timed_out

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
#: Summary fields that measure this machine, not the simulation: never stored.
_TIMING_FIELDS = ("wall_seconds", "events_per_second")


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

        with time_limit(payload.get("timeout")):
            out = _core.run_json(scenario, controllers)
        raw = Results(out).raw
        relabel_cc(raw["flows"], scenario)
        transfers = transfers_of(raw["flows"])
        keep = payload.get("metrics")
        if keep:
            base = ["flow", "kind", "src", "dst", "cc"]
            raw["flows"] = [{k: v for k, v in r.items() if k in base or k in keep}
                            for r in raw["flows"]]
        summary = {k: v for k, v in raw["summary"].items() if k not in _TIMING_FIELDS}
        results = {"flows": raw["flows"], "links": raw["links"], "summary": summary,
                   "intervals": raw.get("intervals", []), "transfers": transfers}
        return {"key": payload["key"], "status": "ok", "results": results,
                "wall_s": time.perf_counter() - t0, "build": build_id()}
    except RunTimeout:
        return {"key": payload["key"], "status": "failed",
                "error": timed_out(payload["timeout"]), "wall_s": time.perf_counter() - t0}
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


