"""TCP settings shared by the ns-3 3.44 scripts of the benchmarks.

Runs in the virtualenv that has the `ns3` wheel, never in tcplab's.
"""


def configure_tcp(ns, cc: str, segment_size: int, delack: int, sack: bool, run: int,
                  buffers: int | None = None, initial_cwnd: int | None = None,
                  recovery: str = "classic") -> None:
    """Default TCP settings for the sockets created afterwards.

    Classic recovery unless ``recovery="prr"`` (ns-3's default,
    TcpPrrRecovery), no timestamps; buffers and initial window only when
    given (ns-3's defaults: 128 KiB and 10 segments).
    """
    recovery_type = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}[recovery]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::" + cc))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                         ns.TypeIdValue(ns.TypeId.LookupByName(recovery_type)))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(segment_size))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(delack))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(sack))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    if buffers is not None:
        ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(buffers))
        ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(buffers))
    if initial_cwnd is not None:
        ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(initial_cwnd))
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
