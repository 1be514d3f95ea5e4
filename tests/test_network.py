"""Behaviour of links, queues and error models, checked against theory."""

import math

import numpy as np
import pytest
import tcplab as tl
from conftest import binomial_bound


def test_single_packet_latency_is_transmission_plus_propagation_exactly(westwood_path):
    net, a, _, b = westwood_path()
    net.udp(a, b, rate="1Mbps", size="1000B", count=1)
    res = net.run(seed=1)
    f = res.flow("udp0")
    assert f["delivered_packets"] == 1
    # 1028 B on the wire: 8224 bits / 10 Mb/s = 822.4 us, / 2 Mb/s = 4112 us.
    expected_ns = 822_400 + 45_000_000 + 4_112_000 + 10_000
    assert round(f["delay_min_s"] * 1e9) == expected_ns
    assert f["delay_max_s"] == f["delay_min_s"]
    # The run ends when nothing is left: at the packet's arrival.
    assert round(res.summary["sim_seconds"] * 1e9) == expected_ns


def test_cbr_below_capacity_delivers_rate_times_one_minus_per(westwood_path):
    per = 0.01
    net, a, _, b = westwood_path(loss=tl.Uniform(per))
    net.udp(a, b, rate="1Mbps", size="1000B")
    res = net.run(duration="200s", seed=3)
    f = res.flow("udp0")
    link = res.link("bottleneck")
    arrived = link["tx_packets"] - f["in_flight_packets"]
    # Losses ~ Binomial(arrived, per), within the 99% bound.
    assert abs(f["lost_error"] - arrived * per) < binomial_bound(arrived, per)
    assert f["lost_queue"] == 0
    # Goodput = rate * (1 - per), within the same bound turned into bit/s.
    bound_bps = binomial_bound(arrived, per) * 8000 / 200
    assert abs(f["goodput_bps"] - 1e6 * (1 - per)) < bound_bps + 8000 * 3 / 200
    # Conservation.
    assert f["sent_packets"] == (
        f["delivered_packets"] + f["lost_queue"] + f["lost_error"] + f["in_flight_packets"]
    )


def test_cbr_above_capacity_delivers_link_rate_and_counts_queue_drops(westwood_path):
    net, a, _, b = westwood_path()
    net.udp(a, b, rate="3Mbps", size="1000B")
    res = net.run(duration="100s", seed=1)
    f = res.flow("udp0")
    link = res.link("bottleneck")
    # The bottleneck serializes 1028-B packets back to back from ~45.8 ms on:
    # 2e6 / 8224 = 243.19 packets/s.
    busy_s = 100 - 0.045 - 0.0008224
    expected_pkts = busy_s * 2e6 / (1028 * 8)
    assert abs(link["tx_packets"] - expected_pkts) <= 1
    assert link["utilization"] == pytest.approx(busy_s / 100, abs=1e-4)
    # Payload goodput = 2 Mb/s * 1000 / 1028 (minus the start-up).
    assert f["goodput_bps"] == pytest.approx(2e6 * 1000 / 1028 * busy_s / 100, rel=2e-3)
    # The surplus is dropped by the full queue and counted.
    assert f["lost_queue"] == link["drops_queue"]
    # At the end: 100 queued, 1 on the bottleneck's wire, and 45 ms * 375/s =
    # 16.9 propagating on the first hop (plus maybe one being serialized).
    assert 117 <= f["in_flight_packets"] <= 120
    assert f["lost_queue"] == pytest.approx(
        f["sent_packets"] - expected_pkts - f["in_flight_packets"], abs=2
    )
    assert link["queue_max_packets"] == 100
    assert f["sent_packets"] == (
        f["delivered_packets"] + f["lost_queue"] + f["lost_error"] + f["in_flight_packets"]
    )


def test_byte_limited_queue_holds_that_many_bytes(westwood_path):
    net, a, _, b = westwood_path(queue="10280B")  # room for exactly 10 packets of 1028 B
    net.udp(a, b, rate="3Mbps", size="1000B")
    res = net.run(duration="5s", seed=1, trace=["queue"])
    assert res.link("bottleneck")["queue_max_packets"] == 10
    t, q = res.trace("queue", link="bottleneck")
    assert q.max() == 10 and np.all(np.diff(t) >= 0)


@pytest.mark.parametrize("sojourn", ["exponential", "deterministic"])
def test_gilbert_elliott_long_run_loss_matches_stationary_value(sojourn):
    ge = tl.GilbertElliott(
        good_loss=0.01, bad_loss=0.5, good_time="10ms", bad_time="5ms", p_bad=0.5, sojourn=sojourn
    )
    # Bad for 1/3 of the time: loss = 0.01 * 2/3 + 0.5 / 3 = 0.17333...
    p = ge.stationary_loss()
    assert p == pytest.approx(0.01 * 2 / 3 + 0.5 / 3)
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="100Mbps", delay="1ms", loss=ge)
    net.udp(a, b, rate="8Mbps", size="972B")  # 1000 B on the wire, one every 0.972 ms
    res = net.run(duration="300s", seed=11)
    f = res.flow("udp0")
    arrived = f["delivered_packets"] + f["lost_error"]
    observed = f["lost_error"] / arrived
    # Losses are correlated within a state, so the binomial bound is too tight:
    # ~30,000 sojourns each carry ~7.5 packets; the variance of the loss
    # fraction is dominated by the state sequence. 4 sd of that is ~0.006.
    sd = math.sqrt(p * (1 - p) / arrived) * math.sqrt(7.5)
    assert abs(observed - p) < 4 * sd + 0.002, (observed, p)


def test_ber_turns_into_per_packet_probability():
    ber = 2e-6
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="100Mbps", delay="1ms", loss=tl.BitErrorRate(ber))
    net.udp(a, b, rate="10Mbps", size="1472B")  # 1500 B datagrams
    res = net.run(duration="60s", seed=5)
    f = res.flow("udp0")
    p = 1 - (1 - ber) ** (1500 * 8)
    arrived = f["delivered_packets"] + f["lost_error"]
    assert abs(f["lost_error"] - arrived * p) < binomial_bound(arrived, p)


def test_drop_list_drops_exactly_those_arrivals(westwood_path):
    net, a, _, b = westwood_path(loss=tl.DropList([40, 42, 44]))
    net.udp(a, b, rate="1Mbps", size="1000B", count=100)
    res = net.run(seed=1, trace=["drops"])
    assert list(res.drops["packet"]) == [40, 42, 44]
    assert set(res.drops["cause"]) == {"error"}
    assert res.flow("udp0")["delivered_packets"] == 97


def test_reverse_loss_applies_to_the_other_direction():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="1ms", reverse_loss=tl.Uniform(1.0))
    net.udp(a, b, rate="1Mbps", count=10, name="ab")
    net.udp(b, a, rate="1Mbps", count=10, name="ba")
    res = net.run(seed=1)
    assert res.flow("ab")["delivered_packets"] == 10
    assert res.flow("ba")["lost_error"] == 10


def test_shortest_path_and_explicit_route():
    # a - r1 - r2 - b directly, and a detour r1 - r3 - r2 with a 100 ms hop.
    def build(detour: bool):
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        r1, r2, r3 = net.router("r1"), net.router("r2"), net.router("r3")
        net.link(a, r1, rate="10Mbps", delay="1ms")
        net.link(r1, r2, rate="10Mbps", delay="1ms")
        net.link(r2, b, rate="10Mbps", delay="1ms")
        net.link(r1, r3, rate="10Mbps", delay="100ms")
        net.link(r3, r2, rate="10Mbps", delay="1ms")
        if detour:
            net.route(r1, b, r3)
        net.udp(a, b, rate="1Mbps", count=1)
        return net.run(seed=1)

    direct = build(False).flow("udp0")["delay_min_s"]
    detour = build(True).flow("udp0")["delay_min_s"]
    assert direct == pytest.approx(0.003 + 3 * 1028 * 8 / 10e6)
    assert detour == pytest.approx(0.103 + 4 * 1028 * 8 / 10e6)


def test_start_stop_and_count():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="1ms")
    net.udp(a, b, rate="800kbps", size="1000B", start="2s", stop="4s", name="window")
    net.udp(a, b, rate="800kbps", size="1000B", count=7, name="counted")
    res = net.run(duration="10s", seed=1)
    # 800 kb/s of 1000-B payloads = 100 datagrams/s over 2 s.
    assert res.flow("window")["sent_packets"] == 200
    assert res.flow("window")["goodput_bps"] == pytest.approx(800e3)
    assert res.flow("counted")["sent_packets"] == 7


def test_queue_trace_by_hand_and_departures_before_arrivals_at_one_instant():
    # a -(1 Gb/s, 1 ms)- r -(1 Mb/s, 1 ms, 2 packets)- b. Three one-packet
    # UDP flows at t = 0 (125 B on the wire: 1 us on the access link, 1 ms
    # on the bottleneck) reach r at 1.001, 1.002 and 1.003 ms: the first goes
    # straight onto the wire, the others wait. A fourth, sent at 1 ms, reaches
    # r at 2.001 ms, the very instant the second starts serializing: the
    # departure comes first, so the 2-packet queue has room for it.
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="1Gbps", delay="1ms")
    net.link(r, b, rate="1Mbps", delay="1ms", queue="2p", name="bottleneck")
    for k in range(3):
        net.udp(a, b, rate="1Mbps", size="97B", count=1, name=f"u{k}")
    net.udp(a, b, rate="1Mbps", size="97B", count=1, start="1ms", name="late")
    res = net.run(duration="10ms", seed=1, trace=["queue"])
    t, q = res.trace("queue", link="bottleneck")
    got = list(zip(np.round(t * 1e9).astype(int).tolist(), q.astype(int).tolist(), strict=True))
    assert got == [(0, 0), (1_002_000, 1), (1_003_000, 2), (2_001_000, 1), (2_001_000, 2),
                   (3_001_000, 1), (4_001_000, 0)]
    link = res.link("bottleneck")
    assert link["drops_queue"] == 0 and link["queue_max_packets"] == 2
    assert link["tx_packets"] == 4
    assert res.flows["delivered_packets"].sum() == 4
    # The time-average queue over the 10 ms is the integral of that trace:
    # 1 packet for 1 us, 2 for 998 us, 2 for 1 ms, 1 for 1 ms.
    area = (1 * 1_000 + 2 * 998_000 + 2 * 1_000_000 + 1 * 1_000_000) / 10_000_000
    assert link["queue_mean_packets"] == pytest.approx(area, rel=1e-12)
