"""Undo of spurious reductions and F-RTO (issue 54): the linux profile's.

Unit tests with worked numbers are in crates/tcplab-core/src/tcp/tests/
(undo_tests.rs, frto_tests.rs); these runs show what the mechanisms do to a
flow's results, against the same flow with them off.
"""

from __future__ import annotations

import pytest
import tcplab as tl

COLUMNS = ("goodput_bps", "fast_retransmits", "timeouts", "retransmitted_segments")


def run(*, reorder: dict[str, object] | None = None, loss: float = 0.0,
        schedule: list[dict[str, object]] | None = None, duration: str = "20s",
        **tcp: object) -> dict[str, float]:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms)- d; one linux-profile CUBIC flow."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="100p", reorder=reorder,
             loss=tl.Uniform(loss) if loss else None, schedule=schedule)
    net.tcp(s, d, **{"cc": "cubic", "profile": "linux", "name": "tcp", **tcp})
    f = net.run(duration=duration).flow("tcp")
    return {c: f[c] for c in COLUMNS}


@pytest.mark.parametrize("profile", ["paper", "ns3", "ns2", "inet"])
def test_only_the_linux_profile_undoes_and_runs_frto(profile: str) -> None:
    def effective(p: str) -> dict:
        net = tl.Network()
        a, b = net.host("a"), net.host("b")
        net.link(a, b, rate="1Mbps", delay="1ms")
        net.tcp(a, b, profile=p)
        return net.scenario(duration="1s").check()["flows"][0]

    assert (effective("linux")["undo"], effective("linux")["frto"]) == (True, True)
    assert (effective(profile)["undo"], effective(profile)["frto"]) == (False, False)


def test_timestamps_undo_the_reductions_reordering_causes() -> None:
    # 1% of the packets are passed by 5 later ones: the first reorderings
    # start recoveries (RACK's window has not seen reordering yet). The
    # full ACK echoes the original's timestamp (Eifel detection), the
    # reduction is undone, and the window stays large enough for RACK's
    # reordering window to cover the later ones; without undo each
    # reduction slows the flow, so the held packets fall further behind
    # in time and more reorderings look like losses.
    # (The adaptive reordering degree off in both: it alone also keeps the
    # later reorderings from looking like losses.)
    reorder = {"probability": 0.01, "displacement": 5}
    on = run(reorder=reorder, adaptive_reordering=False)
    off = run(reorder=reorder, undo=False, adaptive_reordering=False)
    assert on["goodput_bps"] > 2 * off["goodput_bps"]
    assert off["fast_retransmits"] > 50
    assert on["fast_retransmits"] < off["fast_retransmits"] / 10


def test_real_losses_are_never_undone() -> None:
    on = run(loss=0.01)
    off = run(loss=0.01, undo=False, frto=False)
    assert on == off
    assert on["fast_retransmits"] > 50


def test_frto_sends_new_data_after_a_spurious_timeout() -> None:
    # A 1-s delay spike at 5 s: the timer fires (twice, backed off) while
    # the flight is only delayed. Without timestamps only F-RTO can tell:
    # its new data after the first ACK, then an ACK of data never
    # retransmitted, prove the timeout spurious; without it the sender
    # goes back N over the whole window.
    spike = [{"at": "5s", "delay": "1s"}, {"at": "5.02s", "delay": "10ms"}]
    on = run(schedule=spike, duration="10s", timestamps=False)
    off = run(schedule=spike, duration="10s", timestamps=False, frto=False)
    assert on["timeouts"] == off["timeouts"] >= 1
    # What the spike costs over the same run without it (whose queue overflows
    # now and then): go-back-N resends most of a window, F-RTO a few segments.
    base = run(duration="10s", timestamps=False)["retransmitted_segments"]
    extra_on = on["retransmitted_segments"] - base
    extra_off = off["retransmitted_segments"] - base
    assert extra_off > 100 and 10 * extra_on < extra_off, (extra_on, extra_off)
    assert on["goodput_bps"] > off["goodput_bps"]


class Reno(tl.CongestionControl):
    """Reno in Python, counting the undos the core asks it for."""

    def __init__(self) -> None:
        self.undos: list[tuple[int, int]] = []

    def on_ack(self, tcb, ack) -> None:
        if tcb.cwnd < tcb.ssthresh:
            tcb.cwnd += tcb.mss
        else:
            tcb.cwnd += max(tcb.mss * tcb.mss // tcb.cwnd, 1)

    def undo_cwnd(self, tcb, prior_cwnd: int) -> int:
        self.undos.append((tcb.cwnd, prior_cwnd))
        return max(tcb.cwnd, prior_cwnd)


def test_a_python_controller_gives_the_window_after_an_undo() -> None:
    cc = Reno()
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="100p",
             reorder={"probability": 0.01, "displacement": 5})
    net.tcp(s, d, cc=cc, profile="linux", name="tcp")
    net.run(duration="5s")
    assert cc.undos
    assert all(prior > 0 for _, prior in cc.undos)
