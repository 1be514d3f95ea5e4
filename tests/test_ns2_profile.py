"""The ns2 profile (issue 18): a flow set as ns-2.35's Agent/TCP family sets it.

Each default was read from ns-2 itself (`ns` printing `[Agent/TCP set
window_]` and the like); docs/tcp.md lists them with their ns-2 names. The
comparison with ns-2's own agents at those defaults is
bench/validate_ns2.py's ``ns2`` set (docs/validation.md).
"""

import pytest
import tcplab as tl


def effective(per: float = 0.0, **tcp: object) -> dict:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", delay="1ms", loss=tl.Uniform(per) if per else None)
    net.tcp(a, b, **{"profile": "ns2", **tcp})
    return net.scenario(duration="1s").check()["flows"][0]


def test_the_ns2_profile_takes_ns2_s_defaults():
    f = effective()
    assert f["mss"] == "1000B"  # packetSize_ 1000 (+ 40 B of headers)
    assert f["rcv_buf"] == "20000B"  # window_ 20 packets
    assert f["initial_cwnd"] == 2  # windowInit_
    assert (f["min_rto"], f["max_rto"], f["initial_rto"]) == ("200ms", "60s", "3s")
    assert (f["clock_granularity"], f["rto"]) == ("10ms", "ns2")  # tcpTick_, rtt_update
    assert (f["delayed_ack"], f["delayed_ack_timeout"]) == (1, "100ms")  # TCPSink; DelAck
    assert f["limited_transmit"] is True  # singledup_ 1
    assert f["reno_recover_guard"] is True  # bugFix_
    assert (f["sack"], f["timestamps"], f["window_scaling"]) == (False, False, False)
    assert f["recovery"] == "newreno" and f["recovery_exit"] == "ssthresh"
    assert f["handshake"] is True  # syn_ and delay_growth_: a SYN, then data
    # dupack_action's reset_rtx_timer(1, 0); recv_newack_helper's opencwnd on
    # the ACK that ends a Reno or NewReno recovery (not Sack1's, not Vegas's).
    assert (f["fast_retransmit_restarts_rto"], f["recovery_exit_growth"]) == (True, True)
    assert effective(cc="reno")["recovery_exit_growth"] is True
    assert effective(cc="sack")["recovery_exit_growth"] is False
    assert effective(cc="vegas")["recovery_exit_growth"] is True  # its step on every new ACK
    assert effective(profile="paper")["fast_retransmit_restarts_rto"] is False
    sack = effective(cc="sack")
    assert (sack["sack"], sack["recovery"]) == (True, "sack1")  # Agent/TCP/Sack1
    assert effective(cc="sack", recovery="sack")["recovery"] == "sack"  # RFC 6675 on request
    vegas = effective(cc="vegas")["cc"]
    assert (vegas["alpha"], vegas["beta"], vegas["gamma"]) == (1.0, 3.0, 1.0)
    assert (vegas["loss_keep"], vegas["increase_per_ack"]) == (0.75, True)
    assert vegas["retransmit_backoff"] is True
    assert vegas["fine_timeout"] == "ns2"  # tcp-vegas.cc's v_timeout_
    # Agent/TCP/Vegas has its own recv, without singledup_.
    assert effective(cc="vegas")["limited_transmit"] is False
    assert effective(cc="vegas", limited_transmit=True)["limited_transmit"] is True
    # A path with a smaller MTU sets a smaller segment, as ns-2's
    # packetSize_ would have to be.
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", delay="1ms", mtu=400)
    net.tcp(a, b, profile="ns2")
    assert net.scenario(duration="1s").check()["flows"][0]["mss"] == "360B"


def test_ns2_s_reno_guard_turns_second_losses_in_a_window_into_timeouts():
    # Westwood path, an ACK per segment, PER 0.01: ns-2's Reno (bugFix_)
    # waits for the timer where RFC 5681's starts another fast recovery
    # (bench/validate_ns2.py measured 83 timeouts against 23 without it).
    def run(guard: bool) -> dict:
        net = tl.Network()
        s, r, k = net.host("s"), net.router("r"), net.host("k")
        net.link(s, r, rate="10Mbps", delay="45ms", mtu=400)
        net.link(r, k, rate="2Mbps", delay="10us", mtu=400, loss=tl.Uniform(0.01))
        net.tcp(s, k, cc="reno", profile="ns2", rcv_buf="64000B", reno_recover_guard=guard)
        return net.run(duration="600s", seed=1).flows.iloc[0]

    guarded, rfc = run(True), run(False)
    assert guarded["timeouts"] > 2 * rfc["timeouts"]
    assert guarded["goodput_bps"] < rfc["goodput_bps"]


def test_ns2_s_vegas_measures_its_rounds_as_ns2_does():
    # The ns2 profile's Vegas takes ns-2's rounds (tcp-vegas.cc); the
    # paper's remain selectable, and the two differ on a lossy path (the
    # exact per-ACK rule is tested in cc/vegas.rs).
    assert effective(cc="vegas")["cc"]["rounds"] == "ns2"
    assert effective(cc=tl.Vegas(rounds="paper"))["cc"]["rounds"] == "paper"
    net = {r: tl.presets.westwood(cc=tl.Vegas(rounds=r), profile="ns2", per=0.01,
                                  duration="120s").run() for r in ("ns2", "paper")}
    goodput = {r: res.flows.iloc[0]["goodput_bps"] for r, res in net.items()}
    assert goodput["ns2"] != goodput["paper"]


def test_ns2_s_vegas_recovers_by_its_own_rules_without_the_reno_guard():
    # tcp-vegas.cc: Reno's shape with its own rules (tcp/tests/recovery_tests/ns2_vegas.rs);
    # bugFix_ blocks another fast retransmit only after a timeout.
    f = effective(cc="vegas")
    assert (f["recovery"], f["reno_recover_guard"]) == ("ns2_vegas", False)
    g = effective(cc="reno")
    assert (g["recovery"], g["reno_recover_guard"]) == ("reno", True)
    # It reads the send times Vegas keeps: other variants are refused.
    with pytest.raises(tl.ScenarioError) as e:
        effective(cc="reno", recovery="ns2_vegas")
    assert e.value.path.endswith(".recovery") and "cc vegas" in (e.value.allowed or "")
    assert effective(cc="vegas", recovery="newreno")["recovery"] == "newreno"


def test_without_a_handshake_data_leaves_at_the_start_one_handshake_earlier():
    # (As ns-2's TCP-Linux sends its initial window with its SYN.)
    # 10 Mb/s, 10 ms, an ACK per segment, no options: a SYN or SYN-ACK is
    # 44 B (35.2 us), an ACK 40 B (32 us), a data segment 1040 B (832 us).
    def run(handshake: bool) -> dict:
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="10Mbps", delay="10ms", queue="100p")
        net.tcp(a, b, profile="ns2", handshake=handshake, app=tl.Transfer(size="20000B"))
        return net.run(duration="2s", seed=1).flows.iloc[0]

    one_way, setup = run(False), run(True)
    # The first RTT sample is the first data segment's (2 x 10 ms + 832 us
    # + 32 us), where the handshake's is the SYN's (2 x (10 ms + 35.2 us)).
    assert one_way["rtt_min_s"] == pytest.approx(0.020864, abs=1e-9)
    assert setup["rtt_min_s"] == pytest.approx(0.0200704, abs=1e-9)
    # Nothing else differs: the same transfer, later by the SYN's round
    # trip and the handshake's ACK ahead of the first data segment.
    assert (setup["completion_time_s"] - one_way["completion_time_s"]
            == pytest.approx(0.0200704 + 0.000032, abs=1e-9))
    # 20 segments and the FIN; the handshake adds the SYN and its ACK.
    assert (one_way["sent_packets"], setup["sent_packets"]) == (21, 23)
