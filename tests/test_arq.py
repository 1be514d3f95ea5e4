"""Link-layer ARQ on a wireless hop: residual loss, added delay and order, against theory."""

from __future__ import annotations

import math

import pytest
import tcplab as tl

P, TURN, DELAY = 0.2, 0.001, 0.010
TX = 1000 * 8 / 20e6  # a 1000-B packet at 20 Mb/s


def hop(arq: dict[str, object] | None, *, per: float = P, udp: str | None = "2Mbps",
        tcp: bool = False, duration: str = "60s") -> tl.Results:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms, uniform loss, ARQ)- d."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    # A queue the 4 MiB window cannot fill: every loss is the radio's.
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p", loss=tl.Uniform(per), arq=arq,
             name="radio")
    if udp:
        net.udp(s, d, rate=udp, size=972, name="cbr")
    if tcp:
        net.tcp(s, d, cc="newreno", sack=True, rcv_buf="4MiB", name="tcp")
    return net.run(duration=duration)


@pytest.mark.parametrize("attempts", [2, 4])
def test_residual_loss_is_p_to_the_n_and_retries_as_expected(attempts: int) -> None:
    res = hop({"attempts": attempts, "turnaround": "1ms", "order": "out"})
    link, cbr = res.link("radio", "r"), res.flow("cbr")
    n = cbr.sent_packets  # all but a handful crossed
    residual = P ** attempts
    assert abs(link.arq_residual - residual * n) < 4 * math.sqrt(n * residual) + 2
    assert link.arq_residual == link.drops_error == cbr.lost_error
    # Retries: p + p^2 + ... + p^(N-1) per packet.
    retries = n * sum(P ** k for k in range(1, attempts))
    assert abs(link.arq_retries - retries) < 4 * math.sqrt(retries) + 2
    assert link.tx_packets == cbr.sent_packets + link.arq_retries - (link.tx_packets == 0)


def test_each_retry_adds_a_turnaround_a_transmission_and_the_propagation() -> None:
    attempts = 4
    res = hop({"attempts": attempts, "turnaround": "1ms", "order": "out"}, udp="1Mbps")
    # Retries of a delivered packet: k with probability p^k (1 - p) / (1 - p^N).
    mean_k = sum(k * P**k * (1 - P) for k in range(attempts)) / (1 - P**attempts)
    want = mean_k * (TURN + TX + DELAY)
    # Light load: a retransmission seldom waits behind another packet.
    assert res.link("radio", "r").arq_delay_mean_s == pytest.approx(want, rel=0.02)


def test_in_order_delivery_hides_the_repairs_from_tcp() -> None:
    kept = hop({"attempts": 8, "order": "in"}, per=0.05, udp=None, tcp=True, duration="20s")
    mixed = hop({"attempts": 8, "order": "out"}, per=0.05, udp=None, tcp=True, duration="20s")
    bare = hop(None, per=0.05, udp=None, tcp=True, duration="20s")
    k, m, b = (r.flow("tcp") for r in (kept, mixed, bare))
    # 0.05^8: nothing reaches TCP lost. In order, nothing arrives out of
    # order either; out of order, repaired packets arrive late: dupACKs.
    assert kept.link("radio", "r").arq_residual == 0
    assert k.dupacks == 0 and k.retransmitted_segments == 0
    assert m.dupacks > 100
    # And the losses hidden, TCP no longer halves its window for each.
    assert k.goodput_bps > 5 * b.goodput_bps
    assert math.isnan(bare.link("radio", "r").arq_delay_mean_s)


@pytest.mark.parametrize("arq, extra, problem", [
    ({"attempts": 0}, {}, "links[1].arq.attempts"),
    ({"attempts": 2}, {"queue": {"kind": "codel"}}, "holds its packets"),
    ({"attempts": 2}, {"jitter": {"dist": "uniform", "high": "1ms"}},
     "links[1].jitter: this direction also has arq"),
    ({"attempts": 2, "order": "sideways"}, {}, "links[1].arq.order"),
])
def test_a_bad_arq_is_refused_by_field(arq: dict[str, object], extra: dict[str, object],
                                       problem: str) -> None:
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms")
    net.link(r, d, rate="20Mbps", delay="10ms", loss=tl.Uniform(0.1), arq=arq, **extra)
    net.tcp(s, d)
    with pytest.raises(tl.ScenarioError) as e:
        net.run(duration="1s")
    assert problem in f"{e.value.path}: {e.value}"


def test_arq_repairs_losses_on_a_scheduled_link_and_through_its_outage() -> None:
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p", loss=tl.Uniform(0.2),
             arq={"attempts": 4}, outage="drop", name="radio",
             schedule=[{"at": "10s", "rate": "5Mbps"}, {"at": "20s", "rate": 0},
                       {"at": "21s", "rate": "20Mbps"}])
    net.udp(s, d, rate="2Mbps", size=972, name="cbr")
    res = net.run(duration="40s")
    link, cbr = res.link("radio", "r"), res.flow("cbr")
    assert link.arq_retries > 0.2 * cbr.sent_packets and link.drops_outage > 0
    # In order, nothing waits for ever behind a retransmission the outage
    # took: all but the packets in flight at the end arrive or are lost.
    assert cbr.delivered_packets + cbr.lost_error + cbr.in_flight_packets == cbr.sent_packets
    assert cbr.in_flight_packets < 10

