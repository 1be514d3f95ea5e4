"""The grid of a sweep: dotted paths, value lists and ranges, and seeds.

Grid keys are dotted paths into a scenario; each takes a list of values or a
range. A parameter may not be named after a result column.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from tcplab.errors import ScenarioError
from tcplab.scenario import plain as _plain
from tcplab.schema import columns

#: The most values one range of a grid may give, and runs one sweep may have.
MAX_VALUES = 100_000
MAX_RUNS = 1_000_000


def _find(items: list[Any], part: str, kind: str, path: str) -> Any:
    if part.isdigit() and int(part) < len(items):
        return items[int(part)]
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if name is None:
            name = f"{item.get('a')}-{item.get('b')}" if kind == "links" else \
                f"{item.get('kind')}{i}"
        if name == part:
            return item
    raise ScenarioError(f"grid: '{path}': no {kind[:-1]} named '{part}'", path,
                        f"no {kind[:-1]} named '{part}'")


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted-path field of scenario data (lists by element name or index)."""
    if not isinstance(path, str) or not path or any(not p for p in path.split(".")):
        raise ScenarioError(f"grid: {path!r} is not a dotted path such as "
                            "'links.bottleneck.rate'", str(path), "not a dotted path")
    parts = path.split(".")
    node: Any = data
    k = 0
    while k < len(parts) - 1:
        part = parts[k]
        if not isinstance(node, dict) or node.get(part) is None:
            where = ".".join(parts[:k + 1])
            raise ScenarioError(
                f"grid: '{path}': '{where}' is not set in the scenario; put the whole "
                f"table in the grid instead", path, "a path through existing tables")
        nxt = node[part]
        if isinstance(nxt, list):
            if k + 1 >= len(parts) - 1:
                raise ScenarioError(f"grid: '{path}' names a list element, not a field",
                                    path, "a field inside the element")
            node = _find(nxt, parts[k + 1], part, path)
            k += 2
        else:
            node = nxt
            k += 1
    if not isinstance(node, dict):
        raise ScenarioError(f"grid: '{path}' does not lead to a table", path, "a dotted path")
    node[parts[-1]] = value


_RANGE_FORMS = "a list of values, or a range {start, stop, num} / {start, stop, step}"


def _range_error(key: str, problem: str, allowed: str) -> ScenarioError:
    return ScenarioError(f"grid: '{key}': {problem} (allowed: {allowed})", key, problem, allowed)


def _range_number(spec: dict[str, Any], part: str, key: str) -> int | float:
    v = spec[part]
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
        raise _range_error(key, f"{part} = {v!r} is not a number", "a finite number")
    return int(v) if isinstance(v, numbers.Integral) else float(v)


def _grid_value(value: Any, key: str) -> Any:
    """A value of a grid list as plain data: a variant or a Python controller by its spec."""
    from tcplab.cc import CongestionControl, Variant, pinned_spec

    if isinstance(value, Variant):
        return value.to_spec()
    if isinstance(value, CongestionControl):
        try:
            return pinned_spec({"flows": [{"cc": "python"}]}, {0: value})["flows"][0]["cc"]
        except ScenarioError as e:
            raise ScenarioError(f"grid: '{key}': {e.problem}", key, e.problem,
                                e.allowed) from None
    return _plain(value, key)


def expand_values(spec: Any, key: str) -> list[Any]:
    """A grid entry: a list, or a range table {start, stop, num} / {start, stop, step}.

    A range of integers (start, stop and step all integers) gives integers;
    ``stop`` is included when the steps reach it. A negative step counts
    down from a start above stop. Anything else is refused with a
    ScenarioError naming the grid key.
    """
    if isinstance(spec, list | tuple):
        if not spec:
            raise _range_error(key, "the list has no values", "a non-empty list")
        return [_grid_value(v, key) for v in spec]
    if not (isinstance(spec, dict) and {"start", "stop"} <= spec.keys()):
        raise _range_error(key, f"{spec!r} is neither a list nor a range", _RANGE_FORMS)
    unknown = sorted(set(spec) - {"start", "stop", "num", "step"})
    if unknown:
        raise _range_error(key, f"unknown range field '{unknown[0]}'",
                           "start, stop and num or step")
    if ("num" in spec) == ("step" in spec):
        raise _range_error(key, "a range needs exactly one of num and step",
                           "{start, stop, num} or {start, stop, step}")
    start, stop = _range_number(spec, "start", key), _range_number(spec, "stop", key)
    if "num" in spec:
        n = spec["num"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= MAX_VALUES:
            raise _range_error(key, f"num = {n!r} is not a count of values",
                               f"a whole number from 1 to {MAX_VALUES:,}")
        n = int(n)
        start, stop = float(start), float(stop)
        return [start + (stop - start) * i / (n - 1) for i in range(n)] if n > 1 else [start]
    step = _range_number(spec, "step", key)
    if step == 0:
        raise _range_error(key, "step = 0 never reaches stop", "a non-zero step")
    if (stop - start) * step < 0:
        raise _range_error(key, f"step = {step!r} goes away from stop = {stop!r} (start = "
                           f"{start!r}), so the range has no values",
                           "a positive step when start <= stop, a negative one when "
                           "start > stop")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_VALUES:
        raise _range_error(key, f"the range has {count:,} values",
                           f"at most {MAX_VALUES:,} values per range")
    if all(isinstance(spec[k], numbers.Integral) and not isinstance(spec[k], bool)
           for k in ("start", "stop", "step")):
        end = stop + 1 if step > 0 else stop - 1
        return list(range(int(start), int(end), int(step)))  # integers stay integers
    start, step = float(start), float(step)
    return [start + i * step for i in range(count)]


#: Columns of the result rows; a grid parameter never takes one of these names.
RESULT_COLUMNS = {c["name"] for c in columns("flows")} | {"key", "seed", "end_s"}


def short_names(keys: Iterable[str]) -> dict[str, str]:
    """Column names for grid keys: the last path part, where that is unambiguous.

    A key keeps its full path when its last part is not unique or names a
    result column (``flows.tcp0.cc`` stays whole: each flow row has its own ``cc``).
    """
    keys = list(keys)
    last = [k.split(".")[-1] for k in keys]
    return {k: (s if last.count(s) == 1 and s not in RESULT_COLUMNS else k)
            for k, s in zip(keys, last, strict=True)}


def _seed(value: Any, where: str = "seeds") -> int:
    """A seed: a whole number from 0 to 2**64 - 1."""
    if not isinstance(value, bool) and isinstance(value, numbers.Integral) \
            and 0 <= int(value) < 2**64:
        return int(value)
    raise ScenarioError(f"{where}: {value!r} is not a seed (allowed: whole numbers from 0 to "
                        "2**64 - 1)", where, f"{value!r} is not a seed",
                        "whole numbers from 0 to 2**64 - 1")


