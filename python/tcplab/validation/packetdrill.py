"""The packetdrill section of ``tcplab validate``: Linux's own packet-level tests.

Every script of the corpora (google/packetdrill's ``gtests/net/tcp`` and the kernel's
``tools/testing/selftests/net/packetdrill``) runs against a linux-profile connection
(:mod:`tcplab.packetdrill`). A section per topic holds one row per script that ran: it
passes when tcplab sends what the script expects. A failure the real kernel shares
(bench/packetdrill_kernel.py's baseline) or one listed in ``KNOWN`` is reported as known,
with its reason, and one listed in ``OPEN`` as an open miss; skipped scripts are counted
in the section's notes by reason.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import Path

from tcplab.validation.model import Row, Section

#: Where the corpora are looked for when no folder is given, after TCPLAB_PACKETDRILL.
_DEFAULT = Path("reference") / "packetdrill"


def find_dir(given: str | Path | None) -> Path | None:
    """The corpora's folder, or None if there is none.

    ``given``, else TCPLAB_PACKETDRILL, else ../shared's copy next to the repository or
    the working directory.
    """
    if given is not None:
        return Path(given)
    env = os.environ.get("TCPLAB_PACKETDRILL")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3]
    for base in (repo.parent / "shared", Path.cwd().parent / "shared"):
        if (base / _DEFAULT).is_dir():
            return base / _DEFAULT
    return None


def sections(folder: Path) -> list[Section]:
    """One section per topic, one row per script that ran."""
    from tcplab.packetdrill.report import run

    rep = run(folder)
    by_topic: dict[str, list] = defaultdict(list)
    for o in rep.outcomes:
        by_topic[o.topic].append(o)
    out = []
    for name, outcomes in sorted(by_topic.items()):
        sec = Section("packetdrill", name, f"Linux's packetdrill scripts, topic {name}, "
                      "against the linux profile", ["packetdrill scripts (Linux 6.18 "
                                                    "passes them unless noted)"])
        for o in outcomes:
            if o.outcome in ("skip", "error"):
                continue
            known = open_ = ""
            if o.outcome == "kernel":
                known = f"the real kernel does not pass it either ({o.kernel})"
            elif o.outcome == "known":
                known = o.reason
            elif o.outcome == "open":
                open_ = o.reason
            ok = 1.0 if o.outcome == "pass" else 0.0
            point = o.script if o.line is None else f"{o.script}:{o.line}"
            sec.rows.append(Row(point, "script passes", ok, 1.0, bounds=(1.0, 1.0),
                                known=known, open=open_, unit=""))
            if o.outcome != "pass":
                sec.notes.append(f"{point}: {' '.join(o.reason.split())}"
                                 + (f"; expected {' '.join(o.expected.split())}, sent "
                                    f"{' '.join((o.actual or '').split())}"
                                    if o.expected else ""))
        skips = Counter(o.reason for o in outcomes if o.outcome == "skip")
        errors = [o for o in outcomes if o.outcome == "error"]
        sec.notes += [f"skipped {n}: {r}" for r, n in skips.most_common()]
        if errors:
            sec.broken = "; ".join(f"{o.script}: {o.reason}" for o in errors)
        if sec.rows or sec.notes:
            out.append(sec)
    return out
