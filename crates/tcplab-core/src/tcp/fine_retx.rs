// SPDX-License-Identifier: MIT OR Apache-2.0
//! Vegas's fine-grained retransmission (Brakmo and Peterson 1994, section
//! 3.1), a loss-detection component of the sender.
//!
//! The sender remembers when each outstanding segment was last sent. On a
//! duplicate ACK, and on the first two new ACKs after such a
//! retransmission, the oldest unacknowledged segment is retransmitted at
//! once if it was sent longer ago than the fine-grained timeout (SRTT +
//! 4 RTTVAR, at least the clock granularity, without the RTO's floor). The
//! window is reduced only for the loss of data sent after the last
//! reduction.

use std::collections::VecDeque;

use crate::time::{SimDuration, SimTime};

#[derive(Debug, Default)]
pub struct FineRetransmit {
    /// When each outstanding segment (by its first sequence number) was
    /// last sent.
    sent_times: VecDeque<(u64, SimTime)>,
    /// When the window was last reduced (recovery or timeout).
    pub last_reduction: SimTime,
    /// New ACKs after a retransmission still to be checked (two).
    check_after_retx: u8,
}

impl FineRetransmit {
    /// A data segment starting at `seq` was (re)transmitted at `now`.
    pub fn on_sent(&mut self, now: SimTime, seq: u64) {
        match self.sent_times.binary_search_by_key(&seq, |e| e.0) {
            Ok(i) => self.sent_times[i].1 = now,
            Err(i) => self.sent_times.insert(i, (seq, now)),
        }
    }

    /// If the oldest unacknowledged segment, starting at `snd_una`, was sent
    /// longer ago than the fine-grained timeout, when it was sent.
    pub fn expired(
        &self,
        now: SimTime,
        snd_una: u64,
        srtt: Option<SimDuration>,
        rttvar: SimDuration,
        granularity: SimDuration,
    ) -> Option<SimTime> {
        let timeout = srtt? + (rttvar * 4).max(granularity);
        let &(seq, sent_at) = self.sent_times.front()?;
        (seq == snd_una && now - sent_at > timeout).then_some(sent_at)
    }

    /// A retransmission it triggered: the next two new ACKs check again.
    pub fn retransmitted(&mut self) {
        self.check_after_retx = 2;
    }

    /// A new ACK up to `ack`: forgets what it acknowledged, and whether this
    /// is one of the two ACKs after a retransmission that check again.
    pub fn on_new_ack(&mut self, ack: u64) -> bool {
        while self.sent_times.front().is_some_and(|e| e.0 < ack) {
            self.sent_times.pop_front();
        }
        if self.check_after_retx > 0 {
            self.check_after_retx -= 1;
            return true;
        }
        false
    }
}
