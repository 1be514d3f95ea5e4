// SPDX-License-Identifier: MIT OR Apache-2.0
//! The RTT sample the controller is given (`cc_rtt`), through the sender:
//! a controller that records what it is given wraps NewReno; the ACKs are
//! written by hand as a receiver with delayed ACKs and RFC 7323's echo
//! would send them. Last, the `after_ack` hook, where a controller may cut
//! the window after an ACK that did not grow it, before the sender sends.

use std::sync::{Arc, Mutex};

use super::ca_rtt::CcRtt;
use super::*;
use crate::cc::{Ack, CongestionControl, LossCause, Tcb};

/// What the controller was given: (duplicate?, RTT sample) per ACK.
type Seen = Arc<Mutex<Vec<(bool, Option<SimDuration>)>>>;

#[derive(Debug)]
struct Spy {
    inner: Box<dyn CongestionControl>,
    seen: Seen,
}

impl CongestionControl for Spy {
    fn name(&self) -> &'static str {
        "spy"
    }
    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.seen.lock().unwrap().push((ack.is_dup, ack.rtt));
        self.inner.on_ack_sample(tcb, ack);
    }
    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.inner.increase_window(tcb, ack);
    }
    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64 {
        self.inner.ssthresh(tcb, cause)
    }
}

/// A connection of `n` segments' initial window sent at 100 ms, its
/// controller's samples recorded.
fn spied(n: u64, cc_rtt: CcRtt, timestamps: bool, sack: bool) -> (Fix, Seen) {
    let mut cfg = config(n);
    cfg.cc_rtt = cc_rtt;
    cfg.timestamps = timestamps;
    cfg.sack = sack;
    if sack {
        cfg.recovery = Recovery::Sack;
    }
    let seen = Seen::default();
    let inner = registry::build(&CcSpec::named("newreno"), "cc", Profile::Paper, false)
        .unwrap()
        .cc;
    let spy = Spy {
        inner,
        seen: seen.clone(),
    };
    let f = Fix::established_cc(Box::new(spy), cfg);
    seen.lock().unwrap().clear();
    (f.take_ok(n), seen)
}

impl Fix {
    /// Checks that the initial window of `n` went out, and returns self.
    fn take_ok(mut self, n: u64) -> Fix {
        assert_eq!(self.take(), segments(0, n));
        self
    }

    /// An ACK up to `ack` echoing the TSval sent at `echo`, SACKing `sack`.
    fn ack_with(&mut self, ack: u64, echo: SimTime, sack: &[(u64, u64)]) {
        let mut h = TcpHeader {
            ack,
            flags: ACK,
            wnd: 65_535,
            ts_ecr: echo.as_nanos(),
            ..TcpHeader::default()
        };
        h.sack[..sack.len()].copy_from_slice(sack);
        h.nsack = sack.len() as u8;
        self.s.on_segment(self.now, &h, &mut self.out);
    }
}

fn at(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

fn ms(v: u64) -> Option<SimDuration> {
    Some(SimDuration::from_millis(v))
}

/// Segments 0-2 sent at 100 ms. At 200 ms the ACK of the pair 0-1 (echo
/// 100 ms) lets segments 3-5 go (cwnd 4, one segment ACK-clocked by slow
/// start); segment 2 waits at the receiver, and
/// at 300 ms the ACK of 2-3 arrives, echoing segment 2's TSval (RFC 7323:
/// the oldest unacknowledged), 100 ms.
fn held_segment(cc_rtt: CcRtt) -> (Fix, Seen) {
    let (mut f, seen) = spied(3, cc_rtt, true, false);
    f.now = at(200);
    f.ack_with(seg(2), at(100), &[]);
    assert_eq!(f.take(), segments(3, 3));
    f.now = at(300);
    f.ack_with(seg(4), at(100), &[]);
    (f, seen)
}

#[test]
fn the_estimators_sample_carries_the_receivers_wait_for_a_held_segment() {
    let (_, seen) = held_segment(CcRtt::Estimator);
    // 200 - 100 and 300 - 100 ms: the second includes segment 2's wait.
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(false, ms(100)), (false, ms(200))]
    );
}

#[test]
fn the_newest_segments_sample_times_the_held_pair_from_its_second_segment() {
    let (f, seen) = held_segment(CcRtt::Newest);
    // Segment 3, sent at 200 ms, is the newest the second ACK delivers.
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(false, ms(100)), (false, ms(100))]
    );
    // The estimator took the echo's samples in both: SRTT after 100 and
    // 200 ms is 7/8 x 100 + 1/8 x 200 = 112.5 ms.
    let (g, _) = held_segment(CcRtt::Estimator);
    assert_eq!(f.s.tcb().srtt, Some(SimDuration::from_micros(112_500)));
    assert_eq!(g.s.tcb().srtt, f.s.tcb().srtt);
}

#[test]
fn a_new_sack_on_a_duplicate_ack_gives_the_newest_segment_a_sample() {
    // Segments 0-9 at 100 ms; segment 0 lost. At 150 ms segments 1-3 are
    // SACKed, at 160 ms segment 4 too.
    for (cc_rtt, want) in [
        (CcRtt::Newest, vec![(true, ms(50)), (true, ms(60))]),
        (CcRtt::Estimator, vec![(true, None), (true, None)]),
    ] {
        let (mut f, seen) = spied(10, cc_rtt, false, true);
        f.now = at(150);
        f.ack_with(seg(0), SimTime::ZERO, &[(seg(1), seg(4))]);
        f.now = at(160);
        f.ack_with(seg(0), SimTime::ZERO, &[(seg(1), seg(5))]);
        assert_eq!(*seen.lock().unwrap(), want, "{cc_rtt:?}");
    }
}

#[test]
fn the_ack_of_a_retransmission_falls_back_on_the_echo_or_gives_none() {
    // Segments 0-9 at 100 ms, segment 0 lost; three SACKing duplicate ACKs
    // at 200 ms start a recovery that resends it; its ACK at 300 ms covers
    // a resent segment (Karn) and SACKs nothing new.
    for (timestamps, want) in [(true, ms(100)), (false, None)] {
        let (mut f, seen) = spied(10, CcRtt::Newest, timestamps, true);
        f.now = at(200);
        for k in 1..=3 {
            f.ack_with(seg(0), SimTime::ZERO, &[(seg(1), seg(1 + k))]);
        }
        assert_eq!(f.take()[0], (seg(0), MSS));
        seen.lock().unwrap().clear();
        f.now = at(300);
        // The echo is of the retransmission (sent at 200 ms).
        f.ack_with(seg(4), at(200), &[]);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![(false, want)],
            "timestamps {timestamps}"
        );
    }
}

/// NewReno whose `after_ack` cuts cwnd to one segment, counting its calls.
#[derive(Debug)]
struct CutAfter {
    inner: Box<dyn CongestionControl>,
    calls: Arc<Mutex<u32>>,
}

impl CongestionControl for CutAfter {
    fn name(&self) -> &'static str {
        "cut-after"
    }
    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.inner.increase_window(tcb, ack);
    }
    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64 {
        self.inner.ssthresh(tcb, cause)
    }
    fn after_ack(&mut self, tcb: &mut Tcb) {
        *self.calls.lock().unwrap() += 1;
        tcb.set_cwnd(tcb.mss);
    }
}

#[test]
fn after_ack_runs_on_a_duplicate_before_limited_transmit_and_not_on_new_data() {
    // Ten segments in flight, limited transmit on. The ACK of segment 0
    // grows the window (no call) and sends two. The first duplicate would
    // let one new segment out (RFC 3042), but the controller's cut to one
    // segment comes first (ns-3's TcpLp cuts in PktsAcked there): nothing
    // is sent. Without the call the same duplicate sends segment 12.
    let run = |hook: bool| {
        let mut cfg = config(10);
        cfg.limited_transmit = true;
        let calls = Arc::new(Mutex::new(0));
        let inner: Box<dyn CongestionControl> = Box::new(crate::cc::reno::Reno::new(false));
        let cc: Box<dyn CongestionControl> = if hook {
            Box::new(CutAfter {
                inner,
                calls: calls.clone(),
            })
        } else {
            inner
        };
        let mut f = Fix::established_cc(cc, cfg);
        assert_eq!(f.take(), segments(0, 10));
        f.advance(RTT);
        f.ack(seg(1));
        assert_eq!(f.take(), segments(10, 2));
        assert_eq!(*calls.lock().unwrap(), 0, "an ACK of new data in Open");
        f.dupack();
        let calls = *calls.lock().unwrap();
        (f.take(), f.cwnd_segments(), calls)
    };
    assert_eq!(run(false), (segments(12, 1), 11.0, 0));
    assert_eq!(run(true), (vec![], 1.0, 1));
}
