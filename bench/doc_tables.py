"""What the bench/ comparison scripts share: ratios, and tables written into docs.

A comparison script prints its tables and, with ``--docs``, writes them into
a Markdown file between two marker comments, so that a rerun refreshes the
docs without touching the prose around them.
"""

from __future__ import annotations

import sys
from pathlib import Path


def ratio(a: float, b: float) -> float:
    """a / b, with 0 / 0 = 1 and anything else over 0 infinite."""
    return a / b if b else (1.0 if a == 0 else float("inf"))


def write_between(doc: Path, begin: str, end: str, text: str) -> None:
    """Replace what lies between the markers ``begin`` and ``end`` in ``doc``.

    Exits with a message naming the markers if either is missing.
    """
    content = doc.read_text()
    if begin not in content or end not in content:
        sys.exit(f"{doc}: the markers {begin!r} and {end!r} are missing: add them where "
                 "the tables belong")
    head, rest = content.split(begin, 1)
    tail = rest.split(end, 1)[1]
    doc.write_text(head + begin + "\n" + text + end + tail)
    print(f"wrote {doc}")
