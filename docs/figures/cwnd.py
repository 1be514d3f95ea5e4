"""Make docs/figures/cwnd.png: cwnd of Reno, NewReno and SACK on the Westwood path.

    python docs/figures/cwnd.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import tcplab as tl  # noqa: E402


def main() -> None:
    fig, ax = plt.subplots(figsize=(8, 3.4), dpi=100)
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
        ax.step(t, w / 360, where="post", lw=0.9, label=f"{cc} ({g:.2f} Mb/s)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments of 360 B)")
    ax.set_ylim(0, 60)  # clips NewReno's window inflation in its first recovery (~880)
    ax.set_title("source -(10 Mb/s, 45 ms)- router -(2 Mb/s, PER 0.5%)- sink, 400-B packets")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(__file__).with_suffix(".png")
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
