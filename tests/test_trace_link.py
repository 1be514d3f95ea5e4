"""Trace-driven link capacity (mahimahi's format): checked against counts worked out here."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import tcplab as tl


def opportunities(times_ms: list[int], until_ms: float) -> int:
    """Opportunities of a repeating trace in (0, until_ms] (those at 0 serve nothing)."""
    period = times_ms[-1]
    n = 0
    for k in range(int(until_ms // period) + 1):
        n += sum(1 for t in times_ms if 0 < k * period + t <= until_ms)
    return n


def trace_file(tmp_path: Path, times: list[int], name: str = "trace") -> Path:
    p = tmp_path / name
    p.write_text("".join(f"{t}\n" for t in times))
    return p


def saturated(rate: object, payload: int, *, delay: str = "0ms", duration: str = "2s",
              queue: object = "100000p", count: int | None = None,
              udp_rate: str = "50Mbps") -> tl.Results:
    """A UDP source far above the trace's capacity, into a trace-driven link r -> d."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="10Gbps", delay="0ms", queue="100000p", mtu=9000)
    net.link(r, d, rate=rate, reverse_rate="1Mbps", delay=delay, queue=queue, mtu=9000)
    net.udp(s, d, rate=udp_rate, size=payload, count=count)
    return net.run(duration=duration)


def test_a_saturating_flow_gets_exactly_the_traces_capacity(tmp_path: Path) -> None:
    # Irregular: bursts, a repeated time, a gap; a period of 17 ms.
    times = [1, 1, 1, 4, 9, 9, 16, 17]
    res = saturated(tl.Trace(trace_file(tmp_path, times)), 1504 - 28, delay="10ms")
    link = res.link("r-d", "r")
    # 1504-B packets: one per opportunity, every opportunity used.
    assert link.tx_packets == opportunities(times, 2000)
    assert link.tx_bytes == 1504 * opportunities(times, 2000)
    assert link.utilization == 1.0
    # Delivered by the end: the opportunities up to 10 ms before it.
    flow = res.flows.iloc[0]
    assert flow.delivered_packets == opportunities(times, 1990)
    # The trace's summary: 8 x 1504 B per 17 ms.
    assert link.rate_bps == round(8 * 1504 * 8 / 0.017)
    assert link.trace_period_s == pytest.approx(0.017)
    assert link.trace.endswith("trace")
    # The reverse direction has its own fixed rate.
    rev = res.link("r-d", "d")
    assert (rev.rate_bps, rev.trace, math.isnan(rev.trace_period_s)) == (1_000_000, "", True)


@pytest.mark.parametrize("payload", [100, 736, 1000, 3000])
def test_packets_share_and_span_opportunities_byte_for_byte(tmp_path: Path,
                                                            payload: int) -> None:
    times = [2, 3, 3, 5]
    res = saturated(tl.Trace(trace_file(tmp_path, times)), payload)
    size = payload + 28
    # Counted in bytes: a packet leaves with the opportunity that carries its
    # last byte; several share one, one spans several.
    offered = 1504 * opportunities(times, 2000)
    assert res.link("r-d", "r").tx_packets in (offered // size, offered // size + 1)
    assert res.flows.iloc[0].delivered_packets == offered // size


def test_a_constant_trace_runs_as_a_fixed_rate_link(tmp_path: Path) -> None:
    # One opportunity per ms: 12.032 Mb/s.
    one = trace_file(tmp_path, [1])
    got = {}
    for name, rate in (("trace", tl.Trace(one)), ("fixed", "12.032Mbps")):
        net = tl.Network()
        s, r, d = net.host("s"), net.router("r"), net.host("d")
        net.link(s, r, rate="1Gbps", delay="5ms")
        net.link(r, d, rate=rate, delay="20ms", queue="50p")
        net.tcp(s, d, cc="newreno")
        net.udp(s, d, rate="3Mbps", size=1000, name="cbr")
        got[name] = net.run(duration="60s", delay_percentiles=True)
    tcp = {k: v.flow("tcp0") for k, v in got.items()}
    cbr = {k: v.flow("cbr") for k, v in got.items()}
    # The same long-run rate: both links are full.
    total = {k: tcp[k].goodput_bps + cbr[k].goodput_bps for k in got}
    assert total["trace"] == pytest.approx(total["fixed"], rel=0.01)
    # A packet that finds the link idle waits for the next millisecond's
    # opportunity (at most 1 ms) and leaves whole with it (the fixed link
    # takes 1 ms for 1504 B), so an idle hop differs by at most 1 ms plus
    # one opportunity's 1 ms.
    assert abs(cbr["trace"].delay_min_s - cbr["fixed"].delay_min_s) <= 2e-3


def _burst_through_codel(tmp_path: Path, times: list[int]) -> tl.Results:
    """Three packets at once into a trace link whose CoDel holds them."""
    return saturated(tl.Trace(trace_file(tmp_path, times)), 1476, queue={"kind": "codel"},
                     count=3, duration="1s", udp_rate="1Gbps")


def test_a_discipline_that_holds_its_queue_dequeues_at_each_opportunity(
        tmp_path: Path) -> None:
    # One opportunity every 50 ms, and no propagation delay: the packet on
    # the wire has arrived long before the next opportunity, and no new
    # packet comes, so only the link's own wake-up sends the next.
    res = _burst_through_codel(tmp_path, [50])
    flow = res.flows.iloc[0]
    assert flow.delivered_packets == 3
    # Sent every 11.808 us (1476 B of payload at 1 Gb/s) from t = 0;
    # delivered at 50, 100 and 150 ms. CoDel drops none: the sojourn is
    # above its 5 ms target for less than its 100 ms interval.
    assert flow.delay_min_s == pytest.approx(0.050, abs=1e-9)
    assert flow.delay_max_s == pytest.approx(0.150 - 2 * 1476 * 8 / 1e9, abs=1e-9)
    assert res.link("r-d", "r").drops_aqm == 0


@pytest.mark.parametrize("queue", ["100p", {"kind": "codel"}, {"kind": "fq_codel"},
                                   {"kind": "pie"}, {"kind": "red"}])
def test_every_discipline_queues_before_a_trace_link(tmp_path: Path, queue: object) -> None:
    times = [1, 1, 2, 3, 3, 3, 4]
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="5ms")
    net.link(r, d, rate=tl.Trace(trace_file(tmp_path, times)), delay="20ms", queue=queue)
    net.tcp(s, d, cc="cubic")
    res = net.run(duration="20s", delay_percentiles=True)
    link, flow = res.link("r-d", "r"), res.flows.iloc[0]
    capacity = 1504 * opportunities(times, 20_000)
    # Never more than the trace offers; a queue keeps it busy most of the time.
    assert link.tx_bytes <= capacity
    assert flow.goodput_bps * 20 / 8 > 0.5 * capacity * 1448 / 1500
    assert link.utilization == pytest.approx(link.tx_bytes / capacity)


def test_a_real_trace_pair_drives_one_link(mahimahi_traces: Path) -> None:
    lte = mahimahi_traces / "Verizon-LTE-short"
    down = [int(x) for x in lte.with_suffix(".down").read_text().split()]
    res = saturated(tl.Trace(lte.with_suffix(".down")), 1476, duration="10s",
                    udp_rate="100Mbps")
    assert res.link("r-d", "r").tx_packets == opportunities(down, 10_000)
    period = down[-1] / 1000
    assert res.link("r-d", "r").rate_bps == round(len(down) * 1504 * 8 / period)
    net = tl.Network()
    s, d = net.host("s"), net.host("d")
    net.link(s, d, rate=tl.Trace(lte.with_suffix(".down")),
             reverse_rate=tl.Trace(lte.with_suffix(".up")), delay="20ms")
    net.tcp(s, d)
    res = net.run(duration="5s")
    up = [int(x) for x in lte.with_suffix(".up").read_text().split()]
    assert res.link("s-d", "d").rate_bps == round(len(up) * 1504 * 8 / (up[-1] / 1000))
    assert res.flows.iloc[0].goodput_bps > 0


def test_a_scenario_file_reads_its_trace_from_its_own_folder(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    (tmp_path / "traces").mkdir()
    trace_file(tmp_path / "traces", [1], "one")
    (tmp_path / "s.toml").write_text("""
duration = "1s"
hosts = ["a", "b"]
flows = [{ kind = "udp", src = "a", dst = "b", rate = "20Mbps", size = 1472 }]

[[links]]
a = "a"
b = "b"
rate = { trace = "traces/one" }
reverse_rate = "1Mbps"
delay = "1ms"
""")
    monkeypatch.chdir("/")
    res = tl.load(tmp_path / "s.toml").run()
    # 1500-B packets always waiting, 1504 B per ms for 1 s: 1002 whole
    # packets, and the 1003rd started.
    assert res.link("a-b", "a").tx_packets == 1003
    # The links table names the file; the scenario holds its whole path.
    assert res.link("a-b", "a").trace == "one"
    assert res.scenario["links"][0]["rate"] == {"trace": str(tmp_path / "traces" / "one")}


@pytest.mark.parametrize("text, problem", [
    ("1\n2\nx\n", "line 3: 'x' is not a time in whole milliseconds"),
    ("5\n4\n", "line 2: 4 ms comes after 5 ms; times must not decrease"),
    ("", "no delivery opportunities"),
    ("0\n", "a trace must last 1 ms or more"),
])
def test_a_malformed_trace_is_refused_with_its_line(tmp_path: Path, text: str,
                                                    problem: str) -> None:
    bad = tmp_path / "bad"
    bad.write_text(text)
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", reverse_rate=tl.Trace(bad), delay="1ms")
    net.tcp(a, b)
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="1s")
    assert e.value.path == "links[0].reverse_rate.trace"
    assert problem in str(e.value)


def test_a_missing_trace_file_is_refused_by_field(tmp_path: Path) -> None:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate=tl.Trace(tmp_path / "nowhere"), delay="1ms")
    net.tcp(a, b)
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="1s")
    assert e.value.path == "links[0].rate.trace"
    assert "cannot read the trace file" in str(e.value)
    with pytest.raises(tl.ScenarioError, match="rate: .*trace"):
        tl.Scenario({"hosts": ["a", "b"],
                     "links": [{"a": "a", "b": "b", "rate": {"file": "x"}, "delay": "1ms"}],
                     "flows": [{"kind": "tcp", "src": "a", "dst": "b"}],
                     "duration": "1s"}).run()
