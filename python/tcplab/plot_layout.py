"""Where a figure's legend, tick labels and point names go: never over data or each other.

The layout :mod:`tcplab.plot` gives its figures, at every draw (so at every
save, and in a notebook at display), after matplotlib's tight layout:

- **Legends** (made with :func:`place_legend`) go to the first place inside
  the axes where they cover no data: no line, marker, error bar, bar, box,
  filled area or text. Where there is none, they go below the axes, under
  the x axis's label, in as many columns as fit across the axes.
- **Tick labels** never overlap. A log or symlog axis reads as plain numbers
  ("0.001", "20", "100"): a log axis has them at every decade when the data
  span more than two, at 1, 2 and 5 of each decade when they span one or
  two, at 1 to 9 below a decade, and linearly spaced when even those give
  fewer than two ticks; minor ticks are unlabelled. Labels that still come
  closer than half a character are thinned (a sparser set of ticks), and
  category names are turned upright.
- **Point names** (:func:`label_points`) go beside their point, where they
  cover no other name, marker, error bar or leader line, with a leader line
  when the nearest free place is further out.

Only axes that :mod:`tcplab.plot` drew are tidied (the others keep what
their owner gave them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from matplotlib.transforms import Bbox

#: Places inside the axes a legend is tried at, in this order.
INSIDE = ("upper right", "upper left", "lower right", "lower left", "upper center",
          "lower center", "center right", "center left", "center")
#: Clear space (points) kept between a name and the data, and at least
#: between two tick labels.
GAP = 1.5
#: Clear space (points) kept between a legend and the data.
LEGEND_GAP = 3.0


_ENGINE: list[type] = []


def layout_engine() -> Any:
    """A new TidyLayout: matplotlib's tight layout, then :func:`tidy`, until nothing moves.

    (The class is made on first use, so that importing this module does not
    import matplotlib.)
    """
    if not _ENGINE:
        from matplotlib.layout_engine import TightLayoutEngine

        class TidyLayout(TightLayoutEngine):
            """Matplotlib's tight layout, then :func:`tidy`, repeated until nothing moves."""

            _tcplab = True

            def execute(self, fig: Figure) -> None:
                """Lay ``fig`` out: tight, then legends, ticks and names, until stable."""
                before = None
                for _ in range(4):
                    super().execute(fig)
                    state = tidy(fig)
                    if state == before:
                        break
                    before = state

        _ENGINE.append(TidyLayout)
    return _ENGINE[0]()


def tidy_layout(fig: Figure) -> Figure:
    """Give ``fig`` tcplab's layout (:func:`layout_engine`), for every Axes it has now."""
    fig.set_layout_engine(layout_engine())
    for ax in fig.axes:
        mark(ax)
    return fig


def mark(ax: Axes) -> Axes:
    """Let :func:`tidy` manage ``ax``'s ticks, legend and point names."""
    ax._tcplab_tidy = True
    return ax


def is_tidy(fig: Figure) -> bool:
    """Whether ``fig`` lays itself out with tcplab's layout at each draw."""
    return getattr(fig.get_layout_engine(), "_tcplab", False)


def tidy(fig: Figure) -> tuple[Any, ...]:
    """Ticks, point names and legends of the figure's managed axes, placed for its layout now.

    Returns what was decided (tick spacing, legend places), to tell when a
    new layout changed nothing.
    """
    renderer = fig._get_renderer()
    state: list[Any] = []
    for ax in fig.axes:
        if not getattr(ax, "_tcplab_tidy", False) or not ax.get_visible():
            continue
        fit_label(ax.xaxis.label, fig.bbox.width, renderer)
        fit_label(ax.yaxis.label, fig.bbox.height, renderer)
        state += [tidy_ticks(ax.xaxis, renderer), tidy_ticks(ax.yaxis, renderer)]
        if getattr(ax, "_tcplab_points", None):
            _place_names(ax, renderer)
        legend = ax.get_legend()
        if legend is not None and hasattr(legend, "_tcplab"):
            state.append(_place_legend(ax, legend, renderer))
    return tuple(state)


def fit_label(label: Any, room: float, renderer: Any) -> None:
    """Break an axis label into lines where it is longer than ``room`` (display units)."""
    import textwrap

    text = label.get_text()
    if text != getattr(label, "_tcplab_wrapped", None):
        label._tcplab_text = text  # set anew by its owner
    whole = label._tcplab_text
    label.set_text(whole)
    rotated = label.get_rotation() % 180 == 90
    for width in range(len(whole), 10, -4):
        extent = label.get_window_extent(renderer)
        if (extent.height if rotated else extent.width) <= 0.96 * room:
            break
        label.set_text(textwrap.fill(whole, width - 4))
    label._tcplab_wrapped = label.get_text()


# ---- what the data cover --------------------------------------------------------


class Covered:
    """What an Axes' data cover on the canvas (display coordinates).

    Lines as segments (steps as drawn), markers as discs, error bars as
    segments, bars and boxes as rectangles, filled areas as polygons, texts
    as their boxes.
    """

    def __init__(self, ax: Axes, renderer: Any, skip: Sequence[Any] = ()) -> None:
        from matplotlib.cbook import STEP_LOOKUP_MAP
        from matplotlib.collections import LineCollection, PathCollection

        px = ax.figure.dpi / 72
        segs: list[np.ndarray] = []
        pts: list[np.ndarray] = []
        radii: list[np.ndarray] = []
        self.boxes: list[Bbox] = []
        self.paths: list[Any] = []
        for line in ax.get_lines():
            if not line.get_visible() or line in skip:
                continue
            xy = np.ma.filled(np.ma.asarray(line.get_xydata(), dtype=float), np.nan)
            if xy.size == 0:
                continue
            step = STEP_LOOKUP_MAP.get(line.get_drawstyle())
            if step is not None and line.get_drawstyle() != "default":
                xy = np.column_stack(step(xy[:, 0], xy[:, 1]))
            d = line.get_transform().transform(xy)
            if line.get_linestyle() not in ("None", "none", "", " "):
                segs.append(np.stack([d[:-1], d[1:]], axis=1))
            if line.get_marker() not in (None, "None", "none", "", " ", ","):
                pts.append(d)
                radii.append(np.full(len(d), line.get_markersize() * px / 2))
        for c in ax.collections:
            if not c.get_visible() or c in skip:
                continue
            if isinstance(c, LineCollection):
                t = c.get_transform()
                for s in c.get_segments():
                    d = t.transform(np.asarray(s, dtype=float))
                    if len(d) > 1:
                        segs.append(np.stack([d[:-1], d[1:]], axis=1))
            elif isinstance(c, PathCollection):
                d = c.get_offset_transform().transform(np.asarray(c.get_offsets(), float))
                sizes = np.resize(np.sqrt(np.asarray(c.get_sizes(), float)) * px / 2,
                                  len(d)) if len(c.get_sizes()) else np.full(len(d), 3 * px)
                pts.append(d)
                radii.append(sizes)
            else:
                t = c.get_transform()
                self.paths += [p.transformed(t) for p in c.get_paths()]
        for p in ax.patches:
            if p.get_visible() and p not in skip:
                self.boxes.append(p.get_window_extent(renderer))
        for text in ax.texts:
            if text.get_visible() and text not in skip and text.get_text():
                self.boxes.append(text_box(text, renderer))
        seg = np.concatenate(segs) if segs else np.zeros((0, 2, 2))
        self.segments = seg[np.isfinite(seg).all(axis=(1, 2))]
        pt = np.concatenate(pts) if pts else np.zeros((0, 2))
        rad = np.concatenate(radii) if radii else np.zeros(0)
        keep = np.isfinite(pt).all(axis=1)
        self.points, self.radii = pt[keep], rad[keep]

    def _extents(self) -> tuple[np.ndarray, np.ndarray]:
        """Each segment's lower-left and upper-right corners (kept until segments change)."""
        if getattr(self, "_ext_of", None) is not self.segments:
            self._ext = (self.segments.min(axis=1), self.segments.max(axis=1))
            self._ext_of = self.segments
        return self._ext

    def hits(self, b: Bbox) -> bool:
        """Whether anything of the data lies in the box ``b``."""
        return self.count(b, first=True) > 0

    def count(self, b: Bbox, first: bool = False) -> int:
        """How many boxes, markers, segments and areas of the data lie in the box ``b``."""
        x0, y0, x1, y1 = b.x0, b.y0, b.x1, b.y1
        n = sum(1 for o in self.boxes if o.x0 < x1 and x0 < o.x1 and o.y0 < y1 and y0 < o.y1)
        if n and first:
            return n
        if len(self.points):
            p = self.points
            dx = np.maximum.reduce([x0 - p[:, 0], np.zeros(len(p)), p[:, 0] - x1])
            dy = np.maximum.reduce([y0 - p[:, 1], np.zeros(len(p)), p[:, 1] - y1])
            n += int(np.sum(dx * dx + dy * dy < np.maximum(self.radii, 0.5) ** 2))
            if n and first:
                return n
        if len(self.segments):
            lo, hi = self._extents()
            near = ((lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1)
                    & (hi[:, 1] >= y0))
            if near.any():
                n += int(segments_hit(self.segments[near], (x0, y0, x1, y1)).sum())
            if n and first:
                return n
        return n + sum(1 for p in self.paths if p.intersects_bbox(b, filled=True))


def segments_hit(seg: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """For each segment ((x0, y0), (x1, y1)), whether it crosses the box (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    a, d = seg[:, 0], seg[:, 1] - seg[:, 0]
    lo, hi = np.zeros(len(seg)), np.ones(len(seg))
    ok = np.ones(len(seg), dtype=bool)
    for p, q in ((-d[:, 0], a[:, 0] - x0), (d[:, 0], x1 - a[:, 0]),
                 (-d[:, 1], a[:, 1] - y0), (d[:, 1], y1 - a[:, 1])):
        ok &= ~((p == 0) & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(p != 0, q / np.where(p != 0, p, 1), 0.0)
        lo = np.where(p < 0, np.maximum(lo, t), lo)
        hi = np.where(p > 0, np.minimum(hi, t), hi)
    return ok & (lo <= hi)


def text_box(text: Any, renderer: Any) -> Bbox:
    """A text's own box, without an annotation's arrow."""
    from matplotlib.text import Text

    if hasattr(text, "update_positions"):  # an annotation: where its offset puts it
        text.update_positions(renderer)
    return Text.get_window_extent(text, renderer)


def _padded(b: Bbox, px: float) -> Bbox:
    from matplotlib.transforms import Bbox

    return Bbox.from_extents(b.x0 - px, b.y0 - px, b.x1 + px, b.y1 + px)


def _within(b: Bbox, outer: Bbox) -> bool:
    return (b.x0 >= outer.x0 - 0.5 and b.y0 >= outer.y0 - 0.5 and b.x1 <= outer.x1 + 0.5
            and b.y1 <= outer.y1 + 0.5)


# ---- legends ---------------------------------------------------------------------


def place_legend(ax: Axes, handles: Sequence[Any] | None = None,
                 labels: Sequence[str] | None = None, **kwargs: Any) -> Legend | None:
    """``ax.legend(...)``, placed where it covers no data (inside, else below the axes).

    ``kwargs`` are :meth:`matplotlib.axes.Axes.legend`'s (title, fontsize,
    ...), but ``loc``, ``bbox_to_anchor`` and ``ncols``, which the placement
    decides. Returns the legend, or None when nothing has a label.
    """
    for k in ("loc", "bbox_to_anchor", "ncols", "ncol"):
        if k in kwargs:
            raise TypeError(f"place_legend decides {k}; use ax.legend for a fixed place")
    if handles is None or labels is None:
        found_h, found_l = ax.get_legend_handles_labels()
        handles = found_h if handles is None else handles
        labels = found_l if labels is None else labels
    if not handles:
        return None
    fontsize = kwargs.pop("fontsize", None)
    title_fontsize = kwargs.pop("title_fontsize", None)
    # (A fixed loc: matplotlib's "best" would count every vertex for nothing.)
    legend = ax.legend(list(handles), list(labels), fontsize=fontsize,
                       title_fontsize=title_fontsize, loc="upper right", **kwargs)
    legend._tcplab = {"handles": list(handles), "labels": list(labels), "kw": kwargs}
    legend._tcplab_ncols = 1
    mark(ax)
    return legend


#: A legend of several columns below the axes, spaced closer than matplotlib's default.
COMPACT = {"columnspacing": 1.0, "handlelength": 1.6, "handletextpad": 0.5}


def _remake(ax: Axes, old: Legend, ncols: int, compact: bool = False) -> Legend:
    spec = old._tcplab
    texts = old.get_texts()
    kw = {**COMPACT, **spec["kw"]} if compact else spec["kw"]
    legend = ax.legend(spec["handles"], spec["labels"], ncols=ncols,
                       fontsize=texts[0].get_fontsize() if texts else None,
                       title_fontsize=old.get_title().get_fontsize(), loc="upper right", **kw)
    legend._tcplab = spec
    legend._tcplab_ncols = ncols
    legend._tcplab_compact = compact
    return legend


def _set_loc(legend: Legend, loc: str, anchor: Any = None) -> None:
    """``loc`` inside the axes (``anchor`` None) or at ``anchor`` (x, y, transform)."""
    if anchor is None:
        legend.set_bbox_to_anchor(None)
    else:
        legend.set_bbox_to_anchor(anchor[:2], transform=anchor[2])
    if hasattr(legend, "set_loc"):
        legend.set_loc(loc)
    else:  # matplotlib 3.7
        legend._set_loc(legend.codes[loc])


def _place_legend(ax: Axes, legend: Legend, renderer: Any) -> tuple[str, Any]:
    """Put ``legend`` inside where it covers nothing, else below the axes; say where."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    pad = LEGEND_GAP * fig.dpi / 72
    covered = Covered(ax, renderer)
    frame = ax.get_window_extent(renderer)
    n = len(legend._tcplab["labels"])
    for ncols, locs in ((1, INSIDE), (n, ("upper center", "lower center"))):
        if ncols != legend._tcplab_ncols or getattr(legend, "_tcplab_compact", False):
            legend = _remake(ax, legend, ncols, compact=ncols > 1)
        for loc in locs:
            _set_loc(legend, loc)
            box = legend.get_window_extent(renderer)
            if _within(box, frame) and not covered.hits(_padded(box, pad)):
                return ("inside", loc, ncols)
        if n == 1:
            break
    # Below the axes, under the x axis's tick labels and label, in as many
    # columns as fit across the axes and their y axis's labels, and centred
    # there: the tight layout, which counts the legend with its axes, then
    # has nothing to widen (a legend reaching further would shrink the axes
    # at each layout).
    xaxis = ax.xaxis.get_tightbbox(renderer)
    drop = (frame.y0 - xaxis.y0 if xaxis is not None else 0.0) * 72 / fig.dpi + 2 * GAP
    yaxis = ax.yaxis.get_tightbbox(renderer)
    left = min(frame.x0, yaxis.x0) if yaxis is not None else frame.x0
    for ncols in range(n, 0, -1):
        legend = _remake(ax, legend, ncols, compact=True)
        width = legend.get_window_extent(renderer).width
        if width <= frame.x1 - left:
            # Centred under the axes, or under axes and labels when wider.
            shift = 0.0 if width <= frame.width else (left - frame.x0) / 2
            anchor = offset_copy(ax.transAxes, fig=fig, x=shift * 72 / fig.dpi, y=-drop,
                                 units="points")
            _set_loc(legend, "upper center", (0.5, 0.0, anchor))
            return ("below", ncols)
    # Wider than its axes and labels even in one column: from the axes' left
    # edge, left out of the layout (save() still includes it).
    anchor = offset_copy(ax.transAxes, fig=fig, x=0, y=-drop, units="points")
    _set_loc(legend, "upper left", (0.0, 0.0, anchor))
    legend.set_in_layout(False)
    return ("below", 0)


# ---- tick labels -----------------------------------------------------------------


def plain_number(value: float, _pos: Any = None) -> str:
    """A tick's value as a plain number ("0.05", "20", "1000"), powers of 10 beyond."""
    if value == 0:
        return "0"
    if 1e-4 <= abs(value) < 1e6:
        return f"{value:.6g}"
    exp = math.log10(abs(value))
    if abs(exp - round(exp)) < 1e-9:
        return f"${'-' if value < 0 else ''}10^{{{round(exp)}}}$"
    return f"{value:.1e}"


#: A log axis's major ticks, densest first: 1 to 9 per decade, 1-2-5,
#: decades, then every second or third decade.
LOG_STEPS: tuple[tuple[str, Any], ...] = (
    ("subs", (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)), ("subs", (1.0, 2.0, 5.0)),
    ("subs", (1.0,)), ("every", 2), ("every", 3), ("every", 5))


def _log_start(span: float) -> int:
    return 0 if span < 1.0 else 1 if span < 2.0 else 2


def _apply_log(axis: Axis, level: int) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    lo, hi = sorted(axis.get_view_interval())
    if not (lo > 0 and hi > lo):
        return
    span = math.log10(hi / lo)
    step, arg = LOG_STEPS[min(_log_start(span) + level, len(LOG_STEPS) - 1)]
    if step == "subs":
        locator: Any = LogLocator(base=10.0, subs=arg, numticks=100)
    else:
        locator = LogLocator(base=10.0 ** arg, subs=(1.0,), numticks=100)
    inside = [v for v in locator.tick_values(lo, hi) if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
    if len(inside) < 2:
        # A log axis over less than a decade: numbers spaced linearly.
        locator = MaxNLocator(nbins=max(2, 4 - level), steps=[1, 2, 2.5, 5, 10])
    axis.set_major_locator(locator)
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_locator(LogLocator(base=10.0, subs=LOG_STEPS[0][1][1:], numticks=100))
    axis.set_minor_formatter(NullFormatter())


def _apply_linear(axis: Axis, level: int) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins=max(2, 7 - 2 * level), steps=[1, 2, 2.5, 5, 10],
                                       integer=getattr(axis, "_tcplab_integer", False)))


def tick_boxes(axis: Axis, renderer: Any) -> list[Bbox]:
    """The boxes of the tick labels ``axis`` draws (major and minor), in display coordinates."""
    ticks = axis._update_ticks()
    boxes = []
    for tick in ticks:
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text():
                boxes.append(label.get_window_extent(renderer))
    return boxes


def overlapping(boxes: Sequence[Bbox], gap: float = 0.0) -> bool:
    """Whether any two boxes come closer than ``gap`` (display units)."""
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if (a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap
                    and b.y0 < a.y1 + gap):
                return True
    return False


def tidy_ticks(axis: Axis, renderer: Any) -> tuple[str, int]:
    """Readable, non-overlapping tick labels on ``axis``; returns (kind, thinning)."""
    from matplotlib.ticker import FixedFormatter

    scale = axis.get_scale()
    kind = ("log" if scale == "log" else "names"
            if isinstance(axis.get_major_formatter(), FixedFormatter) else
            "linear" if scale == "linear" else "other")
    level = getattr(axis, "_tcplab_level", 0)
    # Labels closer than half a character's width read as one.
    size = max((t.get_fontsize() for t in axis.get_ticklabels()), default=8.0)
    gap = max(GAP, size / 2) * axis.figure.dpi / 72
    top = {"log": len(LOG_STEPS) - 1, "linear": 3,
           "names": 1 if axis.axis_name == "x" else 0}.get(kind, 0)
    if scale == "symlog":
        from matplotlib.ticker import FuncFormatter

        axis.set_major_formatter(FuncFormatter(plain_number))  # "0", "0.001", "0.01"
    while True:
        if kind == "log":
            _apply_log(axis, level)
        elif kind == "linear" and level:
            _apply_linear(axis, level)
        elif kind == "names" and level:
            axis.set_tick_params(labelrotation=90)  # (x only: top is 0 for y)
        if level >= top or not overlapping(tick_boxes(axis, renderer), gap):
            break
        level += 1
    axis._tcplab_level = level
    return kind, level


# ---- names beside points ---------------------------------------------------------


def label_points(ax: Axes, points: Sequence[tuple[float, float, str]],
                 size: float = 6.0) -> None:
    """Name each point (x, y, name) beside it, where the name covers nothing else.

    Tried in turn: eight places around the point close by, then further
    out with a leader line to the point; the first where the name stays
    inside the axes and covers no other name, marker, error bar or line is
    kept (where there is none, the one covering fewest). Placed now and again at each layout of a
    :func:`tidy_layout` figure, so that the names follow the axes' size.
    """
    mark(ax)
    ax._tcplab_points = ([(float(x), float(y), str(n)) for x, y, n in points], size, [])
    _place_names(ax, ax.figure._get_renderer())


#: Directions tried around a point, right-above first, and the distances (points).
_AROUND = ((1, 0.6), (1, -0.6), (-1, 0.6), (-1, -0.6), (0, 1), (0, -1), (1, 0), (-1, 0))
_RINGS = (4.0, 10.0, 20.0, 32.0)


def _name(ax: Axes, x: float, y: float, name: str, size: float, dx: float, dy: float,
          leader: bool) -> Any:
    arrow = ({"arrowstyle": "-", "lw": 0.5, "color": "0.4", "shrinkA": 1, "shrinkB": 3}
             if leader else None)
    return ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points",
                       fontsize=size, arrowprops=arrow,
                       ha="left" if dx > 0 else "right" if dx < 0 else "center",
                       va="bottom" if dy > 0 else "top" if dy < 0 else "center")


def _place_names(ax: Axes, renderer: Any) -> None:
    points, size, made = ax._tcplab_points
    for text in made:
        text.remove()
    made.clear()
    if not points:
        return
    covered = Covered(ax, renderer)
    frame = ax.get_window_extent(renderer)
    pad = GAP * ax.figure.dpi / 72
    # Beyond the first ring, a leader line ties the name to its point; the
    # outer rings try twelve directions.
    twelve = [(round(math.cos(a), 3), round(math.sin(a), 3))
              for a in np.radians([30, -30, 150, -150, 90, -90, 0, 180, 60, -60, 120, -120])]
    tries = [(ux * r, uy * r, ring > 0) for ring, r in enumerate(_RINGS)
             for ux, uy in (_AROUND if ring < 2 else twelve)]
    at = [ax.transData.transform((x, y)) for x, y, _ in points]
    # Each place's box (padded) and what of the data it covers, measured once.
    boxes: list[list[tuple[Any, Bbox, float]]] = []
    for x, y, name in points:
        options = []
        for place in tries:
            text = _name(ax, x, y, name, size, *place)
            box = _padded(text_box(text, renderer), pad)
            text.remove()
            if _within(box, _padded(frame, pad)):
                options.append((place, box, covered.count(box) + (0.5 if place[2] else 0)))
        boxes.append(options or [(tries[0], frame, math.inf)])

    def greedy(order: list[int]) -> tuple[float, dict[int, Any]]:
        """Names placed one by one in ``order``: each at its cheapest place given the others."""
        taken: list[Bbox] = []
        leaders: list[np.ndarray] = []
        chosen, total = {}, 0.0
        for i in order:
            best, cost = None, math.inf
            for place, box, base in boxes[i]:
                crossed = sum(1 for n in taken if n.overlaps(box))
                if leaders:
                    crossed += int(segments_hit(np.array(leaders), box.extents).sum())
                if place[2] and taken:
                    line = np.array([[at[i], [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]]])
                    crossed += sum(1 for n in taken if segments_hit(line, n.extents)[0])
                here = 100 * crossed + base
                if here < cost:
                    best, cost = (place, box), here
                if here == 0:
                    break
            place, box = best
            chosen[i] = place
            total += cost
            taken.append(box)
            if place[2]:
                leaders.append([at[i], [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]])
        return total, chosen

    # The names in the given order, the most crowded points first, and the
    # reverse: the arrangement that covers least.
    near = [sum(1 for q in at if 0 < np.hypot(*(p - q)) < 40 * pad) for p in at]
    orders = [list(range(len(points))),
              sorted(range(len(points)), key=lambda i: -near[i]),
              list(range(len(points)))[::-1]]
    _, chosen = min((greedy(o) for o in orders), key=lambda r: r[0])
    for i, (x, y, name) in enumerate(points):
        made.append(_name(ax, x, y, name, size, *chosen[i]))
