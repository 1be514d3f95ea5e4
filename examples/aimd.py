"""A congestion controller written in Python: Reno's AIMD in 20 lines.

Run it:  python examples/aimd.py
"""

import tcplab as tl


class Aimd(tl.CongestionControl):
    """Additive increase, multiplicative decrease, exactly as RFC 5681 (Reno) grows."""

    def on_ack(self, tcb, ack):
        if tcb.cwnd < tcb.ssthresh:  # slow start: + min(acked, MSS) per ACK, up to ssthresh
            step = min(ack.bytes_acked, tcb.mss)
            if step <= tcb.ssthresh - tcb.cwnd:
                tcb.cwnd += step
                return
            tcb.cwnd = tcb.ssthresh  # the rest of this ACK counts in avoidance
        tcb.cwnd += max(1, tcb.mss * tcb.mss // tcb.cwnd)  # avoidance: + MSS^2 / cwnd

    def ssthresh(self, tcb, cause):  # halve the flight, at least 2 segments
        return max(tcb.flight_size // 2, 2 * tcb.mss)


def westwood_path(cc) -> tl.Network:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="45ms")
    net.link(r, b, rate="2Mbps", delay="10us", loss=tl.Uniform(0.005))
    net.tcp(a, b, cc=cc)
    return net


if __name__ == "__main__":
    mine = westwood_path(Aimd()).run(duration="60s", seed=1, trace=["cwnd"])
    builtin = westwood_path("newreno").run(duration="60s", seed=1, trace=["cwnd"])
    cols = ["goodput_bps", "retransmitted_segments"]
    print("python AIMD:", mine.flows[cols].iloc[0].to_dict())
    print("built-in   :", builtin.flows[cols].iloc[0].to_dict())
    same = (mine.trace("cwnd", flow=0)[1] == builtin.trace("cwnd", flow=0)[1]).all()
    print("identical cwnd traces:", bool(same))
