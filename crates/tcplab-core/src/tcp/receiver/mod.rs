// SPDX-License-Identifier: MIT OR Apache-2.0
//! The receiving end: reassembly, ACK generation, SACK blocks, timestamps.
//!
//! - In-order data is delivered to the application at once (it reads
//!   instantly), so the advertised window is the whole receive buffer.
//! - Out-of-order data is kept as ranges above RCV.NXT and reported in SACK
//!   blocks (RFC 2018): the first block holds the most recently received
//!   segment, the others follow most recent first.
//! - ACK policy (RFC 5681 4.2, RFC 1122 4.2.3.2): an out-of-order segment, a
//!   segment that fills (part of) a hole, a duplicate, a SYN or a FIN is
//!   ACKed at once; in-order segments are ACKed every `delayed_ack`-th full
//!   segment, or when the delayed-ACK timer fires; the first `quick_acks`
//!   in-order data segments are each ACKed at once (ns-3 ACKs a
//!   connection's first data segment so).
//! - Timestamps (RFC 7323 4.3): TS.Recent is updated from segments that
//!   start at or before the last ACK sent, and echoed in every ACK.
//! - ECN (RFC 3168 6.1.3), when both ends asked for it in the handshake:
//!   after a data segment marked CE, every ACK carries ECE until a segment
//!   with CWR arrives. For DCTCP (RFC 8257 3.2) ECE instead says whether
//!   the last segment was marked, and a change of that state is ACKed at
//!   once, with an ACK for the segments held back under the old state
//!   first, so the sender can count the marked bytes.
//! - D-SACK (RFC 2883, `dsack`): a duplicate is reported in the first SACK
//!   block of the next ACK ([`dsack`]).
//! - `ack_timing = "linux"`: Linux's quick-ACK mode and adaptive delayed-ACK
//!   timeout replace the fixed timer and `quick_acks` ([`ato`]).

pub mod ato;
pub mod dsack;

pub use ato::AckTiming;

use super::{sack_options, TcpConfig, TcpHeader, ACK, CWR, ECE, FIN, MAX_SACK_BLOCKS, RST, SYN};
use crate::time::SimTime;

/// `Receiver::fin_seq` before a FIN arrives.
const NO_FIN: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcvState {
    Listen,
    SynReceived,
    Established,
    /// The peer's FIN has been received (and ACKed).
    Closed,
}

#[derive(Debug)]
pub struct Receiver {
    pub state: RcvState,
    cfg_delack: u32,
    timestamps: bool,
    sack: bool,
    /// Option bytes of an ACK and of the SYN-ACK (at most 40).
    base_opts: u8,
    syn_opts: u8,
    wnd_field: u16,
    /// The window advertised (unscaled) in the SYN-ACK.
    syn_wnd: u16,
    /// In-order data segments still to be ACKed at once (`quick_acks`).
    quick_acks: u8,
    /// Next in-order byte expected.
    pub rcv_nxt: u64,
    /// Out-of-order ranges above rcv_nxt, sorted, with a recency stamp.
    ooo: Vec<(u64, u64, u64)>,
    stamp: u64,
    /// Full segments received since the last ACK.
    unacked_segments: u32,
    last_ack_sent: u64,
    ts_recent: u64,
    /// Bytes delivered to the application, in order, each once.
    pub delivered: u64,
    /// When the application received its last byte.
    pub last_delivery: Option<SimTime>,
    pub fin_received: bool,
    /// The sequence number of a FIN that arrived before all the data below
    /// it; accepted once the hole is filled (RFC 9293 3.10.7.4).
    /// `NO_FIN` until then (kept without an `Option`'s 8 bytes, so that
    /// the connection stays in its cache lines).
    fin_seq: u64,
    /// The delayed-ACK timer's deadline, if armed.
    pub delack_deadline: Option<SimTime>,
    delack_timeout: crate::time::SimDuration,
    ecn: Ecn,
    /// `dsack` or `linux` is on: the one flag the common path reads.
    extras: bool,
    /// D-SACK generation (RFC 2883), when on and SACK is.
    dsack: Option<Box<dsack::Dsack>>,
    /// Linux's ACK timing, when `ack_timing = "linux"`.
    linux: Option<Box<ato::LinuxAck>>,
}

/// The receiver's ECN state.
#[derive(Debug, Default)]
struct Ecn {
    /// Asked for by this end's configuration.
    wanted: bool,
    /// DCTCP's echo of each segment, not RFC 3168's latch.
    per_segment: bool,
    /// Agreed in the handshake.
    ok: bool,
    /// The ACKs say ECE.
    echo: bool,
}

/// What the receiver did with a segment, as its unit tests read it
/// ([`Receiver::on_segment`]).
#[cfg(test)]
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RcvOut {
    /// An ACK to send now.
    pub ack: Option<TcpHeader>,
    /// Bytes newly delivered to the application.
    pub delivered: u64,
    /// An ACK to send before `ack` (DCTCP: for the segments held back
    /// before the CE state changed).
    pub pre_ack: Option<TcpHeader>,
}

impl Receiver {
    pub fn new(c: &TcpConfig) -> Self {
        let shift = super::window_shift(c.rcv_buf, c.window_scaling);
        let linux = c.ack_timing == AckTiming::Linux;
        Receiver {
            state: RcvState::Listen,
            cfg_delack: c.delayed_ack.max(1) as u32,
            timestamps: c.timestamps,
            sack: c.sack,
            base_opts: super::base_options(c.timestamps) as u8,
            syn_opts: super::syn_options(c) as u8,
            wnd_field: (c.rcv_buf >> shift).min(65_535) as u16,
            syn_wnd: c.rcv_buf.min(65_535) as u16,
            // (Linux's quick-ACK mode replaces them.)
            quick_acks: if linux { 0 } else { c.quick_acks },
            rcv_nxt: 0,
            // Room for a few holes now rather than at the first loss, which
            // with thousands of connections means thousands of allocations
            // (and page faults) inside the event loop.
            ooo: Vec::with_capacity(4),
            stamp: 0,
            unacked_segments: 0,
            last_ack_sent: 0,
            ts_recent: 0,
            delivered: 0,
            last_delivery: None,
            fin_received: false,
            fin_seq: NO_FIN,
            delack_deadline: None,
            delack_timeout: c.delayed_ack_timeout,
            ecn: Ecn {
                wanted: c.ecn,
                per_segment: c.ecn_per_segment,
                ..Ecn::default()
            },
            extras: (c.dsack && c.sack) || linux,
            dsack: (c.dsack && c.sack).then(Box::default),
            linux: linux.then(|| {
                // (At most 65,535 B without window scaling.)
                let wnd = (c.rcv_buf >> shift).min(65_535) << shift;
                Box::new(ato::LinuxAck::new(c, wnd))
            }),
        }
    }

    /// The peer's FIN at `fin_seq`, in order, taken apart from its segment
    /// by the packetdrill harness (whose application closes explicitly):
    /// Linux's `tcp_fin` in ESTABLISHED, which enters ping-pong mode. If the
    /// segment's data was just ACKed (`acked`), that ACK covers the FIN
    /// too (the caller moves its number on); else the FIN's ACK is delayed
    /// (the ATO, no quick ACK), or returned if due now. Kept out of
    /// `segment`, which simulations run.
    #[cold]
    pub fn take_fin_pingpong(
        &mut self,
        now: SimTime,
        fin_seq: u64,
        acked: bool,
    ) -> Option<TcpHeader> {
        if self.fin_received || fin_seq != self.rcv_nxt {
            return None;
        }
        self.fin_seq = fin_seq;
        self.fin_received = true;
        self.rcv_nxt += 1;
        self.state = RcvState::Closed;
        let l = self.linux.as_deref_mut()?;
        l.enter_pingpong();
        if acked {
            self.last_ack_sent = self.rcv_nxt;
            return None;
        }
        if l.schedule(now, &mut self.delack_deadline) {
            let h = self.make_ack(now, ACK);
            if let Some(l) = self.linux.as_deref_mut() {
                l.ack_sent();
            }
            return Some(h);
        }
        None
    }

    /// This end's sending half sent a segment carrying the ACK `ack`: if it
    /// acknowledges everything received, a delayed ACK is no longer due
    /// (Linux's `tcp_event_ack_sent`).
    pub fn ack_carried(&mut self, ack: u64) {
        if ack != self.rcv_nxt || self.last_ack_sent == self.rcv_nxt {
            return;
        }
        let pending = self.delack_deadline.is_some();
        if let Some(l) = self.linux.as_deref_mut() {
            l.ack_carried(pending);
        }
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }

    /// Linux's ACK timing state, for tests and the packetdrill harness
    /// (`None` with the fixed timing).
    pub fn linux_ack(&self) -> Option<&ato::LinuxAck> {
        self.linux.as_deref()
    }

    /// Starts established without a handshake (the sender's
    /// `open_established`): the first data byte is 1, and ECN is on when
    /// the configuration asks for it.
    pub fn open_established(&mut self) {
        self.state = RcvState::Established;
        self.rcv_nxt = 1;
        self.last_ack_sent = 1;
        self.ecn.ok = self.ecn.wanted;
    }

    /// The RST|ACK this end sends when it aborts the connection (Linux's
    /// `tcp_send_active_reset`, e.g. on `close` with data unread): sequence
    /// `seq`, the ACK of what arrived, the window and the timestamps every
    /// segment carries, no SACK blocks.
    pub fn reset_header(&self, now: SimTime, seq: u64) -> TcpHeader {
        TcpHeader {
            seq,
            ack: self.rcv_nxt,
            flags: RST | ACK,
            wnd: self.wnd_field,
            opt_len: self.base_opts,
            ts_val: if self.timestamps { now.as_nanos() } else { 0 },
            ts_ecr: if self.timestamps { self.ts_recent } else { 0 },
            ..TcpHeader::default()
        }
    }

    #[inline]
    fn make_ack(&mut self, now: SimTime, flags: u8) -> TcpHeader {
        let mut h = TcpHeader {
            seq: if flags & SYN != 0 { 0 } else { 1 },
            ack: self.rcv_nxt,
            flags,
            // RFC 7323 2.2: the window of a SYN is never scaled.
            wnd: if flags & SYN != 0 {
                self.syn_wnd
            } else {
                self.wnd_field
            },
            ..TcpHeader::default()
        };
        let mut opts = u32::from(if flags & SYN != 0 {
            self.syn_opts
        } else {
            self.base_opts
        });
        if self.timestamps {
            h.ts_val = now.as_nanos();
            h.ts_ecr = self.ts_recent;
        }
        if self.sack && flags & SYN == 0 && (!self.ooo.is_empty() || self.extras) {
            // A D-SACK block first (RFC 2883 4), reported once; then the
            // most recently touched ranges (RFC 2018 4), chosen without
            // allocating: repeatedly the newest stamp below the last.
            let mut n = 0;
            if let Some(b) = self.dsack.as_deref_mut().and_then(dsack::Dsack::take) {
                h.sack[0] = b;
                n = 1;
            }
            let max = if self.timestamps { 3 } else { MAX_SACK_BLOCKS };
            let mut below = u64::MAX;
            while n < max {
                let next = self.ooo.iter().filter(|r| r.2 < below).max_by_key(|r| r.2);
                let Some(&(a, b, stamp)) = next else { break };
                h.sack[n] = (a, b);
                below = stamp;
                n += 1;
            }
            h.nsack = n as u8;
            opts += sack_options(n);
        }
        h.opt_len = opts as u8;
        if self.ecn.ok {
            if self.ecn.echo && flags & SYN == 0 {
                h.flags |= ECE;
            }
            // DCTCP's ACKs are ECN-capable too (Linux: all its segments).
            h.ect = self.ecn.per_segment;
        }
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
        h
    }

    /// Handles an arriving segment whose IP header is not marked CE.
    #[cfg(test)]
    pub fn on_segment(&mut self, now: SimTime, seg: &TcpHeader) -> RcvOut {
        let mut acks = Vec::new();
        let delivered = self.on_segment_ce(now, seg, false, &mut acks);
        let ack = acks.pop();
        RcvOut {
            ack,
            delivered,
            pre_ack: acks.pop(),
        }
    }

    /// Handles an arriving segment; `ce`: its IP header says Congestion
    /// Experienced. The ACKs to send now go to `acks` (a DCTCP receiver's
    /// ACK for the segments held back before the CE state changed first);
    /// returns the bytes newly delivered to the application.
    pub fn on_segment_ce(
        &mut self,
        now: SimTime,
        seg: &TcpHeader,
        ce: bool,
        acks: &mut Vec<TcpHeader>,
    ) -> u64 {
        // Two copies of the segment's path: the common one compiled without
        // D-SACK and Linux's timing (`extras` off), as it was before them.
        if self.extras {
            self.segment::<true>(now, seg, ce, acks)
        } else {
            self.segment::<false>(now, seg, ce, acks)
        }
    }

    /// The segment's path, with D-SACK and Linux's timing when `EXTRAS`.
    #[inline(always)]
    fn segment<const EXTRAS: bool>(
        &mut self,
        now: SimTime,
        seg: &TcpHeader,
        ce: bool,
        acks: &mut Vec<TcpHeader>,
    ) -> u64 {
        if seg.has(SYN) {
            // A first or repeated SYN: (re)send the SYN-ACK.
            if self.state == RcvState::Listen {
                self.state = RcvState::SynReceived;
                self.rcv_nxt = seg.seq + 1;
            }
            if self.timestamps {
                self.ts_recent = seg.ts_val;
            }
            // RFC 3168 6.1.1: an ECN-setup SYN gets an ECN-setup SYN-ACK.
            self.ecn.ok = self.ecn.wanted && seg.has(ECE) && seg.has(CWR);
            let flags = if self.ecn.ok {
                SYN | ACK | ECE
            } else {
                SYN | ACK
            };
            acks.push(self.make_ack(now, flags));
            if let (true, Some(l)) = (EXTRAS, self.linux.as_deref_mut()) {
                l.on_synack(now);
            }
            return 0;
        }
        let mut immediate = false;
        if self.ecn.ok && seg.len > 0 {
            if self.ecn.per_segment {
                if ce != self.ecn.echo {
                    if self.unacked_segments > 0 {
                        acks.push(self.make_ack(now, ACK));
                    }
                    self.ecn.echo = ce;
                    // The change is ACKed at once (Linux's ICSK_ACK_NOW).
                    immediate = true;
                }
            } else {
                if seg.has(CWR) {
                    self.ecn.echo = false;
                }
                self.ecn.echo |= ce;
            }
            if let (true, Some(l)) = (EXTRAS, self.linux.as_deref_mut()) {
                if seg.has(CWR) {
                    l.accept_cwr(true);
                }
            }
        }
        if self.state == RcvState::SynReceived && seg.has(ACK) {
            self.state = RcvState::Established;
            if let (true, Some(l)) = (EXTRAS, self.linux.as_deref_mut()) {
                l.on_established(now);
            }
        }
        // RFC 7323 4.3 (2): only from a segment at or below the last ACK
        // sent, and never backwards (an old duplicate must not lower it).
        if self.timestamps && seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
        let (s, e) = (seg.seq, seg.seq + seg.len as u64);
        let mut delivered = 0;
        if seg.len > 0 {
            if e <= self.rcv_nxt {
                immediate = true; // a duplicate: tell the sender where we are
                self.on_duplicate(s, e);
            } else if s > self.rcv_nxt {
                if EXTRAS {
                    self.on_out_of_order(s, e, ce);
                }
                self.insert_ooo(s, e);
                immediate = true; // out of order: a dupACK with SACK info
            } else {
                if EXTRAS {
                    self.on_in_order(now, s, seg.len, ce);
                }
                let had_hole = !self.ooo.is_empty();
                let before = self.rcv_nxt;
                self.rcv_nxt = e;
                self.pull_ooo();
                let n = self.rcv_nxt - before;
                self.delivered += n;
                self.last_delivery = Some(now);
                delivered = n;
                if had_hole {
                    immediate = true; // filled (part of) a hole
                }
                if self.quick_acks > 0 {
                    self.quick_acks -= 1;
                    immediate = true;
                }
                self.unacked_segments += 1;
            }
        }
        // With an application that closes on the FIN (Linux's ping-pong
        // mode from tcp_fin), an in-order FIN's ACK is delayed.
        if seg.has(FIN) {
            self.fin_seq = e;
            immediate = true;
        }
        if self.fin_seq == self.rcv_nxt && !self.fin_received {
            self.fin_received = true;
            self.rcv_nxt += 1;
            self.state = RcvState::Closed;
            immediate = true;
        }
        if seg.len == 0 && !seg.has(FIN) {
            return delivered; // a pure ACK (the handshake's third segment)
        }
        if EXTRAS && self.linux.is_some() {
            self.linux_ack_check(now, immediate, acks);
        } else if immediate || self.unacked_segments >= self.cfg_delack {
            acks.push(self.make_ack(now, ACK));
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack_timeout);
        }
        delivered
    }

    /// A segment entirely below RCV.NXT: a D-SACK of it, and Linux's
    /// quick-ACK mode (`tcp_send_dupack`).
    #[cold]
    fn on_duplicate(&mut self, s: u64, e: u64) {
        if let Some(d) = self.dsack.as_deref_mut() {
            d.set(s, e); // (replacing any unsent block: RFC 2883 4 (1))
        }
        if let Some(l) = self.linux.as_deref_mut() {
            l.duplicate();
        }
    }

    /// A segment above RCV.NXT, before it is held: a D-SACK of what it
    /// repeats, and Linux's CE check.
    #[inline(never)]
    fn on_out_of_order(&mut self, s: u64, e: u64, ce: bool) {
        if let Some(d) = self.dsack.as_deref_mut() {
            d.clear(); // only this segment's duplicates (RFC 2883 4 (1))
            d.overlap_ooo(&self.ooo, s, e);
        }
        if let Some(l) = self.linux.as_deref_mut() {
            if self.ecn.ok {
                l.check_ce(ce);
            }
        }
    }

    /// An in-order segment starting at `s`, before RCV.NXT moves: a D-SACK
    /// of its old part, if any (an unsent block of an earlier segment is
    /// dropped: only the latest segment's duplicates are reported, RFC 2883
    /// 4 (1), as Linux's `tcp_data_queue` clears `rx_opt.dsack`); Linux's
    /// ATO and CE check.
    #[inline(never)]
    fn on_in_order(&mut self, now: SimTime, s: u64, len: u32, ce: bool) {
        if let Some(d) = self.dsack.as_deref_mut() {
            d.clear();
            if s < self.rcv_nxt {
                d.set(s, self.rcv_nxt);
            }
        }
        if let Some(l) = self.linux.as_deref_mut() {
            l.data_recv(now, len as u64);
            if self.ecn.ok {
                l.check_ce(ce);
            }
        }
    }

    /// Linux's `__tcp_ack_snd_check` and `tcp_send_delayed_ack`: the ACK
    /// now, or the delayed-ACK timer.
    #[inline(never)]
    fn linux_ack_check(&mut self, now: SimTime, immediate: bool, acks: &mut Vec<TcpHeader>) {
        let unacked = self.rcv_nxt - self.last_ack_sent;
        let Some(l) = self.linux.as_deref_mut() else {
            return;
        };
        if immediate || l.send_now(unacked) || l.schedule(now, &mut self.delack_deadline) {
            acks.push(self.make_ack(now, ACK));
            if let Some(l) = self.linux.as_deref_mut() {
                l.ack_sent();
            }
        }
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<TcpHeader> {
        // (A FIN's delayed ACK, in ping-pong mode, has no segment counted.)
        if self.delack_deadline.is_some_and(|d| d <= now)
            && (self.unacked_segments > 0 || self.last_ack_sent < self.rcv_nxt)
        {
            if let Some(l) = self.linux.as_deref_mut() {
                l.timer_fired();
            }
            let h = self.make_ack(now, ACK);
            if let Some(l) = self.linux.as_deref_mut() {
                l.ack_sent();
            }
            return Some(h);
        }
        self.delack_deadline = None;
        None
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        self.stamp += 1;
        let (mut ns, mut ne) = (s, e);
        let stamp = self.stamp;
        self.ooo.retain(|&(a, b, _)| {
            if b < ns || a > ne {
                true
            } else {
                ns = ns.min(a);
                ne = ne.max(b);
                false
            }
        });
        let pos = self
            .ooo
            .iter()
            .position(|&(a, _, _)| a > ns)
            .unwrap_or(self.ooo.len());
        self.ooo.insert(pos, (ns, ne, stamp));
    }

    /// Moves the held ranges RCV.NXT now reaches into the in-order data;
    /// with D-SACK, what the new data repeated of them (the overlap with
    /// the segment, which ended at `high`) is reported as Linux's
    /// `tcp_ofo_queue` does: the first overlap, widened by later ones only
    /// where they touch.
    fn pull_ooo(&mut self) {
        let high = self.rcv_nxt;
        while let Some(&(a, b, _)) = self.ooo.first() {
            if a > self.rcv_nxt {
                break;
            }
            if a < high {
                if let Some(d) = self.dsack.as_deref_mut() {
                    d.extend(a, b.min(high));
                }
            }
            self.rcv_nxt = self.rcv_nxt.max(b);
            self.ooo.remove(0);
        }
    }
}

#[cfg(test)]
mod tests;
