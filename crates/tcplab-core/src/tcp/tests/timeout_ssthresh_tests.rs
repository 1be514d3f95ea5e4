// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which retransmission timeouts set ssthresh, from what flight
//! (`timeout_ssthresh`, [`super::super::timeout_ssthresh`]): RFC 5681's
//! first of a series, or ns-3 3.44's every one, from its bytes in flight.

use super::*;
use crate::cc::reno::{Halve, Reno};

/// ns-3's TcpNewReno threshold (max(pipe / 2, 2 segments)) and SACK
/// recovery, the timeout's threshold in `form`: an initial window of `n`
/// segments sent.
fn ns3_newreno(n: u64, form: TimeoutSsthresh) -> Fix {
    let mut cfg = config(n);
    cfg.sack = true;
    cfg.recovery = Recovery::Sack;
    cfg.timeout_ssthresh = form;
    let cc = Reno {
        halve: Halve::Pipe,
        ..Reno::new(false)
    };
    let mut f = Fix::established_cc(Box::new(cc), cfg);
    assert_eq!(f.take(), segments(0, n));
    f
}

/// Ten segments in flight and no ACK: the first timeout has fired,
/// ssthresh 5.
fn after_a_timeout(form: TimeoutSsthresh) -> Fix {
    let mut f = ns3_newreno(10, form);
    f.timeout();
    assert_eq!(f.take(), segments(0, 1));
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.ssthresh_segments(), 5.0, "half of the ten in flight");
    f
}

#[test]
fn ns3_sets_ssthresh_at_every_timeout_from_what_it_resent_since_the_last() {
    // After the first timeout (ssthresh 5, cwnd 1), slow start in the Loss
    // state resends 1 and 2 on the ACK of 0, then 3 and 4, 5 and 6, 7 and
    // 8 on the ACKs of 1, 2 and 3 (cwnd 2, 3, 4, 5). Segment 4's resend is
    // lost: the ACK of 4 SACKs 5 to 8, and the timer fires again. Without
    // timestamps no resent segment gave an RTT sample, so the timer is
    // still backed off: RFC 5681 keeps ssthresh at 5. ns-3 sets it from
    // its BytesInFlight: the five segments resent since the last timeout
    // and above the cumulative ACK (4, and 5 to 8 though SACKed), so 2.5.
    // The RFC 6675 pipe without retransmissions would give 2 (4 is lost,
    // 5 to 8 are SACKed: nothing in flight; the floor of two segments).
    // That resend of 4 is lost too: at the third timeout ns-3 counts it
    // alone (the timeout cleared the marks of 5 to 8), the floor again.
    let run = |form: TimeoutSsthresh| {
        let mut f = after_a_timeout(form);
        for k in 1..5 {
            f.advance(RTT);
            f.ack(seg(k));
            let sent = f.take();
            let first = if k == 1 { 1 } else { 2 * k - 1 };
            assert_eq!(sent, segments(first, 2), "after the ACK of {}", k - 1);
        }
        assert_eq!(f.cwnd_segments(), 5.0);
        f.advance(RTT);
        f.sack(&[(5, 9)]);
        assert_eq!(f.state(), CaState::Loss, "no recovery in the Loss state");
        let before = f.s.stats().timeouts;
        f.timeout();
        assert_eq!(f.s.stats().timeouts, before + 1);
        assert_eq!(f.take(), segments(4, 1));
        let second = f.ssthresh_segments();
        f.timeout();
        assert_eq!(f.take(), segments(4, 1));
        (second, f.ssthresh_segments())
    };
    assert_eq!(run(TimeoutSsthresh::Rfc5681), (5.0, 5.0));
    assert_eq!(run(TimeoutSsthresh::Ns3), (2.5, 2.0));
}

#[test]
fn ns3_counts_the_fast_retransmission_still_in_flight_at_the_timeout() {
    // Twenty in flight, 0 lost; the SACKs of 1 to 3 start the recovery
    // (ssthresh 8: half the pipe of 16) and resend 0, which is lost again;
    // nothing more comes back and the timer fires. ns-3's flight is the
    // pipe (4 to 19, and what the recovery sent beyond 19, not SACKed and
    // not lost) plus the resent 0, which IsLost calls lost: one segment
    // more than the RFC 6675 pipe without retransmissions, so half a
    // segment more ssthresh.
    let run = |form: TimeoutSsthresh| {
        let mut f = ns3_newreno(20, form);
        f.advance(RTT);
        for j in 1..4 {
            f.sack(&[(1, j + 1)]);
        }
        assert_eq!(f.state(), CaState::Recovery);
        assert_eq!(f.ssthresh_segments(), 8.0);
        assert_eq!(f.take().first(), Some(&(seg(0), MSS)));
        let outstanding = (f.s.tcb().snd_max - seg(0)) / MSS;
        f.timeout();
        (f.ssthresh_segments(), outstanding)
    };
    let (rfc, outstanding) = run(TimeoutSsthresh::Rfc5681);
    let (ns3, same) = run(TimeoutSsthresh::Ns3);
    assert_eq!(outstanding, same);
    // 0 lost, 1 to 3 SACKed: the RFC pipe counts the rest.
    assert_eq!(rfc, (outstanding - 4) as f64 / 2.0);
    assert_eq!(ns3, rfc + 0.5);
}

#[test]
fn ns3_18_sets_ssthresh_at_every_timeout_from_all_that_is_outstanding() {
    // ns-3.18's TcpNewReno::Retransmit sets ssthresh = max(2 segments,
    // BytesInFlight / 2) at each timeout, BytesInFlight being m_highTxMark
    // less the first unacknowledged byte (the 3.18 profile halves the
    // FlightSize). Without SACK: ten in flight, the first timeout (5); the
    // ACKs of 0 to 3 in the Loss state (segments up to 8 resent); the
    // timer fires again with 4 to 9 outstanding: ns-3.18 halves those six,
    // RFC 5681 keeps 5 (no RTT sample since: the timer is backed off).
    let run = |form: TimeoutSsthresh| {
        let mut cfg = config(10);
        cfg.timeout_ssthresh = form;
        let cc = Reno {
            halve: Halve::Flightsize,
            ..Reno::new(false)
        };
        let mut f = Fix::established_cc(Box::new(cc), cfg);
        assert_eq!(f.take(), segments(0, 10));
        f.timeout();
        assert_eq!(f.ssthresh_segments(), 5.0);
        for k in 1..5 {
            f.advance(RTT);
            f.ack(seg(k));
        }
        assert_eq!(f.s.tcb().snd_max, seg(10));
        f.advance(RTT);
        f.timeout();
        f.ssthresh_segments()
    };
    assert_eq!(run(TimeoutSsthresh::Rfc5681), 5.0);
    assert_eq!(run(TimeoutSsthresh::Ns3_18), 3.0);
}
