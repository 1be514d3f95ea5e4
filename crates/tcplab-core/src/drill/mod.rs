// SPDX-License-Identifier: MIT OR Apache-2.0
//! One TCP connection driven from outside the simulator, packet by packet:
//! the engine room of the packetdrill runner (`python/tcplab/packetdrill`).
//!
//! A packetdrill script plays the remote peer: it injects segments and
//! expects the local end's segments back at given times. Here the local end
//! is a tcplab [`Sender`] (the data this end sends) and a [`Receiver`] (the
//! data it receives) sharing one connection:
//! - segments from the sender carry the receiver's cumulative ACK, and the
//!   receiver's ACKs carry the sender's next sequence number, as one TCP
//!   endpoint's would;
//! - an injected segment goes to the receiver when it carries data, a SYN
//!   or a FIN, and to the sender when it carries an ACK;
//! - the handshake's options (MSS, SACK, timestamps, window scale, ECN) are
//!   negotiated by the runner, which resolves the flow with them
//!   ([`FlowSpec`] under the linux profile, through the same resolution as a
//!   scenario) and opens the connection with [`Drill::passive_open`] (the
//!   script's `listen` and `accept`) or [`Drill::active_open`] (`connect`).
//!
//! Times are the simulator's; the runner maps the script's onto them.

mod nagle;

use crate::scenario::resolve::{self, TcpPlan};
use crate::scenario::FlowSpec;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, SenderInfo};
use crate::tcp::{TcpConfig, TcpHeader, ACK, ECE, FIN, SYN};
use crate::time::SimTime;
use crate::{Error, Result};
use nagle::{Nagle, Push};

/// Which half of the endpoint a segment came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Sender,
    Receiver,
}

/// One driven connection.
#[derive(Debug, Default)]
pub struct Drill {
    snd: Option<Sender>,
    rcv: Option<Receiver>,
    cfg: Option<TcpConfig>,
    /// What left since the last [`Drill::take`], in order.
    out: Vec<(SimTime, Half, TcpHeader)>,
    scratch: Vec<TcpHeader>,
    /// Application bytes written so far.
    written: u64,
    /// The sender has not yet seen the ACK of its SYN (passive open).
    awaiting_ack: bool,
    /// Ends of records (MSG_EOR) the sender has not reached yet, as
    /// sequence numbers: its data is held at the first, so that no new
    /// segment crosses it.
    records: std::collections::VecDeque<u64>,
    /// The application closed while records were still held: the FIN
    /// follows once the last is released.
    close_pending: bool,
    /// The application closed its sending side: nothing is held back.
    closing: bool,
    /// Nagle's test, TCP_CORK and MSG_MORE.
    nagle: Nagle,
    /// A partial last segment is held back.
    held: bool,
    /// The `fq` qdisc paces the connection: Linux's pacing ratios (percent)
    /// and `tcp_min_tso_segs`.
    fq: Option<(u32, u32, u32)>,
    /// A local qdisc drops every packet (`tc ... limit 0`): nothing leaves.
    local_drop: bool,
}

impl Drill {
    pub fn new() -> Drill {
        Drill::default()
    }

    /// Resolves `spec` (a tcp flow) as a scenario would, on a path of
    /// `path_mtu` bytes.
    fn resolve(spec: &FlowSpec, path_mtu: u32) -> Result<TcpPlan> {
        let mut f = spec.clone();
        let mut no_custom = |_: usize| None;
        resolve::tcp(0, "tcp", &mut f, path_mtu, &[], &mut no_custom)
    }

    /// Checks `spec` without opening anything (bad input is refused
    /// before a script runs).
    pub fn check(spec: &FlowSpec, path_mtu: u32) -> Result<()> {
        Drill::resolve(spec, path_mtu).map(|_| ())
    }

    fn start(&mut self, spec: &FlowSpec, path_mtu: u32, peer_shift: u8) -> Result<()> {
        if self.snd.is_some() {
            return Err(Error::invalid(
                "packetdrill",
                "the connection is already open",
            ));
        }
        let plan = Drill::resolve(spec, path_mtu)?;
        let mut snd = Sender::new(plan.cfg.clone(), plan.cc, plan.fine_retransmit);
        snd.set_peer_window_shift(peer_shift);
        snd.record_events();
        if let Some(p) = &plan.pacing {
            snd.set_pacing(p);
        }
        if let Some((ss, ca, segs)) = self.fq {
            snd.enable_linux_pacing(ss, ca, segs);
        }
        self.rcv = Some(Receiver::new(&plan.cfg));
        self.cfg = Some(plan.cfg);
        self.snd = Some(snd);
        Ok(())
    }

    /// The SYN `syn` arrived on a listening socket: the connection is
    /// resolved from `spec` (with the options the runner negotiated), the
    /// receiver answers with its SYN-ACK, and the sender counts its RTT from
    /// now (Linux measures the passive opener's first RTT from the SYN-ACK).
    pub fn passive_open(
        &mut self,
        now: SimTime,
        spec: &FlowSpec,
        path_mtu: u32,
        peer_shift: u8,
        syn: &TcpHeader,
        ce: bool,
    ) -> Result<()> {
        self.start(spec, path_mtu, peer_shift)?;
        let rcv = self.rcv.as_mut().expect("started");
        rcv.on_segment_ce(now, syn, ce, &mut self.scratch);
        for h in self.scratch.drain(..) {
            self.out.push((now, Half::Receiver, h));
        }
        // The sender's own SYN stands for the SYN-ACK just sent: it is not
        // sent again.
        let mut discard = Vec::new();
        self.snd.as_mut().expect("started").open(now, &mut discard);
        self.awaiting_ack = true;
        Ok(())
    }

    /// The SYN-ACK `syn_ack` answered the SYN this end sent at `syn_at`:
    /// the connection is resolved from `spec`, the sender established (it
    /// ACKs the SYN-ACK), the receiver expects the peer's first byte.
    pub fn active_open(
        &mut self,
        now: SimTime,
        syn_at: SimTime,
        spec: &FlowSpec,
        path_mtu: u32,
        peer_shift: u8,
        syn_ack: &TcpHeader,
    ) -> Result<()> {
        self.start(spec, path_mtu, peer_shift)?;
        let mut discard = Vec::new();
        let snd = self.snd.as_mut().expect("started");
        snd.open(syn_at, &mut discard);
        self.rcv.as_mut().expect("started").open_established();
        self.give_sender(now, syn_ack);
        Ok(())
    }

    /// A segment from the peer; `ce` if its IP header says CE.
    pub fn inject(&mut self, now: SimTime, h: &TcpHeader, ce: bool) {
        if self.snd.is_none() {
            return;
        }
        if h.len > 0 || h.has(FIN) || h.has(SYN) || self.awaiting_ack {
            let rcv = self.rcv.as_mut().expect("open");
            // The peer's FIN in order while this end has not closed: Linux's
            // ping-pong mode (tcp_fin), its ACK delayed to go with the
            // application's FIN. Out of order or repeated, it is ACKed at once.
            let pingpong = h.has(FIN)
                && !self.closing
                && !rcv.fin_received
                && h.seq <= rcv.rcv_nxt
                && rcv.linux_ack().is_some();
            if pingpong {
                let data = TcpHeader {
                    flags: h.flags & !FIN,
                    ..*h
                };
                if data.len > 0 {
                    rcv.on_segment_ce(now, &data, ce, &mut self.scratch);
                }
                let fin_seq = h.seq + u64::from(h.len);
                let acked = !self.scratch.is_empty();
                if let Some(a) = rcv.take_fin_pingpong(now, fin_seq, acked) {
                    self.scratch.push(a);
                }
                if !rcv.fin_received {
                    // Not in order after all: as any FIN.
                    let fin = TcpHeader {
                        seq: fin_seq,
                        len: 0,
                        ..*h
                    };
                    rcv.on_segment_ce(now, &fin, ce, &mut self.scratch);
                }
                let ack = rcv.rcv_nxt;
                for a in &mut self.scratch {
                    a.ack = a.ack.max(ack);
                }
            } else {
                rcv.on_segment_ce(now, h, ce, &mut self.scratch);
            }
            self.push_acks(now);
        }
        if !h.has(ACK) {
            return;
        }
        if self.awaiting_ack {
            if h.ack != 1 {
                return;
            }
            self.awaiting_ack = false;
            // The sender waits for a SYN-ACK: this ACK of the passive
            // opener's SYN-ACK stands for it (RFC 7323 2.2: its window, the
            // first after the handshake, is scaled).
            let shift = self.snd.as_ref().map_or(0, |s| s.peer_shift());
            let wnd = ((h.wnd as u64) << shift).min(65_535) as u16;
            // An ECN-setup SYN-ACK when the handshake agreed ECN (the flow
            // was resolved with it).
            let ece = if self.cfg.as_ref().is_some_and(|c| c.ecn) {
                ECE
            } else {
                0
            };
            let stand_in = TcpHeader {
                flags: (h.flags | SYN | ece) & !crate::tcp::CWR,
                wnd,
                ..*h
            };
            let snd = self.snd.as_mut().expect("open");
            snd.on_segment(now, &stand_in, &mut self.scratch);
            // Its ACK of the SYN-ACK is not sent: the peer's ACK was the
            // third segment of the handshake.
            self.scratch.retain(|s| s.len > 0 || s.flags & !ACK != 0);
            self.push_sent(now);
            return;
        }
        self.give_sender(now, h);
    }

    fn give_sender(&mut self, now: SimTime, h: &TcpHeader) {
        let snd = self.snd.as_mut().expect("open");
        snd.on_segment(now, h, &mut self.scratch);
        self.push_sent(now);
        self.refeed(now);
    }

    /// Segments from the sender, carrying the receiver's ACK.
    fn push_sent(&mut self, now: SimTime) {
        let ack = self.rcv.as_ref().map_or(1, |r| r.rcv_nxt.max(1));
        let mss = self.snd.as_ref().map_or(u64::MAX, Sender::mss);
        if !self.scratch.is_empty() {
            if let Some(r) = self.rcv.as_mut() {
                r.ack_carried(ack);
            }
        }
        for mut h in self.scratch.drain(..) {
            h.ack = ack;
            if !h.retx {
                // Minshall's snd_sml counts new data only (tcp_minshall_update).
                let len = u64::from(h.len);
                self.nagle.sent(h.seq + len, len, mss);
            }
            self.out.push((now, Half::Sender, h));
        }
    }

    /// ACKs from the receiver, carrying the sender's next sequence number.
    fn push_acks(&mut self, now: SimTime) {
        let seq = self.snd.as_ref().map_or(1, |s| s.tcb().snd_nxt.max(1));
        if self.local_drop {
            self.scratch.clear(); // the local qdisc drops them
            return;
        }
        for mut h in self.scratch.drain(..) {
            if !h.has(SYN) {
                h.seq = seq;
            }
            self.out.push((now, Half::Receiver, h));
        }
    }

    /// The application wrote `bytes` more; `eor` ends a record with them
    /// (MSG_EOR: Linux then appends nothing to the skb that holds the
    /// record's end, so no segment crosses it); `more` holds a partial last
    /// segment back (MSG_MORE).
    pub fn write(&mut self, now: SimTime, bytes: u64, eor: bool, more: bool) {
        self.written += bytes;
        if eor {
            let end = self.written + 1;
            self.records.push_back(end);
            if let Some(s) = self.snd.as_mut() {
                s.mark_record_end(end);
            }
        }
        self.feed(now, if more { Push::More } else { Push::Normal });
    }

    /// The `fq` qdisc: the connection, once open, is paced as Linux paces
    /// under it ([`Sender::enable_linux_pacing`]).
    pub fn set_fq(&mut self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) {
        self.fq = Some((ss_ratio, ca_ratio, min_tso_segs));
    }

    /// A local qdisc that drops every packet, set or removed: while set,
    /// no segment leaves and what is written stays unsent (Linux's failed
    /// `tcp_transmit_skb` leaves it in the write queue). The caller sets it
    /// only with nothing in flight, and probes the held data itself.
    pub fn set_local_drop(&mut self, now: SimTime, on: bool) {
        self.local_drop = on;
        self.feed(now, Push::Normal);
    }

    /// The segments Linux puts in one skb now ([`Sender::tso_autosize`];
    /// 1 before the connection opens).
    pub fn tso_segs(&self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) -> u32 {
        self.snd
            .as_ref()
            .map_or(1, |s| s.tso_autosize(ss_ratio, ca_ratio, min_tso_segs))
    }

    /// Data written and not yet given to the sender, in bytes.
    pub fn unsent(&self) -> u64 {
        let sent = self.snd.as_ref().map_or(1, |s| s.tcb().snd_max.max(1));
        (self.written + 1).saturating_sub(sent)
    }

    /// TCP_NODELAY: turning it on pushes what is held, even when corked.
    pub fn set_nodelay(&mut self, now: SimTime, on: bool) {
        self.nagle.nodelay = on;
        if on {
            self.feed(now, Push::Force);
        }
    }

    /// TCP_CORK: turning it off pushes (forced with TCP_NODELAY on).
    pub fn set_cork(&mut self, now: SimTime, on: bool) {
        self.nagle.cork = on;
        if !on {
            let push = if self.nagle.nodelay {
                Push::Force
            } else {
                Push::Normal
            };
            self.feed(now, push);
        }
    }

    /// Gives the sender the data written, up to the first record end it
    /// has not reached; once it sends up to that end, the next, at the
    /// same instant. Of the last, a partial segment waits if Nagle's test,
    /// TCP_CORK or MSG_MORE holds it ([`nagle`]). A FIN the application
    /// asked for follows the last record.
    fn feed(&mut self, now: SimTime, push: Push) {
        let Some(s) = self.snd.as_mut() else { return };
        if self.local_drop {
            // Every transmission fails locally: what is written stays in
            // the write queue, unsent (the harness probes it).
            let sent = s.tcb().snd_max;
            s.set_app_limit(now, sent.max(1) - 1, &mut self.scratch);
            self.held = self.written + 1 > sent;
            self.push_sent(now);
            return;
        }
        let push = if self.closing { Push::Force } else { push };
        let mss = s.mss();
        loop {
            let sent = s.tcb().snd_max;
            while self.records.front().is_some_and(|&b| b <= sent) {
                self.records.pop_front();
            }
            let all = self.written + 1;
            let mut end = self.records.front().copied().unwrap_or(all);
            let last = end == all;
            self.held = false;
            if last {
                let partial = end.saturating_sub(sent) % mss;
                let (una, max) = (s.tcb().snd_una, s.tcb().snd_max);
                if partial > 0 && self.nagle.holds(push, max > una, una) {
                    end -= partial;
                    self.held = true;
                }
            }
            s.set_app_limit(now, end - 1, &mut self.scratch);
            if last || s.tcb().snd_max < end {
                break;
            }
        }
        if self.close_pending && self.records.is_empty() {
            self.close_pending = false;
            s.close(now, &mut self.scratch);
        }
        let in_flight = s.tcb().snd_max > s.tcb().snd_una;
        self.nagle.after_push(now, self.held, in_flight, s.rto());
        self.push_sent(now);
    }

    /// After a segment or a timer: the sender may have reached a record's
    /// end it is held at, or what held a partial segment may have passed.
    fn refeed(&mut self, now: SimTime) {
        if !self.records.is_empty() || self.held {
            self.feed(now, Push::Normal);
        }
    }

    /// The application closed its sending side (`close` or `shutdown`):
    /// the FIN pushes everything.
    /// The FIN follows the last record once it is sent (at once when none
    /// is held back), and not while a local qdisc drops everything.
    pub fn close(&mut self, now: SimTime) {
        self.closing = true;
        self.close_pending = true;
        self.feed(now, Push::Force);
    }

    /// The connection is gone (no timers, nothing more sent or received).
    /// With `send_rst` this end aborted it (`close` with data unread, as
    /// Linux's `tcp_close` does) and a RST|ACK leaves; without, it died
    /// quietly (Linux's `tcp_write_err`, e.g. on TCP_USER_TIMEOUT).
    pub fn reset(&mut self, now: SimTime, send_rst: bool) {
        self.nagle.deadline = None;
        self.held = false;
        self.records.clear();
        self.close_pending = false;
        if let (Some(s), Some(r)) = (self.snd.take(), self.rcv.take()) {
            if send_rst {
                let h = r.reset_header(now, s.tcb().snd_nxt.max(1));
                self.out.push((now, Half::Sender, h));
            }
        }
    }

    /// The earliest timer armed: retransmission (or RACK's), pacing, the
    /// delayed ACK, or the probe timer of held data.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let s = self.snd.as_ref();
        [
            s.and_then(|s| s.rto_deadline()),
            s.and_then(|s| s.pace_deadline()),
            self.rcv.as_ref().and_then(|r| r.delack_deadline),
            self.nagle.deadline,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Fires the timers due at `now`.
    pub fn fire(&mut self, now: SimTime) {
        let Some(s) = self.snd.as_mut() else { return };
        if s.rto_deadline().is_some_and(|d| d <= now) {
            s.on_rto(now, &mut self.scratch);
            self.push_sent(now);
        }
        let s = self.snd.as_mut().expect("open");
        if s.pace_deadline().is_some_and(|d| d <= now) {
            s.on_pace(now, &mut self.scratch);
            self.push_sent(now);
        }
        let r = self.rcv.as_mut().expect("open");
        if r.delack_deadline.is_some_and(|d| d <= now) {
            if let Some(h) = r.on_delack_timer(now) {
                self.scratch.push(h);
            }
            self.push_acks(now);
        }
        if self.nagle.deadline.is_some_and(|d| d <= now) {
            // The probe timer: what is held goes if nothing is in flight.
            self.nagle.deadline = None;
            let s = self.snd.as_ref().expect("open");
            let push = if s.tcb().snd_max == s.tcb().snd_una {
                Push::Force
            } else {
                Push::Normal
            };
            self.feed(now, push);
            return;
        }
        self.refeed(now);
    }

    /// What left since the last call, with when and from which half.
    pub fn take(&mut self) -> Vec<(SimTime, Half, TcpHeader)> {
        std::mem::take(&mut self.out)
    }

    /// The sender's state, once open.
    pub fn sender_info(&self) -> Option<SenderInfo> {
        self.snd.as_ref().map(Sender::info)
    }

    /// Bytes the receiver delivered to the application in order.
    pub fn received(&self) -> u64 {
        self.rcv.as_ref().map_or(0, |r| r.delivered)
    }

    /// The peer's FIN has arrived.
    pub fn fin_received(&self) -> bool {
        self.rcv.as_ref().is_some_and(|r| r.fin_received)
    }

    /// The resolved configuration, once open.
    pub fn config(&self) -> Option<&TcpConfig> {
        self.cfg.as_ref()
    }

    /// The sender's event log since the last call (timeouts, fast
    /// retransmits, recovery exits).
    pub fn events(&mut self) -> Vec<crate::tcp::sender::TcpEvent> {
        self.snd
            .as_mut()
            .and_then(|s| s.events_mut())
            .map(std::mem::take)
            .unwrap_or_default()
    }
}
