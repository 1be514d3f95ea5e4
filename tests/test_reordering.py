"""Linux's adaptive reordering degree (``adaptive_reordering``) on a path that reorders."""

from __future__ import annotations

import pandas as pd
import tcplab as tl


def reordering_path(**tcp: object) -> tl.Network:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms, 1 packet in 100 passed by 5)- d, no loss."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p",
             reorder={"probability": 0.01, "displacement": 5})
    net.tcp(s, d, name="tcp", **tcp)
    return net


def test_the_linux_profile_adapts_and_the_others_do_not() -> None:
    for profile, on in [("linux", True), ("paper", False), ("ns3", False), ("ns2", False),
                        ("inet", False)]:
        net = reordering_path(profile=profile)
        assert net.scenario(duration="1s").check()["flows"][0]["adaptive_reordering"] is on


def test_the_degree_rises_past_the_displacement_and_spurious_fast_retransmits_stop() -> None:
    # Linux before RACK (rack off): DupThresh 3 retransmits each packet held
    # behind 5 others (5 duplicate ACKs), though none is lost. With the
    # degree adapting, the first such partial ACK echoes the original's
    # timestamp (older than the retransmission), the hole measures 6
    # segments, and later displacements of 5 stay below DupThresh 6.
    def flow(adaptive: bool) -> pd.Series:
        # (Undo and F-RTO off: with them a reduction proved spurious is
        # undone, which this test does not measure.)
        net = reordering_path(profile="linux", rack=False, tlp=False, rcv_buf="4MiB",
                              undo=False, frto=False, adaptive_reordering=adaptive)
        return net.run(duration="20s").flow("tcp")

    fixed, adaptive = flow(False), flow(True)
    assert fixed.lost_queue + fixed.lost_error == 0
    assert fixed.fast_retransmits > 50
    assert adaptive.fast_retransmits <= 3
    assert adaptive.retransmitted_segments * 10 < fixed.retransmitted_segments
    assert adaptive.goodput_bps > fixed.goodput_bps


def test_with_rack_the_first_delayed_hole_opens_rack_s_window() -> None:
    # The linux profile's RACK: with DupThresh segments SACKed and no
    # reordering seen, its window is 0 and each held packet is retransmitted
    # (its original, arriving after the retransmission, never counts as
    # reordering). The timestamp of the first partial ACK shows the hole was
    # delayed: an event is counted, and the window of min_RTT / 4 (5 ms)
    # covers the 5 packets (2.4 ms at 20 Mb/s) from then on.
    def flow(adaptive: bool) -> pd.Series:
        # (No D-SACK, undo or F-RTO: with the receiver's D-SACKs even RFC
        # 8985's RACK widens its window, and undo takes the reductions
        # back; this test measures the timestamp's event alone.)
        net = reordering_path(profile="linux", rcv_buf="4MiB", dsack=False, undo=False,
                              frto=False, adaptive_reordering=adaptive)
        return net.run(duration="20s").flow("tcp")

    fixed, adaptive = flow(False), flow(True)
    assert fixed.fast_retransmits > 50
    assert adaptive.fast_retransmits * 5 < fixed.fast_retransmits
