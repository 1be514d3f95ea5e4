"""`tcplab validate`: verdicts, measures, the report's HTML and Markdown, a
real run against ns-2, and the page rendered by headless Chromium."""

import base64
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest
import tcplab.validation as tv
from tcplab.validation.model import Figure, Report, Row, Section
from tcplab.validation.paths import Case, Measure, mean_measure, ns2_run, parse_ns2, time_average
from tcplab.validation.report import summary_table, to_html, to_markdown

IN_CI = bool(os.environ.get("CI"))


def need(program: str) -> str:
    """The program's path; skipped when missing, except in CI, which installs it."""
    path = shutil.which(program)
    if path is None:
        if IN_CI:
            pytest.fail(f"{program} is missing: .ci/run installs it")
        pytest.skip(f"{program} is not installed")
    return path


def test_a_row_passes_within_its_relative_tolerance_and_fails_outside():
    assert Row("p", "goodput", 1.10, 1.0, tolerance=0.10).verdict == "pass"
    assert Row("p", "goodput", 0.90, 1.0, tolerance=0.10).verdict == "pass"
    assert Row("p", "goodput", 1.11, 1.0, tolerance=0.10).verdict == "fail"
    assert Row("p", "goodput", 0.0, 0.0).ratio == 1.0


def test_bounds_known_reasons_and_stalled_references_have_their_own_verdicts():
    assert Row("p", "q", 2.2, 2.0, bounds=(1.0, 3.0)).verdict == "pass"
    assert Row("p", "q", 3.2, 2.0, bounds=(1.0, 3.0)).verdict == "fail"
    assert Row("p", "q", 3.2, 2.0, bounds=(1.0, 3.0)).target == "[1.000, 3.000]"
    assert Row("p", "g", 2.0, 1.0, known="why").verdict == "known"
    # A known reason never hides a row that passes.
    assert Row("p", "g", 1.0, 1.0, known="why").verdict == "pass"
    assert Row("p", "g", 2.0, 1.0, stalled=True).verdict == "stalled"
    s = Section("variant", "x", "", [], rows=[Row("a", "g", 2.0, 1.0),
                                              Row("b", "g", 1.05, 1.0)])
    assert [r.point for r in s.failures] == ["a"]
    assert s.worst("g").point == "a"


def test_the_time_average_weights_each_value_by_how_long_it_held():
    # 10 for 1 s, 20 for 3 s, then 40 to the end at 5 s: (10 + 60 + 40) / 5.
    t, v = np.array([0.0, 1.0, 4.0]), np.array([10.0, 20.0, 40.0])
    assert time_average(t, v, 5.0) == pytest.approx(22.0)


def test_a_seed_that_stalled_or_broke_marks_the_mean():
    ok = Measure(1.0, 10.0, 4.0, 5.0, 0.0)
    bad = Measure(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"),
                  stalled=True, broken="ns-2 hung")
    m = mean_measure([ok, bad])
    assert m.stalled and m.broken == "ns-2 hung"
    assert mean_measure([ok, ok]).goodput == 1.0 and not mean_measure([ok, ok]).stalled


def flow(acked, acked_3q, cwnd_end=10, cuts=3):
    return {"acked": acked, "acked_3q": acked_3q, "cuts": cuts, "cwnd_mean": 12.5,
            "cwnd_end": cwnd_end, "data": acked + 5, "retransmitted": 5, "timeouts": 1}


def test_ns2_output_is_read_after_a_module_s_own_debugging_text():
    case = Case("westwood", per=0.01, duration=100.0)
    out = "cmd select_ca lp\nTCP-LP: 1| 2|" + json.dumps(
        {"flows": [flow(999, 700)], "queue_drops": 5}) + "\n"
    m = parse_ns2(out, case)
    # ack_ counts from 0: 1000 packets of 360 B in 100 s.
    assert m.goodput == pytest.approx(1000 * 360 * 8 / 100 / 1e6)
    assert (m.cwnd_mean, m.reductions, m.timeouts, m.stalled) == (12.5, 3.0, 1.0, False)


def test_a_reference_without_progress_in_the_last_quarter_or_with_cwnd_0_is_stalled():
    case = Case("dumbbell", flows=2, duration=60.0)
    stuck = json.dumps({"flows": [flow(500, 400), flow(800, 800)], "queue_drops": 0})
    assert parse_ns2(stuck, case).stalled
    zero = json.dumps({"flows": [flow(500, 400), flow(900, 800, cwnd_end=0)],
                       "queue_drops": 0})
    assert parse_ns2(zero, case).stalled
    fine = json.dumps({"flows": [flow(500, 400), flow(900, 800)], "queue_drops": 0})
    assert not parse_ns2(fine, case).stalled


def test_a_stagger_moves_each_flow_s_start_and_its_goodput_s_time():
    case = Case("dumbbell", flows=2, duration=60.0, stagger=0.25)
    assert [case.start(i) for i in range(2)] == [0.0, 0.75]
    assert case.label == "2 flows, starts +250 ms a flow"
    assert Case("dumbbell", flows=2).label == "2 flows"
    out = json.dumps({"flows": [flow(999, 700), flow(999, 700)], "queue_drops": 0})
    m = parse_ns2(out, case)
    # 1000 packets of 1448 B in 60 s, and in the 59.25 s from 0.75 s.
    each = [1000 * 1448 * 8 / d / 1e6 for d in (60.0, 59.25)]
    assert m.flows == pytest.approx(each) and m.goodput == pytest.approx(sum(each))
    from tcplab.validation.paths import dumbbell

    flows = dumbbell(2, stagger=0.25, cc="reno").scenario(duration="2s").to_dict()["flows"]
    assert [f["start"] for f in flows] == ["0.0s", "0.75s"]


def test_ns2_starts_each_flow_when_the_stagger_says(tmp_path):
    ns = need("ns")
    trace = tmp_path / "out.tr"
    from tcplab.validation.paths import TCL

    subprocess.run([ns, str(TCL), "topo=dumbbell", "agent=newreno", "flows=2", "duration=2",
                    "stagger=0.25", f"trace={trace}"], check=True, capture_output=True)
    # Nodes: r0 0, r1 1, then each flow's sender and receiver (2, 3; 4, 5).
    first = {}
    for line in trace.read_text().splitlines():
        f = line.split()
        if f[0] == "+" and f[4] == "tcp":
            first.setdefault(f[8], float(f[1]))
    assert first == {"2.0": 0.0, "4.0": 0.75}


def test_a_reference_that_hangs_is_reported_not_waited_for(tmp_path):
    fake = tmp_path / "ns"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    m = ns2_run(str(fake), Case("westwood", duration=60.0), 1, "linux:westwood", {}, limit=0.5)
    assert m.stalled and "hung" in m.broken


def sample_report() -> Report:
    fig = Figure("reno: goodput", "packet error rate", "goodput (Mb/s)", ["0.01", "0.05"],
                 {"tcplab": [0.3, 0.1], "TCP-Linux": [0.31, 0.09]})
    return Report(mode="quick", date="2026-11-26", found={"ns-2": "ns-2 2.35"},
                  skipped={"ns-3": "no virtualenv"}, sections=[
                      Section("variant", "reno", "the Westwood path", ["TCP-Linux reno"],
                              rows=[Row("PER 0.01", "goodput", 0.3, 0.31, unit="Mb/s"),
                                    Row("PER 0.05", "goodput", 0.1, 0.09, known="why not")],
                              figures=[fig]),
                      Section("theory", "Vegas queue", "one flow", ["Brakmo and Peterson"],
                              rows=[Row("1 flow", "mean queue", 2.2, 2.0, bounds=(1, 3))])])


def test_known_and_open_misses_come_from_the_tables_by_section():
    from tcplab.validation import suites

    rows = [Row("PER 0.01", "goodput", 2.0, 1.0), Row("PER 0.05", "goodput", 1.0, 1.0)]
    sections = [Section("variant", "bic", "", [], rows=rows),
                Section("variant", "lp", "", [], rows=[Row("1 flow", "goodput", 0.1, 1.0)]),
                Section("variant", "highspeed", "", [],
                        rows=[Row("1 flow", "goodput", 3.0, 1.0)])]
    suites.annotate(sections)
    assert [r.verdict for r in rows] == ["known", "pass"]
    assert sections[1].rows[0].verdict == "open"
    assert sections[1].rows[0].open == suites.OPEN[("variant", "lp")]
    # highspeed's open miss covers PER 0.001 only: a miss at another point fails.
    assert sections[2].rows[0].verdict == "fail"
    late = Section("variant", "highspeed", "", [],
                   rows=[Row("PER 0.001", "mean cwnd", 1.19, 1.0, tolerance=0.15)])
    suites.annotate([late])
    assert late.rows[0].verdict == "open"


def test_a_known_difference_may_name_its_points_beside_an_open_miss(monkeypatch):
    from tcplab.validation import suites

    # yeah: the counting of ACKs explains PER 0 and the dumbbell; an open
    # miss (set here) covers PER 0.05; a miss anywhere else fails.
    monkeypatch.setitem(suites.OPEN, ("variant", "yeah"),
                        ("Open: a test's entry.", frozenset({"PER 0.05"})))
    rows = [Row(p, "window reductions", 2.0, 1.0, tolerance=0.2)
            for p in ("PER 0", "4 flows", "PER 0.05", "PER 0.01")]
    suites.annotate([Section("variant", "yeah", "", [], rows=rows)])
    assert [r.verdict for r in rows] == ["known", "known", "open", "fail"]
    assert rows[0].known == suites.KNOWN[("variant", "yeah")][0]
    assert rows[2].open == suites.OPEN[("variant", "yeah")][0]


def test_the_html_page_holds_every_section_its_verdicts_and_embedded_png_figures():
    page = to_html(sample_report())
    assert page.count("class='validation-section'") == 2
    assert "id='variant-reno'" in page and "id='theory-vegas-queue'" in page
    assert "skipped (no virtualenv)" in page
    images = re.findall(r"src='data:image/png;base64,([^']+)'", page)
    assert len(images) == 1
    assert base64.b64decode(images[0]).startswith(b"\x89PNG\r\n\x1a\n")
    assert "<td>known</td>" in page and "<td>pass</td>" in page


def test_the_markdown_has_a_table_per_section_and_writes_its_figures(tmp_path):
    text = to_markdown(sample_report(), tmp_path / "figs", "figs")
    assert "### variant: reno" in text and "### theory: Vegas queue" in text
    assert "| PER 0.05 | goodput | 0.100 | 0.090 | 1.111 | ±10% | known |" in text
    assert "- why not" in text
    assert (tmp_path / "figs" / "variant-reno-0.png").read_bytes().startswith(b"\x89PNG")
    table = summary_table(sample_report())
    assert "| variant reno | TCP-Linux reno | 1.11 (PER 0.05) | 1 of 2 | 1 |  |" in table


def test_a_cdg_flow_draws_from_its_own_stream_seeded_by_the_run(westwood_path):
    def goodput(seed):
        net, a, _, b = westwood_path()
        net.tcp(a, b, cc="cdg")
        return float(net.run(duration="20s", seed=seed).flows["goodput_bps"][0])

    # No random loss: only CDG's probabilistic backoff draws.
    assert goodput(1) == goodput(1)
    assert goodput(1) != goodput(2)


def test_validate_against_ns2_runs_a_variant_and_writes_the_report(tmp_path):
    need("ns")
    rep = tv.run(quick=True, only=["reno"], seeds=1)
    assert rep.found["ns-2"].startswith("ns-2 2.35")
    # "reno" names a variant (against TCP-Linux) and a recovery (ns-2's Reno).
    assert [(s.kind, s.name) for s in rep.sections] == [("variant", "reno"),
                                                         ("recovery", "reno")]
    sec = rep.sections[0]
    # 3 PERs and 2 dumbbells, goodput, mean cwnd and reductions each.
    assert len(sec.rows) == 15
    assert not sec.failures, [(r.point, r.metric, r.ratio) for r in sec.rows]
    paths = tv.write(rep, tmp_path)
    again = tv.load(paths["json"])
    assert [r.verdict for r in again.sections[0].rows] == [r.verdict for r in sec.rows]
    assert again.sections[0].figures[0].lines["tcplab"] == sec.figures[0].lines["tcplab"]


def test_the_command_exits_0_and_writes_html_and_markdown(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tcplab.cli", "validate", "--quick", "--only",
                        "theory", "--out", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 fail" in r.stdout
    assert (tmp_path / "report.html").exists() and (tmp_path / "report.md").exists()


def test_chromium_renders_the_report_with_every_section_and_no_broken_image(tmp_path):
    chromium = need("chromium")
    page = tmp_path / "report.html"
    page.write_text(to_html(sample_report()))
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    # The DOM after load: each image decoded (naturalWidth > 0).
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace(
        "</body>", "<script>window.onload = () => { document.title = 'images ' + "
        "[...document.images].map(i => i.complete && i.naturalWidth > 0).join(','); };"
        "</script></body>"))
    dom = subprocess.run(base + ["--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "<title>images true</title>" in dom
    assert dom.count('class="validation-section"') == 2
    shot = tmp_path / "shot.png"
    subprocess.run(base + ["--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    # Not blank: text, table colours and the figure vary the pixels.
    assert pixels.std() > 0.05
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 50


def bench_validate_on_sample_docs(tmp_path, monkeypatch):
    """bench/validate.py with its docs and README in `tmp_path`, holding a full
    run of sample_report()."""
    import importlib.util
    import pathlib

    bench = pathlib.Path(__file__).resolve().parent.parent / "bench"
    monkeypatch.syspath_prepend(str(bench))
    spec = importlib.util.spec_from_file_location("bench_validate", bench / "validate.py")
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    full = sample_report()
    full.mode, full.seconds = "full", 100.0
    docs, readme = tmp_path / "validation.md", tmp_path / "README.md"
    docs.write_text(f"prose\n{v.BEGIN}\n{to_markdown(full)}\n{v.END}\nmore prose\n")
    readme.write_text(f"{v.README_BEGIN}\n{summary_table(full)}\n{v.README_END}\n")
    monkeypatch.setattr(v, "DOCS", docs)
    monkeypatch.setattr(v, "README", readme)
    monkeypatch.setattr(v, "FIGURES", tmp_path / "figs")
    return v, docs, readme


def test_a_partial_run_replaces_its_sections_alone_in_the_docs(tmp_path, monkeypatch):
    v, docs, readme = bench_validate_on_sample_docs(tmp_path, monkeypatch)
    # A rerun of reno alone: its PER 0.01 row now misses with no entry.
    part = sample_report()
    part.mode, part.seconds, part.date = "full", 7.0, "2026-11-27"
    part.sections = part.sections[:1]
    part.sections[0].rows[0] = Row("PER 0.01", "goodput", 0.2, 0.31, unit="Mb/s")
    part.sections[0].figures = []
    for _ in range(2):  # a second merge of the same report changes nothing
        v.merge_docs(part)
    text = docs.read_text()
    assert text.startswith("prose\n") and text.endswith("more prose\n")
    assert text.count("Run 2026-11-26") == 1
    assert ("Run 2026-11-26; the reno sections 2026-11-27 (full mode): "
            "1 rows pass, 1 fail, 1 known differences, 0 open misses") in text
    assert "| PER 0.01 | goodput (Mb/s) | 0.200 | 0.310 | 0.645 | ±10% | FAIL |" in text
    assert "| 1 flow | mean queue | 2.200 | 2.000 |" in text  # the theory section kept
    table = readme.read_text()
    assert "Run on 2026-11-26; the reno sections 2026-11-27 (" in table
    assert table.count("the reno sections") == 1
    assert "| variant reno | TCP-Linux reno | 0.65 (PER 0.01) | 0 of 2 | 1 |  |" in table
    assert "| theory Vegas queue |" in table
    part.mode = "quick"
    with pytest.raises(SystemExit):
        v.merge_docs(part)


def test_the_history_names_each_section_once_under_the_last_date_it_ran():
    import importlib.util
    import pathlib
    import sys

    bench = pathlib.Path(__file__).resolve().parent.parent / "bench"
    sys.path.insert(0, str(bench))
    spec = importlib.util.spec_from_file_location("bench_validate_h", bench / "validate.py")
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    when = ("2026-11-26, full mode, 90 s; the ns-3, lp and recovery sections 2026-11-27, full "
            "mode, 9 s; the reno, lp sections 2026-11-27 (full mode, 5 s)")
    assert v.history(when, ["lp", "vegas"], "2026-11-28") == (
        "2026-11-26; the ns-3, recovery, reno sections 2026-11-27; "
        "the lp, vegas sections 2026-11-28")
    # The same run merged again changes nothing.
    once = v.history(when, ["lp", "vegas"], "2026-11-28")
    assert v.history(once, ["lp", "vegas"], "2026-11-28") == once
    # A kind run whole is named by its kind, which stands for its sections.
    titles = [["variant", "lp"], ["ns-3", "lp"], ["ns-3", "yeah"], ["theory", "Mathis"]]
    assert v.collapse(["ns-3 lp", "ns-3 yeah"], titles) == ["ns-3"]
    assert v.collapse(["lp", "ns-3 yeah"], titles) == ["lp", "ns-3 yeah"]
    assert v.history("2026-11-26; the ns-3 yeah, lp sections 2026-11-27", ["ns-3"],
                     "2026-11-28") == ("2026-11-26; the lp sections 2026-11-27; "
                                       "the ns-3 sections 2026-11-28")
    assert v.history("2026-11-26; the ns-3 sections 2026-11-28", ["ns-3 lp"],
                     "2026-11-28") == "2026-11-26; the ns-3 sections 2026-11-28"


def test_a_partial_run_adds_a_new_section_after_the_last_of_its_kind(tmp_path, monkeypatch):
    v, docs, readme = bench_validate_on_sample_docs(tmp_path, monkeypatch)
    part = sample_report()
    part.mode, part.seconds, part.date = "full", 5.0, "2026-11-27"
    bbr = Section("variant", "bbr", "the Westwood path", ["TCP-Linux bbr"],
                  rows=[Row("PER 0.01", "goodput", 1.0, 1.02, unit="Mb/s")])
    part.sections = [bbr]
    for _ in range(2):  # the second merge replaces it
        v.merge_docs(part)
    text = docs.read_text()
    assert text.count("### variant: bbr") == 1
    assert text.index("### variant: reno") < text.index("### variant: bbr") < text.index(
        "### theory: Vegas queue")
    assert "3 rows pass, 0 fail, 1 known differences" in text
    rows = readme.read_text().splitlines()
    reno = next(i for i, x in enumerate(rows) if x.startswith("| variant reno |"))
    assert rows[reno + 1].startswith("| variant bbr | TCP-Linux bbr | 0.98 (PER 0.01) | 1 of 1 |")
    assert sum(x.startswith("| variant bbr |") for x in rows) == 1
    # A kind the docs do not have yet needs a full run.
    part.sections = [Section("recovery", "prr", "", [], rows=[Row("1 flow", "goodput", 1, 1)])]
    with pytest.raises(SystemExit):
        v.merge_docs(part)
