"""Readable, stable labels for table-valued settings: queues, variants, controllers.

A sweep's grid may take tables as values (``queue = [{kind = "red", min_th = 20,
max_th = 60}, {kind = "codel"}]``); analysis groups rows by a grid column, so
each such value is read under its label, a string such as
``red(max_th=60,min_th=20)``: the discipline's kind or the variant's name,
then the parameters it sets (sorted by name in a store, which keeps tables
in canonical form). A Python controller is
labelled by its import path, ``python:mycc.Aimd(gain=2)``. Equal tables give
equal labels; tables that differ in any parameter give different ones.

A flow row's ``cc`` column gets the same treatment in a sweep's store: a
variant whose parameters differ from its profile's defaults reads
``cubic(beta=0.8)``, and a Python controller ``python:mycc.Aimd(gain=2)``,
so that two configurations of one variant are never pooled under one name.
"""

from __future__ import annotations

import functools
import re
from typing import Any

#: Keys of a table that name it rather than set a parameter.
_NAME_KEYS = ("kind", "name")
#: Keys of a Python controller's table that are not its arguments.
_PYTHON_RESERVED = ("name", "class", "source")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return label(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(_scalar(v) for v in value) + "]"
    return str(value)


def _args(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={_scalar(v)}" for k, v in params.items())


def _python_label(table: dict[str, Any], params: dict[str, Any]) -> str:
    path = str(table.get("class", "?")).replace(":", ".")
    return f"python:{path}({_args(params)})" if params else f"python:{path}"


def label(value: Any) -> Any:
    """The label of a grid value: tables and lists as strings, anything else as it is.

    A table reads ``kind(param=value,...)`` (or ``name(...)`` for a variant),
    with its parameters in the table's order; a Python controller reads
    ``python:module.Class(arg=value,...)``; a list ``[a,b]``.
    """
    if isinstance(value, dict):
        if value.get("name") == "python" and "class" in value:
            params = {k: v for k, v in value.items() if k not in _PYTHON_RESERVED}
            return _python_label(value, params)
        head = next((str(value[k]) for k in _NAME_KEYS if k in value), "")
        params = {k: v for k, v in value.items() if k not in _NAME_KEYS}
        return f"{head}({_args(params)})" if params else (head or "()")
    if isinstance(value, list | tuple):
        return _scalar(list(value))
    return value


@functools.lru_cache(maxsize=1)
def _variant_defaults() -> dict[str, dict[str, dict[str, Any]]]:
    from tcplab.schema import schema

    return {v["name"]: v.get("defaults", {}) for v in schema()["variants"]}


def cc_label(cc: Any, profile: str | None = None) -> str:
    """The label of a flow's congestion control, as a resolved scenario holds it.

    A built-in variant with its profile's defaults is its name (``cubic``);
    parameters that differ from them follow it (``cubic(beta=0.8)``). A
    Python controller is ``python:module.Class(arg=value,...)`` with the
    arguments that made it.
    """
    if not isinstance(cc, dict):
        return "" if cc is None else str(cc)
    name = str(cc.get("name", ""))
    if name == "python":
        return _python_label(cc, {k: v for k, v in cc.items() if k not in _PYTHON_RESERVED})
    defaults = _variant_defaults().get(name, {}).get(profile or "paper", {})
    params = {k: v for k, v in cc.items() if k != "name" and not _same(defaults.get(k), v)}
    return f"{name}({_args(params)})" if params else name


def _same(default: Any, value: Any) -> bool:
    if default is None:
        return False
    if isinstance(default, int | float) and isinstance(value, int | float) \
            and not isinstance(default, bool) and not isinstance(value, bool):
        return float(default) == float(value)
    return bool(default == value)


def _group_size(entry: dict[str, Any]) -> int:
    sizes = [len(entry[k]) for k in ("src", "dst", "name", "start")
             if isinstance(entry.get(k), list)]
    return max(sizes) if sizes else 1


def relabel_cc(rows: list[dict[str, Any]], scenario: dict[str, Any]) -> None:
    """Set each flow row's ``cc`` to :func:`cc_label` of its flow's entry (in place).

    ``rows`` are a run's flow rows and ``scenario`` the run's resolved
    scenario. Rows are matched to entries by name: a single flow's name, a
    group's names (or, unnamed, the default names ``kind`` + row index), and
    a workload's transfers (its prefix followed by a number). Rows whose
    entry's variant has only default parameters keep their ``cc``.
    """
    labels: dict[str, str] = {}
    prefixes: list[tuple[str, str]] = []
    row = 0
    for entry in scenario.get("flows") or []:
        if not isinstance(entry, dict):
            row += 1
            continue
        n = _group_size(entry)
        names = entry.get("name")
        if names is None:  # a group before any workload: the default names
            names = [f"{entry.get('kind')}{row + k}" for k in range(n)]
        cc = entry.get("cc")
        poisson = isinstance(entry.get("app"), dict) and entry["app"].get("kind") == "poisson"
        if not poisson:
            row += n  # (a workload's rows are named, and so is every entry after one)
        if entry.get("kind") != "tcp" or not isinstance(cc, dict):
            continue
        text = cc_label(cc, entry.get("profile"))
        if text == cc.get("name"):
            continue  # the profile's defaults: the name says it all
        if poisson:
            prefixes.append((str(names), text))
        else:
            labels.update((str(name), text) for name in
                          (names if isinstance(names, list) else [names]))
    if not labels and not prefixes:
        return
    pattern = None
    if prefixes:
        pattern = re.compile("|".join(f"({re.escape(p)})\\d+" for p, _ in prefixes))
    for r in rows:
        flow = str(r.get("flow"))
        if flow in labels:
            r["cc"] = labels[flow]
        elif pattern is not None:
            m = pattern.fullmatch(flow)
            if m is not None:
                r["cc"] = prefixes[m.lastindex - 1][1]
