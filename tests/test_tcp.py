"""TCP end to end: theory (link rate, Mathis), exact loss-recovery traces, invariants."""

import math

import pytest
import tcplab as tl

MSS = 1000  # with mtu=1040: 1040 - 20 (IPv4) - 20 (TCP)


def check_invariants(res: tl.Results) -> None:
    """Conservation and exactly-once delivery, for every flow of a run."""
    for _, f in res.flows.iterrows():
        assert f["sent_packets"] == (
            f["delivered_packets"] + f["lost_queue"] + f["lost_error"] + f["in_flight_packets"]
        ), f.to_dict()
        if f["kind"] == "tcp":
            # The receiver delivers each byte once, in order; the sender's
            # cumulative ACK (an independent count) can only trail it.
            assert f["acked_bytes"] <= f["delivered_bytes"]
            assert f["delivered_bytes"] <= f["sent_bytes"]
            assert f["ack_packets"] >= f["acks_lost"]
    # Every drop on a link is a lost packet of some flow, in one direction.
    link_drops = res.links["drops_queue"].sum() + res.links["drops_error"].sum()
    flow_losses = (res.flows["lost_queue"] + res.flows["lost_error"] + res.flows["acks_lost"]).sum()
    assert link_drops == flow_losses


def short_path(cc: str, drops: list[int] | None = None, **tcp) -> tl.Network:
    """a -(10 Mb/s, 5 ms, 1000-packet queue, MTU 1040)- b, one TCP flow, delayed ACK off."""
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    loss = tl.DropList(drops, flow="tcp0", data_only=True) if drops else None
    net.link(a, b, rate="10Mbps", delay="5ms", queue="1000p", mtu=1040, loss=loss)
    tcp.setdefault("delayed_ack", False)
    net.tcp(a, b, cc=cc, **tcp)
    return net


def events(res: tl.Results) -> list[tuple[str, int]]:
    e = res.events
    e = e[e["event"] != "established"]
    return list(zip(e["event"], e["seq"], strict=True))


# ---- throughput against the link rate -------------------------------------------------


def test_bulk_fills_the_bottleneck_minus_header_overhead():
    # The Westwood path: 10 Mb/s, 45 ms then 2 Mb/s; BDP = 2 Mb/s * 90.9 ms
    # ~ 15 packets of 1500 B; a BDP-sized queue keeps the link busy.
    def run(duration):
        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="10Mbps", delay="45ms")
        net.link(r, b, rate="2Mbps", delay="10us", queue="16p", name="bottleneck")
        net.tcp(a, b, cc="newreno", delayed_ack=False)
        return net.run(duration=duration, seed=1)

    early, late = run("10s"), run("60s")
    check_invariants(late)
    assert late.flows["lost_error"].sum() == 0
    # Goodput after slow start, from the two runs' identical prefixes.
    delivered = late.flow("tcp0")["delivered_bytes"] - early.flow("tcp0")["delivered_bytes"]
    goodput = delivered * 8 / 50
    max_goodput = 2e6 * 1460 / 1500  # 1460 B of payload per 1500 B on the wire
    assert goodput >= 0.95 * 2e6 * 1460 / 1500
    assert goodput <= max_goodput * 1.0001
    assert late.link("bottleneck")["utilization"] > 0.95


def test_delayed_ack_halves_the_acks():
    # A 64 KB window never overflows the 1000-packet queue: no loss, so every
    # ACK is a delayed one (or the SYN-ACK).
    net = short_path("newreno", delayed_ack=2, rcv_buf="64KB")
    res = net.run(duration="5s", seed=1)
    f = res.flow("tcp0")
    assert f["retransmitted_segments"] == 0
    data = f["delivered_packets"] - 2  # arrived, less the SYN and the handshake's ACK
    assert f["ack_packets"] == pytest.approx(1 + data / 2, abs=1)  # the SYN-ACK + one per two
    no_delay = short_path("newreno", delayed_ack=False, rcv_buf="64KB").run(duration="5s", seed=1)
    g = no_delay.flow("tcp0")
    assert g["ack_packets"] == g["delivered_packets"] - 1


# ---- exact loss-recovery traces -----------------------------------------------------
# MSS 1000 B, initial window min(4 MSS, max(2 MSS, 4380 B)) = 4 segments, no
# delayed ACK: data segment k carries bytes [1 + 1000 (k-1), 1 + 1000 k).
# When segment 25 (seq 24001) is lost, slow start has acked 24 segments:
# cwnd = 4000 + 24 * 1000 = 28000, segments 25..52 are in flight, so
# FlightSize = 28000 and ssthresh = 14000. The first two dupACKs each send a
# new segment (limited transmit: 53 and 54), which RFC 5681 leaves out of
# ssthresh; the third (from segment 28, or 30 when 27 is also lost) triggers
# fast retransmit, with the recovery point at 54001.


def test_one_loss_reno_fast_retransmit_and_one_halving():
    res = short_path("reno", [25]).run(duration="2s", seed=1, trace=["events"])
    check_invariants(res)
    assert events(res) == [
        ("fast_retransmit", 24001),  # cwnd = ssthresh + 3 MSS = 17000
        ("retransmit", 24001),
        ("recovery_exit", 54001),  # the retransmission fills the only hole
    ]
    e = res.events.set_index("event")
    assert (e.loc["fast_retransmit", "cwnd"], e.loc["fast_retransmit", "ssthresh"]) == (
        17000, 14000)
    assert e.loc["recovery_exit", "cwnd"] == 14000  # deflated to ssthresh
    f = res.flow("tcp0")
    assert (f["fast_retransmits"], f["timeouts"], f["retransmitted_segments"]) == (1, 0, 1)


def test_three_losses_newreno_one_reduction_no_timeout():
    res = short_path("newreno", [25, 27, 29]).run(duration="2s", seed=1, trace=["events"])
    check_invariants(res)
    assert events(res) == [
        ("fast_retransmit", 24001),
        ("retransmit", 24001),
        ("partial_ack", 26001),  # segment 26 was there; 27 is the next hole
        ("retransmit", 26001),
        ("partial_ack", 28001),
        ("retransmit", 28001),
        ("recovery_exit", 77001),
    ]
    e = res.events
    # One reduction: ssthresh 14000 throughout. At the first partial ACK,
    # cwnd = 17000 + 24 dupACKs (segments 31..54) * 1000 - 2000 acked + 1000.
    assert set(e["ssthresh"][1:]) == {14000}
    assert e[e["event"] == "partial_ack"]["cwnd"].iloc[0] == 40000
    # Exit: cwnd = min(ssthresh, max(FlightSize, MSS) + MSS) = 14000.
    assert e["cwnd"].iloc[-1] == 14000
    f = res.flow("tcp0")
    assert (f["fast_retransmits"], f["timeouts"]) == (1, 0)


def test_three_losses_reno_reduces_more_than_once_or_times_out():
    res = short_path("reno", [25, 27, 29]).run(duration="3s", seed=1, trace=["events"])
    check_invariants(res)
    f = res.flow("tcp0")
    assert f["fast_retransmits"] + f["timeouts"] >= 2
    kinds = [k for k, _ in events(res)]
    assert kinds[:6] == ["fast_retransmit", "retransmit", "recovery_exit",
                         "fast_retransmit", "retransmit", "recovery_exit"]
    assert "timeout" in kinds  # the third hole gets too few dupACKs


def test_three_losses_sack_repairs_all_within_one_rtt():
    res = short_path("sack", [25, 27, 29]).run(duration="2s", seed=1, trace=["events", "rtt"])
    check_invariants(res)
    ev = events(res)
    retx = [s for k, s in ev if k == "retransmit"]
    assert retx == [24001, 26001, 28001]
    e = res.events
    t_fr = e[e["event"] == "fast_retransmit"]["time_s"].iloc[0]
    t_last = e[e["event"] == "retransmit"]["time_s"].iloc[-1]
    t_exit = e[e["event"] == "recovery_exit"]["time_s"].iloc[0]
    _, rtt = res.trace("rtt", flow="tcp0")
    srtt = float(rtt[:20].mean())
    assert t_last - t_fr < srtt  # all three holes retransmitted within one RTT
    assert t_exit - t_fr < 2 * srtt  # and recovery over after about one more
    assert set(e["cwnd"][1:]) == {14000}  # RFC 6675: cwnd = ssthresh
    assert res.flow("tcp0")["timeouts"] == 0


def test_tahoe_drops_to_one_mss_on_the_third_dupack():
    res = short_path("tahoe", [25]).run(duration="2s", seed=1, trace=["events", "cwnd"])
    check_invariants(res)
    e = res.events
    fr = e[e["event"] == "fast_retransmit"].iloc[0]
    assert (fr["seq"], fr["cwnd"], fr["ssthresh"]) == (24001, MSS, 14000)
    # One hole: the retransmission fills it and the ACK jumps to 52001.
    assert [s for k, s in events(res) if k == "retransmit"] == [24001]
    # Three holes (25, 27, 29): going back N from 1 MSS in slow start resends
    # 25; the partial ACK for 27 (26001) allows two segments, 27 and 28 (which
    # had arrived); the ACK for 29 (28001) allows three: 29, 30 and 31.
    res3 = short_path("tahoe", [25, 27, 29]).run(duration="2s", seed=1, trace=["events"])
    check_invariants(res3)
    assert [s for k, s in events(res3) if k == "retransmit"] == [
        24001, 26001, 27001, 28001, 29001, 30001]
    assert res3.flow("tcp0")["fast_retransmits"] == 1


def test_lost_retransmission_times_out_with_backoff():
    # A 3-segment transfer; segment 3 and its first retransmission are lost.
    # The FIN (seq 3001) arrives out of order: one dupACK, not three, so only
    # the timer recovers: RTO = max(1 s, SRTT + 4 RTTVAR) = 1 s (the RFC 6298
    # minimum), restarted by the ACK of segment 2 at 21.805 ms; then 2 s after
    # the backoff. Each timeout goes back N: segment 3, then the FIN.
    net = short_path("newreno", [3, 4], app=tl.Transfer(size=3 * MSS))
    res = net.run(seed=1, trace=["events", "rto"])
    check_invariants(res)
    assert events(res) == [
        ("timeout", 2001), ("retransmit", 2001), ("retransmit", 3001),
        ("timeout", 2001), ("retransmit", 2001), ("retransmit", 3001),
        ("recovery_exit", 3002), ("closed", 3002),
    ]
    t = res.events[res.events["event"] == "timeout"]["time_s"].to_list()
    assert t[0] == pytest.approx(1.021805, abs=1e-6)
    assert t[1] - t[0] == pytest.approx(2.0, abs=1e-9)
    # ssthresh = max(FlightSize / 2, 2 MSS) = 2000 (FlightSize 2001: segment 3 + FIN).
    assert set(res.events["ssthresh"][1:]) == {2000}
    f = res.flow("tcp0")
    assert f["timeouts"] == 2 and f["delivered_bytes"] == 3 * MSS
    # Exponential backoff, kept to the end: Karn's rule allows no RTT sample
    # from a retransmitted segment.
    times, rto = res.trace("rto", flow="tcp0")
    assert list(rto) == [1.0, 2.0, 4.0]
    assert list(times[1:]) == pytest.approx(t)


# ---- random loss: the Mathis model ---------------------------------------------------


@pytest.mark.parametrize("p", [0.005, 0.01, 0.02])
def test_newreno_goodput_follows_mathis(p):
    rtt, mss = 0.2, 1460
    mathis = mss * 8 / rtt * math.sqrt(1.5) / math.sqrt(p)
    goodputs = []
    for seed in range(3):
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="100Mbps", delay="100ms", queue="10000p", loss=tl.Uniform(p))
        net.tcp(a, b, cc="newreno", delayed_ack=False)
        res = net.run(duration="1000s", seed=seed)
        check_invariants(res)
        goodputs.append(res.flow("tcp0")["goodput_bps"])
    mean = sum(goodputs) / len(goodputs)
    assert 0.7 * mathis <= mean <= 1.3 * mathis, (mean, mathis)


# ---- applications ------------------------------------------------------------------


def test_ten_mib_transfer_completes_with_its_completion_time():
    net = tl.Network()
    c, s = net.host("client"), net.host("server")
    net.link(s, c, rate="10Mbps", delay="10ms", queue="100p")
    net.tcp(s, c, cc="newreno", app=tl.Transfer(size="10MiB"))
    res = net.run(seed=1)
    check_invariants(res)
    f = res.flow("tcp0")
    assert f["delivered_bytes"] == 10 * 2**20 == f["acked_bytes"]
    # At least the serialization time of 10 MiB in 1460-B segments at 10 Mb/s.
    floor = 10 * 2**20 / 1460 * 1500 * 8 / 10e6
    assert floor < f["completion_time_s"] < floor * 1.2
    assert f["goodput_bps"] == pytest.approx(10 * 2**20 * 8 / f["completion_time_s"])


def test_unfinished_transfer_has_no_completion_time():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", delay="10ms")
    net.tcp(a, b, app=tl.Transfer(size="10MiB"))
    f = net.run(duration="2s", seed=1).flow("tcp0")
    assert math.isnan(f["completion_time_s"]) and f["delivered_bytes"] < 10 * 2**20


def test_onoff_sends_new_data_only_inside_on_windows():
    def sent(duration: str) -> int:
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="10Mbps", delay="10ms")
        # A 64 KB window cannot overflow the 100-packet queue: no loss, so no
        # retransmission can trail an OFF edge, and sent bytes are new data.
        net.tcp(a, b, cc="reno", rcv_buf="64KB",
                app=tl.OnOff(schedule=[("1s", "2s"), ("4s", "5s")]))
        f = net.run(duration=duration, seed=1).flow("tcp0")
        assert f["retransmitted_segments"] == 0
        return int(f["sent_bytes"])

    assert sent("0.99s") == 0  # connected at 0 s, silent until 1 s
    assert sent("1.5s") > 0
    assert sent("2s") == sent("3.9s")  # nothing new while OFF
    assert sent("4.5s") > sent("3.9s")
    assert sent("5s") == sent("9s")


def test_variants_and_recovery_override_run():
    for cc in ["tahoe", "reno", "newreno", "sack"]:
        net = short_path(cc)
        res = net.run(duration="1s", seed=1)
        assert res.flow("tcp0")["cc"] == cc
    net = short_path("reno", recovery="sack")
    res = net.run(duration="1s", seed=1)
    assert res.flow("tcp0")["recovery"] == "sack"
    assert res.scenario["flows"][0]["sack"] is True


@pytest.mark.parametrize("cc", ["tahoe", "reno", "newreno", "sack"])
@pytest.mark.parametrize("seed", [1, 2])
def test_invariants_under_random_loss_and_congestion(cc, seed):
    net = tl.Network()
    a, c, r, b = net.host("a"), net.host("c"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="20ms", reverse_loss=tl.Uniform(0.01))
    net.link(c, r, rate="10Mbps", delay="5ms")
    net.link(r, b, rate="2Mbps", delay="10ms", queue="20p", loss=tl.Uniform(0.02),
             name="bottleneck")
    net.tcp(a, b, cc=cc, timestamps=True)
    net.tcp(c, b, cc=cc, app=tl.Transfer(size="200KB"))
    net.udp(c, b, rate="500kbps", stop="20s")
    res = net.run(duration="40s", seed=seed, trace=["drops"])
    check_invariants(res)
    assert res.flow("tcp1")["delivered_bytes"] == 200_000


@pytest.mark.parametrize("cc", ["reno", "newreno", "sack"])
def test_fin_ahead_of_a_hole_is_kept_until_the_hole_fills(cc):
    # 20 segments; segment 17 is lost. Segments 18-20 and the FIN arrive out of
    # order: the receiver must keep the FIN, so when fast retransmit repairs 17
    # the ACK covers the FIN too and no timeout is needed.
    net = short_path(cc, [17], app=tl.Transfer(size=20 * MSS))
    res = net.run(seed=1, trace=["events"])
    check_invariants(res)
    f = res.flow("tcp0")
    assert (f["timeouts"], f["fast_retransmits"], f["retransmitted_segments"]) == (0, 1, 1)
    assert events(res)[-1] == ("closed", 20 * MSS + 2)


def test_syn_window_is_unscaled_so_a_large_initial_window_goes_out_at_once():
    # 64 segments of 1000 B with an initial window of 64 on a 100 ms RTT path:
    # the SYN-ACK advertises 65535 B unscaled, so all 64 leave in the first
    # flight and the transfer completes in handshake + 1 RTT + serialization.
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="100Mbps", delay="50ms", queue="1000p", mtu=1040)
    net.tcp(a, b, initial_cwnd=64, delayed_ack=False, app=tl.Transfer(size=64 * MSS))
    f = net.run(seed=1).flow("tcp0")
    serialization = 64 * 1040 * 8 / 100e6
    assert f["completion_time_s"] < 0.2 + serialization + 0.01  # not a second round trip


@pytest.mark.parametrize("timestamps", [False, True])
def test_rtt_columns_summarise_the_senders_own_samples(timestamps):
    """rtt_samples, rtt_min_s, rtt_mean_s and rtt_max_s are the count and the
    smallest, mean and largest of the samples the `rtt` trace records; the
    smallest is the handshake's, the propagation RTT (2 x 25 ms) plus the
    serialization of two header-only packets; the largest adds at most a full
    queue (100 packets of 1500 B at 10 Mb/s, 120 ms) and delayed-ACK waits."""
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="5ms")
    net.link(r, b, rate="10Mbps", delay="20ms", queue="100p")
    net.tcp(a, b, cc="newreno", timestamps=timestamps)
    net.udp(a, b, rate="1Mbps", size="1000B")
    res = net.run(duration="20s", seed=1, trace=["rtt"])
    f = res.flows.iloc[0]
    t, v = res.trace("rtt", flow=0)
    assert f["rtt_samples"] == len(v) > 20
    assert f["rtt_min_s"] == v.min() and f["rtt_max_s"] == v.max()
    assert f["rtt_mean_s"] == pytest.approx(v.mean(), rel=1e-12)
    assert 0.050 < f["rtt_min_s"] < 0.0502
    assert f["rtt_max_s"] < 0.050 + 0.120 + 0.2 + 0.01
    rounds = 20 / f["rtt_min_s"]  # the most round trips 20 s can hold
    if timestamps:  # every ACK of new data gives a sample
        assert f["rtt_samples"] > rounds
    else:  # one segment timed at a time (RFC 6298, Karn)
        assert f["rtt_samples"] <= rounds + 1
    udp = res.flows.iloc[1]
    assert udp["rtt_samples"] == 0 and math.isnan(udp["rtt_mean_s"])


def test_delay_histograms_hold_every_delivered_packet_in_bins_of_at_most_one_32nd():
    """With delay_percentiles, res.delay_histogram gives a flow's one-way delay
    distribution as FlowMonitor's delayHistogram does: the counts add up to the
    packets delivered, the bins are disjoint and ascending, each at most 1/32 of
    its lower edge wide (32 per octave), the extremes fall in the end bins, and
    the mid-points' weighted mean is within 1.6% of the exact mean."""
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="5ms")
    net.link(r, b, rate="10Mbps", delay="20ms", queue="100p")
    net.tcp(a, b, cc="newreno")
    net.udp(a, b, rate="1Mbps", size="1000B")
    res = net.run(duration="20s", seed=1, delay_percentiles=True)
    for i, flow in enumerate(res.flows.itertuples()):
        lo, hi, n = res.delay_histogram(i)
        assert n.sum() == flow.delivered_packets > 1000
        assert all(lo[1:] >= hi[:-1]) and all(hi > lo)
        assert max((hi - lo) / lo) <= 1 / 32 + 1e-12
        assert lo[0] <= flow.delay_min_s < hi[0] and lo[-1] <= flow.delay_max_s < hi[-1]
        mean = ((lo + hi) / 2 * n).sum() / n.sum()
        assert mean == pytest.approx(flow.delay_mean_s, rel=0.016)
    lo, hi, n = res.delay_histogram("tcp0", "ack")
    tcp = res.flows.iloc[0]
    # Every ACK sent but those lost and those still on their way at the end
    # (at most what the largest ACK delay holds at the mean ACK rate, plus one).
    sent = tcp["ack_packets"] - tcp["acks_lost"]
    on_the_way = tcp["ack_packets"] / 20 * tcp["ack_delay_max_s"] + 1
    assert sent - on_the_way <= n.sum() <= sent
    h = res.histograms
    assert set(h["direction"]) == {"data", "ack"} and set(h["flow"]) == {"tcp0", "udp1"}
    # Only on request: none otherwise, and a clear message.
    plain = net.run(duration="2s", seed=1)
    assert len(plain.histograms) == 0 and "histograms" not in plain.raw
    with pytest.raises(ValueError, match="delay_percentiles=True"):
        plain.delay_histogram(0)
    with pytest.raises(ValueError, match="allowed: data, ack"):
        res.delay_histogram(0, "reverse")
