"""A transfer's slowdown is at least 1 on links whose capacity varies: the ideal time is a
lower bound on a capacity trace (the opportunities from the transfer's own start) and on a
rate and delay schedule (its highest rate, its shortest delay), not a mean."""

import tcplab as tl


def mean_rate_slowdowns(flows, one_way_s, rev_s, bps, header=40, mss=1460):
    """The slowdowns the ideal at a mean (or first) rate gave before: not a lower bound."""
    wire = flows.transfer_bytes + (flows.transfer_bytes + mss - 1) // mss * header
    return flows.completion_time_s / (2 * one_way_s + rev_s + wire * 8 / bps)


def test_slowdowns_on_a_cellular_trace_are_at_least_one(mahimahi_traces):
    lte = mahimahi_traces / "Verizon-LTE-short"
    net = tl.Network()
    s, gw, phone = net.host("s"), net.router("gw"), net.host("phone")
    net.link(s, gw, rate="100Mbps", delay="5ms")
    net.link(gw, phone, delay="20ms", queue="1000p", rate=tl.Trace(f"{lte}.down"),
             reverse_rate=tl.Trace(f"{lte}.up"))
    net.tcp(s, phone, cc="cubic", name="w",
            app=tl.Poisson(sizes="websearch", load=0.3, until="200s"))
    res = net.run(duration="250s", seed=2)
    done = res.flows.dropna(subset=["completion_time_s"])
    assert len(done) >= 20
    assert done["slowdown"].min() >= 1.0
    # At the trace's mean rate, transfers that met a burst of capacity read below 1.
    mean = res.link("gw-phone", "gw").rate_bps
    assert mean_rate_slowdowns(done, 0.025, 0.025, mean).min() < 0.9


def test_slowdowns_under_a_rate_schedule_are_at_least_one():
    net = tl.Network()
    a, b = net.host("a"), net.host("b")
    # 1 Mb/s and 50 ms until 1 s, then 20 Mb/s and 10 ms.
    net.link(a, b, rate="1Mbps", delay="50ms",
             schedule=[{"at": "1s", "rate": "20Mbps", "delay": "10ms"}])
    net.tcp(a, b, cc="cubic", app=tl.Transfer(size="200kB", start="2s"))
    res = net.run(duration="10s")
    f = res.flows.iloc[0]
    assert f["completion_time_s"] < 1.0 and f["slowdown"] >= 1.0
    # The first period's rate and delay made an "ideal" slower than the transfer itself.
    assert mean_rate_slowdowns(res.flows, 0.05, 0.05, 1e6).iloc[0] < 0.5
