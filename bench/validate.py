"""The full validation (`tcplab validate`), and the docs generated from it.

A thin wrapper over the package's harness (tcplab.validation): it runs the
full validation, or reads a report it wrote, and with ``--docs`` writes the
report's Markdown into docs/validation.md (figures in
docs/figures/validation/) and the "Validated against" table into the
README, each between its markers.

    python bench/validate.py --out validation             # the full run (about 30 min)
    python bench/validate.py --from-json validation/report.json --docs   # docs only

``--docs`` takes a full run only: with ``--quick``, or a quick run's
report, it stops with exit code 2 and leaves the docs as they are.

A run of some sections (`tcplab validate --only ...`) updates those
sections alone, leaving the others as the docs have them; the counts in
the first line are recounted over every section:

    python bench/validate.py --from-json part/report.json --docs --merge
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import tcplab.validation as tv
from doc_tables import write_between  # bench/, beside this file
from tcplab.validation.report import section_markdown, summary_row, summary_table, to_markdown

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "validation.md"
FIGURES = ROOT / "docs" / "figures" / "validation"
README = ROOT / "README.md"
BEGIN = "<!-- validate: begin (python bench/validate.py --docs) -->"
END = "<!-- validate: end -->"
README_BEGIN = "<!-- validated: begin (python bench/validate.py --docs) -->"
README_END = "<!-- validated: end -->"


def main(argv: list[str] | None = None) -> None:
    """The command line (`argv`: its arguments, default sys.argv's)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="validation", help="report folder")
    p.add_argument("--from-json", help="no runs: the report.json a run wrote")
    p.add_argument("--docs", action="store_true",
                   help="write docs/validation.md's generated part and the README table "
                   "(from a full run only)")
    p.add_argument("--quick", action="store_true",
                   help="the quick mode (not with --docs: the docs hold the full run's tables)")
    p.add_argument("--merge", action="store_true",
                   help="with --docs: replace only the report's sections in the docs")
    a = p.parse_args(argv)
    if a.docs and a.quick:
        p.error("--docs writes the full run's tables into docs/validation.md and the "
                "README, so it does not take --quick: run without --quick, or leave out --docs")
    if a.from_json:
        rep = tv.load(a.from_json)
        if a.docs and rep.mode != "full":
            p.error(f"--docs takes a full run's report, and {a.from_json} is a {rep.mode} "
                    "run's (the docs hold the full run's tables)")
    else:
        rep = tv.run(quick=a.quick, progress=lambda m: print(m, file=sys.stderr, flush=True))
        paths = tv.write(rep, a.out)
        print("wrote " + ", ".join(str(x) for x in paths.values()))
    c = rep.counts()
    print(f"{c['pass']} pass, {c['fail']} fail, {c['known']} known, {c['open']} open, "
          f"{c['stalled']} stalled")
    if a.docs and a.merge:
        merge_docs(rep)
    elif a.docs:
        for old in FIGURES.glob("*.png"):
            old.unlink()
        # The docs carry the figures of the variants and recoveries (ns-3's
        # three points read as well from the table).
        write_between(DOCS, BEGIN, END, to_markdown(rep, FIGURES, "figures/validation",
                                                    ("variant", "recovery")) + "\n")
        write_between(README, README_BEGIN, README_END, summary_table(rep) + "\n")


def _between(doc: Path, begin: str, end: str) -> str:
    return doc.read_text().split(begin, 1)[1].split(end, 1)[0]


def merge_docs(rep: tv.Report) -> None:
    """Replace the sections `rep` has in docs/validation.md and the README.

    A section is the text from its `### kind: name` heading to the next; the
    first line's counts are recounted from every section's verdicts, and it
    and the README's say which sections ran when.
    """
    if rep.mode != "full":
        sys.exit("--merge takes a full run's report (the docs hold the full mode's)")
    names = {f"{s.kind}: {s.name}": s for s in rep.sections}

    def text(sec: tv.Section) -> str:
        lines = section_markdown(sec, FIGURES, "figures/validation", ("variant", "recovery"))
        return "\n".join(lines) + "\n"

    block = _between(DOCS, BEGIN, END).lstrip("\n")
    head, *parts = re.split(r"^(?=### )", block, flags=re.M)
    found = set()
    for i, part in enumerate(parts):
        title = part.split("\n", 1)[0][4:]
        if title in names:
            found.add(title)
            parts[i] = text(names[title])
    # A section the docs lack yet goes after the last of its kind.
    for title, sec in names.items():
        if title in found:
            continue
        kind = [i for i, part in enumerate(parts) if part.startswith(f"### {sec.kind}: ")]
        if not kind and sec.kind == "published":
            # The first of a new kind of theory's: after theory's sections.
            kind = [i for i, part in enumerate(parts) if part.startswith("### theory: ")]
        if not kind:
            sys.exit(f"{DOCS}: no {sec.kind} section to put {title} beside; run in full")
        parts.insert(kind[-1] + 1, text(sec))
    verdicts = re.findall(r"^\|[^\n]*\| ([^|\n]+) \|$", "".join(parts), flags=re.M)
    n = {v: verdicts.count(v) for v in ("pass", "FAIL", "known", "open miss", "ref. stalled")}
    # (A variant's section by its name; the others' by kind and name.)
    names = list(dict.fromkeys(s.name if s.kind == "variant" else f"{s.kind} {s.name}"
                               for s in rep.sections))
    names = collapse(names, [p.split("\n", 1)[0][4:].split(": ", 1) for p in parts])
    first, rest = head.split("\n", 1)
    when = history(re.sub(r": \d+ rows pass.*$", "", first), names, rep.date)
    first = (f"Run {when} (full mode): "
             f"{n['pass']} rows pass, {n['FAIL']} fail, {n['known']} known differences, "
             f"{n['open miss']} open misses, {n['ref. stalled']} where the reference stalled.")
    write_between(DOCS, BEGIN, END, first + "\n" + rest + "".join(parts))
    table = _between(README, README_BEGIN, README_END).strip("\n").split("\n")
    rows = {f"| {s.kind} {s.name} |": summary_row(s) for s in rep.sections}
    table = [next((new for key, new in rows.items() if line.startswith(key)), line)
             for line in table]
    for s in rep.sections:
        if not any(line.startswith(f"| {s.kind} {s.name} |") for line in table):
            kind = [i for i, line in enumerate(table) if line.startswith(f"| {s.kind} ")]
            table.insert(kind[-1] + 1 if kind else len(table), summary_row(s))
    table[0] = re.sub(r"^Run on (.*?) \(`",
                      lambda m: f"Run on {history(m.group(1), names, rep.date)} (`", table[0])
    write_between(README, README_BEGIN, README_END, "\n".join(table) + "\n")


def collapse(names: list[str], titles: list[list[str]]) -> list[str]:
    """`names` with every section of a kind but the variants named by its kind
    ("ns-3") when the run had all that the docs have (`titles`: [kind, name]).
    """
    out = list(names)
    for kind in dict.fromkeys(k for k, *_ in titles if k != "variant"):
        mine = [f"{kind} {n}" for k, n in titles if k == kind]
        if all(m in out for m in mine):
            at = out.index(mine[0])
            out = [x for x in out if x not in mine]
            out.insert(min(at, len(out)), kind)
    return out


def history(when: str, names: list[str], date: str) -> str:
    """`when` ("2026-11-26; the a, b sections 2026-11-27; ...": the full run's
    date, then the sections run again since) with `names` run again on `date`.
    Each section is named once, under the last date it ran; the dates in order.
    """
    base = re.search(r"\d{4}-\d{2}-\d{2}", when)
    last: dict[str, str] = {}
    for group, day in re.findall(r"the (.+?) sections (\d{4}-\d{2}-\d{2})", when) + [
            (", ".join(names), date)]:
        for name in re.split(r",\s*|\s+and\s+", group):
            # A kind's name ("ns-3") stands for all its sections.
            for old in [n for n in last if n == name or n.startswith(f"{name} ")]:
                last.pop(old)
            last[name] = day
    days: dict[str, list[str]] = {}
    for name, day in last.items():
        kind = name.split(" ", 1)[0]
        if kind != name and last.get(kind, "") >= day:
            continue  # its kind ran whole as late
        days.setdefault(day, []).append(name)
    return (base.group(0) if base else date) + "".join(
        f"; the {', '.join(days[d])} sections {d}" for d in sorted(days))


if __name__ == "__main__":
    main()
