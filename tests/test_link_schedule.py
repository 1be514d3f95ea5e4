"""Rate, delay and loss schedules on a link direction, and outages: checked against arithmetic."""

from __future__ import annotations

import math

import pytest
import tcplab as tl


def path(schedule: list[dict[str, object]] | None, *, udp: str = "500kbps", size: int = 972,
         outage: str | None = None, queue: object = "1000p", tcp: bool = False,
         duration: str = "10s", interval: str | None = None, loss: object = None,
         trace: list[str] | None = None) -> tl.Results:
    """s -(1 Gb/s)- r -(10 Mb/s, 20 ms, scheduled)- d with a UDP source of 1000-B packets."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="100000p")
    net.link(r, d, rate="10Mbps", delay="20ms", name="radio", queue=queue, schedule=schedule,
             outage=outage, loss=loss)
    net.udp(s, d, rate=udp, size=size, name="cbr")
    if tcp:
        net.tcp(s, d, cc="cubic")
    return net.run(duration=duration, interval=interval, trace=trace)


def test_a_schedule_that_changes_nothing_runs_as_the_fixed_link() -> None:
    # The scheduled packet path against the fixed-rate fast path.
    same = [{"at": "3s", "rate": "10Mbps", "delay": "20ms"}]
    a = path(same, tcp=True, udp="2Mbps")
    b = path(None, tcp=True, udp="2Mbps")
    assert a.flows.equals(b.flows)
    cols = [c for c in a.links.columns if c != "utilization"]
    assert a.links[cols].equals(b.links[cols])


def test_a_saturated_link_carries_each_periods_rate() -> None:
    res = path([{"at": "4s", "rate": "2Mbps"}, {"at": "7s", "rate": "5Mbps"}],
               udp="20Mbps", size=1472, duration="10s")
    sent = res.link("radio", "r").tx_bytes
    # 4 s at 10 Mb/s, 3 s at 2 and 3 s at 5: 7.625 MB, to within the
    # packet that started last.
    assert 7_625_000 - 1500 < sent <= 7_625_000 + 1500


def test_an_outage_delivers_nothing_and_holds_or_drops() -> None:
    outage = [{"at": "4s", "rate": 0}, {"at": "6s", "rate": "10Mbps"}]
    got = {}
    for mode in ("hold", "drop"):
        got[mode] = path(outage, outage=mode, interval="100ms")
        iv = got[mode].intervals
        # Nothing arrives from 4.02 s (the last bits in flight) to 6 s.
        quiet = iv[(iv["start_s"] >= 4.1 - 1e-9) & (iv["start_s"] < 6.0 - 1e-9)]
        assert len(quiet) == 19 and (quiet["delivered_bytes"] == 0).all()
    hold, drop = got["hold"].flow("cbr"), got["drop"].flow("cbr")
    # Held: every packet arrives, the first held for about the whole 2 s.
    assert hold.lost_error == 0 and hold.delivered_packets + hold.in_flight_packets == \
        hold.sent_packets
    assert 2.0 < hold.delay_max_s < 2.03
    # Dropped: each packet that would be on the wire during the outage.
    # One leaves s every 15.552 ms (972 B of payload at 500 kb/s), reaches
    # r 8 us later and takes 0.8 ms on the radio link: 128 of them.
    arrivals = [k * 0.015552 + 8e-6 for k in range(700)]
    lost = sum(1 for t in arrivals if t + 0.0008 > 4.0 and t < 6.0)
    assert lost == 128
    assert got["drop"].link("radio", "r").drops_outage == lost
    assert drop.lost_error == lost
    assert drop.delay_max_s < 0.03


def test_a_discipline_that_holds_its_queue_waits_out_an_outage() -> None:
    outage = [{"at": "4s", "rate": 0}, {"at": "6s", "rate": "10Mbps"}]
    res = path(outage, queue={"kind": "codel"}, tcp=True)
    cbr = res.flow("cbr")
    # CoDel drops what sat for long; the rest leaves after the outage.
    assert cbr.delivered_packets > 0.9 * cbr.sent_packets
    assert cbr.delay_max_s > 1.0
    tcp = res.flows[res.flows["kind"] == "tcp"].iloc[0]
    assert tcp.goodput_bps > 5e6


def test_the_delay_in_force_is_the_one_a_packet_leaves_with() -> None:
    res = path([{"at": "5s", "delay": "100ms"}], duration="10s", trace=["drops"])
    cbr = res.flow("cbr")
    # 20 ms (+0.8 ms of serialization) before 5 s, 100 ms after.
    assert cbr.delay_min_s == pytest.approx(0.0208, abs=1e-4)
    assert cbr.delay_max_s == pytest.approx(0.1008, abs=1e-4)


def test_a_scheduled_loss_rate_applies_from_its_time() -> None:
    res = path([{"at": "5s", "loss": 0.1}], udp="8Mbps", size=972, duration="20s")
    cbr = res.flow("cbr")
    # 1000 packets per second; from 5 s on, each lost with probability 0.1.
    n = 15 * 1000
    lost = cbr.lost_error
    assert abs(lost - 0.1 * n) < 4 * math.sqrt(n * 0.1 * 0.9)
    # On top of the link's own model: both apply.
    both = path([{"at": "5s", "loss": 0.1}], udp="8Mbps", size=972, duration="20s",
                loss=tl.Uniform(0.05))
    p = 1 - 0.95 * 0.9
    lost_after = both.flow("cbr").lost_error - 0.05 * 5000
    assert abs(lost_after - p * n) < 4 * math.sqrt(n * p * (1 - p)) + 4 * math.sqrt(5000 * 0.05)


@pytest.mark.parametrize("schedule, field, problem", [
    ([{"at": "2s", "rate": 0}, {"at": "1s", "rate": 1}], "links[1].schedule[1].at",
     "does not come after"),
    ([{"at": "2s", "loss": 1.5}], "links[1].schedule[0].loss", "not a probability"),
    ([{"at": "2s"}], "links[1].schedule[0]", "changes nothing"),
    ([], "links[1].schedule", "empty"),
    ([{"at": "2s", "rate": "fast"}], "links[1].schedule[0].rate", "not a rate"),
    ([{"at": "2s", "speed": 1}], "links[1].schedule[0]", "unknown field"),
])
def test_a_bad_schedule_is_refused_by_field(schedule: list[dict[str, object]], field: str,
                                            problem: str) -> None:
    with pytest.raises(tl.ScenarioError) as e:
        path(schedule)
    assert e.value.path.startswith(field) and problem in str(e.value)


def test_a_schedule_needs_a_fixed_rate_and_a_known_outage_mode(tmp_path) -> None:
    trace = tmp_path / "t"
    trace.write_text("1\n")
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate=tl.Trace(trace), delay="1ms", schedule=[{"at": "1s", "rate": 0}])
    net.tcp(a, b)
    with pytest.raises(tl.ScenarioError, match="capacity trace") as e:
        net.run(duration="2s")
    assert e.value.path == "links[0].schedule"
    with pytest.raises(tl.ScenarioError) as e:
        path([{"at": "1s", "rate": 0}], outage="sometimes")
    assert e.value.path == "links[1].outage"
