// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the sender logs when the event log is on (`trace = ["events"]`).

use crate::time::SimTime;

/// Something that happened to the connection, for the event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpEventKind {
    Established,
    /// Fast retransmit triggered (entering fast recovery, or Tahoe's restart).
    FastRetransmit,
    /// A segment was retransmitted.
    Retransmit,
    /// The retransmission timer expired.
    Timeout,
    /// A partial ACK during NewReno/SACK recovery.
    PartialAck,
    /// Back to Open after recovery or loss.
    RecoveryExit,
    /// HyStart or HyStart++ ended slow start (ssthresh = cwnd).
    SlowStartExit,
    /// The tail loss probe timer fired and sent a probe.
    LossProbe,
    /// All data and the FIN acknowledged.
    Closed,
    /// The window was reduced for an ECN echo (RFC 3168).
    EcnReduction,
}

impl TcpEventKind {
    pub fn name(self) -> &'static str {
        match self {
            TcpEventKind::Established => "established",
            TcpEventKind::FastRetransmit => "fast_retransmit",
            TcpEventKind::Retransmit => "retransmit",
            TcpEventKind::Timeout => "timeout",
            TcpEventKind::PartialAck => "partial_ack",
            TcpEventKind::RecoveryExit => "recovery_exit",
            TcpEventKind::SlowStartExit => "slow_start_exit",
            TcpEventKind::LossProbe => "loss_probe",
            TcpEventKind::Closed => "closed",
            TcpEventKind::EcnReduction => "ecn_reduction",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpEvent {
    pub time: SimTime,
    pub kind: TcpEventKind,
    /// The sequence number concerned (segment start, or the ACK).
    pub seq: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
}
