"""The results of a run: per-flow and per-link tables, a summary, the effective scenario."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# numpy and pandas are imported on first use, so that `tcplab run` and
# programs that read only the summary stay small (pandas with pyarrow alone
# is about 90 MB of memory).

RawSeries = list[tuple[str, str, bytes, bytes]]
#: A column as the core hands it over: ("u8", a column of u64), ("f8", a
#: column of f64) or ("str", the values joined with NUL). A numeric column
#: (``tcplab._core.Column``) holds the core's values: numpy reads them in
#: place (``np.asarray``), ``tobytes()`` gives them little-endian, and
#: ``len()`` counts them.
RawColumn = tuple[str, Any]

_TABLE_COLUMNS = {
    "drops": ["time_ns", "link", "src", "dst", "flow", "packet", "cause"],
    "events": ["time_ns", "flow", "event", "seq", "cwnd", "ssthresh"],
    "intervals": ["flow", "start_s", "end_s", "delivered_bytes", "goodput_bps"],
    "histograms": ["flow", "direction", "lower_s", "upper_s", "count"],
}


def _decode(col: RawColumn, n: int | None = None) -> list[Any]:
    """A column as a list of Python values, without numpy (NaN becomes None)."""
    import array
    import sys

    kind, payload = col
    if kind == "str":
        return payload.split("\0") if payload or n else []
    a = array.array("Q" if kind == "u8" else "d")
    a.frombytes(payload.tobytes())
    if sys.byteorder == "big":
        a.byteswap()
    values = a.tolist()
    if kind == "f8":
        values = [None if v != v else v for v in values]
    return values


def _count(table: dict[str, RawColumn]) -> int:
    """A table's number of rows (every table has a numeric column)."""
    return next((len(p) for k, p in table.values() if k != "str"), 0)


def _rows(table: dict[str, RawColumn]) -> list[dict[str, Any]]:
    """A table's columns as a list of row dicts (as JSON would give them)."""
    n = _count(table)
    cols = {name: _decode(c, n) for name, c in table.items()}
    names = list(cols)
    return [dict(zip(names, vals, strict=True)) for vals in zip(*cols.values(), strict=True)] \
        if n else []


def _frame(table: dict[str, RawColumn], names: list[str] | None = None) -> pd.DataFrame:
    """A table's columns as a DataFrame: integers as int64, floats with NaN."""
    import numpy as np
    import pandas as pd

    n = _count(table)
    data: dict[str, Any] = {}
    for name in names or list(table):
        kind, payload = table[name]
        if kind == "u8":
            data[name] = np.asarray(payload).astype(np.int64)
        elif kind == "f8":
            data[name] = np.array(payload, dtype=np.float64)
        else:
            data[name] = payload.split("\0") if n else []
    return pd.DataFrame(data, columns=names or list(table))


class Results:
    """What one run produced.

    Attributes:
        flows: one row per flow (docs/results.md lists every column).
        links: one row per link direction.
        summary: simulated seconds, events, peak packets in flight: the same
            for the same scenario and seed.
        timing: how long the run took here (wall seconds, events per second),
            kept apart so that the results of two runs compare byte for byte.
        scenario: the scenario as it ran, with every default filled in.
        drops: one row per dropped packet, when the run traced ``"drops"``.
        events: the TCP event log, when the run traced ``"events"``.
        intervals: per-interval goodput of every flow, when the run set ``interval=``.
        histograms: every flow's one-way delay distribution bin by bin (data and
            ACKs apart), when the run set ``delay_percentiles=True``.

    The tables cross from the core as typed columns; each is decoded when
    first read (``res.column("flows", "goodput_bps")`` reads one column
    without numpy or pandas).
    """

    def __init__(self, out: dict[str, Any]) -> None:
        small = json.loads(out["small"])
        self.summary: dict[str, Any] = small["summary"]
        self.timing: dict[str, Any] = small["timing"]
        self._pcap: list[dict[str, Any]] = small["pcap"]
        self._tables: dict[str, dict[str, RawColumn]] = out["tables"]
        # The effective scenario stays in the core until asked for.
        self._effective = out["scenario"]
        self._scenario: dict[str, Any] | None = None
        self._raw: dict[str, Any] | None = None
        self._frames: dict[str, pd.DataFrame] = {}
        self._raw_series: dict[tuple[str, str], tuple[bytes, bytes]] = {
            (name, target): (t, v) for name, target, t, v in out["series"]}
        self._series: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}

    def _arrays(self, key: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._series.get(key)
        if arrays is None:
            import numpy as np

            t, v = self._raw_series[key]
            arrays = self._series[key] = (
                # Dividing (not multiplying by 1e-9) gives each time as the
                # double nearest its decimal value: 0.3, not 0.30000000000000004.
                np.frombuffer(t, dtype="<u8") / 1e9,
                np.frombuffer(v, dtype="<f8"),
            )
        return arrays

    def column(self, table: str, name: str) -> list[Any]:
        """One column of a table as a list (no numpy or pandas): ``res.column("flows", "mss")``."""
        t = self._tables[table]
        return _decode(t[name], _count(t))

    def __len__(self) -> int:
        """The number of flows."""
        return _count(self._tables["flows"])

    @property
    def raw(self) -> dict[str, Any]:
        """Every table as lists of row dicts, with the summary (as the results JSON)."""
        if self._raw is None:
            t = self._tables
            self._raw = {"flows": _rows(t["flows"]), "links": _rows(t["links"]),
                         "summary": self.summary, "drops": _rows(t["drops"]),
                         "events": _rows(t["events"]), "intervals": _rows(t["intervals"]),
                         "pcap": self._pcap}
            if _count(t["histograms"]):
                self._raw["histograms"] = _rows(t["histograms"])
        return self._raw

    @property
    def scenario(self) -> dict[str, Any]:
        """The scenario as it ran, with every default filled in."""
        if self._scenario is None:
            self._scenario = json.loads(self._effective.json())
        return self._scenario

    # The tables are built on first use: a sweep that reads one column, or a
    # benchmark that reads the summary, does not pay for the others.

    def _table(self, key: str, build: Any) -> pd.DataFrame:
        df = self._frames.get(key)
        if df is None:
            import pandas

            df = self._frames[key] = build(pandas)
        return df

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (docs/results.md lists every column)."""
        return self._table("flows", lambda pd: _frame(self._tables["flows"]))

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return self._table("links", lambda pd: _frame(self._tables["links"]))

    @property
    def drops(self) -> pd.DataFrame:
        """One row per dropped packet, when the run traced ``"drops"``."""
        def build(pd: Any) -> pd.DataFrame:
            drops = _frame(self._tables["drops"], _TABLE_COLUMNS["drops"])
            drops.insert(0, "time_s", drops.pop("time_ns") / 1e9)
            return drops
        return self._table("drops", build)

    @property
    def events(self) -> pd.DataFrame:
        """The TCP event log, when the run traced ``"events"``."""
        def build(pd: Any) -> pd.DataFrame:
            events = _frame(self._tables["events"], _TABLE_COLUMNS["events"])
            events.insert(0, "time_s", events.pop("time_ns") / 1e9)
            return events
        return self._table("events", build)

    @property
    def pcap(self) -> pd.DataFrame:
        """The packet-trace files written, with their packet counts."""
        return self._table("pcap", lambda pd: pd.DataFrame(
            self._pcap, columns=["path", "link", "src", "dst", "packets", "error"]))

    @property
    def intervals(self) -> pd.DataFrame:
        """Per-interval goodput of every flow, when the run set ``interval=``."""
        return self._table("intervals", lambda pd: _frame(self._tables["intervals"],
                                                           _TABLE_COLUMNS["intervals"]))

    @property
    def histograms(self) -> pd.DataFrame:
        """Every flow's one-way delay distribution, one row per non-empty bin.

        Columns flow, direction (``"data"``, or ``"ack"`` for a TCP flow's
        ACKs), lower_s, upper_s, count; when the run set ``delay_percentiles=True``.
        """
        return self._table("histograms", lambda pd: _frame(self._tables["histograms"],
                                                            _TABLE_COLUMNS["histograms"]))

    def delay_histogram(
        self, flow: int | str, direction: str = "data",
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A flow's one-way delay histogram: (lower edges in s, upper edges in s, counts).

        As ns-3's FlowMonitor keeps its delayHistogram, from numpy arrays;
        the bins are log-linear, 32 per octave (a bin's mid-point is within
        1.6% of every delay in it). Needs ``delay_percentiles=True`` in the run.
        """
        if direction not in ("data", "ack"):
            raise ValueError(f"direction: {direction!r} is not one (allowed: data, ack)")
        names = self.column("flows", "flow")
        name = names[flow] if isinstance(flow, int) else flow
        if name not in names:
            raise KeyError(f"flow: no flow {flow!r} (flows: {', '.join(names[:10])})")
        h = self.histograms
        if len(h) == 0:
            raise ValueError("no delay histograms: run with delay_percentiles=True")
        h = h[(h["flow"] == name) & (h["direction"] == direction)]
        return (h["lower_s"].to_numpy(float), h["upper_s"].to_numpy(float),
                h["count"].to_numpy("int64"))

    def traces(self) -> list[tuple[str, str]]:
        """The recorded time series, as (name, target) pairs."""
        return sorted(self._raw_series)

    def trace(
        self, name: str, *, flow: int | str | None = None, link: str | None = None,
        src: str | None = None, target: str | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A recorded time series: (times in seconds, values) as numpy arrays.

        ``res.trace("cwnd", flow=0)`` (a flow's index or name) gives a TCP
        series; ``res.trace("queue", link="bottleneck")`` the queue of the
        link's a -> b direction (``src=`` picks the direction leaving that node).
        """
        if target is None and flow is not None:
            target = self.flows["flow"].iloc[flow] if isinstance(flow, int) else flow
        if target is None and link is not None:
            rows = self.links[self.links["link"] == link]
            if src is not None:
                rows = rows[rows["src"] == src]
            if rows.empty:
                raise KeyError(f"no link direction {link!r} leaving {src!r}")
            r = rows.iloc[0]
            target = f"{r['link']}:{r['src']}>{r['dst']}"
        matches = [k for k in self._raw_series
                   if k[0] == name and (target is None or k[1] == target)]
        if not matches:
            have = ", ".join(f"{n}[{t}]" for n, t in self.traces()) or "none (pass trace=[...])"
            raise KeyError(f"no {name!r} series for {target!r}; recorded: {have}")
        return self._arrays(matches[0])

    def flow(self, name: str) -> pd.Series:
        """The row of flow ``name``."""
        rows = self.flows[self.flows["flow"] == name]
        if rows.empty:
            raise KeyError(f"no flow named {name!r}; flows: {', '.join(self.flows['flow'])}")
        return rows.iloc[0]

    def link(self, name: str, src: str | None = None) -> pd.Series:
        """The row of link ``name`` in the direction leaving ``src`` (default: a -> b)."""
        rows = self.links[self.links["link"] == name]
        if rows.empty:
            known = ", ".join(self.links["link"].unique())
            raise KeyError(f"no link named {name!r}; links: {known}")
        if src is not None:
            rows = rows[rows["src"] == src]
            if rows.empty:
                raise KeyError(f"link {name!r} has no direction leaving {src!r}")
        return rows.iloc[0]

    def series_frame(self, period: float | None = None) -> pd.DataFrame:
        """Every recorded time series in long form: series, target, time_s, value.

        With ``period`` (seconds), each series is sampled every ``period`` from
        0 to the end of the run, holding the last value (a series recorded at
        each change is a step function).
        """
        import numpy as np
        import pandas as pd

        frames = []
        # The sampling grid in whole nanoseconds, as the series' own times,
        # so that its times carry no float noise either.
        end_ns = round(float(self.summary["sim_seconds"]) * 1e9)
        step_ns = round(period * 1e9) if period else 0
        for key in sorted(self._raw_series):
            name, target = key
            t, v = self._arrays(key)
            if period:
                grid_ns = np.arange(0, end_ns + step_ns // 2 + 1, step_ns, dtype=np.int64)
                raw_ns = np.frombuffer(self._raw_series[key][0], dtype="<u8").astype(np.int64)
                idx = np.searchsorted(raw_ns, grid_ns, side="right") - 1
                vals = np.where(idx >= 0, v[np.clip(idx, 0, None)], np.nan)
                t, v = grid_ns / 1e9, vals
            frames.append(pd.DataFrame({"series": name, "target": target, "time_s": t,
                                        "value": v}))
        if not frames:
            return pd.DataFrame(columns=["series", "target", "time_s", "value"])
        return pd.concat(frames, ignore_index=True)

    def to_json(self) -> str:
        """Everything the run produced, as JSON text.

        The same scenario and seed give the same bytes: the timing is apart,
        in :attr:`timing`.
        """
        return json.dumps({**self.raw, "scenario": self.scenario}, allow_nan=True)

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write flows.csv, links.csv, results.json and timing.json into ``out_dir``.

        Returns the paths. Each file is written anew and renamed into place,
        never through a symlink already there.
        """
        from tcplab._files import atomic_write, atomic_write_text

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "flows.csv", out / "links.csv", out / "results.json",
                 out / "timing.json"]
        atomic_write(paths[0], lambda f: self.flows.to_csv(f, index=False))
        atomic_write(paths[1], lambda f: self.links.to_csv(f, index=False))
        atomic_write_text(paths[2], self.to_json())
        atomic_write_text(paths[3], json.dumps(self.timing, indent=2) + "\n")
        return paths

    def table(self, max_rows: int | None = 40) -> str:
        """A readable summary: the run, the flows, the links (built without pandas).

        A table of more than ``max_rows`` rows shows its first and last rows
        and says how many it leaves out (all are in ``res.flows`` and
        ``res.links``); ``None`` shows every row.
        """
        head, sections = self._summary_tables(max_rows)
        lines = [head, ""]
        for title, cols in sections:
            lines += [f"{title}:", _text_table(cols), ""]
        return "\n".join(lines).rstrip("\n")

    def _repr_html_(self) -> str:
        """The same summary as :meth:`table`, as HTML tables (notebooks)."""
        from tcplab.display import results_html

        return results_html(*self._summary_tables(40))

    def _summary_tables(self, max_rows: int | None = None,
                        ) -> tuple[str, list[tuple[str, list[tuple[str, list[Any]]]]]]:
        """The run's line and the flows' and links' columns, for both forms."""
        s, t = self.summary, self.timing
        head = (f"simulated {s['sim_seconds']:.3f} s in {t.get('wall_seconds', 0.0):.3f} s wall "
                f"({s['events']:,} events, {t.get('events_per_second', 0.0) / 1e6:.1f} M "
                "events/s)")
        sections: list[tuple[str, list[tuple[str, list[Any]]]]] = []
        flows = self.raw["flows"]
        if flows:
            cols: list[tuple[str, list[Any]]] = [
                ("flow", [f["flow"] for f in flows]),
                ("kind", [f["kind"] for f in flows]),
                ("path", [f"{f['src']} -> {f['dst']}" for f in flows]),
                ("sent", [f["sent_packets"] for f in flows]),
                ("delivered", [f["delivered_packets"] for f in flows]),
                ("lost (queue)", [f["lost_queue"] for f in flows]),
                ("lost (error)", [f["lost_error"] for f in flows]),
                ("goodput Mb/s", [_scaled(f["goodput_bps"], 1e-6, 4) for f in flows]),
                ("mean delay ms", [_scaled(f["delay_mean_s"], 1e3, 3) for f in flows]),
            ]
            if any(f["kind"] == "tcp" for f in flows):
                cols += [
                    ("retx", [f["retransmitted_segments"] for f in flows]),
                    ("timeouts", [f["timeouts"] for f in flows]),
                    ("done s", [_scaled(f["completion_time_s"], 1.0, 3) for f in flows]),
                ]
            sections.append(("flows", cols))
        links = self.raw["links"]
        if links:
            lcols = [
                ("link", [lk["link"] for lk in links]),
                ("direction", [f"{lk['src']} -> {lk['dst']}" for lk in links]),
                ("tx packets", [lk["tx_packets"] for lk in links]),
                ("drops (queue)", [lk["drops_queue"] for lk in links]),
                ("drops (error)", [lk["drops_error"] for lk in links]),
                ("utilization", [_scaled(lk["utilization"], 1.0, 4) for lk in links]),
                ("max queue", [lk["queue_max_packets"] for lk in links]),
            ]
            # An AQM's own drops and marks, when a discipline made any.
            at = 4  # after "drops (queue)"
            for key, label in (("drops_aqm", "drops (aqm)"), ("marks", "marks")):
                if any(lk.get(key) for lk in links):
                    lcols.insert(at, (label, [lk[key] for lk in links]))
                    at += 1
            sections.append(("links", lcols))
        return head, [(title, _elided(cols, max_rows)) for title, cols in sections]

    def __repr__(self) -> str:
        links = _count(self._tables["links"])
        return f"<Results: {len(self)} flows, {links} link directions>"


def _scaled(x: float | None, factor: float, digits: int) -> float | None:
    """The value times factor, rounded; None for a missing value (JSON null, NaN)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(x * factor, digits)


def _elided(cols: list[tuple[str, list[Any]]], max_rows: int | None,
            ) -> list[tuple[str, list[Any]]]:
    """The first and last rows of columns longer than ``max_rows``, a row of "..." between."""
    n = len(cols[0][1]) if cols else 0
    if max_rows is None or n <= max_rows:
        return cols
    tail = min(5, max_rows // 4)
    head = max_rows - tail
    gap = f"({n - head - tail:,} more)"
    return [(name, [*v[:head], gap if i == 0 else "...", *v[n - tail:]])
            for i, (name, v) in enumerate(cols)]


def _text_table(cols: list[tuple[str, list[Any]]]) -> str:
    """Right-aligned columns under their headers; a column with no values is left out."""
    cols = [(h, v) for h, v in cols if any(x is not None for x in v)]
    cells = [[h] + ["NaN" if x is None else str(x) for x in v] for h, v in cols]
    widths = [max(len(c) for c in col) for col in cells]
    rows = zip(*cells, strict=True)
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
