"""A validation run as a self-contained HTML page and as Markdown.

The HTML page embeds its figures (PNG, base64) and its style, so it can be
mailed or archived as one file. The Markdown holds the same tables, with
the figures written beside it; docs/validation.md's generated part is this
Markdown.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from tcplab.validation.model import (
    FAIL,
    KNOWN,
    OPEN,
    PASS,
    STALLED,
    Figure,
    Report,
    Section,
    fmt,
)

_STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
.pass { background: #dff0d8; } .fail { background: #f2dede; }
.known { background: #fcf8e3; } .open { background: #f7e1c8; }
.stalled { background: #e8e8e8; }
section { border-top: 2px solid #ccc; margin-top: 1.5em; }
img { max-width: 36em; display: block; }
"""
_BROKEN = "The reference broke, so this section is not compared:"
_VERDICT = {PASS: "pass", FAIL: "FAIL", KNOWN: "known", OPEN: "open miss",
            STALLED: "ref. stalled"}


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(6, 3.4), dpi=80)
    xs = range(len(fig.x))
    for (label, ys), marker in zip(fig.lines.items(), "os^v", strict=False):
        ax.plot(xs, ys, marker=marker, label=label)
    ax.set_xticks(list(xs), fig.x)
    ax.set_xlabel(fig.xlabel)
    ax.set_ylabel(fig.ylabel)
    ax.set_title(fig.title, fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    f.tight_layout()
    buf = io.BytesIO()
    f.savefig(buf, format="png")
    plt.close(f)
    return buf.getvalue()


def _summary_lines(rep: Report) -> list[str]:
    c = rep.counts()
    broken = [f"{s.kind} {s.name}" for s in rep.broken]
    return [f"Run {rep.date}, {rep.mode} mode, {rep.seconds:.0f} s: {c[PASS]} rows pass, "
            f"{c[FAIL]} fail, {c[KNOWN]} known differences, {c[OPEN]} open misses, "
            f"{c[STALLED]} where the reference stalled."
            + (f" The reference broke in {len(broken)} sections, not compared: "
               f"{', '.join(broken)}." if broken else "")]


def _references_lines(rep: Report) -> list[str]:
    out = [f"- {name}: {what}" for name, what in rep.found.items()]
    out += [f"- {name}: skipped ({why})" for name, why in rep.skipped.items()]
    return out


def to_html(rep: Report) -> str:
    """The report as one self-contained HTML page."""
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             "<title>tcplab validation</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>tcplab validation</h1>"]
    parts += [f"<p>{e(x)}</p>" for x in _summary_lines(rep)]
    parts.append("<h2>References</h2><ul>")
    parts += [f"<li>{e(x[2:])}</li>" for x in _references_lines(rep)]
    parts.append("</ul><h2>Sections</h2><ul>")
    for s in rep.sections:
        bad = len(s.failures)
        parts.append(f"<li><a href='#{s.anchor}'>{e(s.kind)}: {e(s.name)}</a>"
                     + (f" ({bad} failing)" if bad else "")
                     + (" (reference broken)" if s.broken else "") + "</li>")
    parts.append("</ul>")
    for s in rep.sections:
        parts.append(_html_section(s))
    parts.append("</body></html>")
    return "\n".join(parts)


def _html_section(s: Section) -> str:
    e = html.escape
    out = [f"<section id='{s.anchor}' class='validation-section'>",
           f"<h2>{e(s.kind)}: {e(s.name)}</h2>", f"<p>{e(s.scenario)}</p>",
           "<p>References: " + e("; ".join(s.references)) + "</p>"]
    if s.broken:
        out.append(f"<p class='fail'><strong>{_BROKEN}</strong> {e(s.broken)}</p>")
    out += [f"<p><em>{e(n)}</em></p>" for n in s.notes]
    out.append("<table><tr><th class='l'>point</th><th class='l'>metric</th><th>tcplab</th>"
               "<th>reference</th><th>ratio</th><th>target</th><th>verdict</th></tr>")
    for r in s.rows:
        why = f" title='{e(r.known or r.open)}'" if r.known or r.open else ""
        out.append(f"<tr class='{r.verdict}'{why}><td class='l'>{e(r.point)}</td>"
                   f"<td class='l'>{e(r.metric)}{' (' + e(r.unit) + ')' if r.unit else ''}</td>"
                   f"<td>{fmt(r.tcplab)}</td><td>{fmt(r.reference)}</td><td>{r.ratio:.3f}</td>"
                   f"<td>{e(r.target)}</td><td>{_VERDICT[r.verdict]}</td></tr>")
    out.append("</table>")
    reasons = dict.fromkeys(r.known or r.open for r in s.rows
                            if r.verdict in (KNOWN, OPEN))
    if reasons:
        out.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in reasons) + "</ul>")
    for fig in s.figures:
        data = base64.b64encode(figure_png(fig)).decode()
        out.append(f"<img alt='{e(fig.title)}' src='data:image/png;base64,{data}'>")
    out.append("</section>")
    return "\n".join(out)


def to_markdown(rep: Report, figures_dir: Path | None = None,
                figures_link: str = "validation",
                figure_kinds: tuple[str, ...] | None = None) -> str:
    """The report as Markdown.

    With `figures_dir`, each figure (of the sections whose kind is in
    `figure_kinds`, or all) is written there as PNG and linked as
    `figures_link`/NAME.png.
    """
    lines = _summary_lines(rep) + ["", "References:", ""] + _references_lines(rep) + [""]
    for s in rep.sections:
        lines += section_markdown(s, figures_dir, figures_link, figure_kinds)
    return "\n".join(lines)


def section_markdown(s: Section, figures_dir: Path | None = None,
                     figures_link: str = "validation",
                     figure_kinds: tuple[str, ...] | None = None) -> list[str]:
    """One section of :func:`to_markdown`, as lines (its figures written)."""
    lines = [f"### {s.kind}: {s.name}", "", s.scenario, "",
             "References: " + "; ".join(s.references), ""]
    if s.broken:
        lines += [f"**{_BROKEN}** {s.broken}", ""]
    lines += [f"*{n}*\n" for n in s.notes]
    lines += ["| point | metric | tcplab | reference | ratio | target | verdict |",
              "|---|---|---:|---:|---:|---|---|"]
    for r in s.rows:
        unit = f" ({r.unit})" if r.unit else ""
        lines.append(f"| {r.point} | {r.metric}{unit} | {fmt(r.tcplab)} | "
                     f"{fmt(r.reference)} | {r.ratio:.3f} | {r.target} | "
                     f"{_VERDICT[r.verdict]} |")
    lines.append("")
    for reason in dict.fromkeys(r.known or r.open for r in s.rows
                                if r.verdict in (KNOWN, OPEN)):
        lines.append(f"- {reason}")
    if figures_dir is not None and (figure_kinds is None or s.kind in figure_kinds):
        for i, fig in enumerate(s.figures):
            name = f"{s.anchor}-{i}.png"
            figures_dir.mkdir(parents=True, exist_ok=True)
            (figures_dir / name).write_bytes(figure_png(fig))
            lines += ["", f"![{fig.title}]({figures_link}/{name})"]
    lines.append("")
    return lines


def summary_table(rep: Report) -> str:
    """The README's "Validated against" table.

    Each variant (and recovery and theory check) with its references, its
    worst goodput ratio and its rows within tolerance.
    """
    lines = [f"Run on {rep.date} (`tcplab validate`, {rep.mode} mode). Rows: compared "
             "quantities (goodput, mean window, reductions) at each point; known: outside "
             "tolerance for a stated cause; open: outside it, not yet explained.", "",
             "| checked | against | worst goodput ratio | rows within tolerance | known | open |",
             "|---|---|---:|---:|---:|---:|"]
    lines += [summary_row(s) for s in rep.sections]
    return "\n".join(lines)


def summary_row(s: Section) -> str:
    """One section's row of :func:`summary_table`."""
    w = s.worst("goodput")
    worst = f"{w.ratio:.2f} ({w.point})" if w else "—"
    n = {v: sum(r.verdict == v for r in s.rows) for v in (PASS, KNOWN, OPEN)}
    compared = sum(r.verdict != STALLED for r in s.rows)
    if s.broken:
        worst = "reference broken"
    # The first clause of a long reference: the table is a summary.
    refs = "; ".join(r.split(":")[0] if len(r) > 60 else r for r in s.references)
    return (f"| {s.kind} {s.name} | {refs} | {worst} | {n[PASS]} of {compared} | "
            f"{n[KNOWN] or ''} | {n[OPEN] or ''} |")
