"""Who holds a claim on a run of a shared store, and whether it is still alive.

A sweep claims each run before computing it (see :mod:`tcplab.store`). A
claim names its holder's host, boot, process and the process's start time,
so that another sweep on the same host can tell at once that the holder is
gone (no such process, a zombie, or a reused pid); across hosts only the
claim's lease tells.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a process from /proc, or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:
        return ("?", "")
    fields = text[text.rfind(")") + 2:].split()
    # After the command: state is field 3, starttime field 22 (1-based).
    return (fields[0], fields[19]) if len(fields) > 19 else ("?", "")


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from /proc), or "" if unknown."""
    stat = _proc_stat(pid) if Path("/proc/self/stat").exists() else None
    return stat[1] if stat else ""


@dataclass(frozen=True)
class Holder:
    """A sweep that claims runs: a unique id, and the process it runs in."""

    id: str
    host: str
    boot: str
    pid: int
    start: str

    @classmethod
    def current(cls) -> Holder:
        """A holder for this process, with a new id (two sweeps in one process differ)."""
        pid = os.getpid()
        return cls(id=uuid.uuid4().hex, host=socket.gethostname(), boot=_boot_id(), pid=pid,
                   start=process_start(pid))


def holder_gone(host: str, boot: str, pid: int, start: str) -> bool:
    """Whether the process that made a claim is certainly gone (only known on this host).

    On the same host (and boot), a process is gone when there is no process
    ``pid``, it is a zombie, or it started at another time (the pid was
    reused). On another host nothing is known: the lease decides.
    """
    if host != socket.gethostname():
        return False
    here = _boot_id()
    if boot and here and boot != here:
        return True  # the machine rebooted since
    if Path("/proc/self/stat").exists():
        stat = _proc_stat(pid)
        if stat is None:
            return True
        state, started = stat
        return state in ("Z", "X") or bool(start and started and started != start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def expired(held: tuple[Any, ...], now: float) -> bool:
    """Whether a claim row (holder, host, boot, pid, pid_start, lease_until) has lapsed."""
    _holder, host, boot, pid, start, lease_until = held
    return lease_until < now or holder_gone(host, boot, int(pid), start)
