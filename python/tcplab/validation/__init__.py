"""`tcplab validate`: tcplab compared with the references installed here.

::

    import tcplab.validation as tv
    rep = tv.run(quick=True)                       # nothing written
    tv.write(rep, "validation/")                   # report.html, report.md, report.json
    rep.failures                                   # rows outside their tolerance
    rep.broken                                     # sections whose reference broke

``tcplab validate`` is :func:`command`: the same run, the report written,
a summary printed, and its exit code (1 for a FAIL or a broken reference;
known differences and open misses do not fail it).

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
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tcplab.errors import NothingCompared, ScenarioError
from tcplab.validation.model import Figure, Report, Row, Section
from tcplab.validation.report import summary_table, to_html, to_markdown

__all__ = ["Report", "Row", "Section", "run", "write", "load", "command", "section_names",
           "NothingCompared", "SECTIONS"]

#: The section groups `only=` may name besides a variant's or recovery's name.
SECTIONS = ("variants", "recoveries", "theory", "ns3", "packetdrill")


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


def section_names() -> list[str]:
    """The sections `only=` may name, besides the groups of :data:`SECTIONS`.

    A variant's name (against TCP-Linux, and ns-3 where ns-3 has it), a
    recovery's (ns-2's own agents), nv or cdg (theory's behaviour checks), or
    "bbr versions" (BBRv3's published behaviours).
    """
    from tcplab.validation import ns3, suites, theory

    return sorted({*suites.TCP_LINUX, *suites.NATIVE, *ns3.PAIRS, *theory.UNREFERENCED,
                   *theory.NAMED})


def _wanted(only: str | Iterable[str] | None) -> set[str] | None:
    """`only` as a set of names (None: everything); an unknown name is refused."""
    if only is None:
        return None
    names = [x.strip() for x in (only.split(",") if isinstance(only, str) else only)]
    if not all(isinstance(x, str) for x in names):
        raise ScenarioError(f"only: {only!r} is not a list of section names", "only",
                            "not a list of section names", "names of sections")
    wanted = {x for x in names if x}
    allowed = section_names()
    unknown = sorted(wanted - set(SECTIONS) - set(allowed))
    if unknown:
        what = ", ".join(repr(x) for x in unknown)
        raise ScenarioError(
            f"only: no section named {what} (allowed: the groups {', '.join(SECTIONS)}, or "
            f"a section: {', '.join(allowed)})", "only", f"no section named {what}",
            f"{', '.join(SECTIONS)}, {', '.join(allowed)}")
    return wanted or None


def _count(name: str, value: int | None, what: str) -> None:
    """Refuse `value` unless it is None or a whole number of 1 or more."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise ScenarioError(f"{name}: {value!r} is not a number of {what} (allowed: 1 or "
                            "more)", name, f"not a number of {what}", "1 or more")


def run(*, quick: bool = False, seeds: int | None = None,
        only: str | Iterable[str] | None = None, jobs: int = 2,
        progress: Callable[[str], None] | None = None,
        packetdrill_dir: str | Path | None = None) -> Report:
    """Runs the validation and returns its report (nothing is written).

    `quick` runs fewer points and shorter runs, without ns-3 unless `only`
    names ``ns3`` (a few minutes; what CI runs). `only` limits it to
    sections by name (a variant, a recovery, ``nv`` or ``cdg``, or one of
    the groups ``variants``, ``recoveries``, ``theory``, ``ns3``,
    ``packetdrill``), as a list or a comma-separated string.
    `packetdrill_dir` is the folder of packetdrill scripts (default:
    TCPLAB_PACKETDRILL, else ../shared/reference/packetdrill). `seeds` (per lossy point) and `jobs`
    (reference runs in parallel) are 1 or more. Each section's start and
    end (with the time it took) go to `progress`.

    A section whose reference breaks (crashes, or prints no readable
    result) is reported as broken (:attr:`Report.broken`) and the others
    still run.

    Raises:
        ScenarioError: `only` names no section, or `seeds` or `jobs` is not
            1 or more.
        NothingCompared: no row could be compared (the references the
            sections need are not installed, or they broke); the message
            says why.
    """
    from tcplab.cc import variants
    from tcplab.validation import ns3, suites, theory

    wanted = _wanted(only)
    _count("seeds", seeds, "seeds per lossy point")
    _count("jobs", jobs, "reference runs in parallel")
    progress = progress or (lambda _msg: None)
    t0 = time.perf_counter()
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
    rep.found["theory"] = "link rate, Mathis and Padhye, Vegas's queue, CoDel's target"

    def group(name: str, members: Iterable[str]) -> bool:
        return wanted is None or name in wanted or bool(wanted & set(members))

    why_not = []  # why a group that was asked for did not run
    available = {v["name"] for v in variants()}
    need_ns2 = [name for name, members in [("variants", suites.TCP_LINUX),
                                           ("recoveries", suites.NATIVE)]
                if group(name, members)]
    if need_ns2 and not ns:
        why_not.append(f"the {' and '.join(need_ns2)} need ns-2: {what}")
    for name, suite in [("variants", suites.variants), ("recoveries", suites.recoveries)]:
        if name not in need_ns2 or not ns:
            continue
        opts = suites.Options(quick=quick, seeds=seeds, ns=ns, jobs=jobs, progress=progress,
                              only=None if wanted is None or name in wanted else wanted)
        rep.sections += (suite(opts, available) if name == "variants" else suite(opts))
    # ns-3 takes minutes to start each run: the quick mode runs it only when
    # `only` names it.
    if group("ns3", ns3.PAIRS):
        if quick and (wanted is None or "ns3" not in wanted):
            alone = sorted((wanted or set()) & set(ns3.PAIRS) - {*suites.TCP_LINUX,
                                                                 *suites.NATIVE})
            if alone:
                why_not.append(f"{', '.join(alone)} {'is' if len(alone) == 1 else 'are'} "
                               "compared with ns-3 alone, which --quick runs only when "
                               "--only names ns3")
        elif not py3:
            why_not.append(f"the ns-3 sections need ns-3: {rep.skipped['ns-3']}")
        else:
            rep.sections += ns3.sections(
                py3, quick=quick, seeds=seeds, jobs=jobs, available=available,
                only=None if wanted is None or "ns3" in wanted else wanted, progress=progress)
    if group("packetdrill", ()):
        from tcplab.validation import packetdrill

        folder = packetdrill.find_dir(packetdrill_dir)
        if folder is None or not folder.exists():
            why = (f"no packetdrill scripts at {folder}" if folder is not None else
                   "no packetdrill scripts (--packetdrill-dir DIR, or TCPLAB_PACKETDRILL)")
            rep.skipped["packetdrill"] = why
            if wanted is not None and "packetdrill" in wanted:
                why_not.append(why)
        else:
            progress(f"packetdrill: {folder}")
            rep.found["packetdrill"] = f"Linux's packetdrill scripts ({folder})"
            rep.sections += packetdrill.sections(folder)
    if group("theory", {*theory.UNREFERENCED, *theory.NAMED}):
        rep.sections += theory.all_checks(
            quick, seeds, progress, None if wanted is None or "theory" in wanted else wanted)
    suites.annotate(rep.sections)
    rep.seconds = time.perf_counter() - t0
    if rep.compared == 0:
        why_not += [f"{s.kind} {s.name}: its reference broke ({s.broken})" for s in rep.broken]
        if not why_not and rep.sections:
            why_not.append("the reference stalled at every point")
        raise NothingCompared("tcplab validate compared nothing: "
                              + ("; ".join(why_not) or "no section ran"))
    return rep


def command(*, quick: bool = False, out: str | Path = "validation",
            only: str | Iterable[str] | None = None, seeds: int | None = None,
            jobs: int = 2, packetdrill_dir: str | Path | None = None) -> int:
    """``tcplab validate``: run, write the report, print the summary; the exit code.

    Each section's start and end go to stderr as they happen. The exit
    code is 1 when a row FAILs (outside its tolerance with no entry in
    ``KNOWN`` or ``OPEN``) or a section's reference broke, and 0 otherwise:
    known differences, open misses and points where the reference stalled
    are reported and counted, and do not fail the run. A run that compares
    nothing raises :class:`NothingCompared` (exit code 1 from the command).
    """
    rep = run(quick=quick, seeds=seeds, only=only, jobs=jobs,
              progress=lambda m: print(m, file=sys.stderr, flush=True),
              packetdrill_dir=packetdrill_dir)
    for name, why in rep.skipped.items():
        print(f"skipped {name}: {why}")
    paths = write(rep, out)
    c = rep.counts()
    broken = f", {len(rep.broken)} sections whose reference broke" if rep.broken else ""
    print(f"{c['pass']} pass, {c['fail']} fail, {c['known']} known differences, "
          f"{c['open']} open misses, {c['stalled']} where the reference stalled{broken} "
          f"({rep.seconds:.0f} s)")
    for sec, row in rep.failures:
        print(f"FAIL {sec.kind} {sec.name}, {row.point}, {row.metric}: tcplab "
              f"{row.tcplab:.4g} against {row.reference:.4g} (ratio {row.ratio:.3f}, "
              f"target {row.target})")
    for sec in rep.broken:
        print(f"BROKEN {sec.kind} {sec.name}: {sec.broken}")
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 1 if rep.failures or rep.broken else 0


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
