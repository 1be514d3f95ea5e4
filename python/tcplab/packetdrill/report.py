"""Running packetdrill scripts and reporting: one outcome per script, a table by topic.

Each script ends as ``pass``, ``fail`` (the first mismatching line, expected and actual),
``skip`` (a feature tcplab does not model, named) or ``error`` (the script cannot be read:
a parse error naming file, line and column). A failure that is understood is listed in
``KNOWN`` with its evidence and reported as ``known``; the runner goes on with the next
script whatever happens to one.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from tcplab.packetdrill.classify import feature_skip_reason, topic
from tcplab.packetdrill.env import Env
from tcplab.packetdrill.errors import ParseError
from tcplab.packetdrill.parse import parse
from tcplab.packetdrill.run import Fail, Runner, Skip

_RCV_WINDOW = ("tcplab's receiving application reads at once, so its advertised window is "
               "the whole receive buffer; Linux's window follows its receive queue and "
               "rcv_ssthresh (not modelled: docs/tcp.md)")
_PARTIAL_SACK = ("Linux counts a SACK block only over whole segments (tcp_match_skb_to_sack "
                 "rounds to the MSS): a SACK of the last byte of a segment SACKs nothing, and "
                 "RACK sees no delivery; tcplab's scoreboard takes the byte range, so RACK "
                 "marks the segments sent before it lost")
_RACK_TIMER = ("the RACK reordering timer: tcplab fires at RACK.rtt + reo_wnd after the "
               "segment's transmission (0.225 s here: 100 ms + 25 ms); Linux's, as this "
               "script expects it, 15 ms later (its timer adds jiffies of slack and its "
               "reo_wnd comes from min_rtt with the timer's own rounding)")
_MAY_RAISE = ("Linux's tcp_may_raise_cwnd grows cwnd on SACK-only ACKs once the reordering "
              "degree exceeds net.ipv4.tcp_reordering (FLAG_FORWARD_PROGRESS); tcplab's "
              "cwnd_growth grows only on ACKs of new data, so cwnd is one segment short "
              "(18, not 19) after the reordering this script shows")

#: Understood failures: a script's name (as :func:`script_key` gives it) and why tcplab
#: differs from Linux there, with the evidence (the outcome's expected and actual lines).
KNOWN: dict[str, str] = {
    "tcp_rcv_neg_window.pkt": _RCV_WINDOW,
    "tcp_rcv_zero_wnd_fin.pkt": _RCV_WINDOW,
    "fast_retransmit/fr-4pkt-fack-last-byte.pkt": _PARTIAL_SACK,
    "fast_retransmit/fr-4pkt-fack-last-mss.pkt": _RACK_TIMER,
    "cubic/cubic-rack-reo-timeout-retrans-failed-incoming-data.pkt": _MAY_RAISE,
}

#: Failures listed but not yet explained (reported as ``open``; they do not fail a run
#: either, and each is a task).
OPEN: dict[str, str] = {}

#: The real kernel's verdicts (bench/packetdrill_kernel.py --baseline), next to this file.
BASELINE = Path(__file__).with_name("kernel_baseline.json")


@cache
def kernel_baseline() -> dict[str, dict[str, str]]:
    """The scripts this machine's kernel does not pass, by :func:`script_key`.

    Each with the outcome and reason bench/packetdrill_kernel.py recorded.
    """
    try:
        return dict(json.loads(BASELINE.read_text())["not_passing"])
    except (OSError, ValueError, KeyError):
        return {}


@dataclass
class Outcome:
    """One script's result."""

    script: str
    topic: str
    outcome: str
    reason: str = ""
    line: int | None = None
    expected: str | None = None
    actual: str | None = None
    #: tcp_info assertions checked, and those naming a field tcplab does not keep.
    asserts_checked: int = 0
    asserts_unchecked: int = 0
    #: The real kernel's outcome where it does not pass the script ("" where it does).
    kernel: str = ""


@dataclass
class Report:
    """Outcomes of a run, with totals."""

    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """Totals by outcome.

        ``kernel_fails``: scripts that did not pass here and do not pass on the real kernel
        either (out of the denominator; their ``kernel`` field says why).
        """
        c = Counter(o.outcome for o in self.outcomes)
        return {"scripts": len(self.outcomes), "passed": c["pass"], "failed": c["fail"],
                "known": c["known"], "open": c["open"], "kernel_fails": c["kernel"],
                "skipped": c["skip"], "errors": c["error"]}

    def by_topic(self) -> dict[str, Counter[str]]:
        """The outcomes counted by topic."""
        t: dict[str, Counter[str]] = defaultdict(Counter)
        for o in self.outcomes:
            t[o.topic][o.outcome] += 1
        return dict(sorted(t.items()))

    def skips(self) -> Counter[str]:
        """The skipped scripts counted by reason."""
        return Counter(o.reason for o in self.outcomes if o.outcome == "skip")

    def to_json(self) -> str:
        """The summary and every outcome as JSON."""
        return json.dumps({"summary": self.summary(),
                           "scripts": [asdict(o) for o in self.outcomes]}, indent=1)

    def table(self) -> str:
        """The outcomes by topic, then the skips by reason."""
        cols = ("pass", "fail", "known", "open", "kernel", "skip", "error")
        rows = [f"{'topic':<18}" + "".join(f"{c:>7}" for c in cols)]
        for name, c in self.by_topic().items():
            rows.append(f"{name:<18}" + "".join(f"{c[k]:>7}" for k in cols))
        s = self.summary()
        rows.append(f"{'total':<18}{s['passed']:>7}{s['failed']:>7}{s['known']:>7}"
                    f"{s['open']:>7}{s['kernel_fails']:>7}{s['skipped']:>7}{s['errors']:>7}")
        ran = s["passed"] + s["failed"] + s["known"] + s["open"]
        if ran:
            rows.append(f"{ran} scripts ran, {s['passed']} passed "
                        f"({100 * s['passed'] / ran:.1f}%)")
        if self.skips():
            rows.append("skipped, by reason:")
            rows += [f"  {n:>4}  {r}" for r, n in self.skips().most_common()]
        return "\n".join(rows)


    def markdown(self) -> str:
        """The report as docs/validation.md shows it, as Markdown tables.

        The outcomes by topic, the skips by reason, the known and open failures, and the
        failures the kernel shares.
        """
        cols = ("pass", "fail", "known", "open", "kernel", "skip")
        out = ["| topic | " + " | ".join(cols) + " |", "| --- |" + " ---: |" * len(cols)]
        for name, c in self.by_topic().items():
            out.append(f"| {name} | " + " | ".join(str(c[k] or "") for k in cols) + " |")
        s = self.summary()
        out.append(f"| **total** | **{s['passed']}** | {s['failed']} | {s['known']} | "
                   f"{s['open']} | {s['kernel_fails']} | {s['skipped']} |")
        out += ["", "Skipped, by reason:", "", "| reason | scripts |", "| --- | ---: |"]
        out += [f"| {r} | {n} |" for r, n in self.skips().most_common()]
        bad = [o for o in self.outcomes if o.outcome in ("fail", "known", "open")]
        if bad:
            out += ["", "Failures, known and open:", "",
                    "| script | line | what differs | why |", "| --- | ---: | --- | --- |"]
            for o in bad:
                what, _, why = o.reason.partition(" [")
                out.append(f"| `{o.script}` | {o.line or ''} | {what} | {why.rstrip(']')} |")
        kern = [o for o in self.outcomes if o.outcome == "kernel"]
        if kern:
            out += ["", "The kernel's own failures among the scripts that run:", "",
                    "| script | tcplab | the kernel |", "| --- | --- | --- |"]
            out += [f"| `{o.script}` | {o.reason} | {o.kernel} |" for o in kern]
        return "\n".join(out)


def script_key(path: str | Path) -> str:
    """A script's name for ``KNOWN`` and reports: from its corpus folder down.

    ``google/.../tcp/sack/sack-shift-sacked-1.pkt`` is ``sack/sack-shift-sacked-1.pkt``.
    """
    p = Path(path)
    parts = p.parts
    if "tcp" in parts[:-1]:
        i = len(parts) - 1 - parts[:-1][::-1].index("tcp")
        return "/".join(parts[i:])
    return p.name


def scripts(paths: Iterable[str | Path]) -> list[Path]:
    """The ``.pkt`` files named, or found below the folders named, sorted."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.pkt") if q.is_file())
        else:
            found.append(p)
    return found


def run_script(path: str | Path) -> Outcome:
    """Runs one script file against a linux-profile connection."""
    key, top = script_key(path), topic(path)
    try:
        script = parse(path)
    except ParseError as e:
        return Outcome(key, top, "error", str(e))
    except OSError as e:
        return Outcome(key, top, "error", f"{path}: {e.strerror or e}")
    reason = feature_skip_reason(script)
    if reason:
        return Outcome(key, top, "skip", reason)
    env = Env()
    if script.init_command is not None:
        env.command(script.init_command.text, Path(path).parent)
    if env.unmodelled:
        return Outcome(key, top, "skip", env.unmodelled[0])
    r = Runner(script, env)
    try:
        r.run()
    except Skip as s:
        return Outcome(key, top, "skip", str(s), **_asserts(r))
    except Fail as f:
        kernel = kernel_baseline().get(key)
        if kernel is not None:
            return Outcome(key, top, "kernel", f.reason, f.line, f.expected, f.actual,
                           kernel=f"{kernel['outcome']}: {kernel['reason']}", **_asserts(r))
        outcome, why = (("known", KNOWN[key]) if key in KNOWN else
                        ("open", OPEN[key]) if key in OPEN else ("fail", ""))
        reason = f"{f.reason} [{outcome}: {why}]" if why else f.reason
        return Outcome(key, top, outcome, reason, f.line, f.expected, f.actual, **_asserts(r))
    except Exception as e:  # noqa: BLE001 - any one script's trouble stays in its row
        from tcplab.errors import TcplabError

        if isinstance(e, TcplabError):
            return Outcome(key, top, "skip", f"settings tcplab refuses: {e}", **_asserts(r))
        return Outcome(key, top, "error", f"runner error: {type(e).__name__}: {e}",
                       **_asserts(r))
    return Outcome(key, top, "pass", "", None, None, None, **_asserts(r))


def _asserts(r: Runner) -> dict[str, int]:
    return {"asserts_checked": r.asserts[0], "asserts_unchecked": r.asserts[1]}


def run(paths: str | Path | Sequence[str | Path]) -> Report:
    """Runs the scripts named (files or folders) and reports each one's outcome."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return Report([run_script(p) for p in scripts(paths)])


def command(paths: Sequence[str], *, as_json: bool = False, topic_: str | None = None,
            verbose: bool = False, as_markdown: bool = False) -> int:
    """``tcplab packetdrill PATH...``: run, print the table (or JSON); exit 1 on a failure.

    A failure listed in ``KNOWN``, or one the real kernel shares, does not fail it.
    """
    from tcplab.cli import UsageError

    files = scripts(paths)
    missing = [str(p) for p in files if not p.exists()]
    if missing:
        raise UsageError(f"packetdrill: no such script or folder: {', '.join(missing)}")
    if not files:
        raise UsageError(f"packetdrill: no .pkt scripts in {', '.join(paths)}")
    if topic_ is not None:
        files = [p for p in files if topic(p) == topic_]
    rep = Report([run_script(p) for p in files])
    if as_json:
        print(rep.to_json())
    elif as_markdown:
        print(rep.markdown())
    else:
        print(rep.table())
        for o in rep.outcomes:
            shown = ("known", "open", "kernel", "error") if verbose else ()
            if o.outcome == "fail" or o.outcome in shown:
                where = f":{o.line}" if o.line else ""
                print(f"{o.outcome.upper()} {o.script}{where}: {o.reason}")
                if o.expected is not None:
                    print(f"    expected {' '.join(o.expected.split())}")
                    print(f"    actual   {' '.join((o.actual or '').split())}")
    return 1 if rep.summary()["failed"] or rep.summary()["errors"] else 0
