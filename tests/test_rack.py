"""RACK-TLP (issue 18): the linux profile's loss detection.

Exact traces of a lost retransmission, the reordering timer and the tail
loss probe are in crates/tcplab-core/tests/tcp_traces.rs; here, what a user
sets and what it does to a whole run.
"""

import pytest
import tcplab as tl


def westwood_path(per: float, **tcp: object) -> tl.Network:
    net = tl.Network()
    s, r, k = net.host("s"), net.router("r"), net.host("k")
    net.link(s, r, rate="10Mbps", delay="45ms", mtu=400)
    net.link(r, k, rate="2Mbps", delay="10us", mtu=400, name="bn",
             loss=tl.Uniform(per) if per else None)
    net.tcp(s, k, profile="linux", delayed_ack=1, **tcp)
    return net


def effective(**tcp: object) -> dict:
    return westwood_path(0, **tcp).scenario(duration="1s").check()["flows"][0]


def test_the_linux_profile_detects_losses_by_rack_with_sack_only():
    assert (effective()["rack"], effective()["tlp"]) == (True, True)
    assert effective(sack=False)["rack"] is False
    assert effective(cc="tahoe")["rack"] is False
    assert effective(recovery="newreno")["rack"] is False
    paper = tl.Network()
    a, b = paper.host("a"), paper.host("b")
    paper.link(a, b, rate="1Mbps", delay="1ms")
    paper.tcp(a, b, cc="sack")
    assert paper.scenario(duration="1s").check()["flows"][0]["rack"] is False


@pytest.mark.parametrize(("tcp", "message"), [
    ({"rack": True, "sack": False}, "flows[0].rack: RACK needs the SACK option on (RFC 8985)"),
    ({"rack": False, "tlp": True}, "flows[0].tlp: the tail loss probe needs rack on (RFC 8985)"),
    ({"rack": True, "recovery": "newreno"},
     "flows[0].rack: RACK does not drive the newreno recovery (allowed: recovery sack or prr)"),
])
def test_rack_settings_that_cannot_work_are_refused_before_the_run(tcp, message):
    with pytest.raises(tl.ScenarioError) as info:
        westwood_path(0, **tcp).run(duration="1s")
    assert str(info.value) == message


def test_rack_finds_lost_retransmissions_that_would_time_out():
    # Under random loss, retransmissions are lost too: RFC 6675 alone
    # waits for the timer each time; RACK finds them one RTT later.
    def run(rack: bool) -> dict:
        res = westwood_path(0.01, cc="cubic", rack=rack).run(duration="600s", seed=1)
        return res.flows.iloc[0]

    without, with_rack = run(False), run(True)
    assert without["timeouts"] >= 5
    assert with_rack["timeouts"] == 0
    assert with_rack["goodput_bps"] >= without["goodput_bps"]
