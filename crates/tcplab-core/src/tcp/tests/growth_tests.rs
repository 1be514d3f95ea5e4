// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cwnd_growth = "linux"` against `"rfc"`, with CUBIC as the linux
//! profile builds it (slow start counts segments, Linux's
//! `tcp_slow_start`). Each number is worked out by hand from Linux's
//! `tcp_is_cwnd_limited` and `acked_sacked`; each test also runs with
//! `"rfc"` to show that the mechanism, not something else, makes it.

use super::*;
use crate::tcp::CwndGrowth;

/// A linux-profile CUBIC sender with ten segments of initial window and
/// the application's data ending after `app_segments` segments.
fn cubic(growth: CwndGrowth, sack: bool, app_segments: u64) -> Fix {
    let mut cfg = config(10);
    cfg.cwnd_growth = growth;
    cfg.sack = sack;
    let built = registry::build(&CcSpec::named("cubic"), "cc", Profile::Linux, true).unwrap();
    let mut f = Fix {
        s: Sender::new(cfg, built.cc, false),
        now: SimTime::ZERO,
        out: Vec::new(),
    };
    f.s.open(f.now, &mut f.out);
    f.s.set_app_limit(f.now, app_segments * MSS, &mut f.out);
    f.advance(RTT);
    let syn_ack = TcpHeader {
        ack: 1,
        flags: SYN | ACK,
        wnd: 65_535,
        ..TcpHeader::default()
    };
    f.s.on_segment(f.now, &syn_ack, &mut f.out);
    f.take();
    f
}

fn sack_ack(f: &mut Fix, ack: u64, blocks: &[(u64, u64)]) {
    let mut h = TcpHeader {
        ack,
        flags: ACK,
        wnd: 65_535,
        nsack: blocks.len() as u8,
        ..TcpHeader::default()
    };
    h.sack[..blocks.len()].copy_from_slice(blocks);
    f.s.on_segment(f.now, &h, &mut f.out);
}

#[test]
fn an_application_limited_window_does_not_grow() {
    // Five segments out of a window of ten: cwnd 10 is not below twice
    // the five in flight, so Linux does not grow it; RFC 5681 does, by
    // the two segments acknowledged.
    for (growth, cwnd) in [(CwndGrowth::Linux, 10.0), (CwndGrowth::Rfc, 12.0)] {
        let mut f = cubic(growth, false, 5);
        f.advance(RTT);
        f.ack(seg(2));
        assert_eq!(f.cwnd_segments(), cwnd, "{growth:?}");
    }
}

#[test]
fn a_window_in_use_grows_in_slow_start_below_twice_the_flight() {
    // Six of ten out: cwnd 10 < 2 x 6, so slow start may still double
    // what was in flight: the ACK of two segments grows it to 12.
    let mut f = cubic(CwndGrowth::Linux, false, 6);
    f.advance(RTT);
    f.ack(seg(2));
    assert_eq!(f.cwnd_segments(), 12.0);
}

#[test]
fn sacked_segments_are_counted_once() {
    // Ten out; segments 2 and 3 SACKed (below DupThresh: no recovery),
    // then the cumulative ACK of 0..4 (five segments). Linux counts what
    // it newly delivered: 0, 1 and 4, so cwnd 10 + 3; RFC counts five.
    for (growth, cwnd) in [(CwndGrowth::Linux, 13.0), (CwndGrowth::Rfc, 15.0)] {
        let mut f = cubic(growth, true, 100);
        f.advance(RTT);
        sack_ack(&mut f, seg(0), &[(seg(2), seg(4))]);
        sack_ack(&mut f, seg(5), &[]);
        assert_eq!(f.cwnd_segments(), cwnd, "{growth:?}");
    }
}

#[test]
fn without_sack_duplicate_acks_stood_for_delivered_segments() {
    // Two duplicate ACKs (segments 1 and 2 arrived out of order), then
    // the ACK of 0..2: three segments, two already counted by the
    // duplicates (tcp_remove_reno_sacks: max(3 - 2, 1)), so cwnd 11.
    for (growth, cwnd) in [(CwndGrowth::Linux, 11.0), (CwndGrowth::Rfc, 13.0)] {
        let mut f = cubic(growth, false, 100);
        f.advance(RTT);
        f.dupack();
        f.dupack();
        f.ack(seg(3));
        assert_eq!(f.cwnd_segments(), cwnd, "{growth:?}");
    }
}
