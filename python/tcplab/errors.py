"""Exceptions raised by tcplab.

Every mistake in a scenario is refused before anything runs with a
:class:`ScenarioError` that names the field (``links[1].loss.per``), what is
wrong and, where it helps, what is allowed. ``ScenarioError`` is also a
``ValueError``. A bug inside the simulator surfaces as :class:`InternalError`
(never as a Rust panic), so ``except Exception`` in a sweep catches it.
"""

from __future__ import annotations


class TcplabError(Exception):
    """Base class of every tcplab error."""


class ScenarioError(TcplabError, ValueError):
    """A scenario field is missing, malformed or out of range.

    Attributes:
        path: the field, e.g. ``links[1].loss.per`` ("" for the whole scenario).
        problem: what is wrong with it.
        allowed: what is allowed, when that can be said briefly.
    """

    def __init__(
        self, message: str, path: str = "", problem: str = "", allowed: str | None = None
    ) -> None:
        super().__init__(message)
        self.path = path
        self.problem = problem or message
        self.allowed = allowed


class RoutingError(ScenarioError):
    """A flow's hosts are not connected, or explicit routes loop."""

    def __init__(
        self, message: str, path: str = "", src: str = "", dst: str = "", detail: str = ""
    ) -> None:
        super().__init__(message, path, detail or message, None)
        self.src = src
        self.dst = dst


class InternalError(TcplabError):
    """The simulator broke one of its own invariants: a tcplab bug."""


class StoreError(TcplabError):
    """A results store cannot be used: missing, not a store, damaged, locked."""


class SweepError(TcplabError):
    """A sweep cannot go on (an unguarded script, an unreachable Dask scheduler)."""


class NothingCompared(TcplabError):
    """``tcplab validate`` compared nothing.

    Every section it was asked for needs a reference that is not installed
    here, or the reference broke (or stalled) in each of them; the message
    says which.
    """


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep; every finished run is stored.

    Attributes:
        stored: runs of the sweep stored (ok or failed).
        total: runs of the sweep.
    """

    def __init__(self, stored: int, total: int) -> None:
        super().__init__(f"interrupted: {stored} of {total} runs stored; run the same "
                         "command to resume")
        self.stored = stored
        self.total = total
