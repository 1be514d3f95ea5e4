"""HyStart and HyStart++ (issue 18): slow start ends on delay, before the
queue overflows.

The path: a -(100 Mb/s, 1 ms)- r -(10 Mb/s, 40 ms, 200 packets)- b, one bulk
flow, linux profile (an RTT sample per ACK from timestamps). Standard slow
start doubles until the 200-packet queue overflows; HyStart sees the RTT
grow as the queue builds and ends slow start with ssthresh = cwnd first.
The exact arithmetic of both algorithms is pinned in the core's unit tests
(crates/tcplab-core/src/cc/slow_start.rs).
"""

import pytest
import tcplab as tl


def run(cc: str, slow_start: str | None = None, **tcp: object) -> tl.Results:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="1ms")
    net.link(r, b, rate="10Mbps", delay="40ms", queue="200p", name="bn")
    net.tcp(a, b, cc=cc, profile="linux", slow_start=slow_start, **tcp)
    return net.run(duration="20s", seed=1, trace=["events"])


def drops(res: tl.Results) -> int:
    return int(res.links.set_index(["link", "src"]).loc[("bn", "r"), "drops_queue"])


def first(res: tl.Results, event: str) -> float:
    t = res.events[res.events["event"] == event]["time_s"]
    return float(t.iloc[0]) if len(t) else float("inf")


def test_the_linux_profile_runs_cubic_with_hystart_and_other_variants_without():
    def slow_start(**tcp: object) -> str:
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="1Mbps", delay="1ms")
        net.tcp(a, b, **tcp)
        return net.scenario(duration="1s").check()["flows"][0]["slow_start"]

    assert slow_start(cc="cubic", profile="linux") == "hystart"
    assert slow_start(cc="reno", profile="linux") == "standard"
    assert slow_start(cc="cubic") == "standard"
    assert slow_start(cc="cubic", profile="ns3") == "standard"


@pytest.mark.parametrize("cc", ["cubic", "newreno"])
def test_hystart_ends_slow_start_before_the_queue_overflows(cc):
    standard, hystart = run(cc, "standard"), run(cc, "hystart")
    assert first(standard, "slow_start_exit") == float("inf")
    exit_time = first(hystart, "slow_start_exit")
    assert exit_time < first(hystart, "fast_retransmit")
    assert exit_time < first(standard, "fast_retransmit")
    # The window at the exit: above the path's BDP (10 Mb/s x 82 ms ~ 100
    # KB), below BDP + queue (~400 KB), where standard slow start overflows.
    ev = hystart.events
    cwnd = float(ev[ev["event"] == "slow_start_exit"]["cwnd"].iloc[0])
    assert 100e3 < cwnd < 400e3
    assert drops(hystart) < drops(standard) / 5
    # The same goodput: the bottleneck stays busy.
    g = [r.flows.iloc[0]["goodput_bps"] for r in (standard, hystart)]
    assert g[1] == pytest.approx(g[0], rel=0.02)


def test_hystart_plus_plus_slows_the_growth_and_drops_less():
    standard, plus = run("newreno", "standard"), run("newreno", "hystart++")
    assert drops(plus) < drops(standard) / 2


def test_a_variant_that_sets_its_own_window_refuses_hystart():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    net.link(a, b, rate="1Mbps", delay="1ms")
    net.tcp(a, b, cc="bbr", slow_start="hystart")
    with pytest.raises(tl.ScenarioError, match=r"flows\[0\]\.slow_start: 'bbr' sets its window"):
        net.run(duration="1s")
