"""The published studies, reproducible with one command each.

    tcplab studies                                   # what there is
    tcplab reproduce westwood --out figs/ --jobs 2   # full size
    tcplab reproduce westwood --quick --out figs/    # reduced durations and seeds

A study is a list of panels. A panel varies one preset parameter (x) for
each variant (the hue), over seeds, stores every run in ``{out}/{study}.db``
(so an interrupted reproduction resumes), and writes ``{out}/{study}_{panel}.csv``
and a figure (PNG and SVG). Values are the mean with a 90% Student-t confidence
interval over seeds (``STUDY_CI``: the papers' level, where tcplab's default,
:data:`tcplab.CI_LEVEL`, is 95%), or min/avg/max where the paper reports those.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcplab import _core, presets
from tcplab._files import atomic_write
from tcplab.analysis import jain_index, summarize
from tcplab.store import Store, run_key
from tcplab.sweep import RunSpec, run_specs

MB = 1e6
STUDY_CI = 0.90
"""The studies' confidence level: 90%, as their papers state (SPEC section 5)."""


@dataclass
class Panel:
    """One figure and table of a study."""

    name: str
    preset: str
    x: str
    values: list[Any]
    hues: list[Any]
    hue: str = "cc"
    fixed: dict[str, Any] = field(default_factory=dict)
    #: The flow whose metric counts (by name); None: the first flow.
    flow: str | None = None
    metric: str = "goodput_bps"
    #: "mean" (with 90% CI), "minavgmax", "sum" or "jain" (across flows whose
    #: names start with `flow`), "share" (`flow`'s share of the run's total
    #: `metric`), "intervals" (per-interval goodput of `flow`),
    #: "on_intervals" (`flow`'s goodput averaged over the intervals that
    #: start at the times in `on`, per run), or "tradeoff" (`metric` and
    #: `metric2` of `flow`, drawn against each other).
    stat: str = "mean"
    on: list[float] = field(default_factory=list)
    quick_values: list[Any] | None = None
    ylabel: str = "goodput (Mb/s)"
    scale: float = MB
    #: The x axis's label (None: the parameter's name).
    xlabel: str | None = None
    #: With stat "tradeoff": the second metric, drawn against `metric` in
    #: one plot per x value (Pantheon's throughput-delay plot).
    metric2: str = "delay_p95_s"


@dataclass
class Study:
    """A published study: its panels, seeds, and quick settings."""

    name: str
    summary: str
    panels: list[Panel]
    seeds: int = 5
    quick_seeds: int = 2
    quick_fixed: dict[str, Any] = field(default_factory=dict)
    #: Extra figures made from single traced runs (e.g. cwnd over time).
    extras: list[Callable[[Path, bool], list[Path]]] = field(default_factory=list)


# ---- the studies ------------------------------------------------------------------

W3 = ["newreno", "westwood", "westwoodplus"]
V3 = ["newreno", "vegas", "westwoodplus"]
PETRA = ["newreno", "westwood", "petra"]
D5 = ["tahoe", "reno", "newreno", "vegas", "sack"]
CELLULAR = ["newreno", "cubic", "bbr", "vegas", "westwoodplus", "petra"]
BBRS = ["v1", "v2", "v3"]
BUFFERS = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0]
BUFFER_LABEL = "bottleneck buffer (BDPs of 125 kB)"


def _bbr_panel(name: str, **kw: Any) -> Panel:
    """A panel of the bbr-versions study: BBR's flow against buffers, by version."""
    return Panel(name, "bbr-versions", kw.pop("x", "buffer"), kw.pop("values", BUFFERS), BBRS,
                 hue="version", flow="bbr", quick_values=kw.pop("quick_values", [0.1, 1.0, 10.0]),
                 xlabel=kw.pop("xlabel", BUFFER_LABEL), **kw)


def _cwnd_over_time(name: str, variants: list[str], **kw: Any):  # noqa: ANN202
    """The window over time in one run per variant, in two figures.

    cwnd as the paper's tool (ns-3) reports it, which includes NewReno's
    inflation during fast recovery, and the bytes in flight, which that
    inflation does not reach (the window the pipe actually holds).
    """

    def make(out: Path, quick: bool) -> list[Path]:
        from tcplab.plot import timeseries

        cwnd, flight = [], []
        for cc in variants:
            res = presets.westwood(cc=cc, trace=["cwnd", "inflight"], **kw).run()
            seg = res.flows["mss"].iloc[0] if "mss" in res.flows else 360
            t, w = res.trace("cwnd", flow=0)
            cwnd.append((cc, t, w / seg))
            t, f = res.trace("inflight", flow=0)
            flight.append((cc, t, f / seg))
        paths = []
        title = name.replace("_", " ")
        for ext in ("png", "svg"):
            paths.append(out / f"{name}.{ext}")
            timeseries(cwnd, paths[-1], ylabel="cwnd (segments)",
                       title=f"{title}: cwnd as ns-3 reports it (with inflation)")
            paths.append(out / f"{name}_inflight.{ext}")
            timeseries(flight, paths[-1], ylabel="in flight (segments)",
                       title=f"{title}: data in flight (pipe-limited window)")
        return paths

    return make


STUDIES: dict[str, Study] = {s.name: s for s in [
    Study("channel", "throughput vs delay and vs PER for reno, vegas, westwood (10 MiB fetch)", [
        Panel("throughput_vs_delay", "channel", "delay",
              ["1ms", "5ms", "10ms", "25ms", "50ms", "100ms"], ["reno", "vegas", "westwood"],
              fixed={"per": 0.005}, quick_values=["1ms", "25ms", "100ms"]),
        Panel("throughput_vs_per", "channel", "per", [0.0, 0.001, 0.005, 0.01, 0.02, 0.05],
              ["reno", "vegas", "westwood"], fixed={"delay": "1ms"},
              quick_values=[0.001, 0.01, 0.05]),
        Panel("retransmission_ratio_vs_per", "channel", "per",
              [0.0, 0.001, 0.005, 0.01, 0.02, 0.05], ["reno", "vegas", "westwood"],
              fixed={"delay": "1ms"}, metric="retransmission_ratio", ylabel="retransmission ratio",
              scale=1.0, quick_values=[0.001, 0.01, 0.05]),
        # Sensitivity: the same sweeps with the RFC settings (profile paper:
        # delayed ACKs, a 4 MiB window, SACK-less Reno, RFC 6298's RTO)
        # instead of INET 2.0's.
        Panel("throughput_vs_delay_paper_profile", "channel", "delay",
              ["1ms", "5ms", "10ms", "25ms", "50ms", "100ms"], ["reno", "vegas", "westwood"],
              fixed={"per": 0.005, "profile": "paper"}, quick_values=["1ms", "100ms"]),
        Panel("throughput_vs_per_paper_profile", "channel", "per",
              [0.0, 0.001, 0.005, 0.01, 0.02, 0.05], ["reno", "vegas", "westwood"],
              fixed={"delay": "1ms", "profile": "paper"}, quick_values=[0.001, 0.05]),
    ], quick_fixed={"size": "2MiB"}),
    Study("westwood", "Westwood/Westwood+/NewReno on the 2 Mb/s path; Petra's slow start", [
        Panel("goodput_vs_per", "westwood", "per", [0.0, 0.001, 0.005, 0.01, 0.02], W3,
              quick_values=[0.001, 0.01]),
        Panel("goodput_vs_delay", "westwood", "bottleneck_delay",
              ["0.01ms", "10ms", "50ms", "100ms"], W3, quick_values=["0.01ms", "100ms"]),
        Panel("goodput_vs_bandwidth", "westwood", "bottleneck_rate",
              ["1Mbps", "2Mbps", "5Mbps", "10Mbps"], W3, quick_values=["1Mbps", "5Mbps"]),
        Panel("goodput_vs_mtu", "westwood", "mtu", [296, 400, 576, 1500], W3,
              quick_values=[400, 1500]),
        Panel("goodput_vs_delayed_ack", "westwood", "delayed_ack", [True, False], W3),
        # Petra's slow-start study: 5 s at the paper's PER 0.005 throughout.
        Panel("slowstart_goodput_vs_bandwidth", "westwood", "bottleneck_rate",
              ["1Mbps", "2Mbps", "5Mbps", "10Mbps"], PETRA,
              fixed={"duration": "5s", "per": 0.005}, quick_values=["2Mbps", "10Mbps"]),
        # The paper's "propagation delay" (1 to 60 ms at 2 Mb/s) does not say
        # which link: the bottleneck's, then the access link's.
        Panel("slowstart_goodput_vs_delay", "westwood", "bottleneck_delay",
              ["1ms", "10ms", "20ms", "40ms", "60ms"], PETRA,
              fixed={"duration": "5s", "per": 0.005}, quick_values=["1ms", "60ms"],
              xlabel="bottleneck one-way delay (access 45 ms)"),
        Panel("slowstart_goodput_vs_access_delay", "westwood", "access_delay",
              ["1ms", "10ms", "20ms", "40ms", "60ms"], PETRA,
              fixed={"duration": "5s", "per": 0.005}, quick_values=["1ms", "60ms"],
              xlabel="access link one-way delay (bottleneck 0.01 ms)"),
        Panel("slowstart_goodput_vs_per", "westwood", "per", [0.0, 0.005, 0.01],
              PETRA, fixed={"duration": "5s"}, quick_values=[0.0, 0.01]),
    ], quick_fixed={"duration": "60s"}, extras=[
        _cwnd_over_time("cwnd_over_time", W3, duration="60s"),
        _cwnd_over_time("slowstart_cwnd_over_time", PETRA, duration="5s"),
    ]),
    Study("ack-compression", "Westwood vs Westwood+ with and without reverse traffic", [
        Panel("goodput_vs_reverse_flows", "ack-compression", "reverse_flows", [0, 2, 4, 8],
              ["westwood", "westwoodplus"], flow="forward", quick_values=[0, 4]),
    ], quick_fixed={"duration": "60s"}),
    Study("dumbbell-udp", "TCP throughput vs UDP rate, 5 variants, 4 access combinations", [
        Panel(f"tcp_vs_udp_{left}_{right}", "dumbbell-udp", "udp_rate",
              ["400kbps", "800kbps", "1200kbps", "1600kbps", "1800kbps"],
              D5, flow="tcp",
              fixed={"left": left, "right": right}, quick_values=["400kbps", "1600kbps"])
        for left in ("ethernet", "fast_ethernet") for right in ("ethernet", "fast_ethernet")
    ] + [
        # Sensitivity to what ns-2's defaults fix and the paper does not
        # state: the window (20 packets) and the queues (50 packets).
        Panel("tcp_vs_window", "dumbbell-udp", "window", [10, 20, 40, 80, 160], D5, flow="tcp",
              fixed={"udp_rate": "800kbps"}, quick_values=[20, 80],
              xlabel="TCP window (packets; ns-2's default 20), UDP 800 kb/s"),
        Panel("tcp_vs_queue", "dumbbell-udp", "queue", ["10p", "25p", "49p", "100p", "200p"], D5,
              flow="tcp", fixed={"udp_rate": "800kbps", "window": 160},
              quick_values=["10p", "100p"],
              xlabel="queue limit, every link (packets waiting; ns-2's default 49), window 160"),
    ], quick_fixed={"duration": "30s"}),
    Study("reverse-traffic", "goodput per 250-s interval against ON-OFF reverse traffic", [
        Panel("goodput_per_interval", "reverse-traffic", "reverse_flows", [10], V3,
              flow="forward", stat="intervals"),
        # The forward flow's goodput while the reverse flows are on, against
        # the buffer where their data meets its ACKs (which no paper states).
        Panel("goodput_vs_reverse_buffer", "reverse-traffic", "reverse_queue",
              ["10p", "25p", "49p", "100p", "200p"], V3, flow="forward", stat="on_intervals",
              on=[250.0, 750.0], quick_values=["10p", "100p"],
              ylabel="goodput, reverse on (Mb/s)",
              xlabel="reverse-direction buffer (packets waiting)"),
    ], quick_fixed={"duration": "1000s"}, quick_seeds=1),
    Study("fairness", "total goodput and Jain's index vs the number of flows M", [
        Panel("total_goodput_vs_m", "fairness", "m", [10, 20, 50, 100, 200], V3, flow="f",
              stat="sum", quick_values=[10, 20]),
        Panel("jain_vs_m", "fairness", "m", [10, 20, 50, 100, 200], V3, flow="f", stat="jain",
              ylabel="Jain's fairness index", scale=1.0, quick_values=[10, 20]),
    ], seeds=3, quick_fixed={"duration": "60s"}),
    Study("parking-lot", "C1 goodput vs the number of hops", [
        Panel("c1_goodput_vs_hops", "parking-lot", "hops", [1, 2, 4, 6, 8], V3, flow="c1",
              quick_values=[1, 4]),
    ], seeds=3, quick_fixed={"duration": "60s"}),
    Study("wireless-last-hop", "min/avg/max goodput vs the Bad-state duration", [
        Panel("goodput_vs_bad_time", "wireless-last-hop", "bad_time",
              ["0.1ms", "1ms", "10ms", "50ms", "100ms"], ["westwoodplus", "newreno", "sack"],
              flow="main", stat="minavgmax", quick_values=["1ms", "100ms"]),
        Panel("goodput_vs_bad_time_no_delack", "wireless-last-hop", "bad_time",
              ["0.1ms", "1ms", "10ms", "50ms", "100ms"], ["newreno"], flow="main",
              fixed={"delayed_ack": False}, stat="minavgmax", quick_values=["1ms", "100ms"]),
        Panel("goodput_vs_bad_time_cross", "wireless-last-hop", "bad_time",
              ["0.1ms", "1ms", "10ms", "50ms", "100ms"], ["westwoodplus", "newreno", "sack"],
              flow="main", fixed={"cross": True}, stat="minavgmax",
              quick_values=["1ms", "100ms"]),
        # Link-layer ARQ on the wireless hop: off, 1 retry, 3 retries.
        Panel("goodput_vs_arq", "wireless-last-hop", "arq_attempts", [1, 2, 4],
              ["westwoodplus", "newreno", "sack"], flow="main", fixed={"bad_time": "50ms"},
              stat="minavgmax", quick_values=[1, 4],
              xlabel="ARQ transmissions (1: none)"),
    ], seeds=10, quick_fixed={"duration": "60s"}),
    Study("cellular", "goodput vs 95th-percentile delay over real cellular traces (mahimahi)", [
        Panel(f"tradeoff_{queue}", "cellular", "trace", presets.CELLULAR_TRACES, CELLULAR,
              fixed={"queue": queue}, stat="tradeoff", quick_values=[presets.CELLULAR_TRACES[0]],
              xlabel="trace")
        for queue in ("droptail", "codel")
    ], quick_fixed={"duration": "20s"}),
    Study("bbr-versions", "BBRv1, v2 and v3 against CUBIC: share, retransmissions, queue", [
        _bbr_panel("share_vs_buffer", stat="share", ylabel="BBR's share of goodput",
                   scale=1.0),
        _bbr_panel("share_vs_buffer_1pct_loss", stat="share", fixed={"per": 0.01},
                   ylabel="BBR's share of goodput", scale=1.0),
        _bbr_panel("retransmissions_vs_buffer", metric="retransmission_ratio",
                   ylabel="BBR's retransmission ratio", scale=1.0),
        _bbr_panel("queue_delay_vs_buffer", metric="queue_delay_s",
                   ylabel="BBR's mean queueing delay (ms)", scale=1e-3),
        _bbr_panel("share_vs_loss", x="per", values=[0.0, 0.001, 0.005, 0.01, 0.02, 0.05],
                   quick_values=[0.0, 0.01, 0.05], stat="share", fixed={"buffer": 1.0},
                   xlabel="random loss rate on the bottleneck (1-BDP buffer)",
                   ylabel="BBR's share of goodput", scale=1.0),
    ], seeds=10, quick_fixed={"duration": "60s"}),
]}


# ---- running them ----------------------------------------------------------------


def _specs(study: Study, quick: bool, traces: str | Path | None = None) -> list[RunSpec]:
    seeds = range(1, (study.quick_seeds if quick else study.seeds) + 1)
    specs = []
    for panel in study.panels:
        fn = presets.PRESETS[panel.preset]
        values = panel.quick_values if quick and panel.quick_values else panel.values
        # The cellular preset's trace folder: given, or found (tcplab.traces.resolve).
        files = {} if panel.preset != "cellular" else {"traces": _traces(traces)}
        for h in panel.hues:
            for v in values:
                for seed in seeds:
                    kw = {**panel.fixed, **files, panel.hue: h, panel.x: v, "seed": seed}
                    if quick:
                        # Quick settings never lengthen a panel's own duration.
                        for k, q in study.quick_fixed.items():
                            if k != "duration" or "duration" not in panel.fixed:
                                kw[k] = q
                    data = fn(**kw).to_dict()
                    resolved = json.loads(_core.check_json(data))
                    params = {"panel": panel.name, panel.hue: h, panel.x: v}
                    # The panel is part of the key: two panels may share a
                    # configuration, and each keeps its own rows.
                    key = run_key({"study": study.name, "panel": panel.name,
                                   "scenario": resolved})
                    specs.append(RunSpec(params, seed, resolved, key))
    return specs


def _traces(traces: str | Path | None) -> str:
    """The folder of mahimahi's traces: ``traces``, else as :func:`tcplab.traces.resolve`."""
    from tcplab import traces as mahimahi

    folder, missing = mahimahi.missing(traces, presets.CELLULAR_TRACES[0])
    if folder is None or missing is not None:
        raise FileNotFoundError(f"{missing}: {mahimahi.HELP}")
    return str(folder.resolve())


def _in_panel_order(panel: Panel, table: pd.DataFrame) -> pd.DataFrame:
    """Rows in the panel's own order of hues and x values (not alphabetical)."""
    hue, x = table.columns[0], table.columns[1]
    order = {str(v): i for i, v in enumerate(panel.values)}
    hues = {str(v): i for i, v in enumerate(panel.hues)}
    key = table[hue].map(lambda v: hues.get(str(v), 0)) * 10_000 + table[x].map(
        lambda v: order.get(str(v), float(v) if isinstance(v, int | float) else 0))
    return table.assign(_k=key).sort_values("_k").drop(columns="_k").reset_index(drop=True)


def _panel_table(panel: Panel, flows: pd.DataFrame, intervals: pd.DataFrame) -> pd.DataFrame:
    rows = flows[flows["panel"] == panel.name]
    hue_col = "cc" if panel.hue == "cc" else panel.hue
    by = ["param:cc" if panel.hue == "cc" and "param:cc" in rows.columns else hue_col, panel.x]
    if panel.stat == "intervals":
        iv = intervals[(intervals["panel"] == panel.name) & (intervals["flow"] == panel.flow)]
        iv = iv.rename(columns={"param:cc": "variant"}) if "param:cc" in iv.columns else iv
        by = ["variant" if "variant" in iv.columns else "cc", "start_s"]
        t = summarize(iv, by, ["goodput_bps"], ci=STUDY_CI)
        return t
    if panel.stat == "on_intervals":
        iv = intervals[(intervals["panel"] == panel.name) & (intervals["flow"] == panel.flow)
                       & intervals["start_s"].isin(panel.on)]
        by = ["cc" if panel.hue == "cc" else panel.hue, panel.x]
        per_run = iv.groupby([*by, "seed"])["goodput_bps"].mean().rename(panel.metric)
        return summarize(per_run.reset_index(), by, [panel.metric], ci=STUDY_CI)
    if panel.stat == "tradeoff":
        rows = rows[rows["flow"] == panel.flow] if panel.flow else rows.groupby("key").head(1)
        return summarize(rows, by, [panel.metric, panel.metric2], ci=STUDY_CI)
    if panel.metric == "queue_delay_s" and "queue_delay_s" not in rows.columns:
        # The queueing a flow saw: its mean RTT less its smallest.
        rows = rows.assign(queue_delay_s=rows["rtt_mean_s"] - rows["rtt_min_s"])
    if panel.stat == "share":
        rows = rows.assign(share=rows[panel.metric]
                           / rows.groupby("key")[panel.metric].transform("sum"))
        return summarize(rows[rows["flow"] == panel.flow], by, ["share"], ci=STUDY_CI)
    if panel.stat in ("sum", "jain"):
        sel = rows[rows["flow"].str.startswith(panel.flow)]
        agg = jain_index if panel.stat == "jain" else np.sum
        per_run = sel.groupby([*by, "seed"])[panel.metric].agg(agg).rename(_column(panel))
        rows = per_run.reset_index()
    else:
        name = panel.flow
        rows = rows[rows["flow"] == name] if name else rows.groupby("key").head(1)
    return summarize(rows, by, [_column(panel)], ci=STUDY_CI)


def _column(panel: Panel) -> str:
    """The summary table's metric: Jain's index is "jain" (a ratio, its intervals within [0, 1])."""
    if panel.stat == "intervals":
        return "goodput_bps"
    if panel.stat == "share":
        return "share"
    return "jain" if panel.stat == "jain" else panel.metric


def _figure(panel: Panel, table: pd.DataFrame, out: Path, study: str) -> list[Path]:
    """The panel's figure (PNG and SVG) at one column's width (:func:`_draw`)."""
    from tcplab.plot import save

    fig = _draw(panel, table, study)
    return [save(fig, out / f"{study}_{panel.name}.{ext}") for ext in ("png", "svg")]


def _draw(panel: Panel, table: pd.DataFrame, study: str) -> Any:
    """The panel's figure, at one column's width (the trade-offs: :func:`_tradeoff_figure`).

    Lines at the parameter's values (bars for names, booleans and time
    intervals), a log x axis where the values span decades, the x axis's unit.
    """
    from tcplab.plot import axis_label, ci_note, draw_summary, new_figure, place_legend, style_axes

    if panel.stat == "tradeoff":
        return _tradeoff_figure(panel, table, study)
    m = _column(panel)
    hue, x = table.columns[0], table.columns[1]
    tag = f"ci{round(STUDY_CI * 100)}"
    minmax = panel.stat == "minavgmax"
    low, high = ("min", "max") if minmax else (f"{tag}_low", f"{tag}_high")
    fig, ax = new_figure("column")
    unit = draw_summary(ax, table, x, m, hue, low, high, 1 / panel.scale,
                        kind="bar" if panel.stat == "intervals" else "auto")
    name = panel.xlabel or ("interval start (s)" if panel.stat == "intervals"
                            else axis_label(x)[0])
    if unit and f"({unit}" not in name:
        name = name.replace(" (", f" ({unit}; ", 1) if " (" in name else f"{name} ({unit})"
    ax.set_xlabel(name)
    ax.set_ylabel(panel.ylabel)
    kind = "min/avg/max" if minmax else f"mean, {ci_note(table, m, tag)}"
    # Named by its axes (quantities without units), so that title and axes agree.
    y_name, x_name = (t.split(" (")[0] for t in (panel.ylabel, name))
    profile = panel.fixed.get("profile")
    where = f"{study} ({profile} profile)" if profile else study
    head = textwrap.fill(f"{where}: {y_name} vs {x_name}", 40)  # one column at 9 pt
    ax.set_title(f"{head}\n({kind})")
    place_legend(ax)
    style_axes(fig, ax)
    return fig


def _label_points(ax: Any, points: list[tuple[float, float, str]], size: float = 6) -> None:
    """Names each point beside it, where the name covers no other name, point or error bar.

    :func:`tcplab.plot.label_points`: tried at eight places around the point,
    then further out with a leader line, measured as drawn, and placed again
    whenever the figure's layout changes.
    """
    from tcplab.plot import label_points

    label_points(ax, points, size)


def _tradeoff_figure(panel: Panel, table: pd.DataFrame, study: str) -> Any:
    """Goodput against the 95th-percentile delay, one plot per x value (trace), as Pantheon.

    Each variant is its mean over seeds with its confidence interval on both
    axes; the delay axis is logarithmic and runs right to left, so that
    better (more goodput, less delay) is up and to the right.
    """
    from matplotlib.figure import Figure

    from tcplab.plot import axis_label, ci_note, tidy_layout

    hue, x = table.columns[0], table.columns[1]
    tag = f"ci{round(STUDY_CI * 100)}"
    values = list(dict.fromkeys(table[x]))
    cols = min(len(values), 2)
    rows = -(-len(values) // cols)
    fig = Figure(figsize=(3.5 * cols, 2.8 * rows + 0.4), dpi=200)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    y, d = panel.metric, panel.metric2
    markers = "os^Dvp<>"
    for ax, value in zip(axes, values, strict=False):
        t = table[table[x] == value]
        # The delay in ms, or in s where the panel's reach a second.
        delay, factor = axis_label(d, t[f"{d}_mean"])
        names: list[tuple[float, float, str]] = []
        for i, (_, r) in enumerate(t.iterrows()):
            dx = r[f"{d}_mean"] * factor
            gy = r[f"{y}_mean"] / panel.scale
            xerr = [[dx - r[f"{d}_{tag}_low"] * factor],
                    [r[f"{d}_{tag}_high"] * factor - dx]]
            yerr = [[gy - r[f"{y}_{tag}_low"] / panel.scale],
                    [r[f"{y}_{tag}_high"] / panel.scale - gy]]
            ax.errorbar(dx, gy, xerr=xerr, yerr=yerr, fmt=markers[i % len(markers)], ms=5,
                        capsize=2, lw=0.8, label=str(r[hue]))
            names.append((dx, gy, str(r[hue])))
        # Plain numbers on the log axis, as many as its span holds apart
        # (tcplab.plot's layout, tidy_layout below).
        ax.set_xscale("log")
        ax.invert_xaxis()
        ax.set_title(str(value), fontsize=8)
        ax.set_xlabel(delay, fontsize=7)
        ax.set_ylabel(panel.ylabel, fontsize=7)
        ax.tick_params(labelsize=6, which="both")
        ax.grid(alpha=0.3, which="both")
        _label_points(ax, names)
    for ax in axes[len(values):]:
        ax.set_visible(False)
    tidy_layout(fig)
    queue = panel.fixed.get("queue", "")
    fig.suptitle(f"{study} ({queue}): goodput vs delay, better up and right\n"
                 f"(mean, {ci_note(table, y, tag)})", fontsize=8)
    return fig


def reproduce(name: str, out: str | Path, *, quick: bool = False, jobs: int | None = None,
              progress: bool | None = None, traces: str | Path | None = None) -> dict[str, Any]:
    """Run study ``name`` end to end: the sweep (stored in ``out``), tables, figures.

    ``traces``: for the ``cellular`` study, the folder of mahimahi's trace
    files (default: ``$TCPLAB_TRACES``, else the folder of ``tcplab traces
    download``, else ../shared/traces/mahimahi: :func:`tcplab.traces.resolve`).

    Returns {"tables": {panel: DataFrame}, "files": [paths]}.
    """
    if name not in STUDIES:
        raise KeyError(f"no study {name!r}; studies: {', '.join(STUDIES)}")
    study = STUDIES[name]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    db = out / f"{name}{'-quick' if quick else ''}.db"
    run_specs(_specs(study, quick, traces), db, name, jobs=jobs, progress=progress)
    with Store(db) as store:
        flows, intervals = store.flows(), store.intervals()
        failed = store.failures()
    if not failed.empty:
        raise RuntimeError(f"{len(failed)} runs failed: {failed['error'].iloc[0]}")
    tables, files = {}, [db]
    for panel in study.panels:
        t = _panel_table(panel, flows, intervals)
        if panel.stat != "intervals":
            t = _in_panel_order(panel, t)
        tables[panel.name] = t
        csv = out / f"{name}_{panel.name}.csv"
        atomic_write(csv, lambda f, t=t: t.to_csv(f, index=False))
        files += [csv, *_figure(panel, t, out, name)]
    for extra in study.extras:
        files += extra(out, quick)
    return {"tables": tables, "files": files}
