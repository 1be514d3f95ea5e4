"""The receiver's D-SACK blocks (``dsack``, RFC 2883) and Linux's ACK timing
(``ack_timing = "linux"``) seen end to end: the defaults each profile
resolves, the refusal of ``quick_acks``, D-SACK blocks in the pcap of a
reordering path's ACKs, and the ACK count of a short transfer."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import tcplab as tl


def net_with(reorder: dict[str, object] | None = None, **tcp) -> tl.Network:
    """s -(1 Gb/s)- r -(20 Mb/s, 10 ms, reordering)- d, no loss anywhere."""
    net = tl.Network()
    s, r, d = net.host("s"), net.router("r"), net.host("d")
    net.link(s, r, rate="1Gbps", delay="0ms", queue="10000p", name="access")
    net.link(r, d, rate="20Mbps", delay="10ms", queue="10000p", reorder=reorder,
             name="bottleneck")
    net.tcp(s, d, name="tcp", **tcp)
    return net


def resolved(**tcp) -> dict[str, object]:
    return net_with(**tcp).scenario(duration=1).check()["flows"][0]


def test_each_profile_resolves_its_own_receiver():
    got = {p: (resolved(profile=p)["dsack"], resolved(profile=p)["ack_timing"])
           for p in ("paper", "linux", "ns3", "ns2", "inet")}
    assert got == {"paper": (False, "fixed"), "linux": (True, "linux"),
                   "ns3": (False, "fixed"), "ns2": (False, "fixed"),
                   "inet": (True, "fixed")}
    # Linux's timing has its own quick ACKs: the profile's become 0.
    assert resolved(profile="ns3", ack_timing="linux")["quick_acks"] == 0
    assert resolved(profile="linux", quick_acks=0)["quick_acks"] == 0


def test_quick_acks_with_linux_timing_are_refused_by_name():
    with pytest.raises(tl.ScenarioError) as info:
        net_with(profile="linux", quick_acks=2).scenario(duration=1).run()
    assert info.value.path == "flows[0].quick_acks"
    assert "ack_timing" in str(info.value)


def sack_blocks(pcap: Path) -> list[tuple[int, list[tuple[int, int]]]]:
    """(ack, SACK blocks) of every TCP segment in a pcap of raw IPv4 packets."""
    data = pcap.read_bytes()
    out, at = [], 24  # the global header
    while at + 16 <= len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        pkt = data[at + 16:at + 16 + incl]
        at += 16 + incl
        if not pkt or pkt[0] >> 4 != 4 or pkt[9] != 6:
            continue
        tcp = pkt[(pkt[0] & 15) * 4:]
        ack = struct.unpack_from("!I", tcp, 8)[0]
        opts, blocks, i = tcp[20:(tcp[12] >> 4) * 4], [], 0
        while i < len(opts):
            kind = opts[i]
            if kind in (0, 1):
                i += 1
                continue
            size = opts[i + 1]
            if kind == 5:
                blocks = [struct.unpack_from("!II", opts, j)
                          for j in range(i + 2, i + size, 8)]
            i += size
        out.append((ack, blocks))
    return out


def is_dsack(ack: int, blocks: list[tuple[int, int]]) -> bool:
    """RFC 2883 4.1.1 and 4.1.2 (sequence numbers here never wrap)."""
    if not blocks:
        return False
    s0, e0 = blocks[0]
    return s0 < ack or (len(blocks) > 1 and blocks[1][0] <= s0 and e0 <= blocks[1][1])


@pytest.mark.parametrize("dsack", [True, False])
def test_spurious_retransmissions_on_a_reordering_path_are_reported_in_dsack_blocks(
        tmp_path, dsack):
    # Each held packet is passed by 5 later ones: 3 duplicate ACKs, a
    # spurious fast retransmit, and the original arrives as well.
    net = net_with({"probability": 0.01, "displacement": 5}, cc="newreno",
                   recovery="sack", sack=True, dsack=dsack)
    res = net.run(duration="5s", seed=1, pcap=tl.Pcap(dir=str(tmp_path), links=["access"]))
    f = res.flow("tcp")
    assert f.fast_retransmits > 5
    acks = sack_blocks(tmp_path / "access-1.pcap")
    reports = [a for a in acks if is_dsack(*a)]
    if dsack:
        # Each spurious retransmission is reported once, whole.
        assert 0 < len(reports) <= f.retransmitted_segments
        assert all(e - s == 1460 for _, ((s, e), *_) in reports)
    else:
        assert reports == []


def transfer_acks(ack_timing: str) -> int:
    net = net_with(profile="linux", cc="cubic", ack_timing=ack_timing,
                   app=tl.Transfer(size="100KB"))
    return net.run(duration="5s", seed=1).flow("tcp").ack_packets


def test_linux_timing_acks_the_start_of_a_transfer_segment_by_segment():
    # 100 kB = 69 segments: Linux quick-ACKs the first 16 data segments
    # (then every second); the fixed timing ACKs every second from the start:
    # 16 ACKs where it sends 8.
    fixed, linux = transfer_acks("fixed"), transfer_acks("linux")
    assert linux - fixed == 8
