"""A paced congestion controller written in Python: AIMD on a rate, not a window.

The controller sets ``tcb.pacing_rate`` (bytes per second) from the
delivery-rate samples of ``on_rate_sample`` and keeps a window of twice
the rate's bandwidth-delay product only as a cap, as rate-based designs
(BBR, PCC, Copa) do. The class attribute ``pacing = True`` paces its flow.

Run it:  python examples/paced_aimd.py
"""

import tcplab as tl


class RateAimd(tl.CongestionControl):
    """Rate-based AIMD: double the rate each round trip until the first
    loss, then add one segment per round trip each round trip; on a loss,
    cut it to 0.7 times the highest delivery rate measured since the last
    cut (not the sending rate: above the path's rate a paced sender builds
    a queue without bound)."""

    pacing = True
    recovery = "sack"
    probes = {"rate": ("B/s", "the pacing rate")}

    def __init__(self):
        self.rate = 0.0  # bytes per second
        self.delivered_max = 0.0  # the highest delivery rate since the last cut
        self.slow_start = True

    def init(self, tcb):
        self.rate = 2 * tcb.cwnd / (tcb.srtt or 0.1)  # twice the initial window per RTT
        tcb.pacing_rate = self.rate

    def on_ack(self, tcb, ack):
        pass  # the window follows the rate in on_rate_sample

    def on_rate_sample(self, tcb, rs):
        rtt = tcb.min_rtt
        if rs.delivery_rate and not rs.is_app_limited:
            self.delivered_max = max(self.delivered_max, rs.delivery_rate)
        if rtt and rs.newly_delivered:
            if self.slow_start:
                self.rate += rs.newly_delivered / rtt  # doubles per round trip
            else:
                self.rate += tcb.mss * rs.newly_delivered / (self.rate * rtt * rtt)
        tcb.pacing_rate = self.rate
        if rtt and tcb.state == "open":
            tcb.cwnd = max(int(2 * self.rate * rtt), 4 * tcb.mss)

    def ssthresh(self, tcb, cause):
        self.slow_start = False
        self.rate = 0.7 * min(self.rate, self.delivered_max or self.rate)
        self.delivered_max = 0.0
        tcb.pacing_rate = self.rate
        rtt = tcb.min_rtt or tcb.srtt or 0.1
        return max(int(2 * self.rate * rtt), 2 * tcb.mss)

    def probe(self, name):
        return self.rate if name == "rate" and self.rate else None


def dumbbell(cc) -> tl.Network:
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="20ms")
    net.link(r, b, rate="10Mbps", delay="1ms", queue=50)
    net.tcp(a, b, cc=cc, sack=True)
    return net


if __name__ == "__main__":
    res = dumbbell(RateAimd()).run(duration="30s", seed=1, trace=["cc:rate"])
    cols = ["goodput_bps", "retransmitted_segments", "rtt_mean_s"]
    print("rate AIMD:", res.flows[cols].iloc[0].to_dict())
    print("bottleneck queue, mean packets:", res.links.queue_mean_packets[2])
