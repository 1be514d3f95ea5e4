// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pacing in its three forms, traced by hand: the handshake takes 100 ms
//! (the SRTT), the initial window is 10 segments of 1000 B, ssthresh is
//! unlimited (so the slow-start ratio, 200%, applies).

use super::*;
use crate::tcp::{Pacing, PacingConfig};

fn paced(form: Pacing, pace_iw: bool, max_rate: f64) -> PacingConfig {
    PacingConfig {
        form,
        ss_ratio: 200,
        ca_ratio: 120,
        max_rate,
        pace_initial_window: pace_iw,
    }
}

/// A paced sender of `cc`, established after one RTT.
fn established(cc: &str, p: PacingConfig) -> Fix {
    let built = registry::build(&CcSpec::named(cc), "cc", Profile::Paper, false).unwrap();
    let mut s = Sender::new(config(10), built.cc, false);
    s.set_pacing(&p);
    Fix::connected(s, SYN | ACK)
}

fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}

#[test]
fn ns3_sends_the_initial_window_at_once_then_one_segment_per_timer_expiry() {
    let mut f = established("newreno", paced(Pacing::Ns3, false, 5e8));
    let t0 = f.now;
    // IsPacingEnabled is false until the highest sequence sent passes
    // the initial window: all 10 segments leave now, the 10th arms the
    // timer. UpdatePacingRate at the handshake: 10,000 B x 8 x 2 / 0.1 s
    // = 1.6 Mb/s.
    assert_eq!(f.take(), segments(0, 10));
    // One RTT on, the first segment is acknowledged: slow start makes
    // cwnd 11 segments; the rate after this ACK is 11,000 x 16 / 0.1 =
    // 1.76 Mb/s. The timer expired long ago: segment 10 leaves and arms
    // it for 1000 x 8 / 1.76e6 s = 4,545,454.5 ns, rounded to 4,545,455.
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.take(), segments(10, 1));
    let gap = SimDuration::from_nanos(4_545_455);
    assert_eq!(f.s.pace_deadline(), Some(t0 + RTT + gap));
    // At the deadline segment 11 leaves; the window is then full.
    f.advance(gap);
    f.s.on_pace(f.now, &mut f.out);
    assert_eq!(f.take(), segments(11, 1));
    assert_eq!(f.s.pace_deadline(), None);
}

#[test]
fn ns3_caps_the_rate_at_its_maximum() {
    // MaxPacingRate 100 kB/s (800 kb/s): each segment 10 ms.
    let mut f = established("newreno", paced(Pacing::Ns3, true, 100_000.0));
    assert_eq!(f.take(), segments(0, 1));
    assert_eq!(f.s.pace_deadline(), Some(f.now + ms(10)));
}

#[test]
fn segment_paces_from_the_first_segment_at_twice_cwnd_per_srtt() {
    // 10,000 B x 200% / 0.1 s = 200,000 B/s: a segment every 5 ms.
    let mut f = established("newreno", paced(Pacing::Segment, true, f64::INFINITY));
    let t0 = f.now;
    for k in 0..3 {
        assert_eq!(f.take(), segments(k, 1));
        assert_eq!(f.s.pace_deadline(), Some(t0 + ms(5 * (k + 1))));
        f.now = t0 + ms(5 * (k + 1));
        f.s.on_pace(f.now, &mut f.out);
    }
}

#[test]
fn segment_without_the_initial_window_paced_sends_it_at_once() {
    let mut f = established("newreno", paced(Pacing::Segment, false, f64::INFINITY));
    assert_eq!(f.take(), segments(0, 10));
    // The 10th segment passed the initial window: it moved the departure
    // time on by 5 ms.
    f.advance(ms(1));
    f.ack(seg(1));
    assert!(f.take().is_empty());
    let acked_at = f.now;
    // (5 ms after the initial window left, 1 ms before this ACK.)
    assert_eq!(f.s.pace_deadline(), Some(acked_at + ms(4)));
}

#[test]
fn linux_sends_skbs_of_two_segments_together_after_the_first_ten() {
    let mut f = established("newreno", paced(Pacing::Linux, false, f64::INFINITY));
    // Five skbs of tcp_tso_autosize = 2 segments (200,000 B/s >> 10 is
    // below one segment; tcp_min_tso_segs = 2): the first 10 segments
    // leave unpaced.
    assert_eq!(f.take(), segments(0, 10));
    // One RTT on, an ACK of one segment lets two go (cwnd 11): one skb at
    // 11 x 1000 x 2 / 0.1 = 220,000 B/s, both segments together, where ns3
    // sends one and waits.
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.take(), segments(10, 2));
    // The skb moved the departure time on by its 2 segments at that rate,
    // each 1000 / 220,000 s = 4,545,455 ns (to the nearest ns) less half,
    // 2,272,727 ns, for the sender's idle time since the last departure
    // time (the OS-jitter credit): 4,545,456 ns on (Linux, on the whole
    // skb in integers: 4,545,455). A second ACK now (cwnd 12) finds the
    // next skb held until then.
    f.ack(seg(2));
    assert!(f.take().is_empty());
    let t = f.now;
    assert_eq!(
        f.s.pace_deadline(),
        Some(t + SimDuration::from_nanos(4_545_456))
    );
}

#[test]
fn a_controllers_own_rate_is_capped_by_the_maximum() {
    // BBR's first rate, 288,539 B/s, capped at 100,000 B/s: 10 ms a
    // segment instead of 3.47 ms.
    let mut f = established("bbr", paced(Pacing::Segment, true, 100_000.0));
    assert_eq!(f.take(), segments(0, 1));
    assert_eq!(f.s.pace_deadline(), Some(f.now + ms(10)));
}
