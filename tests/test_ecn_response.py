"""How the window comes down after an ECN echo (``ecn_response``): the
defaults each profile resolves, the refusal without PRR, and the CWR state
seen end to end."""

from __future__ import annotations

import numpy as np
import pytest
import tcplab as tl


def one_flow(**tcp) -> tl.Network:
    """s -(100 Mb/s, 1 ms)- r0 -(10 Mb/s, 20 ms, CoDel marking)- r1 -(100 Mb/s, 1 ms)- d."""
    net = tl.Network()
    s, r0, r1, d = net.host("s"), net.router("r0"), net.router("r1"), net.host("d")
    net.link(s, r0, rate="100Mbps", delay="1ms")
    net.link(r0, r1, rate="10Mbps", delay="20ms", queue={"kind": "codel", "ecn": True},
             name="bottleneck")
    net.link(r1, d, rate="100Mbps", delay="1ms")
    net.tcp(s, d, cc="newreno", ecn=True, **tcp)
    return net


def resolved(**tcp) -> str:
    return one_flow(**tcp).scenario(duration=1).check()["flows"][0]["ecn_response"]


def test_each_profile_resolves_its_own_response():
    assert resolved(profile="paper") == "immediate"
    assert resolved(profile="ns2") == "immediate"
    assert resolved(profile="linux") == "linux"
    assert resolved(profile="ns3") == "ns3"
    # Without PRR there is no CWR state to pace: RFC 3168's form.
    assert resolved(profile="linux", recovery="sack") == "immediate"
    assert resolved(profile="paper", recovery="prr", ecn_response="ns3") == "ns3"


def test_a_cwr_response_without_prr_is_refused_by_name():
    with pytest.raises(tl.ScenarioError) as info:
        one_flow(recovery="newreno", ecn_response="linux").scenario(duration=1).run()
    assert info.value.path == "flows[0].ecn_response"
    assert "PRR" in str(info.value) and "newreno" in str(info.value)


def cwr_episodes(res: tl.Results) -> list[float]:
    """How long each stay in the CWR state (code 4) lasted, in seconds."""
    t, v = res.trace("state", flow=0)
    spans, start = [], None
    for ti, vi in zip(t, v, strict=True):
        if vi == 4 and start is None:
            start = ti
        elif vi != 4 and start is not None:
            spans.append(ti - start)
            start = None
    return spans


@pytest.mark.parametrize("profile", ["linux", "ns3"])
def test_cwr_lasts_about_a_round_trip_and_marks_replace_losses(profile):
    res = one_flow(profile=profile).run(duration="30s", seed=1, trace=["state"])
    f = res.flows.iloc[0]
    link = res.links[res.links.link == "bottleneck"].iloc[0]
    assert link["marks"] > 5 and link["drops_aqm"] == 0
    assert f["ecn_reductions"] > 5 and f["fast_retransmits"] == 0 and f["timeouts"] == 0
    spans = cwr_episodes(res)
    assert len(spans) > 5
    # CWR ends with the ACK of the first segment sent after it began: one
    # round trip at least (44 ms of propagation), about one in the median
    # (plus queueing and the delayed ACK).
    assert min(spans) >= 0.044
    assert float(np.median(spans)) < 0.088
    # Goodput holds: within 20% of the 10 Mb/s link's payload rate.
    assert f["goodput_bps"] > 0.8 * 10e6 * 1448 / 1500


def test_the_immediate_response_never_enters_cwr():
    res = one_flow(profile="paper").run(duration="30s", seed=1, trace=["state"])
    assert res.flows.iloc[0]["ecn_reductions"] > 5
    assert cwr_episodes(res) == []
    _, v = res.trace("state", flow=0)
    assert 4 not in set(v.tolist())
