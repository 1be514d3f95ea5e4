"""Running one section: timed, announced, and safe from a reference that breaks.

Each section says on the progress line when it starts and when it ends,
with the time it took. A reference run that raises (ns-2 or ns-3 crashed,
exited with an error, or printed what the harness cannot read) becomes
:class:`ReferenceBroken`; :func:`guarded` turns it into a section marked
broken, so the other sections still run. tcplab's own errors are not
caught: they are bugs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from tcplab.validation.model import FAIL, KNOWN, OPEN, PASS, STALLED, Section


class ReferenceBroken(Exception):
    """The reference failed for a section: it crashed, or printed no readable result."""


def reference_results(futures: list[Future], done_only: bool = False) -> list[Any]:
    """The results of the reference's runs; ReferenceBroken if one of them failed.

    With `done_only`, only the runs already finished are looked at (a
    failure is found early) and nothing is returned.
    """
    out = []
    for f in futures:
        if done_only and not f.done():
            continue
        try:
            out.append(f.result())
        except Exception as e:  # noqa: BLE001 - whatever the reference's run raised
            raise ReferenceBroken(str(e) or type(e).__name__) from e
    return [] if done_only else out


def timed(progress: Callable[[str], None], label: str, what: str,
          build: Callable[[], Section]) -> Section:
    """Build one section, saying on `progress` when it starts and when it ends.

    The end line gives its rows' verdicts (or why its reference broke) and
    the time it took.
    """
    from tcplab.validation.suites import annotate  # (suites imports this module)

    progress(f"{label}: {what}")
    t0 = time.perf_counter()
    sec = build()
    took = time.perf_counter() - t0
    annotate([sec])  # known differences and open misses, as the report gives them
    progress(f"{label}: {outcome(sec)} ({took:.0f} s)" if took >= 10
             else f"{label}: {outcome(sec)} ({took:.1f} s)")
    return sec


def outcome(sec: Section) -> str:
    """A section's result in a few words: its rows' verdicts, or that it broke."""
    if sec.broken:
        return f"BROKEN reference, not compared: {sec.broken}"
    n = {v: sum(r.verdict == v for r in sec.rows) for v in (PASS, FAIL, KNOWN, OPEN, STALLED)}
    words = {PASS: "pass", FAIL: "FAIL", KNOWN: "known", OPEN: "open", STALLED: "stalled"}
    parts = [f"{k} {words[v]}" for v, k in n.items() if k]
    return f"{len(sec.rows)} rows" + (": " + ", ".join(parts) if parts else "")


def guarded(sec: Section, fill: Callable[[Section], None]) -> Section:
    """`sec` filled by `fill`; broken, with no rows, if its reference broke."""
    try:
        fill(sec)
    except ReferenceBroken as e:
        sec.rows, sec.figures = [], []
        sec.broken = str(e)
    return sec
