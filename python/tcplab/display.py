"""Rich display in notebooks: scenarios and results as HTML tables.

Jupyter calls an object's ``_repr_html_``; :class:`~tcplab.Scenario` and
:class:`~tcplab.Results` render through these two functions. (Summary tables
are pandas DataFrames, which display themselves.)
"""

from __future__ import annotations

import json
from html import escape
from typing import Any


def _cell(v: Any) -> str:
    if isinstance(v, list):
        v = f"{len(v)}: {', '.join(map(str, v[:3]))}{', ...' if len(v) > 3 else ''}"
    elif isinstance(v, dict):
        v = v.get("name") or v.get("kind") or v.get("model") or json.dumps(v)
    return f"<td>{escape('' if v is None else str(v))}</td>"


def _table(columns: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def scenario_html(d: dict[str, Any]) -> str:
    """A scenario's settings, then its links and flows, one row per entry."""
    settings = ", ".join(f"{k} {d[k]}" for k in ("duration", "seed", "run", "interval")
                         if k in d)
    out = [f"<p><b>tcplab scenario</b> {escape(str(d.get('name', '')))}: "
           f"{escape(settings or 'no settings')}; {len(d.get('hosts', []))} hosts, "
           f"{len(d.get('routers', []))} routers</p>"]
    for title, keys in (("links", ["name", "a", "b", "rate", "delay", "queue", "loss"]),
                        ("flows", ["name", "kind", "src", "dst", "cc", "profile", "rate",
                                   "start"])):
        rows = d.get(title, [])
        if rows:
            out.append(f"<p>{title} ({len(rows)} entries)</p>"
                       + _table(keys, [[r.get(k) for k in keys] for r in rows]))
    return "".join(out)


def results_html(head: str, sections: list[tuple[str, list[tuple[str, list[Any]]]]]) -> str:
    """A run's line, then its flows' and links' columns (as ``Results.table``)."""
    out = [f"<p><b>tcplab results</b>: {escape(head)}</p>"]
    for title, cols in sections:
        rows = [list(r) for r in zip(*(values for _, values in cols), strict=True)]
        out.append(f"<p>{escape(title)}</p>" + _table([name for name, _ in cols], rows))
    return "".join(out)
