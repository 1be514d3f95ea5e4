"""Pacing as a flow setting (every variant, every form), the profiles' defaults, and
controllers written in Python that set their own pacing rate from rate samples."""

import re
import sys
from pathlib import Path

import pytest
import tcplab as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def dumbbell(queue: int = 50, **tcp) -> tl.Network:
    """100 Mb/s, 20 ms to a 10 Mb/s, 1 ms bottleneck: RTT 42 ms."""
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="20ms")
    net.link(r, b, rate="10Mbps", delay="1ms", queue=queue)
    net.tcp(a, b, **tcp)
    return net


def effective(**tcp) -> dict:
    return dumbbell(**tcp).scenario(duration="1s").check()["flows"][0]


def refuse(net: tl.Network, message: str, path: str) -> None:
    with pytest.raises(tl.ScenarioError, match=re.escape(message)) as info:
        net.scenario(duration="1s").run()
    assert info.value.path == path


# ---- the setting and its defaults ------------------------------------------------------


@pytest.mark.parametrize(("profile", "cc", "form"), [
    ("paper", "newreno", False), ("paper", "bbr", "segment"),
    ("linux", "cubic", False), ("linux", "bbr", "linux"),
    ("ns3", "newreno", False), ("ns3", "bbr", "ns3"),
    ("ns2", "bbr", "segment"), ("inet", "reno", False),
])
def test_only_bbr_is_paced_by_default(profile: str, cc: str, form) -> None:
    assert effective(profile=profile, cc=cc)["pacing"] == form


def test_the_linux_profile_paces_a_flow_with_a_maximum_pacing_rate() -> None:
    # SO_MAX_PACING_RATE sets SK_PACING_NEEDED: Linux's internal pacing.
    f = effective(profile="linux", cc="cubic", max_pacing_rate="1Gbps")
    assert (f["pacing"], f["max_pacing_rate"]) == ("linux", "1Gbps")
    assert effective(profile="paper", cc="cubic", max_pacing_rate="1Gbps")["pacing"] is False


@pytest.mark.parametrize(("profile", "form", "iw", "cap"), [
    ("paper", "segment", True, None), ("linux", "linux", False, None),
    ("ns3", "ns3", False, "4Gbps"), ("ns2", "segment", True, None),
])
def test_pacing_true_is_the_profiles_form(profile: str, form: str, iw: bool, cap) -> None:
    f = effective(profile=profile, cc="newreno", pacing=True)
    assert (f["pacing"], f["pace_initial_window"], f.get("max_pacing_rate")) == (form, iw, cap)
    assert (f["pacing_ss_ratio"], f["pacing_ca_ratio"]) == (200, 120)


def test_bad_pacing_settings_are_refused_with_the_field_named() -> None:
    refuse(dumbbell(cc="bbr", pacing=False), "bbr paces by design", "flows[0].pacing")
    refuse(dumbbell(pacing="fast"), "'fast' is not a pacing form", "flows[0].pacing")
    for field in ("pacing_ss_ratio", "pacing_ca_ratio"):
        for bad in (0, 1001):
            refuse(dumbbell(**{field: bad}), f"{bad} percent is not a pacing ratio",
                   f"flows[0].{field}")
    refuse(dumbbell(max_pacing_rate="NaN"), "NaN is not a rate", "flows[0].max_pacing_rate")
    refuse(dumbbell(max_pacing_rate=-1), "is too small", "flows[0].max_pacing_rate")


def test_every_form_paces_a_loss_based_variant_and_changes_its_run() -> None:
    def run(pacing):
        return dumbbell(cc="newreno", pacing=pacing).run(duration="10s", seed=1)
    base = run(False)
    for form in ("linux", "ns3", "segment"):
        paced = run(form)
        # Pacing spreads each ACK's releases: the bottleneck queue is lower
        # on average; the path stays full.
        assert (paced.links.queue_mean_packets[2] < base.links.queue_mean_packets[2]), form
        assert paced.flows.goodput_bps[0] > 0.95 * 10e6 * 0.95, form


def test_a_maximum_pacing_rate_caps_goodput_at_it() -> None:
    # 4 Mb/s of payload at most, on a 10 Mb/s path: goodput is the cap
    # (less the first round trips, in slow start below it).
    for form in ("linux", "ns3", "segment"):
        res = dumbbell(cc="cubic", pacing=form, max_pacing_rate="4Mbps").run(
            duration="20s", seed=1)
        assert 0.97 * 4e6 < res.flows.goodput_bps[0] <= 4e6, form


# ---- Python controllers that pace ------------------------------------------------------


class ConstantRate(tl.CongestionControl):
    """A fixed pacing rate under a window that never binds."""

    pacing = True

    def __init__(self, rate: float = 250_000.0):
        self.rate = rate
        self.samples: list = []

    def init(self, tcb):
        tcb.cwnd = 1 << 30
        tcb.pacing_rate = self.rate

    def on_ack(self, tcb, ack):
        pass

    def on_rate_sample(self, tcb, rs):
        self.samples.append((rs.now, rs.delivery_rate, rs.is_app_limited, rs.prior_in_flight,
                             rs.bytes_in_flight, rs.delivered, rs.interval))


def test_a_python_controllers_rate_sets_the_goodput() -> None:
    # 250,000 B/s of payload = 2 Mb/s on a 10 Mb/s path: every form sends
    # at that rate (the formula is not used), with no queue.
    for form in ("linux", "ns3", "segment"):
        cc = ConstantRate()
        res = dumbbell(cc=cc, pacing=form).run(duration="20s", seed=1)
        assert 0.99 * 2e6 < res.flows.goodput_bps[0] <= 2.0e6, form
        assert res.links.queue_max_packets[2] <= 2, form
        # The rate samples measure the sending rate (after the first round
        # trip), and the bytes in flight before and after each ACK.
        rates = [r for t, r, *_ in cc.samples if t > 1 and r is not None]
        assert len(rates) > 1000
        assert all(abs(r - 250_000) < 0.02 * 250_000 for r in rates), form
        assert all(p >= f - 1448 for _, _, _, p, f, *_ in cc.samples), form


def test_rate_samples_after_an_idle_period_are_app_limited() -> None:
    cc = ConstantRate(rate=1e6)
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="20ms")
    net.tcp(a, b, cc=cc, app=tl.OnOff(schedule=[("0s", "2s"), ("4s", "6s")]))
    net.run(duration="6s", seed=1)
    limited = [t for t, _, app, *_ in cc.samples if app]
    # None while the application keeps the sender busy; those of the
    # segments sent after the pause, until what was in flight at the pause
    # has been delivered, are.
    assert not [t for t in limited if t < 2]
    assert limited and all(4 < t < 4.2 for t in limited)


def test_rate_samples_count_the_losses_since_their_segment_left() -> None:
    class Seen(ConstantRate):
        def on_rate_sample(self, tcb, rs):
            self.samples.append((rs.lost, rs.tx_in_flight, rs.delivered))

    # 2 MB/s into a 10 Mb/s link with a 20-packet queue: the queue drops;
    # RACK marks them lost, and segments sent before that and SACKed after
    # it give samples with losses (a retransmission's own sample has none
    # since it left).
    cc = Seen(rate=2e6)
    dumbbell(queue=20, cc=cc, profile="linux").run(duration="5s", seed=1)
    sampled = [(lost, tx) for lost, tx, d in cc.samples if d > 0]
    assert any(lost > 0 for lost, _ in sampled)
    # A sample's segment was in flight when it was sent: at least itself.
    assert all(tx >= 1000 for _, tx in sampled)
    # Without loss (a rate below the link's), nothing is ever lost.
    calm = Seen(rate=250_000.0)
    dumbbell(cc=calm, profile="linux").run(duration="5s", seed=1)
    assert all(lost == 0 for lost, _, _ in calm.samples)


@pytest.mark.parametrize(("bad", "says"), [
    (float("nan"), "set tcb.pacing_rate = NaN"), (-1.0, "set tcb.pacing_rate = -1"),
    (float("inf"), "set tcb.pacing_rate = inf"),
])
def test_a_bad_rate_from_a_python_controller_stops_the_run_naming_it(bad, says) -> None:
    class Bad(ConstantRate):
        def on_rate_sample(self, tcb, rs):
            tcb.pacing_rate = bad

    with pytest.raises(ValueError, match=re.escape(says)) as info:
        dumbbell(cc=Bad()).run(duration="2s", seed=1)
    assert "on_rate_sample() of the Python controller" in str(info.value)
    assert "Bad" in str(info.value)


def test_a_rate_on_an_unpaced_flow_is_refused() -> None:
    class Unpaced(ConstantRate):
        pacing = None

    with pytest.raises(ValueError, match="its flow is not paced"):
        dumbbell(cc=Unpaced()).run(duration="1s", seed=1)


def test_the_paced_aimd_example_keeps_the_queue_low_and_the_path_full() -> None:
    import paced_aimd

    mine = paced_aimd.dumbbell(paced_aimd.RateAimd()).run(duration="30s", seed=1,
                                                          trace=["cc:rate"])
    reno = paced_aimd.dumbbell("newreno").run(duration="30s", seed=1)
    assert mine.flows.goodput_bps[0] > 0.9 * 10e6
    assert mine.links.queue_mean_packets[2] < 0.6 * reno.links.queue_mean_packets[2]
    # The rate is cut at each loss and grows between: a sawtooth.
    _, rate = mine.trace("cc:rate", flow=0)
    cuts = sum(1 for x, y in zip(rate[:-1], rate[1:], strict=True) if y < 0.8 * x)
    assert cuts >= 5


def test_a_rate_set_in_ssthresh_takes_effect() -> None:
    # ssthresh's tcb is a view the core cannot write back at once: the rate
    # it sets is applied before the next hook, not lost.
    class CutOnLoss(ConstantRate):
        recovery = "sack"

        def __init__(self):
            super().__init__(rate=1e6)  # 8 Mb/s on a 10 Mb/s path

        def ssthresh(self, tcb, cause):
            tcb.pacing_rate = 125_000.0  # 1 Mb/s from the first loss on
            return 1 << 30

    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="10Mbps", delay="20ms", loss=tl.Uniform(0.001))
    net.tcp(a, b, cc=CutOnLoss(), sack=True)
    res = net.run(duration="30s", seed=1)
    assert res.flows.fast_retransmits[0] >= 1
    assert 1e6 < res.flows.goodput_bps[0] < 2e6


@pytest.mark.parametrize("sack", [False, True])
def test_ns3s_fast_retransmission_passes_a_running_pacing_timer(sack: bool) -> None:
    # ns-3's EnterRecovery sends it with SendDataPacket, whatever the pacing
    # timer; under PRR (the ns3 profile's) as under the others.
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="20ms")
    net.link(r, b, rate="10Mbps", delay="1ms", queue=50, loss=tl.Uniform(0.005))
    net.tcp(a, b, cc="newreno", profile="ns3", sack=sack, pacing="ns3",
            max_pacing_rate="200kbps")
    ev = net.run(duration="30s", seed=1, trace=["events"]).events
    fast = ev[ev.event == "fast_retransmit"]
    resent = ev[ev.event == "retransmit"].set_index("seq").time_s
    assert len(fast) >= 2
    for t, seq in zip(fast.time_s, fast.seq, strict=True):
        assert t in set(resent.loc[[seq]]), (t, seq)


def test_a_rate_set_in_on_ack_sample_is_kept_and_checked() -> None:
    class SetsInSample(ConstantRate):
        def __init__(self, rate: float):
            super().__init__(rate=1e6)
            self.later = rate

        def on_ack_sample(self, tcb, ack):
            tcb.pacing_rate = self.later

    # 1 Mb/s from the first ACK on (the first round trip at 8 Mb/s).
    res = dumbbell(cc=SetsInSample(125_000.0)).run(duration="20s", seed=1)
    assert 0.99 * 1e6 < res.flows.goodput_bps[0] < 1.02e6
    with pytest.raises(ValueError, match=r"on_ack_sample\(\) of the Python controller"):
        dumbbell(cc=SetsInSample(float("nan"))).run(duration="2s", seed=1)


def test_ns3_3_18_has_no_pacing_of_its_own() -> None:
    f = effective(profile="ns3", ns3_release="3.18", cc="bbr")
    assert (f["pacing"], f["pace_initial_window"], f.get("max_pacing_rate")) == (
        "segment", True, None)
    assert effective(profile="ns3", ns3_release="3.18", pacing=True)["pacing"] == "segment"
