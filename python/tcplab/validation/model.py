"""What a validation run produces: sections of compared rows, and a verdict.

A :class:`Row` is one quantity at one scenario point, measured by tcplab
and by one reference (another simulator, a kernel, or a formula), with the
tolerance it must meet. A :class:`Section` gathers the rows of one variant,
recovery or queue discipline with the scenario they ran on; a
:class:`Report` gathers the sections and the references that were found or
skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: A row's verdicts: within tolerance; outside it; outside it for a reason
#: shown and documented (``known``); outside it, listed as an open miss not
#: yet explained (``open``); the reference stalled, so not compared.
PASS, FAIL, KNOWN, OPEN, STALLED = "pass", "fail", "known", "open", "stalled"


@dataclass
class Row:
    """One compared quantity.

    ``tolerance`` is relative (0.10: the ratio tcplab / reference within
    0.90-1.10) unless ``bounds`` is given: then tcplab's value must lie
    within (low, high), as a theory check states it. ``known`` is the
    reason a miss is understood and documented (its verdict is then
    ``known``, not ``fail``); ``open`` is the note of a miss that is listed
    but not yet explained (verdict ``open``); ``stalled`` says the
    reference stopped making progress, so it is reported and not compared.
    """

    point: str
    metric: str
    tcplab: float
    reference: float
    tolerance: float = 0.10
    bounds: tuple[float, float] | None = None
    known: str = ""
    open: str = ""
    stalled: bool = False
    unit: str = ""

    @property
    def ratio(self) -> float:
        """The ratio tcplab / reference (1 when both are 0)."""
        if self.reference == 0:
            return 1.0 if self.tcplab == 0 else math.inf
        return self.tcplab / self.reference

    @property
    def within(self) -> bool:
        """Whether tcplab meets the tolerance or the bounds."""
        if self.bounds is not None:
            lo, hi = self.bounds
            return lo <= self.tcplab <= hi
        return abs(self.ratio - 1.0) <= self.tolerance + 1e-12

    @property
    def verdict(self) -> str:
        """pass, fail, known or stalled."""
        if self.stalled:
            return STALLED
        if self.within:
            return PASS
        if self.known:
            return KNOWN
        return OPEN if self.open else FAIL

    @property
    def target(self) -> str:
        """The tolerance or bounds, as text."""
        if self.bounds is not None:
            return f"[{_fmt(self.bounds[0])}, {_fmt(self.bounds[1])}]"
        return f"±{self.tolerance:.0%}"

    def as_dict(self) -> dict:
        """The row as JSON-ready data."""
        return {"point": self.point, "metric": self.metric, "unit": self.unit,
                "tcplab": self.tcplab, "reference": self.reference,
                "ratio": self.ratio, "target": self.target, "verdict": self.verdict,
                "known": self.known, "open": self.open}


@dataclass
class Figure:
    """A figure's data: one line per (label), y against the points' x."""

    title: str
    xlabel: str
    ylabel: str
    x: list[str]
    lines: dict[str, list[float]]


@dataclass
class Section:
    """The rows of one variant, recovery or queue discipline."""

    kind: str  # "variant", "recovery", "queue", "theory"
    name: str
    scenario: str
    references: list[str]
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    #: Why the reference gave no usable result for this section (it crashed,
    #: printed what the harness cannot read, or hung at every point), or "".
    #: A broken section's rows, if any, are not compared.
    broken: str = ""

    @property
    def anchor(self) -> str:
        """The section's id in the HTML page."""
        return f"{self.kind}-{self.name}".replace(" ", "-").replace("/", "-").lower()

    @property
    def failures(self) -> list[Row]:
        """The rows outside their tolerance without a known reason."""
        return [r for r in self.rows if r.verdict == FAIL]

    def worst(self, metric: str = "goodput") -> Row | None:
        """The compared row of `metric` furthest from its reference."""
        rows = [r for r in self.rows if r.metric == metric and not r.stalled
                and r.bounds is None]
        return max(rows, key=lambda r: abs(math.log(r.ratio)) if 0 < r.ratio < math.inf
                   else math.inf, default=None)


@dataclass
class Report:
    """A whole validation run."""

    mode: str  # "quick" or "full"
    date: str
    sections: list[Section] = field(default_factory=list)
    found: dict[str, str] = field(default_factory=dict)  # reference -> version or path
    skipped: dict[str, str] = field(default_factory=dict)  # reference -> why
    seconds: float = 0.0

    @property
    def failures(self) -> list[tuple[Section, Row]]:
        """Every failing row, with its section."""
        return [(s, r) for s in self.sections for r in s.failures]

    @property
    def broken(self) -> list[Section]:
        """The sections whose reference broke (see :attr:`Section.broken`)."""
        return [s for s in self.sections if s.broken]

    @property
    def compared(self) -> int:
        """The number of rows compared (every verdict but stalled)."""
        return sum(r.verdict != STALLED for s in self.sections for r in s.rows)

    def counts(self) -> dict[str, int]:
        """The number of rows of each verdict."""
        out = {PASS: 0, FAIL: 0, KNOWN: 0, OPEN: 0, STALLED: 0}
        for s in self.sections:
            for r in s.rows:
                out[r.verdict] += 1
        return out


def _fmt(v: float) -> str:
    if v == 0 or math.isnan(v) or math.isinf(v):
        return f"{v:g}"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.01:
        return f"{v:.3f}"
    return f"{v:.3g}"


fmt = _fmt
