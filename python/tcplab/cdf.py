"""Flow-size distributions from files: CDF points for ``tl.Poisson(sizes=...)``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tcplab.errors import ScenarioError


def read_cdf(path: str | os.PathLike[str], unit: float = 1.0,
             percent: bool = False) -> list[tuple[float, float]]:
    """A flow-size CDF from a text file, as points for ``Poisson(sizes=...)``.

    One point per line: the size, then the cumulative probability as the
    last column (a middle column, as in ns-2's ``CDF_*.tcl`` files, is
    ignored); blank lines and ``#`` comments are skipped, and columns may be
    separated by spaces, tabs or commas. ``unit`` multiplies the sizes into
    bytes (1460 for files in packets of 1460 B); ``percent`` reads the
    probabilities as percentages (0 to 100).
    """
    from tcplab.scenario_io import read_text_file  # the one reader of every text file

    p = Path(path)
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
        try:
            app["sizes"] = [list(pt) for pt in read_cdf(
                base / str(sizes["file"]), float(sizes.get("unit", 1.0)),
                bool(sizes.get("percent", False)))]
        except ScenarioError as e:
            raise ScenarioError(f"{field}.file: {e}", f"{field}.file", str(e)) from None
