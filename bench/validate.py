"""The full validation (`tcplab validate`), and the docs generated from it.

A thin wrapper over the package's harness (tcplab.validation): it runs the
full validation, or reads a report it wrote, and with ``--docs`` writes the
report's Markdown into docs/validation.md (figures in
docs/figures/validation/) and the "Validated against" table into the
README, each between its markers.

    python bench/validate.py --out validation             # the full run (about 30 min)
    python bench/validate.py --from-json validation/report.json --docs   # docs only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import tcplab.validation as tv
from doc_tables import write_between  # bench/, beside this file
from tcplab.validation.report import summary_table, to_markdown

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "validation.md"
FIGURES = ROOT / "docs" / "figures" / "validation"
README = ROOT / "README.md"
BEGIN = "<!-- validate: begin (python bench/validate.py --docs) -->"
END = "<!-- validate: end -->"
README_BEGIN = "<!-- validated: begin (python bench/validate.py --docs) -->"
README_END = "<!-- validated: end -->"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="validation", help="report folder")
    p.add_argument("--from-json", help="no runs: the report.json a run wrote")
    p.add_argument("--docs", action="store_true",
                   help="write docs/validation.md's generated part and the README table")
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    if a.from_json:
        rep = tv.load(a.from_json)
    else:
        rep = tv.run(quick=a.quick, progress=lambda m: print(m, file=sys.stderr, flush=True))
        paths = tv.write(rep, a.out)
        print("wrote " + ", ".join(str(x) for x in paths.values()))
    c = rep.counts()
    print(f"{c['pass']} pass, {c['fail']} fail, {c['known']} known, {c['open']} open, "
          f"{c['stalled']} stalled")
    if a.docs:
        for old in FIGURES.glob("*.png"):
            old.unlink()
        # The docs carry the figures of the variants and recoveries (ns-3's
        # three points read as well from the table).
        write_between(DOCS, BEGIN, END, to_markdown(rep, FIGURES, "figures/validation",
                                                    ("variant", "recovery")) + "\n")
        write_between(README, README_BEGIN, README_END, summary_table(rep) + "\n")


if __name__ == "__main__":
    main()
