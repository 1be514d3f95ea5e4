"""BBRv2 and BBRv3 beside v1: the `version` key, its checks, and the behaviours their papers
and Google's reports publish, on the validation dumbbell (10 Mb/s, 100 ms: a BDP of 83
packets)."""

import re

import pytest
import tcplab as tl
from tcplab import presets

BDP = 10e6 * 0.1 / 8 / 1500


def alone(cc: dict, buffer: float = 1.0, per: float = 0.0, dur: float = 60.0,
          trace: list[str] | None = None) -> tl.Results:
    net = tl.Network()
    r0, r1 = net.router("r0"), net.router("r1")
    net.link(r0, r1, rate="10Mbps", delay="48ms", name="bottleneck",
             queue=f"{max(1, round(buffer * BDP))}p", loss=tl.Uniform(per) if per else None)
    s, d = net.host("s"), net.host("d")
    net.link(s, r0, rate="100Mbps", delay="1ms")
    net.link(r1, d, rate="100Mbps", delay="1ms")
    net.tcp(s, d, cc=cc, profile="linux")
    return net.run(duration=f"{dur}s", seed=1, trace=trace)


def bbr(version: str, **params) -> dict:
    return {"name": "bbr", "version": version, **params}


def queue_bdps(res: tl.Results) -> float:
    link = res.links.set_index(["link", "src"]).loc[("bottleneck", "r0")]
    return float(link["queue_mean_packets"]) / BDP


# ---- the setting ----------------------------------------------------------------------


def effective_cc(cc) -> dict:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b, cc=cc)
    return net.scenario(duration="1s").check()["flows"][0]["cc"]


def test_the_versions_resolve_to_their_parameters_and_v1_stays_the_default() -> None:
    assert "version" not in effective_cc("bbr")
    assert effective_cc(bbr("v1"))["version"] == "v1"
    assert effective_cc(bbr("v3")) == {"name": "bbr", "version": "v3", "loss_thresh": 0.02,
                                       "beta": 0.3, "ecn_thresh": 0.5,
                                       "inflight_headroom": 0.15, "ecn": False}
    assert effective_cc(bbr("v2", ecn=True))["ecn"] is True


def test_naming_v1_runs_the_default_bbr() -> None:
    one, named = alone("bbr", dur=10), alone(bbr("v1"), dur=10)
    cols = ["goodput_bps", "retransmitted_segments", "rtt_mean_s"]
    assert one.flows[cols].equals(named.flows[cols])


@pytest.mark.parametrize(("cc", "path", "message"), [
    (bbr("v4"), "flows[0].cc.version",
     "'v4' is not a version of 'bbr' (allowed: 'v1', 'v2', 'v3')"),
    (bbr("v3", loss_thresh=0), "flows[0].cc.loss_thresh", "0 must be in [1/256, 1)"),
    (bbr("v3", beta=1.0), "flows[0].cc.beta", "must be in [0, 1)"),
    (bbr("v2", ecn_thresh=2), "flows[0].cc.ecn_thresh", "must be in [0, 1]"),
    (bbr("v3", bw_window_rounds=10), "flows[0].cc.bw_window_rounds", "not a parameter"),
    (bbr("v1", beta=0.3), "flows[0].cc.beta", "not a parameter"),
])
def test_bad_versions_and_parameters_are_refused_with_the_field_named(cc, path, message) -> None:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b, cc=cc)
    with pytest.raises(tl.ScenarioError, match=re.escape(message)) as info:
        net.scenario(duration="1s").run()
    assert info.value.path == path


def test_v2_and_v3_cannot_run_unpaced() -> None:
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="10ms")
    net.tcp(a, b, cc=bbr("v3"), pacing=False)
    with pytest.raises(tl.ScenarioError, match="bbr paces by design"):
        net.scenario(duration="1s").run()


# ---- behaviour ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v3"])
def test_alone_it_fills_the_link_with_a_short_queue_even_in_a_deep_buffer(version) -> None:
    # Google's design goal and the check: the mean queue of v3 alone
    # at a 10-BDP buffer is at most 1.5 BDP (a loss-based flow fills it).
    res = alone(bbr(version), buffer=10)
    assert res.flows["goodput_bps"].iloc[0] > 0.95 * 10e6 * 1448 / 1500
    assert queue_bdps(res) < 0.25
    cubic = alone("cubic", buffer=10)
    assert queue_bdps(cubic) > 5


def test_in_a_shallow_buffer_v3_retransmits_little_and_less_than_v1() -> None:
    # 0.1 BDP (8 packets): v1 ignores loss (3.3% retransmitted); v3's
    # inflight_hi stops its probes where losses pass 2%.
    v1, v3 = alone("bbr", buffer=0.1), alone(bbr("v3"), buffer=0.1)
    r1, r3 = (float(r.flows["retransmission_ratio"].iloc[0]) for r in (v1, v3))
    assert r3 <= 0.01 < r1
    assert v3.flows["goodput_bps"].iloc[0] > 0.85 * 10e6 * 1448 / 1500


def test_losses_reach_the_model_through_the_sender() -> None:
    # inflight_hi is set only by losses (or ECN) above the threshold: with
    # the sender's loss accounting cut off it would stay unset all run.
    res = alone(bbr("v3"), buffer=0.1, dur=20, trace=["cc:inflight_hi"])
    _, hi = res.trace("cc:inflight_hi", flow=0)
    assert len(hi) > 0 and 8 <= hi.min() <= hi.max() <= 3 * BDP


@pytest.mark.parametrize(("per", "low", "high"), [(0.01, 0.55, 0.85), (0.03, 0.2, 0.45)])
def test_random_loss_below_and_above_the_threshold(per: float, low: float, high: float) -> None:
    # Below the 2% loss threshold v3 keeps most of the link between probes
    # (its lower bounds come back at every REFILL); CUBIC at 1% keeps an
    # eighth. Above it, v3 backs off too (a third of the link at 3%).
    got = float(alone(bbr("v3"), per=per).flows["goodput_bps"].iloc[0]) / 10e6
    assert low < got < high
    if per == 0.01:
        assert float(alone("cubic", per=per).flows["goodput_bps"].iloc[0]) / 10e6 < 0.2


def test_the_bbr_versions_preset_pits_each_version_against_cubic() -> None:
    res = presets.bbr_versions(version="v3", buffer=2, duration="30s").run()
    f = res.flows.set_index("flow")
    assert list(f["cc"]) == ["bbr", "cubic"]
    share = f.loc["bbr", "goodput_bps"] / f["goodput_bps"].sum()
    assert 0.2 < share < 0.8
    with pytest.raises(tl.ScenarioError, match="'v9' is not v1, v2 or v3"):
        presets.bbr_versions(version="v9")


def test_with_shallow_ecn_v3_keeps_the_queue_near_the_marking_threshold() -> None:
    # A 2-ms path through CoDel marking at a 1-ms sojourn (DCTCP-style):
    # with `ecn` (the route's ecn_low) v3's ECN bounds hold the queue near
    # the threshold (about 1 ms); without, marks are no signal and its
    # probes queue twice that.
    def queueing(ecn: bool) -> tuple[float, float]:
        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="1Gbps", delay="0.5ms")
        net.link(r, b, rate="100Mbps", delay="0.5ms",
                 queue={"kind": "codel", "ecn": True, "ce_threshold": "1ms", "limit": "1000p"})
        net.tcp(a, b, cc=bbr("v3", ecn=ecn), ecn=True, profile="linux")
        f = net.run(duration="10s", seed=1).flows.iloc[0]
        return float(f["rtt_mean_s"] - f["rtt_min_s"]), float(f["goodput_bps"])

    (on, g_on), (off, g_off) = queueing(True), queueing(False)
    assert on < 1.5e-3 < 1.8e-3 < off
    assert min(g_on, g_off) > 0.9 * 100e6 * 1448 / 1500
