"""What a scenario may say and what a run returns, from the core's one source.

``tl.schema()`` gives every scenario field (type, unit, default, where the
default comes from; TCP defaults per settings profile, with their sources),
every variant (its usual recovery and parameters' defaults per profile and
the quantities it reports), the recordings and every result column (unit,
type, meaning). The keyword lists
and column lists of this package and the reference tables in docs/ are
made from it or checked against it (tests/test_schema.py).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from tcplab import _core


@functools.lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    return json.loads(_core.schema_json())


def schema() -> dict[str, Any]:
    """The core's metadata: fields, tcp_defaults, profile_defaults, variants, traces, results.

    ``profile_defaults`` is the core's table of every settings profile's TCP defaults: its
    ``columns`` (the profiles, and ns-3 3.18 where that release differs) and ``rows``, one per
    setting, each holding per column its ``default`` (a value, or a rule's text when ``rule``)
    and the ``source`` it was read from.
    """
    import copy  # here: copy and weakref cost every `tcplab run` 2 ms

    return copy.deepcopy(_schema())


def columns(table: str) -> list[dict[str, str]]:
    """The columns of a results table (``"flows"`` or ``"links"``)."""
    return list(_schema()["results"][table])


#: The pandas dtype of each type of result column (its ``kind``): text is
#: ``str`` (pandas 3's string dtype; object under pandas 2).
_DTYPES = {"int": "int64", "float": "float64", "str": "str"}


def dtypes(table: str) -> dict[str, str]:
    """The pandas dtype of each column of a results table, in the table's order.

    From the core's metadata (``kind``: int, float or str), the one
    declaration the core's columns are also made from: ``res.flows`` and
    ``res.links`` have exactly these dtypes.
    """
    return {c["name"]: _DTYPES[c["kind"]] for c in _schema()["results"][table]}


def float_columns() -> set[str]:
    """Names of the float columns of every results table (NaN where they do not apply)."""
    return {c["name"] for t in _schema()["results"].values() for c in t if c["kind"] == "float"}


def tcp_fields() -> list[str]:
    """The options of a TCP flow (``net.tcp(...)``'s keywords), in the core's order."""
    return list(_tcp_fields())


@functools.lru_cache(maxsize=1)
def _tcp_fields() -> tuple[str, ...]:
    """`tcp_fields`, found once: `Network.tcp` reads it at every call."""
    prefix = "flows[tcp]."
    return tuple(f["path"][len(prefix):] for f in _schema()["fields"]
                 if f["path"].startswith(prefix) and "." not in f["path"][len(prefix):])
