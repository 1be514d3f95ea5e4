"""Make docs/figures/workload_slowdown.png: a web-search workload's slowdowns, CUBIC and NewReno.

Four senders share a 100 Mb/s, 1 ms bottleneck (200-packet drop-tail queue)
towards one receiver; transfers arrive as a Poisson process at 50% of the
bottleneck with DCTCP's web-search sizes for 60 s, and the run lasts until
90 s. Prints tl.fct_summary for each variant.

    python docs/figures/workload_slowdown.py
"""

from pathlib import Path

import pandas as pd
import tcplab as tl
from tcplab.plot import cdf


def run(cc: str) -> pd.DataFrame:
    net = tl.Network()
    srcs = net.hosts([f"s{k}" for k in range(4)])
    r, d = net.router("r"), net.host("d")
    net.link(srcs, r, rate="1Gbps", delay="10us", queue="1000p")
    net.link(r, d, rate="100Mbps", delay="1ms", queue="200p", name="bottleneck")
    web = net.tcp(srcs, d, cc=cc, name="web",
                  app=tl.Poisson(sizes="websearch", load=0.5, until="60s"))
    flows = web.of(net.run(duration="90s", seed=1).flows)
    return flows.assign(cc=cc)


def main() -> None:
    flows = pd.concat([run(cc) for cc in ("newreno", "cubic")])
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(tl.fct_summary(flows, by=["cc"]).round(3).to_string(index=False))
    out = Path(__file__).with_suffix(".png")
    cdf(flows, "slowdown", out, hue="cc",
        xlabel="slowdown (completion time / ideal, alone)",
        title="web search at 50% of 100 Mb/s, 60 s of arrivals")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
