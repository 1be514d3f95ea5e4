"""Make docs/figures/aqm_delay.png: queueing delay at a bottleneck over time,
drop-tail against CoDel and FQ-CoDel, on the same run.

Four NewReno bulk flows (starting 0, 5, 10, 15 s) and a 100 kb/s UDP flow
share a 10 Mb/s, 20 ms bottleneck; the figure shows the packets' sojourns in
the bottleneck's queue (trace "sojourn"), averaged over 50 ms, and prints
the UDP flow's mean one-way delay under each discipline.

    python docs/figures/aqm_delay.py
"""

from pathlib import Path

import numpy as np
import tcplab as tl
from tcplab.plot import save, timeseries

QUEUES = [("drop-tail, 100 packets", "100p"), ("CoDel", {"kind": "codel"}),
          ("FQ-CoDel", {"kind": "fq_codel"})]
BIN = 0.05  # s


def binned(t: np.ndarray, v: np.ndarray, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the samples in each BIN-long interval (NaN where there are none)."""
    edges = np.arange(0.0, end + BIN, BIN)
    idx = np.digitize(t, edges) - 1
    sums = np.bincount(idx, weights=v, minlength=len(edges))
    counts = np.bincount(idx, minlength=len(edges))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / counts
    return edges[:-1] + BIN / 2, mean[:-1]


def main() -> None:
    duration = 30.0
    series = []
    for label, queue in QUEUES:
        net = tl.Network()
        a, r, b = net.host("a"), net.router("r"), net.host("b")
        net.link(a, r, rate="100Mbps", delay="1ms")
        net.link(r, b, rate="10Mbps", delay="20ms", queue=queue, name="bottleneck")
        for i in range(4):
            net.tcp(a, b, app=tl.Bulk(start=5 * i))
        net.udp(a, b, rate="100kbps", size="200B")
        res = net.run(duration=duration, seed=1, trace=["sojourn"], delay_percentiles=True)
        t, v = res.trace("sojourn", link="bottleneck")
        x, y = binned(t, v * 1e3, duration)
        row = res.link("bottleneck")
        udp = res.flow("udp4")["delay_mean_s"] * 1e3
        print(f"{label}: UDP mean one-way delay {udp:.1f} ms")
        series.append((f"{label}: mean {row['sojourn_mean_s'] * 1e3:.1f} ms, "
                       f"p99 {row['sojourn_p99_s'] * 1e3:.0f} ms", x, y))
    # The full width of a two-column paper, as every time series.
    fig = timeseries(series, step=False, ylabel="queueing delay (ms, 50-ms means)",
                     title="4 NewReno flows (from 0, 5, 10, 15 s) and 100 kb/s UDP over "
                     "10 Mb/s, 20 ms")
    ax = fig.axes[0]
    ax.set_yscale("log")  # plain numbers, legend off the data: tcplab.plot's layout
    ax.grid(alpha=0.3, which="both")
    print(f"wrote {save(fig, Path(__file__).with_suffix('.png'))}")


if __name__ == "__main__":
    main()
