"""Make docs/figures/cellular.png: CUBIC and BBR over a real LTE capacity trace.

One bulk flow from a server to a phone over Verizon's LTE trace pair
(mahimahi's Verizon-LTE-short.down/.up: `tcplab traces download`, or --traces DIR):
the server's 1 Gb/s, 5 ms link, then the cellular link with 20 ms of
propagation each way and a 100-packet drop-tail queue. The panels show the
trace's capacity (Mb/s in 200-ms bins), each variant's congestion window,
and its smoothed RTT, over the first 30 s; the script prints goodput and the
95th-percentile one-way delay of each.

    python docs/figures/cellular.py [--traces DIR]
"""

import argparse
from pathlib import Path

import numpy as np
import tcplab as tl
from tcplab import traces as mahimahi
from tcplab.plot import place_legend, save, tidy_layout

HERE = Path(__file__).resolve().parent
DURATION = 30.0
BIN = 0.2  # s
COLORS = {"cubic": "tab:blue", "bbr": "tab:red"}


def capacity(trace: Path, end: float) -> tuple[np.ndarray, np.ndarray]:
    """The trace's capacity in Mb/s per BIN (1504 B per opportunity), from 0 to ``end``."""
    ms = np.loadtxt(trace, dtype=np.int64, ndmin=1)
    period = ms[-1]
    reps = int(end * 1000 // period) + 1
    times = (ms[None, :] + period * np.arange(reps)[:, None]).ravel() / 1000
    edges = np.arange(0.0, end + BIN / 2, BIN)
    counts, _ = np.histogram(times[(times > 0) & (times <= end)], bins=edges)
    return edges[:-1], counts * 1504 * 8 / BIN / 1e6


def run(cc: str, traces: Path) -> tl.Results:
    net = tl.Network()
    server, gw, phone = net.host("server"), net.router("gw"), net.host("phone")
    net.link(server, gw, rate="1Gbps", delay="5ms")
    net.link(gw, phone, delay="20ms", queue="100p", name="lte",
             rate=tl.Trace(traces / "Verizon-LTE-short.down"),
             reverse_rate=tl.Trace(traces / "Verizon-LTE-short.up"))
    net.tcp(server, phone, cc=cc, name=cc)
    return net.run(duration=DURATION, seed=1, trace=["cwnd", "srtt"], delay_percentiles=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", type=Path,
                   help="folder with mahimahi's Verizon-LTE-short.down and .up (default: "
                   "TCPLAB_TRACES, the folder of `tcplab traces download`, ../shared/traces/"
                   "mahimahi)")
    traces, missing = mahimahi.missing(p.parse_args().traces, "Verizon-LTE-short")
    if traces is None or missing is not None:
        raise SystemExit(f"{missing}: {mahimahi.HELP}")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.16, 5.0))
    ax_cap, ax_cwnd, ax_rtt = fig.subplots(3, 1, sharex=True)
    t, c = capacity(traces / "Verizon-LTE-short.down", DURATION)
    ax_cap.fill_between(t, c, step="post", color="0.75", lw=0)
    ax_cap.set_ylabel("capacity (Mb/s)", fontsize=8)
    for cc in COLORS:
        res = run(cc, traces)
        f = res.flow(cc)
        label = (f"{cc.upper() if cc == 'bbr' else 'CUBIC'}: {f.goodput_bps / 1e6:.2f} Mb/s, "
                 f"p95 delay {f.delay_p95_s * 1e3:.0f} ms")
        print(label)
        tc, vc = res.trace("cwnd", flow=cc)
        ax_cwnd.step(tc, vc / 1e3, where="post", color=COLORS[cc], lw=0.8, label=label)
        tr, vr = res.trace("srtt", flow=cc)
        ax_rtt.step(tr, vr * 1e3, where="post", color=COLORS[cc], lw=0.8)
    mean = res.link("lte", "gw").rate_bps / 1e6
    ax_cap.set_title(f"Verizon LTE downlink (mahimahi trace, mean {mean:.1f} Mb/s), 20 ms "
                     "each way, 100-packet drop-tail queue", fontsize=8)
    ax_cwnd.set_ylabel("cwnd (kB)", fontsize=8)
    place_legend(ax_cwnd, fontsize=7)  # where it covers no data (else below the panel)
    ax_rtt.set_ylabel("smoothed RTT (ms)", fontsize=8)
    ax_rtt.set_ylim(bottom=0)
    ax_rtt.set_xlabel("time (s)", fontsize=8)
    ax_rtt.set_xlim(0, DURATION)
    for ax in (ax_cap, ax_cwnd, ax_rtt):
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3, which="both")
    fig.align_ylabels()
    tidy_layout(fig)
    print(f"wrote {save(fig, HERE / 'cellular.png')}")


if __name__ == "__main__":
    main()
