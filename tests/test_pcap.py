"""Packet traces: tshark reads them, and its counts equal tcplab's own."""

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import tcplab as tl

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None,
                                 reason="tshark not installed (bash .ci/run installs it)")

ROOT_WARNING = "Running as user"


def tshark(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["tshark", "-r", str(path), *args], capture_output=True, text=True)


CHECKSUMS = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
             "-o", "udp.check_checksum:TRUE"]


def fields(path: Path, display_filter: str, *names: str) -> list[list[str]]:
    args = [*CHECKSUMS, "-Y", display_filter, "-T", "fields"]
    args += [a for n in names for a in ("-e", n)]
    out = tshark(path, *args)
    assert out.returncode == 0, out.stderr
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.strip() and ROOT_WARNING not in ln]


def lossy_transfer(tmp_path: Path, capture: str = "tx", snaplen: int = 96,
                   **tcp) -> tl.Results:
    """a -(10 Mb/s)- r -(2 Mb/s, data segments 5, 7, 9 dropped)- b; a 200 KB NewReno transfer
    and a UDP flow the other way."""
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="10Mbps", delay="10ms", name="access")
    net.link(r, b, rate="2Mbps", delay="10ms", name="bottleneck", queue="1000p",
             loss=tl.DropList([5, 7, 9], flow="tcp0", data_only=True))
    tcp.setdefault("delayed_ack", False)
    net.tcp(a, b, cc="newreno", app=tl.Transfer(size="200KB"), **tcp)
    net.udp(b, a, rate="200kbps", size="500B", count=50)
    return net.run(seed=1, trace=["events"],
                   pcap=tl.Pcap(dir=str(tmp_path), capture=capture, snaplen=snaplen))


@pytest.mark.parametrize("options", [{}, {"sack": True, "timestamps": True},
                                     {"window_scaling": False, "rcv_buf": "60KB"}])
def test_tshark_reads_every_trace_without_warnings_and_checksums_are_right(tmp_path, options):
    # A full snap length, so that Wireshark can verify the checksums (it cannot
    # over a truncated payload).
    res = lossy_transfer(tmp_path, snaplen=65535, **options)
    assert len(res.pcap) == 4 and (res.pcap["packets"] > 0).all()
    for path in res.pcap["path"]:
        out = tshark(Path(path), "-q")
        assert out.returncode == 0 and not warnings(out.stderr), out.stderr
        # Wireshark's checksum status: 0 bad, 1 good, 2 unverified.
        bad = fields(Path(path), "ip.checksum.status == 0 || tcp.checksum.status == 0 || "
                     "udp.checksum.status == 0 || _ws.malformed || _ws.expert.severity >= error",
                     "frame.number")
        assert bad == [], path
        good = fields(Path(path), "ip.checksum.status == 1 && (tcp.checksum.status == 1 || "
                      "udp.checksum.status == 1)", "frame.number")
        assert len(good) == res.pcap.set_index("path").loc[path, "packets"], path


def test_tshark_counts_equal_tcplab_counters(tmp_path):
    res = lossy_transfer(tmp_path, sack=True, timestamps=True)
    f = res.flow("tcp0")
    data_file = tmp_path / "access-0.pcap"  # a -> r: every data segment the sender sent
    ack_file = tmp_path / "access-1.pcap"  # r -> a: the ACKs and the UDP flow
    frames = fields(data_file, "frame", "frame.len")
    link = res.link("access", src="a")
    assert len(frames) == link["tx_packets"]
    assert sum(int(x[0]) for x in frames) == link["tx_bytes"]
    retx = fields(data_file, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                  "tcp.seq")
    assert len(retx) == f["retransmitted_segments"] == 3
    dup = fields(ack_file, "tcp.analysis.duplicate_ack", "tcp.ack")
    assert len(dup) == f["dupacks"] > 0
    udp = fields(ack_file, "udp", "udp.length")
    assert len(udp) == 50 and {int(x[0]) for x in udp} == {508}
    # SACK blocks and timestamps as tcplab sent them.
    sacks = fields(ack_file, "tcp.options.sack_le", "tcp.options.sack_le")
    assert sacks, "the receiver's dupACKs carry SACK blocks"


def test_tshark_calls_early_retransmissions_out_of_order_and_the_sum_is_tcplab_s(tmp_path):
    # Under random loss, tshark 4.0 labels a retransmission sent less than
    # an RTT after the highest segment "out-of-order" rather than
    # "retransmission": its retransmission count alone falls short of
    # tcplab's, and the two labels together equal it.
    net = tl.Network()
    s, r, k = net.host("source"), net.router("router"), net.host("sink")
    net.link(s, r, rate="10Mbps", delay="45ms", mtu=400, name="access")
    net.link(r, k, rate="2Mbps", delay="10us", mtu=400, loss=tl.Uniform(0.02),
             name="bottleneck")
    net.tcp(s, k, cc="newreno")
    res = net.run(duration="60s", seed=1, pcap=tl.Pcap(dir=str(tmp_path), links=["access"]))
    data = tmp_path / "access-0.pcap"
    retx = fields(data, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                  "frame.number")
    ooo = fields(data, "tcp.analysis.out_of_order", "frame.number")
    n = res.flow("tcp0")["retransmitted_segments"]
    assert len(ooo) > 0 and len(retx) < n
    assert len(retx) + len(ooo) == n


def test_retransmissions_appear_at_the_expected_times(tmp_path):
    res = lossy_transfer(tmp_path)
    ev = res.events[res.events["event"] == "retransmit"]
    seen = fields(tmp_path / "access-0.pcap",
                  "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                  "frame.time_relative", "tcp.seq")
    # Segments 5, 7, 9 of 1460 B: sequence numbers 5841, 8761, 11681.
    assert [int(s) for _, s in seen] == list(ev["seq"]) == [5841, 8761, 11681]
    for (t, _), t_ev in zip(seen, ev["time_s"], strict=True):
        assert float(t) == pytest.approx(t_ev, abs=1e-6)


def test_rx_capture_leaves_out_packets_the_error_model_dropped(tmp_path):
    tx = lossy_transfer(tmp_path / "tx")
    rx = lossy_transfer(tmp_path / "rx", capture="rx")
    n_tx = int(tx.pcap.set_index("path").loc[str(tmp_path / "tx" / "bottleneck-0.pcap"),
                                             "packets"])
    n_rx = int(rx.pcap.set_index("path").loc[str(tmp_path / "rx" / "bottleneck-0.pcap"),
                                             "packets"])
    assert n_tx - n_rx == tx.link("bottleneck", src="r")["drops_error"] == 3
    assert len(fields(tmp_path / "rx" / "bottleneck-0.pcap", "frame", "frame.number")) == n_rx


def test_a_killed_run_leaves_a_pcap_tshark_opens(tmp_path):
    script = f"""
import tcplab as tl
net = tl.Network()
r0, r1 = net.router("r0"), net.router("r1")
net.link(r0, r1, rate="100Mbps", delay="10ms", name="bottleneck")
for i in range(50):
    s, d = net.host(f"s{{i}}"), net.host(f"d{{i}}")
    net.link(s, r0, rate="1Gbps", delay="1ms")
    net.link(r1, d, rate="1Gbps", delay="1ms")
    net.tcp(s, d)
net.run(duration="100000s", seed=1, pcap=tl.Pcap(dir=r"{tmp_path}", links=["bottleneck"]))
"""
    proc = subprocess.Popen([sys.executable, "-c", script])
    pcap = tmp_path / "bottleneck-0.pcap"
    deadline = time.time() + 60
    while time.time() < deadline and (not pcap.exists() or pcap.stat().st_size < 1_000_000):
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    size = pcap.stat().st_size
    assert size >= 1_000_000
    out = tshark(pcap, "-q", "-z", "io,stat,0")
    if "cut short" in out.stderr:
        # The one window docs/traces.md states: a record that straddles a
        # 4 KiB page boundary is written alone, and Linux may stop that
        # write at the boundary when the kill lands during it (seen once,
        # in a full test run on a loaded machine). Any other cut is a bug.
        assert size % 4096 == 0, (size, out.stderr)
        return
    assert out.returncode == 0 and not warnings(out.stderr), out.stderr


def test_cli_writes_pcap_and_sampled_time_series(tmp_path, capsys):
    from tcplab.cli import main

    example = Path(__file__).resolve().parent.parent / "examples" / "westwood_path_newreno.toml"
    assert main(["run", str(example), "--duration", "20s", "--pcap", str(tmp_path),
                 "--trace", "cwnd,queue", "--trace-out", str(tmp_path),
                 "--trace-period", "500ms"]) == 0
    assert "bottleneck-0.pcap" in capsys.readouterr().out
    assert tshark(tmp_path / "bottleneck-0.pcap", "-q").returncode == 0
    t = pd.read_csv(tmp_path / "traces.csv")
    cw = t[(t["series"] == "cwnd") & (t["target"] == "newreno")]
    assert list(cw["time_s"][:3]) == [0.0, 0.5, 1.0] and len(cw) == 41
    assert (cw["value"].dropna() >= 360).all()


def test_ecn_negotiation_marks_and_echoes_are_visible_to_tshark(tmp_path):
    net = tl.Network()
    a, r, b = net.host("a"), net.router("r"), net.host("b")
    net.link(a, r, rate="100Mbps", delay="1ms", name="access")
    net.link(r, b, rate="10Mbps", delay="20ms", name="bottleneck",
             queue={"kind": "codel", "ecn": True})
    for _ in range(3):
        net.tcp(a, b, ecn=True)
    res = net.run(duration="10s", seed=1, pcap=tl.Pcap(dir=str(tmp_path), links=["bottleneck"]))
    fwd, rev = tmp_path / "bottleneck-0.pcap", tmp_path / "bottleneck-1.pcap"
    # RFC 3168 6.1.1: ECN-setup SYN (ECE and CWR) and SYN-ACK (ECE alone).
    syns = fields(fwd, "tcp.flags.syn == 1", "tcp.flags.ece", "tcp.flags.cwr")
    assert syns and all(s == ["1", "1"] for s in syns)
    synacks = fields(rev, "tcp.flags.syn == 1", "tcp.flags.ece", "tcp.flags.cwr")
    assert synacks and all(s == ["1", "0"] for s in synacks)
    # Data is ECT(0) (2) or, marked by CoDel, CE (3); as many CE as marks.
    ecn = [int(x[0]) for x in fields(fwd, "tcp.len > 0", "ip.dsfield.ecn")]
    row = res.links[(res.links["link"] == "bottleneck") & (res.links["src"] == "r")].iloc[0]
    assert row["marks"] > 0 and set(ecn) == {2, 3}
    assert ecn.count(3) == row["marks"]
    # The receivers echo (ECE on ACKs), the senders answer with CWR.
    assert fields(rev, "tcp.flags.ece == 1 && tcp.flags.syn == 0", "frame.number")
    cwr = fields(fwd, "tcp.flags.cwr == 1 && tcp.flags.syn == 0", "frame.number")
    assert len(cwr) == res.flows["ecn_reductions"].sum()
