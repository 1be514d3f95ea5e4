"""Flow-size distributions from files: CDF points for ``tl.Poisson(sizes=...)``."""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any

from tcplab.errors import ScenarioError

_UNIT_ALLOWED = "a number above 0 of bytes per size unit (1, or 1460 for packets of 1460 B)"
_PERCENT_ALLOWED = "true (probabilities from 0 to 100) or false (from 0 to 1)"


def _shown(value: Any) -> str:
    """A value as a scenario file writes it: ``true``, ``"x"``, ``[1]``."""
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _unit(value: Any, field: str) -> float:
    """``unit`` as a float, or a ScenarioError naming ``field``, the value and what is allowed."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and math.isfinite(value) and value > 0:
        return float(value)
    problem = f"{_shown(value)} is not a number of bytes above 0"
    raise ScenarioError(f"{field}: {problem} (allowed: {_UNIT_ALLOWED})", field, problem,
                        _UNIT_ALLOWED)


def _percent(value: Any, field: str) -> bool:
    """``percent`` as a bool (never the truth of a string), or a ScenarioError naming ``field``."""
    if isinstance(value, bool):
        return value
    problem = f"{_shown(value)} is not true or false"
    raise ScenarioError(f"{field}: {problem} (allowed: {_PERCENT_ALLOWED})", field, problem,
                        _PERCENT_ALLOWED)


def read_cdf(path: str | os.PathLike[str], unit: float = 1.0,
             percent: bool = False) -> list[tuple[float, float]]:
    """A flow-size CDF from a text file, as points for ``Poisson(sizes=...)``.

    One point per line: the size, then the cumulative probability as the
    last column (a middle column, as in ns-2's ``CDF_*.tcl`` files, is
    ignored); blank lines and ``#`` comments are skipped, and columns may be
    separated by spaces, tabs or commas. ``unit`` multiplies the sizes into
    bytes (1460 for files in packets of 1460 B); ``percent`` reads the
    probabilities as percentages (0 to 100).

    Raises:
        ScenarioError: the file is missing, not a regular file (a FIFO, a
            device), not UTF-8 text or not a CDF; ``unit`` is not a number
            above 0 or ``percent`` not a bool.
    """
    from tcplab._files import special_kind
    from tcplab.scenario_io import read_text_file  # the one reader of every text file

    unit = _unit(unit, "unit")
    percent = _percent(percent, "percent")
    p = Path(path)
    kind = special_kind(p)
    if kind is not None:
        # Opening a FIFO would wait for a writer, out of reach of Ctrl-C.
        problem = f"{p} is {kind}, not a regular file"
        raise ScenarioError(problem, "sizes", problem, "a CDF text file")
    points: list[tuple[float, float]] = []
    for n, line in enumerate(read_text_file(p, "CDF file").splitlines(), 1):
        cols = line.split("#", 1)[0].replace(",", " ").split()
        if not cols:
            continue
        try:
            if len(cols) not in (2, 3):
                raise ValueError
            size, prob = float(cols[0]), float(cols[-1])
        except ValueError:
            raise ScenarioError(f"{p}, line {n}: {line.strip()!r} is not 'size probability'",
                                "sizes", "not a CDF point",
                                "size and probability, e.g. '1460 0.5'") from None
        points.append((size * unit, prob / 100 if percent else prob))
    if not points:
        raise ScenarioError(f"{p}: no CDF points", "sizes", "no CDF points",
                            "lines of 'size probability'")
    return points


def read_cdf_files(data: dict[str, Any], base: Path) -> None:
    """Replace each ``app.sizes = { file = ..., unit = ..., percent = ... }`` by its points.

    A relative path is from the scenario file's folder.
    """
    flows = data.get("flows")
    for i, f in enumerate(flows if isinstance(flows, list) else []):
        app = f.get("app") if isinstance(f, dict) else None
        sizes = app.get("sizes") if isinstance(app, dict) else None
        if not isinstance(sizes, dict):
            continue
        field = f"flows[{i}].app.sizes"
        extra = set(sizes) - {"file", "unit", "percent"}
        if "file" not in sizes or extra:
            raise ScenarioError(f"{field}: a CDF file is {{ file = 'path', unit = 1, percent = "
                                f"false }}", field, "not a CDF file table",
                                "a name, a list of [bytes, probability], or { file = ... }")
        unit = _unit(sizes.get("unit", 1.0), f"{field}.unit")
        percent = _percent(sizes.get("percent", False), f"{field}.percent")
        if not isinstance(sizes["file"], str):
            problem = f"{_shown(sizes['file'])} is not a path"
            allowed = "a CDF file's path, as a string"
            raise ScenarioError(f"{field}.file: {problem} (allowed: {allowed})", f"{field}.file",
                                problem, allowed)
        try:
            app["sizes"] = [list(pt) for pt in read_cdf(base / sizes["file"], unit, percent)]
        except ScenarioError as e:
            raise ScenarioError(f"{field}.file: {e}", f"{field}.file", str(e)) from None
