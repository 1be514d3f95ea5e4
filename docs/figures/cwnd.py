"""Make docs/figures/cwnd.png: cwnd of Reno, NewReno and SACK on the Westwood path.

    python docs/figures/cwnd.py
"""

from pathlib import Path

import tcplab as tl
from tcplab.plot import save, timeseries


def main() -> None:
    series = []
    for cc in ["reno", "newreno", "sack"]:
        net = tl.Network()
        a, r, b = net.host("source"), net.router("router"), net.host("sink")
        net.link(a, r, rate="10Mbps", delay="45ms", mtu=400)
        net.link(r, b, rate="2Mbps", delay="10us", mtu=400, loss=tl.Uniform(0.005),
                 name="bottleneck")
        net.tcp(a, b, cc=cc)
        res = net.run(duration="60s", seed=1, trace=["cwnd"])
        t, w = res.trace("cwnd", flow=0)
        g = res.flow("tcp0")["goodput_bps"] / 1e6
        series.append((f"{cc} ({g:.2f} Mb/s)", t, w / 360))
    # The full width of a two-column paper, as every time series.
    fig = timeseries(series, ylabel="cwnd (segments of 360 B)",
                     title="source -(10 Mb/s, 45 ms)- router -(2 Mb/s, PER 0.5%)- sink, "
                     "400-B packets")
    ax = fig.axes[0]
    ax.set_ylim(0, 60)  # clips NewReno's window inflation in its first recovery (~880)
    print(f"wrote {save(fig, Path(__file__).with_suffix('.png'))}")


if __name__ == "__main__":
    main()
