// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3's TcpIllinois, worked by hand from tcp-illinois.cc.

use super::*;
use crate::cc::testing::{ms, CcDriver};

const MSS: u64 = 1000;

/// In congestion avoidance at `w` segments; the first ACK (SRTT 100 ms)
/// ends the initial round and starts one ending 4 segments on.
fn driver(w: u64) -> CcDriver<Ns3Illinois> {
    let mut d = CcDriver::new(Ns3Illinois::new(Ns3IllinoisConfig::default()), MSS, w);
    d.tcb.ssthresh = 2 * MSS;
    d.tcb.srtt = Some(ms(100));
    let una = d.tcb.snd_una;
    d.ack_with_nxt(1, None, una + 5 * MSS);
    d
}

#[test]
fn no_delay_spread_gives_alpha_max_and_beta_min_even_below_fifteen_segments() {
    // cwnd 10 segments is 10,000 bytes: not below WinThresh 15.
    let d = driver(10);
    assert_eq!((d.cc.alpha, d.cc.beta), (10.0, 0.125));
}

#[test]
fn the_round_s_mean_delay_sets_alpha_and_beta_in_whole_milliseconds() {
    let mut d = driver(20);
    // SRTTs 200.9 and 100.2 ms: MaxRTT - BaseRTT = 100 ms (whole), the
    // round's mean 150.55 - 100 = 50 ms.
    d.tcb.srtt = Some(ms(200) + SimDuration::from_micros(900));
    d.ack(1, None);
    d.tcb.srtt = Some(ms(100) + SimDuration::from_micros(200));
    d.ack(1, None);
    d.ack(1, None);
    d.tcb.srtt = Some(ms(200) + SimDuration::from_micros(900));
    let una = d.tcb.snd_una;
    d.ack_with_nxt(1, None, una + 5 * MSS);
    // d1 = 1: alpha = 99 x 10 / (99 + 49 x 9.7 / 0.3).
    let alpha = 990.0 / (99.0 + 49.0 * 9.7 / 0.3);
    assert!((d.cc.alpha - alpha).abs() < 1e-12, "{}", d.cc.alpha);
    // d2 = 10, d3 = 80: beta = (0.125 x 80 - 0.5 x 10 + 0.375 x 50) / 70.
    assert!((d.cc.beta - 23.75 / 70.0).abs() < 1e-12, "{}", d.cc.beta);
}

#[test]
fn alpha_counts_segments_and_a_loss_keeps_one_minus_beta_of_the_pipe() {
    let mut d = driver(20);
    // alpha 10 per segment: an ACK of two adds 20 = one window: a segment.
    let w = d.tcb.cwnd;
    d.ack(2, None);
    assert_eq!(d.tcb.cwnd, w + MSS);
    // beta 1/8 of a 20-segment pipe: 17.5 -> 17 segments.
    d.loss(LossCause::DupAcks, 20 * MSS);
    assert_eq!(d.tcb.ssthresh, 17 * MSS);
    // A timeout returns to alpha 1, beta 1/2.
    d.timeout(20 * MSS);
    assert_eq!((d.cc.alpha, d.cc.beta), (1.0, 0.5));
    assert_eq!(d.tcb.ssthresh, 10 * MSS);
}
