"""`tcplab validate`: tcplab compared with the references installed here.

::

    import tcplab.validation as tv
    rep = tv.run(quick=True, out="validation/")   # report.html, report.md, report.json
    rep.failures                                   # rows outside their tolerance

References: ns-2.35's own agents and TCP-Linux (``apt-get install ns2``),
ns-3 (a virtualenv with the ``ns3`` wheel: ``TCPLAB_NS3_PYTHON``, or
``.venv-ns3`` in the working directory), and theory. A reference that is
not installed is skipped with a one-line note. What each section compares
and with which tolerance: :mod:`tcplab.validation.suites` and
docs/validation.md.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tcplab.validation.model import Figure, Report, Row, Section
from tcplab.validation.report import summary_table, to_html, to_markdown

__all__ = ["Report", "Row", "Section", "run", "write", "load", "SECTIONS"]

#: The section groups `only=` may name besides a variant's or recovery's name.
SECTIONS = ("variants", "recoveries", "theory", "ns3")


def _ns2() -> tuple[str | None, str]:
    ns = shutil.which("ns")
    if ns is None:
        return None, "ns-2 not found (apt-get install ns2)"
    probe = Path(__file__).with_name("ns2_version.tcl")
    try:
        out = subprocess.run([ns, str(probe)], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"ns-2 does not run: {e}"
    if "tcp-linux" not in out.stdout:
        return None, "ns-2 has no Agent/TCP/Linux (TCP-Linux)"
    return ns, out.stdout.split()[0]


def _ns3_python() -> str | None:
    cand = os.environ.get("TCPLAB_NS3_PYTHON") or ".venv-ns3/bin/python"
    return str(Path(cand).absolute()) if Path(cand).exists() else None


def run(*, quick: bool = False, seeds: int | None = None, only: Iterable[str] | None = None,
        jobs: int = 2, progress: Callable[[str], None] | None = None) -> Report:
    """Runs the validation and returns its report (nothing is written).

    `quick` runs fewer points and shorter runs, without ns-3 unless `only`
    names ``ns3`` (a few minutes; what CI runs). `only` limits it to
    sections by name (a variant, a recovery, or one of ``variants``,
    ``recoveries``, ``theory``, ``ns3``).
    """
    from tcplab.cc import variants
    from tcplab.validation import ns3, suites, theory

    progress = progress or (lambda _msg: None)
    t0 = time.perf_counter()
    wanted = set(only) if only else None
    seeds = seeds or (2 if quick else 3)
    rep = Report(mode="quick" if quick else "full",
                 date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"))
    ns, what = _ns2()
    if ns:
        rep.found["ns-2"] = f"ns-2 {what}, its own agents and TCP-Linux ({ns})"
    else:
        rep.skipped["ns-2"] = what
    py3 = _ns3_python()
    if py3:
        rep.found["ns-3"] = f"the ns3 wheel ({py3})"
    else:
        rep.skipped["ns-3"] = ("no virtualenv with the ns3 wheel (set TCPLAB_NS3_PYTHON, or "
                               "python bench/compare_ns3.py --setup)")
    rep.found["theory"] = "link rate, Mathis and Padhye, Vegas's queue target, CoDel's target"

    def group(name: str, members: Iterable[str]) -> bool:
        return wanted is None or name in wanted or bool(wanted & set(members))

    available = {v["name"] for v in variants()}
    if ns and group("variants", suites.TCP_LINUX):
        opts = suites.Options(quick=quick, seeds=seeds, ns=ns, jobs=jobs, progress=progress,
                              only=None if wanted is None or "variants" in wanted else wanted)
        rep.sections += suites.variants(opts, available)
    if ns and group("recoveries", suites.NATIVE):
        opts = suites.Options(quick=quick, seeds=seeds, ns=ns, jobs=jobs, progress=progress,
                              only=None if wanted is None or "recoveries" in wanted else wanted)
        rep.sections += suites.recoveries(opts)
    # ns-3 takes minutes to start each run: the quick mode runs it only when
    # `only` names it.
    if py3 and (group("ns3", ns3.PAIRS) if not quick else wanted is not None
                and "ns3" in wanted):
        progress("ns-3: LEDBAT and the variants ns-3 ships")
        rep.sections += ns3.sections(py3, quick=quick, seeds=seeds, jobs=jobs,
                                     available=available,
                                     only=None if wanted is None or "ns3" in wanted else wanted)
    if wanted is None or "theory" in wanted:
        progress("theory: link rate, Mathis and Padhye, Vegas's queue, CoDel's target")
        rep.sections += theory.all_checks(quick, seeds)
    suites.annotate(rep.sections)
    rep.seconds = time.perf_counter() - t0
    return rep


def write(rep: Report, out: str | Path) -> dict[str, Path]:
    """Write report.html, report.md and report.json into the folder `out`.

    The Markdown's figures go into `out`/figures. Returns the files' paths.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"html": out / "report.html", "markdown": out / "report.md",
             "json": out / "report.json"}
    paths["html"].write_text(to_html(rep), encoding="utf-8")
    paths["markdown"].write_text(to_markdown(rep, out / "figures", "figures") + "\n"
                                 + summary_table(rep) + "\n", encoding="utf-8")
    paths["json"].write_text(json.dumps(dataclasses.asdict(rep), indent=1) + "\n",
                             encoding="utf-8")
    return paths


def load(path: str | Path) -> Report:
    """Read a report that :func:`write` wrote (its report.json).

    The known and open misses of this version are applied again.
    """
    from tcplab.validation import suites

    d = json.loads(Path(path).read_text(encoding="utf-8"))
    sections = []
    for s in d.pop("sections"):
        rows = [Row(**{**r, "bounds": tuple(r["bounds"]) if r["bounds"] else None})
                for r in s.pop("rows")]
        figures = [Figure(**f) for f in s.pop("figures")]
        sections.append(Section(**s, rows=rows, figures=figures))
    rep = Report(**d, sections=sections)
    suites.annotate(rep.sections)
    return rep
