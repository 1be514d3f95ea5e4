// SPDX-License-Identifier: MIT OR Apache-2.0
//! The persist timer: a zero window with nothing in flight is probed at
//! the RTO, then at twice, four times...; an opened window lets data go
//! with a fresh retransmission timer (RFC 9293 3.8.6.1, Linux's
//! `tcp_probe_timer` and `tcp_xmit_probe_skb`).

use super::*;

/// A cumulative ACK of `ack` advertising `wnd` bytes.
fn window(f: &mut Fix, ack: u64, wnd: u16) {
    let h = TcpHeader {
        ack,
        flags: ACK,
        wnd,
        ..TcpHeader::default()
    };
    f.s.on_segment(f.now, &h, &mut f.out);
}

#[test]
fn a_closed_window_is_probed_at_the_rto_then_backed_off() {
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    // Everything acknowledged, the window closed: nothing may go.
    window(&mut f, seg(10), 0);
    assert!(f.take().is_empty());
    // The RTO: RFC 6298's 1 s minimum here (the fixture's min_rto).
    let rto = SimDuration::from_secs(1);
    let first = f.s.rto_deadline().expect("the persist timer runs");
    assert_eq!(first, f.now + rto);
    f.now = first;
    f.s.on_rto(f.now, &mut f.out);
    let probe: Vec<_> = f.out.drain(..).collect();
    assert_eq!(probe.len(), 1);
    assert_eq!(
        (probe[0].seq, probe[0].len, probe[0].flags),
        (seg(10) - 1, 0, ACK)
    );
    // Backed off: the next probe twice as late; a timeout it is not.
    assert_eq!(f.s.rto_deadline(), Some(f.now + rto * 2));
    assert_eq!(f.s.stats().timeouts, 0);
    assert_eq!(f.state(), CaState::Open);
    // The window opens: data goes, and the timer is a retransmission
    // timer again, from now.
    f.advance(SimDuration::from_millis(50));
    window(&mut f, seg(10), 65_535);
    assert!(!f.take().is_empty());
    assert_eq!(f.s.rto_deadline(), Some(f.now + f.s.rtt().rto()));
}

#[test]
fn an_open_window_arms_no_persist_timer() {
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    window(&mut f, seg(10), 65_535);
    // Endless data: the window is used at once, the timer is the RTO.
    assert!(!f.take().is_empty());
    assert_eq!(f.s.rto_deadline(), Some(f.now + f.s.rtt().rto()));
}
