// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's counters: the two every segment adds to stay in the
//! connection ([`SentStats`]); the rest, and the state only a handshake or
//! a rare event touches, go into one cold record per connection
//! ([`ColdStats`]), behind a box allocated with the connection, so that a
//! counter added there never moves the hot connection's layout.
//! [`SenderStats`] is what the world reads: both, by value.

use crate::time::SimTime;

/// What the per-segment and per-ACK paths count (the hot part of the
/// counters): every transmitted segment, every retransmission and every
/// duplicate ACK. Under loss at 10,000 flows a duplicate ACK's or a
/// retransmission's count in the cold record cost 2-3% in time (a cache
/// line more per event), so these stay in the connection.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentStats {
    /// Segments transmitted in the data direction (SYN, data, FIN),
    /// retransmissions included, and their payload bytes.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Duplicate ACKs received (RFC 5681's definition).
    pub dupacks: u32,
}

/// The connection's cold record: counters off the per-segment path and
/// rarely touched state. A new per-connection counter goes here (and into
/// [`SenderStats`] if the world reads it).
#[derive(Clone, Debug, Default)]
pub struct ColdStats {
    /// Counts of events (u32, as [`SenderStats`] gives them).
    pub timeouts: u32,
    pub fast_retransmits: u32,
    /// Window reductions for ECN echoes (RFC 3168 6.1.2).
    pub ecn_reductions: u32,
    /// When the (last) SYN was sent: the handshake's RTT sample.
    pub syn_sent_at: SimTime,
    /// What undoing a reduction needs, and F-RTO's state.
    pub undo: super::undo::Undo,
    /// The adaptive reordering state, with `adaptive_reordering`.
    pub reordering: Option<Box<crate::tcp::reordering::Reordering>>,
    /// Where the application's records end (Linux's MSG_EOR): sequence
    /// numbers no retransmitted segment crosses, as no skb of Linux's does.
    /// Empty unless a harness marks them ([`super::Sender::mark_record_end`]).
    pub records: Vec<u64>,
    /// The application closed after all its data had been sent: the FIN
    /// is a segment of its own, the tail a loss probe resends (Linux's
    /// `tcp_send_fin` adds a FIN-only skb; before that, it sets FIN on the
    /// last skb not yet sent).
    pub fin_alone: bool,
    /// The pacing state, when the flow is paced (or Linux's `fq` paces it).
    pub pacer: Option<Box<super::pacing::Pacer>>,
}

/// A connection's counters, as the world reads them ([`super::Sender::stats`]).
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Segments transmitted in the data direction (SYN, data, FIN),
    /// retransmissions included, and their payload bytes.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Counts of events (four billion timeouts or duplicate ACKs are out
    /// of any run's reach).
    pub timeouts: u32,
    pub fast_retransmits: u32,
    /// Duplicate ACKs received (RFC 5681's definition).
    pub dupacks: u32,
    /// Window reductions for ECN echoes (RFC 3168 6.1.2).
    pub ecn_reductions: u32,
}

impl SenderStats {
    /// The hot and the cold counters together.
    pub fn new(sent: &SentStats, cold: &ColdStats) -> Self {
        SenderStats {
            segments_sent: sent.segments_sent,
            bytes_sent: sent.bytes_sent,
            retransmitted_segments: sent.retransmitted_segments,
            retransmitted_bytes: sent.retransmitted_bytes,
            timeouts: cold.timeouts,
            fast_retransmits: cold.fast_retransmits,
            dupacks: sent.dupacks,
            ecn_reductions: cold.ecn_reductions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::conn::Conn;
    use super::ColdStats;
    use std::mem::size_of;

    /// A counter added to the cold record must not move the hot
    /// connection: the connection holds the record through one pointer
    /// (this fails to compile if the field stops being a box), whatever
    /// the record's size.
    #[test]
    #[allow(clippy::borrowed_box)]
    fn the_cold_record_sits_behind_a_box_whatever_its_size() {
        let cold: fn(&Conn) -> &Box<ColdStats> = |c| &c.cold;
        let _ = cold;
        assert_eq!(size_of::<Box<ColdStats>>(), size_of::<usize>());
        assert!(size_of::<ColdStats>() > size_of::<usize>());
    }
}
