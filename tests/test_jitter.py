"""Delay jitter on a link direction: distributions, order kept or not, and bad input."""

from __future__ import annotations

import pytest
import tcplab as tl


def net_with(jitter: dict[str, object] | None, *, tcp: bool = False,
             udp: str | None = "1Mbps") -> tl.Network:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms, jittered)- d."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p", jitter=jitter, name="radio")
    if udp:
        net.udp(s, d, rate=udp, size=972, name="cbr")
    if tcp:
        net.tcp(s, d, cc="newreno", sack=True, rcv_buf="4MiB", name="tcp")
    return net


def test_uniform_jitter_stays_within_its_bounds_and_has_its_mean() -> None:
    base = net_with(None).run(duration="30s").flow("cbr")
    res = net_with({"dist": "uniform", "low": "2ms", "high": "8ms", "reorder": True}).run(
        duration="30s").flow("cbr")
    # Light load: every packet takes the path's own delay, plus its draw.
    assert base.delay_min_s == pytest.approx(base.delay_max_s, abs=1e-6)
    d0 = base.delay_min_s
    assert d0 + 0.002 <= res.delay_min_s < d0 + 0.0021
    assert d0 + 0.0079 < res.delay_max_s <= d0 + 0.008
    assert res.delay_mean_s == pytest.approx(d0 + 0.005, abs=2e-4)


@pytest.mark.parametrize("jitter, mean", [
    ({"dist": "exponential", "mean": "5ms"}, 0.005),
    ({"dist": "pareto", "scale": "2ms", "shape": 3}, 0.003),
    ({"dist": "normal", "mean": "5ms", "std": "1ms"}, 0.005),
])
def test_each_distribution_adds_its_mean(jitter: dict[str, object], mean: float) -> None:
    d0 = net_with(None).run(duration="30s").flow("cbr").delay_mean_s
    got = net_with({**jitter, "reorder": True}).run(duration="30s").flow("cbr").delay_mean_s
    assert got - d0 == pytest.approx(mean, rel=0.05)


def test_jitter_keeps_the_order_unless_reordering_is_asked_for() -> None:
    jitter = {"dist": "uniform", "high": "5ms"}
    kept = net_with(jitter, tcp=True, udp=None).run(duration="20s").flow("tcp")
    mixed = net_with({**jitter, "reorder": True}, tcp=True, udp=None).run(
        duration="20s").flow("tcp")
    # No loss anywhere: duplicate ACKs come only from packets overtaking.
    assert kept.dupacks == 0 and kept.retransmitted_segments == 0
    assert mixed.dupacks > 100
    # Kept in order, a packet may wait behind the one before it: the delay
    # grows past what the distribution alone gives.
    assert kept.goodput_bps > 0.9 * 20e6 * 1448 / 1500


def test_a_bad_jitter_is_refused_by_field() -> None:
    for jitter, field in [({"dist": "uniform"}, "links[1].jitter.high"),
                          ({"dist": "normal", "mean": "1ms"}, "links[1].jitter.std"),
                          ({"dist": "exponential", "mean": "1ms", "std": "1ms"},
                           "links[1].jitter.std"),
                          ({"dist": "uniform", "high": "-1ms"}, "links[1].jitter.high"),
                          ({"dist": "gauss"}, "links[1].jitter.dist")]:
        with pytest.raises(tl.ScenarioError) as e:
            net_with(jitter).run(duration="1s")
        assert e.value.path == field, (jitter, e.value.path, str(e.value))
