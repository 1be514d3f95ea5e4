"""Presets and the published studies (their quick versions)."""

from pathlib import Path

import pandas as pd
import pytest
import tcplab as tl
from tcplab import presets
from tcplab.studies import STUDIES, reproduce

# The cellular study replays mahimahi's traces, found as tcplab.traces.resolve finds
# them (CI has ../shared/traces/mahimahi); without them its tests are skipped, not failed.
TRACES = presets.default_traces()
needs_traces = pytest.mark.skipif(TRACES is None,
                                  reason="no mahimahi traces (tcplab traces download)")


@pytest.mark.parametrize("name", [pytest.param(n, marks=needs_traces) if n == "cellular" else n
                                  for n in sorted(presets.PRESETS)])
def test_every_preset_builds_and_runs_briefly(name):
    fn = presets.PRESETS[name]
    sc = fn(size="500KB") if name == "channel" else fn(duration="20s")
    res = sc.run()
    assert len(res.flows) >= 1 and res.flows["delivered_bytes"].iloc[0] > 0
    # In every preset each flow crosses the slowest link: no goodput beyond
    # it (a capacity trace's: what it offered during the run).
    top = offered_bps("Verizon-LTE-short", 20) if name == "cellular" else \
        res.links["rate_bps"].min()
    assert (res.flows["goodput_bps"] <= top).all()


def offered_bps(trace: str, seconds: float) -> float:
    """The mean rate a mahimahi downlink trace offers in (0, seconds]: 1504 B per opportunity."""
    ms = [int(x) for x in (presets.default_traces() / f"{trace}.down").read_text().split()]
    period = ms[-1]
    n = sum(1 for k in range(int(seconds * 1000 // period) + 1) for t in ms
            if 0 < k * period + t <= seconds * 1000)
    return n * 1504 * 8 / seconds


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("studies")
    return out, {name: reproduce(name, out, quick=True, progress=False) for name in STUDIES
                 if name != "cellular" or TRACES is not None}


def test_every_quick_study_writes_tables_and_figures(quick):
    out, results = quick
    for name, r in results.items():
        study = STUDIES[name]
        assert set(r["tables"]) == {p.name for p in study.panels}
        for panel in study.panels:
            csv = out / f"{name}_{panel.name}.csv"
            t = pd.read_csv(csv)
            assert not t.empty, csv
            metric = {"intervals": "goodput_bps", "jain": "jain",
                      "share": "share"}.get(panel.stat, panel.metric)
            for col in ("mean", "std", "min", "max", "count", "ci90_low", "ci90_high",
                        "ci90_method"):
                assert f"{metric}_{col}" in t.columns, (csv, col)
            assert t[f"{metric}_count"].min() >= 1
            for ext in ("png", "svg"):
                fig = out / f"{name}_{panel.name}.{ext}"
                assert fig.stat().st_size > 5_000, fig
    assert (out / "cwnd_over_time.png").exists()


def test_bbr_versions_shares_lie_between_0_and_1_and_queue_delays_follow_the_buffer(quick):
    out, _ = quick
    share = pd.read_csv(out / "bbr-versions_share_vs_buffer.csv")
    assert set(share["version"]) == {"v1", "v2", "v3"}
    assert share["share_mean"].between(0, 1).all()
    delay = pd.read_csv(out / "bbr-versions_queue_delay_vs_buffer.csv")
    # BBR's queueing is the buffer CUBIC keeps full: at 10 BDPs (1 s of
    # queue) several hundred ms, at 0.1 BDP under the buffer's 10 ms.
    by = delay.set_index(["version", "buffer"])["queue_delay_s_mean"]
    for v in ("v1", "v2", "v3"):
        assert by[(v, 0.1)] < 0.012 and by[(v, 10.0)] > 0.3


def test_goodput_never_exceeds_the_bottleneck_rate(quick):
    out, results = quick
    bottleneck = {"westwood": None, "ack-compression": 2e6, "reverse-traffic": 2e6,
                  "dumbbell-udp": 2e6, "wireless-last-hop": 2e6, "fairness": 10e6,
                  "channel": 100e6, "parking-lot": 10e6}
    bottleneck["westwood"] = 2e6

    def limit(name: str, x: str, value: object) -> float:
        if name == "westwood" and x == "bottleneck_rate":
            return float(tl._core.parse_rate(str(value)))
        return bottleneck[name]

    for name, r in results.items():
        if name in ("cellular", "bbr-versions"):  # a capacity trace: below; shares
            continue
        for panel, t in r["tables"].items():
            if panel.startswith("jain") or "ratio" in panel:
                continue
            x = t.columns[1]
            for value, top in zip(t[x], t["goodput_bps_max"], strict=True):
                assert top <= limit(name, x, value), (name, panel, value)


def test_lossless_westwood_path_every_variant_reaches_90_percent():
    for cc in ["newreno", "westwood", "westwoodplus", "petra", "cubic", "sack"]:
        res = presets.westwood(cc=cc, per=0.0, duration="120s").run()
        assert res.flow("tcp0")["goodput_bps"] >= 0.90 * 2e6 * 360 / 400, cc
    # BBR enters ProbeRTT (4 segments for 200 ms and a round) whenever its
    # minimum RTT goes 10 s unrefreshed. With the preset's per-ACK RTT
    # samples (ns-3's), which carry the delayed ACK's wait for a second
    # segment, that is every 11 s here (3% of the time), once in 120 s with
    # one timed segment per RTT.
    res = presets.westwood(cc="bbr", per=0.0, duration="120s", trace=["cc:mode"]).run()
    assert res.flow("tcp0")["goodput_bps"] >= 0.87 * 2e6 * 360 / 400
    _, mode = res.trace("cc:mode", flow=0)
    assert list(mode).count(3) == 10
    # But Vegas: the preset's ns-3 settings run ns-3's TcpVegas (3.18 has
    # none), whose smoothed RTTs carry the delayed ACKs' waits, so it holds
    # its window far below the path's, as ns-3 itself does on this path
    # (tests/test_ns3_forms.py).
    res = presets.westwood(cc="vegas", per=0.0, duration="120s").run()
    assert res.flow("tcp0")["goodput_bps"] < 0.5 * 2e6 * 360 / 400


def test_dumbbell_udp_tcp_plus_udp_never_exceed_the_bottleneck(quick):
    for left in ("ethernet", "fast_ethernet"):
        for udp_rate in ("400kbps", "1800kbps"):
            res = presets.dumbbell_udp(cc="reno", udp_rate=udp_rate, left=left,
                                       duration="30s").run()
            total = res.flow("tcp")["goodput_bps"] + res.flow("udp")["goodput_bps"]
            assert total <= 2e6


def test_reverse_traffic_hurts_vegas_while_it_is_on(quick):
    _, results = quick
    t = results["reverse-traffic"]["tables"]["goodput_per_interval"]
    vegas = t[t[t.columns[0]] == "vegas"].set_index("start_s")["goodput_bps_mean"]
    assert vegas[250.0] < 0.5 * vegas[0.0] and vegas[750.0] < 0.5 * vegas[500.0]


def test_cli_studies_and_reproduce(tmp_path, capsys):
    from tcplab.cli import main

    assert main(["studies"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in STUDIES)
    assert main(["reproduce", "ack-compression", "--quick", "--out", str(tmp_path)]) == 0
    assert "goodput_vs_reverse_flows" in capsys.readouterr().out
    assert (Path(tmp_path) / "ack-compression_goodput_vs_reverse_flows.png").exists()


def test_fairness_and_parking_lot_seeds_differ_by_their_random_starts():
    # Lossless paths: only the flows' random starts (start_spread) make the
    # seeds differ; without them every seed is the same run.
    for make, flow in ((lambda **k: presets.fairness(m=4, reverse_flows=2, **k), "f0"),
                       (lambda **k: presets.parking_lot(hops=2, **k), "cross0_0")):
        runs = [make(duration="20s", seed=s).run() for s in (1, 2)]
        starts = [r.flow(flow)["start_s"] for r in runs]
        assert starts[0] != starts[1] and all(0 <= s < 1 for s in starts)
        delivered = [r.flows["delivered_bytes"].tolist() for r in runs]
        assert delivered[0] != delivered[1]
        fixed = [make(duration="20s", seed=s, start_spread=None).run() for s in (1, 2)]
        assert fixed[0].flows.equals(fixed[1].flows) and fixed[0].flow(flow)["start_s"] == 0


@needs_traces
def test_cellular_goodput_stays_within_the_trace_and_codel_cuts_the_delay(quick):
    _, results = quick
    tables = results["cellular"]["tables"]
    # The quick study: 20 s from a start within [0, 2 s): never more than
    # the trace offered in the first 22 s, averaged over the 20.
    top = offered_bps("Verizon-LTE-short", 22) * 22 / 20
    for t in tables.values():
        assert (t["goodput_bps_max"] <= top).all()
        assert (t["goodput_bps_mean"] > 0.3 * top).all()
    drop, codel = (tables[f"tradeoff_{q}"].set_index("param:cc") for q in ("droptail", "codel"))
    # A 100-packet drop-tail queue fills behind loss-based variants; CoDel
    # keeps it near its target: a fraction of the delay.
    for cc in ("newreno", "cubic", "westwoodplus"):
        assert codel.loc[cc, "delay_p95_s_mean"] < 0.5 * drop.loc[cc, "delay_p95_s_mean"]


def test_the_cellular_study_says_where_to_get_its_traces(tmp_path, capsys):
    from tcplab.cli import main

    with pytest.raises(FileNotFoundError, match="github.com/ravinet/mahimahi"):
        reproduce("cellular", tmp_path, quick=True, traces=tmp_path / "none")
    code = main(["reproduce", "cellular", "--quick", "--out", str(tmp_path), "--traces",
                 str(tmp_path / "none")])
    assert code != 0
    err = capsys.readouterr().err
    assert "--traces" in err and "mahimahi" in err
