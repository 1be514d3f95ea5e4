"""Explicit reordering on a link direction: a probability and a displacement in packets."""

from __future__ import annotations

import pytest
import tcplab as tl


def path(reorder: dict[str, object] | None, *, tcp: bool = True, udp: str | None = None,
         count: int | None = None, extra: dict[str, object] | None = None) -> tl.Results:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms, reordering)- d, no loss anywhere."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p", reorder=reorder,
             **(extra or {}))
    if tcp:
        net.tcp(s, d, cc="newreno", sack=True, rcv_buf="4MiB", name="tcp")
    if udp:
        net.udp(s, d, rate=udp, size=972, count=count, name="cbr")
    return net.run(duration="20s")


def test_a_displacement_below_the_dupthresh_never_triggers_a_fast_retransmit() -> None:
    # Each held packet is passed by 2 later ones: 2 duplicate ACKs, one
    # short of NewReno's 3.
    short = path({"probability": 0.01, "displacement": 2}).flow("tcp")
    assert short.dupacks > 50 and short.fast_retransmits == 0
    assert short.retransmitted_segments == 0
    # Passed by 5: 3 duplicate ACKs come first, and a spurious fast
    # retransmit repairs a packet that was never lost.
    long = path({"probability": 0.01, "displacement": 5}).flow("tcp")
    assert long.fast_retransmits > 10 and long.retransmitted_segments > 10
    assert long.lost_queue + long.lost_error == 0


def test_every_held_packet_arrives() -> None:
    cbr = path({"probability": 0.2, "displacement": 3}, tcp=False, udp="5Mbps").flow("cbr")
    plain = path(None, tcp=False, udp="5Mbps").flow("cbr")
    assert cbr.delivered_packets + cbr.in_flight_packets == cbr.sent_packets
    # Held at the end: at most those among the last 3 arrivals.
    assert plain.in_flight_packets <= cbr.in_flight_packets <= plain.in_flight_packets + 3


def test_a_held_packet_waits_at_most_max_hold() -> None:
    # One packet, held for sure, and no other to pass it.
    cbr = path({"probability": 1.0, "displacement": 3, "max_hold": "50ms"}, tcp=False,
               udp="1Mbps", count=1).flow("cbr")
    assert cbr.delivered_packets == 1
    # 10 ms of propagation, 0.4 ms and 8 ns of transmission, 50 ms held.
    assert cbr.delay_max_s == pytest.approx(0.010 + 0.0004 + 0.000008 + 0.050, abs=1e-6)


@pytest.mark.parametrize("reorder, extra, problem", [
    ({"probability": 1.5, "displacement": 3}, {}, "links[1].reorder.probability"),
    ({"probability": 0.1, "displacement": 0}, {}, "links[1].reorder.displacement"),
    ({"probability": 0.1}, {}, "displacement"),
    ({"probability": 0.1, "displacement": 3}, {"jitter": {"dist": "uniform", "high": "1ms"}},
     "one of arq, reorder and jitter"),
])
def test_a_bad_reorder_is_refused_by_field(reorder: dict[str, object],
                                           extra: dict[str, object], problem: str) -> None:
    with pytest.raises(tl.ScenarioError) as e:
        path(reorder, extra=extra)
    assert problem in f"{e.value.path}: {e.value}"
