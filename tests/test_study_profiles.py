"""The studies on their papers' tools: the inet profile, ns-3 3.18, and presets."""

import pytest
import tcplab as tl
from tcplab import presets


def _flow(res, i=0):
    return res.scenario["flows"][i]


def test_the_inet_profile_sets_inet_2_s_tcp_defaults():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b, cc="vegas", profile="inet")
    f = _flow(net.run(duration="2s"))
    assert f["mss"] == "536B"  # TCP.ned mss
    assert f["rcv_buf"] == f"{14 * 536}B"  # advertisedWindow 14 * mss
    assert (f["delayed_ack"], f["initial_cwnd"], f["initial_ssthresh"]) == (1, 1, "65535B")
    assert not (f["sack"] or f["timestamps"] or f["window_scaling"] or f["limited_transmit"])
    assert (f["min_rto"], f["max_rto"], f["initial_rto"], f["rto"]) == ("1s", "240s", "3s",
                                                                         "inet")
    assert (f["cc"]["alpha"], f["cc"]["beta"], f["cc"]["fine_timeout"]) == (2.0, 4.0, "bsd")


def test_ns3_release_3_18_sets_ns3_of_2013_and_is_refused_elsewhere():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b, profile="ns3", ns3_release="3.18")
    net.tcp(a, b, profile="ns3")
    res = net.run(duration="2s")
    old, new = _flow(res, 0), _flow(res, 1)
    assert (old["initial_cwnd"], old["initial_ssthresh"], old["rcv_buf"]) == (1, "65535B",
                                                                             "65535B")
    assert (old["recovery"], old["recovery_exit"], old["rto"], old["min_rto"]) == (
        "newreno", "flight", "ns3_18", "200ms")
    assert not (old["sack"] or old["timestamps"] or old["limited_transmit"])
    assert (new["ns3_release"], new["recovery"], new["initial_cwnd"]) == ("3.44", "prr", 10)
    bad = tl.Network()
    a, b = bad.host("a"), bad.host("b")
    bad.link(a, b, rate="10Mbps", delay="10ms")
    bad.tcp(a, b, profile="ns2", ns3_release="3.18")
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.ns3_release: the ns2 profile"):
        bad.run(duration="1s")


@pytest.mark.parametrize(("name", "profile", "release"), [
    ("channel", "inet", None), ("westwood", "ns3", "3.18"), ("ack-compression", "ns3", "3.18"),
    ("dumbbell-udp", "ns2", None), ("reverse-traffic", "ns2", None), ("fairness", "ns2", None),
    ("parking-lot", "ns2", None), ("wireless-last-hop", "ns2", None),
])
def test_every_preset_runs_on_its_paper_s_tool(name, profile, release):
    sc = presets.PRESETS[name]()
    for f in sc.to_dict()["flows"]:
        if f["kind"] == "tcp":
            assert f["profile"] == profile, name
            assert f.get("ns3_release") == release, name


def test_dumbbell_udp_at_ns2_defaults_is_window_limited_as_theory_says():
    # 20 packets of 1000 B per round trip: 2 x (10 + 50 + 10) ms of
    # propagation, a 1040-B packet at 10, 2 and 10 Mb/s, its 40-B ACK back.
    res = presets.dumbbell_udp(cc="reno", udp_rate="400kbps", duration="100s").run()
    rtt = 0.140 + 1040 * 8 * (2 / 10e6 + 1 / 2e6) + 40 * 8 * (2 / 10e6 + 1 / 2e6)
    # An upper bound (the shortest round trip); slow start and the UDP
    # packets met at the bottleneck keep it a little below.
    bound = 20 * 8000 / rtt
    assert 0.97 * bound <= res.flow("tcp")["goodput_bps"] <= bound
    # And the cap is the window: four times it, the TCP flow takes more.
    big = presets.dumbbell_udp(cc="reno", udp_rate="400kbps", window=80, duration="100s").run()
    assert big.flow("tcp")["goodput_bps"] > 1.2 * res.flow("tcp")["goodput_bps"]


def test_ns2_s_queue_limit_counts_the_packet_on_the_wire():
    sc = presets.reverse_traffic(reverse_queue="10p", duration="10s")
    links = {ln["name"]: ln for ln in sc.to_dict()["links"] if "name" in ln}
    assert links["bottleneck"]["queue"] == "49p"  # ns-2's limit_ 50
    assert links["bottleneck"]["reverse_queue"] == "10p"
