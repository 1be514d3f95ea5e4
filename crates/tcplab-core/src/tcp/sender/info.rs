// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a harness outside the simulator reads from, and sets on, one
//! sender: the packetdrill runner ([`crate::drill`]) compares these with
//! Linux's `struct tcp_info` and sets the peer's window scale that a real
//! handshake negotiated.

use super::Sender;
use crate::cc::CaState;
use crate::time::SimDuration;

/// A snapshot of the sender's state in `tcp_info`'s terms (bytes, not
/// packets: the runner divides by the MSS as Linux counts).
#[derive(Clone, Debug, PartialEq)]
pub struct SenderInfo {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    pub ca_state: CaState,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Bytes the scoreboard holds SACKed.
    pub sacked: u64,
    /// Bytes marked lost: by RACK when on, else as RFC 6675's IsLost
    /// counts them.
    pub lost: u64,
    /// Bytes retransmitted and not yet acknowledged (RACK's record; None
    /// without RACK).
    pub retrans: Option<u64>,
    pub srtt: Option<SimDuration>,
    pub rttvar: SimDuration,
    pub min_rtt: Option<SimDuration>,
    pub rto: SimDuration,
    /// Consecutive backoffs of the retransmission timer.
    pub backoffs: u32,
    /// The duplicate-ACK threshold (Linux's reordering degree).
    pub dupthresh: u32,
    pub segments_sent: u64,
    pub retransmitted: u64,
    pub timeouts: u32,
}

impl Sender {
    /// The retransmission timeout, now (backed off).
    pub fn rto(&self) -> SimDuration {
        self.c.rtt.rto()
    }

    /// The state `tcp_info` reports, now.
    pub fn info(&self) -> SenderInfo {
        let c = &self.c;
        let mss = c.mss();
        let una = c.tcb.snd_una;
        let (lost, retrans) = match &c.rack {
            Some(r) => {
                let (l, x) = r.lost_and_retrans();
                (l, Some(x))
            }
            None if c.sb.is_empty() => (0, None),
            None => (
                c.sb.lost_until(una, mss, c.dupthresh()).saturating_sub(una),
                None,
            ),
        };
        SenderInfo {
            cwnd: c.tcb.cwnd,
            ssthresh: c.tcb.ssthresh,
            mss,
            ca_state: c.tcb.ca_state,
            snd_una: una,
            snd_nxt: c.tcb.snd_nxt,
            snd_max: c.tcb.snd_max,
            sacked: c.sb.sacked_bytes(),
            lost,
            retrans,
            srtt: c.tcb.srtt,
            rttvar: c.rtt.rttvar,
            min_rtt: c.tcb.min_rtt,
            rto: self.rto(),
            backoffs: c.rtt.backoffs(),
            dupthresh: c.dupthresh(),
            segments_sent: c.stats.segments_sent,
            retransmitted: c.stats.retransmitted_segments,
            timeouts: c.cold.timeouts,
        }
    }

    /// The peer's window scale, as its SYN or SYN-ACK offered it (the
    /// simulator's own ends share one configuration, so it is otherwise
    /// this end's own).
    pub fn set_peer_window_shift(&mut self, shift: u8) {
        self.c.peer_shift = shift;
    }

    /// The peer's window scale the sender applies.
    pub fn peer_shift(&self) -> u8 {
        self.c.peer_shift
    }
}
