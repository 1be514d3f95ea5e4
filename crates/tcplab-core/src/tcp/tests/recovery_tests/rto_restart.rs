// SPDX-License-Identifier: MIT OR Apache-2.0
//! What restarts the retransmission timer besides a new ACK
//! ([`RtoRestart`]): nothing (RFC 6298), the fast retransmit (ns-2), or
//! every resend of the first unacknowledged segment (Linux).

use super::*;

#[test]
fn ns2_s_fast_retransmit_restarts_the_timer_where_rfc_6298_lets_it_run() {
    // Ten segments sent at time 0 arm the timer for 1 s (RFC 6298 5.1);
    // the third duplicate ACK comes an RTT later. ns-2 restarts the timer
    // at the fast retransmit (reset_rtx_timer(1, 0) in dupack_action): it
    // then fires 1 s after the retransmission, one RTT later than RFC
    // 6298's, which lets it run from the first transmission.
    let deadline = |restart: bool| {
        let mut cfg = config(10);
        if restart {
            cfg.rto_restart = RtoRestart::FastRetransmit;
        }
        let f = Fix::in_recovery(cfg);
        assert_eq!(f.s.stats().fast_retransmits, 1);
        (f.s.rto_deadline().unwrap(), f.now)
    };
    let (kept, now) = deadline(false);
    let (restarted, _) = deadline(true);
    assert_eq!(restarted, now + SimDuration::from_secs(1));
    assert_eq!(restarted - kept, RTT);
}

#[test]
fn linux_restarts_the_timer_at_each_resend_of_the_first_unacknowledged_segment() {
    // Ten segments leave at 100 ms (after the handshake); 0 is lost. At 200
    // ms one ACK SACKs 1 to 9: RACK marks 0 lost and the recovery resends
    // it with segment 10. That retransmission is lost too: at 300 ms the
    // SACK of 10, sent with it, shows it (RACK, one RTT on), and 0 goes a
    // third time. Without a new cumulative ACK, RFC 6298 lets the timer
    // run from 100 ms (deadline 1.1 s, the RTO being 1 s), ns-2 restarts
    // it at the fast retransmit (1.2 s), Linux at each resend of the
    // head (1.3 s).
    let run = |restart: RtoRestart| {
        let mut cfg = config(10);
        cfg.recovery = Recovery::Sack;
        cfg.sack = true;
        cfg.rack = crate::tcp::RackMode::On;
        cfg.rto_restart = restart;
        let mut f = Fix::established("newreno", cfg);
        assert_eq!(f.take(), segments(0, 10));
        f.advance(RTT);
        f.sack(&[(1, 10)]);
        assert_eq!(f.state(), CaState::Recovery);
        let sent = f.take();
        assert_eq!(sent.first(), Some(&(seg(0), MSS)));
        assert!(sent.contains(&(seg(10), MSS)));
        f.advance(RTT);
        f.sack(&[(1, 11)]);
        assert_eq!(
            f.take().first(),
            Some(&(seg(0), MSS)),
            "the lost retransmission"
        );
        assert_eq!(f.s.rtt().rto(), SimDuration::from_secs(1));
        f.s.rto_deadline().unwrap()
    };
    let ms = SimDuration::from_millis;
    assert_eq!(run(RtoRestart::Ack), SimTime::ZERO + ms(1100));
    assert_eq!(run(RtoRestart::FastRetransmit), SimTime::ZERO + ms(1200));
    assert_eq!(run(RtoRestart::HeadRetransmit), SimTime::ZERO + ms(1300));
}
