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

use super::{sack_options, TcpConfig, TcpHeader, ACK, CWR, ECE, FIN, MAX_SACK_BLOCKS, SYN};
use crate::time::SimTime;

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
    base_opts: u32,
    syn_opts: u32,
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
    fin_seq: Option<u64>,
    /// The delayed-ACK timer's deadline, if armed.
    pub delack_deadline: Option<SimTime>,
    delack_timeout: crate::time::SimDuration,
    ecn: Ecn,
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
        Receiver {
            state: RcvState::Listen,
            cfg_delack: c.delayed_ack.max(1) as u32,
            timestamps: c.timestamps,
            sack: c.sack,
            base_opts: super::base_options(c.timestamps),
            syn_opts: super::syn_options(c),
            wnd_field: (c.rcv_buf >> shift).min(65_535) as u16,
            syn_wnd: c.rcv_buf.min(65_535) as u16,
            quick_acks: c.quick_acks,
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
            fin_seq: None,
            delack_deadline: None,
            delack_timeout: c.delayed_ack_timeout,
            ecn: Ecn {
                wanted: c.ecn,
                per_segment: c.ecn_per_segment,
                ..Ecn::default()
            },
        }
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
        let mut opts = if flags & SYN != 0 {
            self.syn_opts
        } else {
            self.base_opts
        };
        if self.timestamps {
            h.ts_val = now.as_nanos();
            h.ts_ecr = self.ts_recent;
        }
        if self.sack && flags & SYN == 0 && !self.ooo.is_empty() {
            // The most recently touched ranges first (RFC 2018 4), chosen
            // without allocating: repeatedly the newest stamp below the last.
            let max = if self.timestamps { 3 } else { MAX_SACK_BLOCKS };
            let mut below = u64::MAX;
            let mut n = 0;
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
            return 0;
        }
        if self.ecn.ok && seg.len > 0 {
            if self.ecn.per_segment {
                if ce != self.ecn.echo {
                    if self.unacked_segments > 0 {
                        acks.push(self.make_ack(now, ACK));
                    }
                    self.ecn.echo = ce;
                    // The change is ACKed at once (Linux's ICSK_ACK_NOW).
                    self.unacked_segments = self.cfg_delack;
                }
            } else {
                if seg.has(CWR) {
                    self.ecn.echo = false;
                }
                self.ecn.echo |= ce;
            }
        }
        if self.state == RcvState::SynReceived && seg.has(ACK) {
            self.state = RcvState::Established;
        }
        // RFC 7323 4.3 (2): only from a segment at or below the last ACK
        // sent, and never backwards (an old duplicate must not lower it).
        if self.timestamps && seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
        let (s, e) = (seg.seq, seg.seq + seg.len as u64);
        let mut immediate = false;
        let mut delivered = 0;
        if seg.len > 0 {
            if e <= self.rcv_nxt {
                immediate = true; // a duplicate: tell the sender where we are
            } else if s > self.rcv_nxt {
                self.insert_ooo(s, e);
                immediate = true; // out of order: a dupACK with SACK info
            } else {
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
        if seg.has(FIN) {
            self.fin_seq = Some(e);
            immediate = true;
        }
        if self.fin_seq == Some(self.rcv_nxt) && !self.fin_received {
            self.fin_received = true;
            self.rcv_nxt += 1;
            self.state = RcvState::Closed;
            immediate = true;
        }
        if seg.len == 0 && !seg.has(FIN) {
            return delivered; // a pure ACK (the handshake's third segment)
        }
        if immediate || self.unacked_segments >= self.cfg_delack {
            acks.push(self.make_ack(now, ACK));
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack_timeout);
        }
        delivered
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<TcpHeader> {
        if self.delack_deadline.is_some_and(|d| d <= now) && self.unacked_segments > 0 {
            return Some(self.make_ack(now, ACK));
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

    fn pull_ooo(&mut self) {
        while let Some(&(a, b, _)) = self.ooo.first() {
            if a > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(b);
            self.ooo.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn cfg(delack: u16, sack: bool) -> TcpConfig {
        TcpConfig {
            sack,
            delayed_ack: delack,
            ..TcpConfig::for_tests(100, 3)
        }
    }

    fn data(seq: u64, len: u32) -> TcpHeader {
        TcpHeader {
            seq,
            len,
            flags: ACK,
            ..TcpHeader::default()
        }
    }

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn established(delack: u16, sack: bool) -> Receiver {
        established_with(&cfg(delack, sack))
    }

    fn established_with(c: &TcpConfig) -> Receiver {
        let mut r = Receiver::new(c);
        let synack = r.on_segment(
            t(0),
            &TcpHeader {
                flags: SYN,
                ..TcpHeader::default()
            },
        );
        assert_eq!(synack.ack.unwrap().flags, SYN | ACK);
        r.on_segment(
            t(1),
            &TcpHeader {
                seq: 1,
                ack: 1,
                flags: ACK,
                ..TcpHeader::default()
            },
        );
        assert_eq!(r.state, RcvState::Established);
        r
    }

    #[test]
    fn opened_without_a_handshake_the_receiver_takes_byte_1_first() {
        let mut r = Receiver::new(&cfg(1, false));
        r.open_established();
        assert_eq!(r.state, RcvState::Established);
        let o = r.on_segment(t(10), &data(1, 100));
        assert_eq!((o.delivered, o.ack.unwrap().ack), (100, 101));
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut r = established(2, false);
        let o = r.on_segment(t(10), &data(1, 100));
        assert_eq!(o.ack, None);
        assert_eq!(r.delack_deadline, Some(t(210)));
        let o = r.on_segment(t(11), &data(101, 100));
        assert_eq!(o.ack.unwrap().ack, 201);
        assert_eq!(r.delack_deadline, None);
        r.on_segment(t(20), &data(201, 100));
        assert_eq!(r.on_delack_timer(t(219)), None);
        let mut r2 = established(2, false);
        r2.on_segment(t(20), &data(1, 100));
        assert_eq!(r2.on_delack_timer(t(220)).unwrap().ack, 101);
        assert_eq!(r.delivered, 300);
    }

    #[test]
    fn quick_acks_answer_the_first_data_segments_at_once_then_every_second() {
        // ns-3: the first data segment is ACKed at once, so the pairs
        // start at the second (1, 2-3, 4-5, ...).
        let mut r = established_with(&TcpConfig {
            quick_acks: 1,
            ..cfg(2, false)
        });
        // The handshake's bare ACK used none of them.
        assert_eq!(r.on_segment(t(10), &data(1, 100)).ack.unwrap().ack, 101);
        assert_eq!(r.on_segment(t(11), &data(101, 100)).ack, None);
        assert_eq!(r.on_segment(t(12), &data(201, 100)).ack.unwrap().ack, 301);
        assert_eq!(r.on_segment(t(13), &data(301, 100)).ack, None);
        assert_eq!(r.delack_deadline, Some(t(213)));
        // Without them the first two segments share an ACK.
        let mut r = established(2, false);
        assert_eq!(r.on_segment(t(10), &data(1, 100)).ack, None);
        assert_eq!(r.on_segment(t(11), &data(101, 100)).ack.unwrap().ack, 201);
    }

    #[test]
    fn out_of_order_is_acked_at_once_with_sack_blocks_most_recent_first() {
        let mut r = established(2, true);
        r.on_segment(t(10), &data(1, 100));
        let o = r.on_segment(t(11), &data(201, 100)); // hole at 101
        let a = o.ack.unwrap();
        assert_eq!((a.ack, a.sack_blocks()), (101, &[(201, 301)][..]));
        assert_eq!(a.opt_len, 12);
        let a = r.on_segment(t(12), &data(401, 100)).ack.unwrap();
        assert_eq!(a.sack_blocks(), &[(401, 501), (201, 301)]);
        let a = r.on_segment(t(13), &data(301, 100)).ack.unwrap();
        assert_eq!(a.sack_blocks(), &[(201, 501)]);
        // Filling the hole is ACKed at once and delivers everything.
        let o = r.on_segment(t(14), &data(101, 100));
        assert_eq!(o.ack.unwrap().ack, 501);
        assert_eq!(o.delivered, 400);
        assert_eq!(r.delivered, 500);
    }

    #[test]
    fn duplicates_are_acked_and_not_delivered_twice() {
        let mut r = established(1, false);
        r.on_segment(t(10), &data(1, 100));
        let o = r.on_segment(t(11), &data(1, 100));
        assert_eq!(o.ack.unwrap().ack, 101);
        assert_eq!(o.delivered, 0);
        assert_eq!(r.delivered, 100);
    }

    #[test]
    fn a_fin_before_missing_data_is_accepted_once_the_hole_fills() {
        let mut r = established(2, false);
        r.on_segment(t(10), &data(1, 100));
        let fin = TcpHeader {
            seq: 201,
            flags: ACK | FIN,
            ..TcpHeader::default()
        };
        assert_eq!(r.on_segment(t(11), &fin).ack.unwrap().ack, 101); // hole at 101
        assert!(!r.fin_received);
        let o = r.on_segment(t(12), &data(101, 100));
        assert_eq!(o.ack.unwrap().ack, 202); // data and the FIN
        assert!(r.fin_received);
    }

    #[test]
    fn syn_ack_window_is_unscaled() {
        let mut r = Receiver::new(&cfg(2, false)); // 1 MiB buffer, shift 5
        let synack = r.on_segment(
            t(0),
            &TcpHeader {
                flags: SYN,
                ..TcpHeader::default()
            },
        );
        assert_eq!(synack.ack.unwrap().wnd, 65_535);
        r.on_segment(
            t(1),
            &TcpHeader {
                seq: 1,
                ack: 1,
                flags: ACK,
                ..TcpHeader::default()
            },
        );
        let a = r.on_segment(t(2), &data(1, 100)).ack;
        assert_eq!(a, None);
        let a = r.on_segment(t(3), &data(101, 100)).ack.unwrap();
        assert_eq!(a.wnd as u64, (1u64 << 20) >> 5);
    }

    #[test]
    fn fin_is_acked_and_consumes_a_sequence_number() {
        let mut r = established(2, false);
        r.on_segment(t(10), &data(1, 100));
        let fin = TcpHeader {
            seq: 101,
            flags: ACK | FIN,
            ..TcpHeader::default()
        };
        assert_eq!(r.on_segment(t(11), &fin).ack.unwrap().ack, 102);
        assert!(r.fin_received);
    }
}
