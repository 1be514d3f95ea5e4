// SPDX-License-Identifier: MIT OR Apache-2.0
//! What holds back the last, partial segment of what the application wrote:
//! Linux's Nagle test, TCP_CORK and MSG_MORE (`tcp_nagle_check`,
//! `tcp_nagle_test`, `tcp_push` in net/ipv4/tcp_output.c and tcp.c).
//!
//! - Only the write queue's last skb is ever held (`tcp_write_xmit` pushes
//!   every other one), and of it only what does not fill a segment.
//! - Nagle, in Minshall's variant (RFC 896 as Linux has it): the partial
//!   segment waits while data is in flight and the last partial segment
//!   sent (`snd_sml`) is not yet acknowledged. TCP_NODELAY turns it off.
//! - TCP_CORK holds it whatever is in flight; MSG_MORE does for the one
//!   call's push (later pushes, on ACKs, follow the socket's settings).
//! - Setting TCP_NODELAY pushes once even when corked (`TCP_NAGLE_PUSH`);
//!   so does clearing TCP_CORK with TCP_NODELAY on. A FIN pushes all.
//! - Held data with nothing in flight arms the probe timer
//!   (`tcp_check_probe_timer`, at `tcp_probe0_base`: the RTO, at least
//!   200 ms); when it fires with still nothing in flight, the held data
//!   goes (`tcp_write_wakeup`): the 200 ms ceiling on corking of tcp(7).

use crate::time::{SimDuration, SimTime};

/// How a push treats a partial last segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Push {
    /// By the socket's settings (an ACK, a timer, a write without
    /// MSG_MORE).
    Normal,
    /// A write with MSG_MORE: held.
    More,
    /// Sent whatever the settings (TCP_NODELAY set, the probe timer, a FIN).
    Force,
}

/// The socket's settings and the state Nagle's test reads.
#[derive(Debug, Default)]
pub struct Nagle {
    /// TCP_NODELAY.
    pub nodelay: bool,
    /// TCP_CORK.
    pub cork: bool,
    /// The end of the last segment shorter than the MSS sent (Linux's
    /// `snd_sml`).
    pub snd_sml: u64,
    /// The probe timer, armed while data is held with nothing in flight.
    pub deadline: Option<SimTime>,
}

/// `tcp_probe0_base`'s floor (TCP_RTO_MIN).
const PROBE0_MIN: SimDuration = SimDuration::from_millis(200);

impl Nagle {
    /// Whether a partial last segment waits, for a push of kind `push`,
    /// with `snd_una` and whether anything is in flight.
    pub fn holds(&self, push: Push, in_flight: bool, snd_una: u64) -> bool {
        match push {
            Push::Force => false,
            Push::More => true,
            Push::Normal => self.cork || (!self.nodelay && in_flight && self.snd_sml > snd_una),
        }
    }

    /// A data segment of `len` bytes ending at `end` left, with `mss`.
    pub fn sent(&mut self, end: u64, len: u64, mss: u64) {
        if len > 0 && len < mss && end > self.snd_sml {
            self.snd_sml = end;
        }
    }

    /// After a push: arms the probe timer if data is held with nothing in
    /// flight, disarms it once something is in flight.
    pub fn after_push(&mut self, now: SimTime, held: bool, in_flight: bool, rto: SimDuration) {
        if in_flight || !held {
            self.deadline = None;
        } else if self.deadline.is_none() {
            self.deadline = Some(now + rto.max(PROBE0_MIN));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minshall_holds_only_while_a_small_segment_is_unacknowledged() {
        let mut n = Nagle::default();
        // Nothing small sent yet: a partial segment goes, even with data
        // in flight.
        assert!(!n.holds(Push::Normal, true, 1));
        n.sent(1041, 40, 1000);
        assert_eq!(n.snd_sml, 1041);
        assert!(n.holds(Push::Normal, true, 1001));
        // Acknowledged, or nothing in flight: it goes.
        assert!(!n.holds(Push::Normal, true, 1041));
        assert!(!n.holds(Push::Normal, false, 1001));
        // TCP_NODELAY: it goes; a full segment never changes snd_sml.
        n.nodelay = true;
        assert!(!n.holds(Push::Normal, true, 1001));
        n.sent(3041, 1000, 1000);
        assert_eq!(n.snd_sml, 1041);
    }

    #[test]
    fn cork_and_more_hold_whatever_is_in_flight_and_force_does_not() {
        let mut n = Nagle {
            nodelay: true,
            ..Nagle::default()
        };
        assert!(n.holds(Push::More, false, 1));
        n.cork = true;
        assert!(n.holds(Push::Normal, false, 1));
        assert!(!n.holds(Push::Force, true, 1));
    }

    #[test]
    fn the_probe_timer_waits_the_rto_at_least_200_ms_and_only_when_idle() {
        let t0 = SimTime::ZERO + SimDuration::from_secs(1);
        let mut n = Nagle::default();
        n.after_push(t0, true, false, SimDuration::from_millis(120));
        assert_eq!(n.deadline, Some(t0 + SimDuration::from_millis(200)));
        // Armed once: a later push does not move it.
        n.after_push(
            t0 + SimDuration::from_millis(50),
            true,
            false,
            SimDuration::from_secs(1),
        );
        assert_eq!(n.deadline, Some(t0 + SimDuration::from_millis(200)));
        n.after_push(t0, true, true, SimDuration::from_secs(1));
        assert_eq!(n.deadline, None);
        n.after_push(t0, true, false, SimDuration::from_millis(210));
        assert_eq!(n.deadline, Some(t0 + SimDuration::from_millis(210)));
        n.after_push(t0, false, false, SimDuration::from_millis(210));
        assert_eq!(n.deadline, None);
    }
}
