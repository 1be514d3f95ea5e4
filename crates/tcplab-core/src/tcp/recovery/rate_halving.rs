// SPDX-License-Identifier: MIT OR Apache-2.0
//! Rate halving: Linux's fast recovery before PRR (2.6 to 3.1,
//! `tcp_cwnd_down`), in the form ns-2.35's TCP-Linux (`Agent/TCP/Linux`,
//! tcp-linux.cc) runs it. The window drops to a floor at once, but what may
//! be in flight falls by one segment for every two ACKs, from what was in
//! flight when the loss was found, so the sender neither falls silent for
//! half a round trip (RFC 6675) nor bursts. TCP-Linux is the reference
//! behind every congestion-control comparison in docs/validation.md.
//!
//! - **Start** (a loss found as for the sack recovery): ssthresh from the
//!   controller; the floor is ssthresh, or ssthresh/2 in whole segments
//!   (at least one) with `rate_halving_floor = "half_ssthresh"`, the
//!   `min_cwnd` of Linux 2.6.22's Reno-family modules; a controller that
//!   sets its own (`min_cwnd`: 2.6.22's Westwood+) sets it instead. The
//!   allowance (TCP-Linux's `next_pkts_in_flight_`) starts at min(the window before
//!   the loss, pipe + 1 segment): the fast retransmission goes out alone.
//!   (TCP-Linux's own Disorder state keeps pipe at its window while the
//!   duplicate ACKs arrive, and an ns-2 packet trace shows the
//!   retransmission alone on the ACK that starts the recovery; tcplab's
//!   limited transmit leaves pipe below the window there instead, and
//!   starting from the window would send new data into the queue that
//!   just overflowed.)
//! - **Each time the sender may send**: with `win` = max(allowance,
//!   floor), the allowance becomes min(allowance, pipe + 1 segment);
//!   segments go out (chosen by RFC 6675's NextSeg, as the sack recovery
//!   chooses them) while pipe < max(win, allowance), and after each the
//!   allowance becomes min(allowance, max(pipe - 1 segment, 1 segment)).
//!   In effect one segment for every two ACKs. The window the sender
//!   shows (and traces) is max(allowance, floor), as TCP-Linux's `cwnd_`.
//! - **End** (the recovery point acknowledged): when the floor is below
//!   ssthresh, cwnd = min(ssthresh, FlightSize + 3 segments) (Linux's
//!   `tcp_moderate_cwnd`, `tcp_max_burst` = 3), from which slow start
//!   climbs back to ssthresh; otherwise cwnd = the floor (ssthresh, or
//!   the controller's `min_cwnd` when that is above it).
//!
//! - **Lost retransmissions** (TCP-Linux's scoreboard, ns-2's
//!   scoreboard1.cc): a retransmission is lost again once data first sent
//!   after it is SACKed, or once a retransmission sent DupThresh + 1 or more
//!   retransmissions after it is acknowledged or SACKed. It then leaves
//!   pipe and goes out again before any other segment. Without this rule
//!   (RFC 6675), a lost retransmission waits for the timer.
//!
//! Not modelled: TCP-Linux's FACK loss marking (tcplab's is RFC 6675's
//! IsLost, or RACK's when on); Linux 2.6's undo and its Disorder state's
//! sending beyond limited transmit; TCP-Linux's recovery started from the
//! Loss state, which no Linux has (docs/tcp.md).

use super::sack::{sack_loss_detected, NextSeg};
use super::RecoveryStrategy;
use crate::cc::{CaState, LossCause};
use crate::tcp::sender::{Conn, TcpEventKind};
use crate::tcp::{RateHalvingFloor, TcpConfig, TcpHeader};
use crate::time::SimTime;

/// Linux's `tcp_max_burst`: the segments a window may exceed what is in
/// flight when a recovery ends.
const MAX_BURST: u64 = 3;

/// A retransmission still in flight, or found lost again.
#[derive(Clone, Copy, Debug)]
struct Rtx {
    seq: u64,
    end: u64,
    /// snd_max when it went out: data from there on was sent after it.
    sent_max: u64,
    /// Its rank among the connection's retransmissions.
    id: u64,
    lost: bool,
}

#[derive(Clone, Debug)]
pub struct RateHalving {
    next: NextSeg,
    /// The floor is half of ssthresh (2.6.22's `tcp_reno_min_cwnd`).
    half_floor: bool,
    /// The floor of this recovery, bytes.
    floor: u64,
    /// What may stay in flight, bytes (TCP-Linux's `next_pkts_in_flight_`).
    allowed: u64,
    /// Retransmissions not yet acknowledged or SACKed, in the order sent.
    rtx: Vec<Rtx>,
    next_id: u64,
    /// The rank of the latest retransmission acknowledged or SACKed.
    acked_id: Option<u64>,
}

impl RateHalving {
    /// The window shown while the recovery lasts.
    fn shown(&self) -> u64 {
        self.allowed.max(self.floor)
    }

    /// Forgets the retransmissions acknowledged or SACKed, and marks lost
    /// those that later data or later retransmissions show lost.
    fn track(&mut self, c: &Conn) {
        let una = c.tcb().snd_una;
        let mut acked = self.acked_id;
        self.rtx.retain(|r| {
            let gone = r.end <= una || c.sb().is_sacked(r.seq);
            if gone {
                acked = acked.max(Some(r.id));
            }
            !gone
        });
        self.acked_id = acked;
        let high = c.sb().high_sacked().unwrap_or(0);
        let later = |id: u64| acked.is_some_and(|a| id + c.cfg().dupthresh as u64 + 1 < a);
        for r in &mut self.rtx {
            r.lost |= high > r.sent_max || later(r.id);
        }
    }

    /// The bytes of the retransmissions found lost and not yet resent.
    fn lost_bytes(&self) -> u64 {
        self.rtx
            .iter()
            .filter(|r| r.lost)
            .map(|r| r.end - r.seq)
            .sum()
    }

    /// What is in flight: RFC 6675's pipe without the lost retransmissions.
    fn pipe(&self, c: &Conn) -> u64 {
        self.next.pipe(c).saturating_sub(self.lost_bytes())
    }

    /// Sends while `cwnd` allows: the lost retransmissions first, in the
    /// order they were sent, then NextSeg; notes each retransmission that
    /// goes out. (TCP-Linux resends the lowest lost sequence first, holes
    /// and retransmissions alike; a hole NextSeg would send is above every
    /// retransmission of this recovery unless a partial ACK moved past
    /// them.)
    fn send_within(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>, cwnd: u64) {
        let mss = c.mss();
        let first = out.len();
        let mut max = c.tcb().snd_max;
        while self.pipe(c) + mss <= cwnd && !c.paced_out(now) {
            let Some(i) = self.rtx.iter().position(|r| r.lost) else {
                break;
            };
            let seq = self.rtx[i].seq;
            self.rtx.remove(i);
            c.retransmit(now, seq, out);
        }
        // NextSeg's pipe still counts what is lost and not yet resent.
        c.send_by(cwnd + self.lost_bytes());
        self.next.send(c, now, out);
        for h in &out[first..] {
            if h.retx && h.len > 0 {
                self.rtx.push(Rtx {
                    seq: h.seq,
                    end: h.seq + h.len as u64,
                    sent_max: max,
                    id: self.next_id,
                    lost: false,
                });
                self.next_id += 1;
            } else {
                max = max.max(h.seq + h.len as u64);
            }
        }
    }
}

impl RecoveryStrategy for RateHalving {
    fn new(cfg: &TcpConfig) -> Self {
        RateHalving {
            next: NextSeg::default(),
            half_floor: cfg.rate_halving_floor == RateHalvingFloor::HalfSsthresh,
            floor: 0,
            allowed: 0,
            rtx: Vec::new(),
            next_id: 0,
            acked_id: None,
        }
    }

    /// As the sack recovery: a duplicate ACK must SACK something new.
    fn counts_dupack(&self, _c: &Conn, new_sack: bool) -> bool {
        new_sack
    }

    fn loss_detected(&self, c: &Conn) -> bool {
        sack_loss_detected(c)
    }

    fn may_start(&self, c: &Conn) -> bool {
        c.tcb().snd_una >= c.tcb().recover
    }

    fn start(&mut self, c: &mut Conn, now: SimTime, _out: &mut Vec<TcpHeader>) {
        let prior = c.tcb().cwnd;
        c.reduce(now, CaState::Recovery, LossCause::DupAcks);
        // TCP-Linux forgets the growth credit at a fast retransmit
        // (tcp-linux.cc: snd_cwnd_cnt = 0), as Linux does.
        c.clear_growth_credit();
        let mss = c.mss();
        let ssthresh = c.tcb().ssthresh;
        self.floor = match c.cc_min_cwnd() {
            Some(floor) => floor,
            None if self.half_floor => (ssthresh / mss / 2).max(1) * mss,
            None => ssthresh,
        };
        c.log(now, TcpEventKind::FastRetransmit, c.tcb().snd_una);
        // The first segment is due: pipe no longer counts it.
        self.next.begin(c);
        self.track(c);
        self.allowed = prior.min(self.pipe(c) + mss);
        let shown = self.shown();
        c.recovery_cwnd(shown);
    }

    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, _acked: u64) {
        if ack >= c.tcb().recover {
            let ssthresh = c.tcb().ssthresh;
            let cwnd = if self.floor < ssthresh {
                let flight = c.tcb().snd_max - c.tcb().snd_una;
                ssthresh.min(flight + MAX_BURST * c.mss())
            } else {
                self.floor
            };
            c.recovery_cwnd(cwnd);
            self.allowed = 0;
            c.exit_recovery(now, ack);
        } else {
            c.log(now, TcpEventKind::PartialAck, ack);
            self.next.on_partial_ack(c);
        }
    }

    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        if c.cc_owns_cwnd() {
            // The controller's window rules (BBR): NextSeg alone.
            self.next.send(c, now, out);
            return true;
        }
        self.track(c);
        let mss = c.mss();
        let win = self.shown();
        let pipe = self.pipe(c);
        let next = self.allowed.min(pipe + mss);
        let before = c.bytes_sent();
        // Segments go out while cwnd - pipe allows one: first up to `win`;
        // then, if nothing went out, one segment when pipe < next (once
        // one has gone out, next is below pipe).
        self.send_within(c, now, out, win);
        if c.bytes_sent() == before && pipe + mss <= next {
            self.send_within(c, now, out, pipe + mss);
        }
        self.allowed = if c.bytes_sent() > before {
            next.min(self.pipe(c).saturating_sub(mss).max(mss))
        } else {
            next
        };
        c.force_cwnd(self.shown());
        true
    }

    fn on_timeout(&mut self, c: &mut Conn) {
        self.allowed = 0;
        self.rtx.clear();
        self.acked_id = None;
        self.next.on_timeout(c);
    }
}
