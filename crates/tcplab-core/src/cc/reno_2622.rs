// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reno's growth as Linux 2.6.22's modules call it (`tcp_slow_start` and
//! `tcp_reno_cong_avoid` of 2.6.22), with ns-2.35's TCP-Linux's
//! `sysctl_tcp_abc` = 1: the ports of 2.6.22's modules that fall back on it
//! (Westwood+, Vegas) share it.
//!
//! - `bytes_acked` counts the bytes every ACK acknowledges, and restarts
//!   at each reduction (TCP-Linux zeroes it on entering a recovery or a
//!   timeout's Loss state), where ssthresh becomes Reno's half of cwnd;
//! - nothing grows unless the flight before the ACK filled the window
//!   (`tcp_is_cwnd_limited`);
//! - slow start runs while cwnd <= ssthresh (today's Linux: cwnd <
//!   ssthresh) and adds one segment per ACK once a segment's bytes are
//!   counted, then counts afresh;
//! - above ssthresh, one segment once a window's bytes are counted, the
//!   rest carried over.

use super::{linux_reno_ssthresh, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Reno2622 {
    /// Bytes acknowledged and not yet spent on growth (`tp->bytes_acked`).
    pub bytes_acked: u64,
}

impl Reno2622 {
    /// Counts what an ACK acknowledged (every ACK, in every state).
    pub fn acked(&mut self, bytes: u64) {
        self.bytes_acked += bytes;
    }

    /// A reduction: the count restarts, and ssthresh is Reno's
    /// (`tcp_reno_ssthresh`).
    pub fn ssthresh(&mut self, tcb: &Tcb) -> u64 {
        self.bytes_acked = 0;
        linux_reno_ssthresh(tcb)
    }

    /// `tcp_slow_start` with abc = 1.
    pub fn slow_start(&mut self, tcb: &mut Tcb) {
        if self.bytes_acked >= tcb.mss {
            self.bytes_acked = 0;
            tcb.cwnd += tcb.mss;
        }
    }

    /// `tcp_reno_cong_avoid` for an ACK that found `prior_in_flight`
    /// bytes in flight.
    pub fn cong_avoid(&mut self, tcb: &mut Tcb, prior_in_flight: u64) {
        if prior_in_flight < tcb.cwnd {
            return;
        }
        let w = tcb.cwnd / tcb.mss;
        if w <= tcb.ssthresh / tcb.mss {
            self.slow_start(tcb);
        } else if self.bytes_acked >= w * tcb.mss {
            self.bytes_acked -= w * tcb.mss;
            tcb.cwnd += tcb.mss;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn slow_start_runs_up_to_and_at_ssthresh_then_one_segment_per_window_of_bytes() {
        let mut tcb = Tcb::new(10 * MSS, 10 * MSS, MSS);
        let mut r = Reno2622::default();
        // At ssthresh: slow start, one segment for an ACK of two.
        r.acked(2 * MSS);
        r.cong_avoid(&mut tcb, 10 * MSS);
        assert_eq!((tcb.cwnd, r.bytes_acked), (11 * MSS, 0));
        // Above: 11 segments' bytes for the next one, the rest kept.
        for _ in 0..6 {
            r.acked(2 * MSS);
            r.cong_avoid(&mut tcb, 11 * MSS);
        }
        assert_eq!((tcb.cwnd, r.bytes_acked), (12 * MSS, MSS));
        // With less than the window in flight, nothing grows; a reduction
        // forgets the count.
        r.acked(20 * MSS);
        r.cong_avoid(&mut tcb, 11 * MSS);
        assert_eq!(tcb.cwnd, 12 * MSS);
        assert_eq!(r.ssthresh(&tcb), 6 * MSS);
        assert_eq!(r.bytes_acked, 0);
    }
}
