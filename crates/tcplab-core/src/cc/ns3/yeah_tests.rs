// SPDX-License-Identifier: MIT OR Apache-2.0
//! ns-3's TcpYeah, worked by hand from tcp-yeah.cc.

use super::*;
use crate::cc::registry::{build, CcSpec, Profile};
use crate::cc::testing::{ms, CcDriver};

const MSS: u64 = 1000;

/// In congestion avoidance at `w` segments, SRTT 100 ms: the first ACK
/// ends the initial round (one sample, no estimate) and starts one that
/// ends with the fourth ACK after it.
fn driver(w: u64) -> CcDriver<Ns3Yeah> {
    let mut d = CcDriver::new(Ns3Yeah::new(Ns3YeahConfig::default()), MSS, w);
    d.tcb.ssthresh = 2 * MSS;
    d.tcb.srtt = Some(ms(100));
    let una = d.tcb.snd_una;
    d.ack_with_nxt(1, None, una + 5 * MSS);
    d
}

/// A round of four one-segment ACKs with SRTT `srtt` ms (the last one
/// ends it and sets the next round's end four segments on).
fn round(d: &mut CcDriver<Ns3Yeah>, srtt: u64) {
    d.tcb.srtt = Some(ms(srtt));
    for _ in 0..3 {
        d.ack(1, None);
    }
    let una = d.tcb.snd_una;
    d.ack_with_nxt(1, None, una + 5 * MSS);
}

#[test]
fn any_rtt_above_base_makes_the_round_slow_as_one_over_phy_is_zero() {
    let mut d = driver(20);
    round(&mut d, 100);
    assert_eq!(d.cc.probe("mode"), Some(1.0), "no queueing: fast");
    // 1 ms above BaseRTT: queue = 20 / 0.101 x 0.001 = 0.198 -> 0, but
    // L = 0.01 > 1 / 8 = 0 in ns-3's integers (Linux: 1 ms < 100 / 8).
    round(&mut d, 101);
    assert_eq!(d.cc.probe("mode"), Some(0.0));
    assert_eq!(d.cc.probe("queue"), Some(0.0));
    assert_eq!(d.cc.doing_reno_now, 1);
    // reno_count was 2: it becomes max(cwnd / 2, 2).
    assert_eq!(d.cc.reno_count, 10);
}

#[test]
fn fast_mode_grows_as_scalable_counting_segments_slow_mode_as_newreno_counting_acks() {
    let mut d = driver(10);
    round(&mut d, 100);
    let w0 = d.tcb.cwnd;
    // Fast: one segment per min(10, 100) = 10 segments acknowledged,
    // whatever the ACKs cover: five ACKs of two segments.
    d.cc.stcp_ack_cnt = 0;
    for _ in 0..4 {
        d.ack(2, None);
    }
    assert_eq!(d.tcb.cwnd, w0);
    d.ack(2, None);
    assert_eq!(d.tcb.cwnd, w0 + MSS);
    // Slow: MSS^2 / cwnd bytes per ACK, however many segments it covers.
    d.cc.doing_reno_now = 1;
    let w = d.tcb.cwnd;
    d.ack(2, None);
    assert_eq!(d.tcb.cwnd, w + MSS * MSS / w);
}

#[test]
fn a_loss_takes_from_the_pipe_an_eighth_then_half_after_rho_slow_rounds() {
    let mut d = driver(40);
    // Pipe 20 segments, last queue 0: reduction max(0, 20 >> 3) = 2.
    d.loss(LossCause::DupAcks, 20 * MSS);
    assert_eq!(d.tcb.ssthresh, 18 * MSS);
    // The last queue, at most max(20 / 2, 2) = 10.
    d.cc.last_q = 14;
    d.loss(LossCause::DupAcks, 20 * MSS);
    assert_eq!(d.tcb.ssthresh, 10 * MSS);
    d.cc.last_q = 5;
    d.loss(LossCause::DupAcks, 20 * MSS);
    assert_eq!(d.tcb.ssthresh, 15 * MSS);
    // rho slow rounds in a row: Reno's half.
    d.cc.doing_reno_now = 16;
    d.loss(LossCause::DupAcks, 21 * MSS);
    assert_eq!(d.tcb.ssthresh, 11 * MSS);
    // A reduction above a one-segment pipe wraps in 32 bits, as ns-3's.
    d.cc.doing_reno_now = 0;
    d.cc.last_q = 5;
    d.loss(LossCause::DupAcks, MSS);
    assert_eq!(
        d.tcb.ssthresh,
        (MSS as u32).wrapping_sub(2 * MSS as u32) as u64
    );
}

#[test]
fn a_long_queue_decongests_the_window_and_sets_ssthresh() {
    let mut d = driver(200);
    round(&mut d, 100);
    // Queue = floor(200 / 0.19 x 0.09) = 94 > 80: cwnd loses min(94, 200
    // >> 1), and reno_count (2) becomes half of what is left.
    round(&mut d, 190);
    assert_eq!(d.cc.probe("queue"), Some(94.0));
    assert_eq!(d.tcb.cwnd, 106 * MSS);
    assert_eq!(d.tcb.ssthresh, 106 * MSS);
    assert_eq!(d.cc.reno_count, 53);
}

#[test]
fn the_ns3_profile_runs_it_and_version_ns3_selects_it_anywhere() {
    let b = build(&CcSpec::named("yeah"), "cc", Profile::Ns3, false).unwrap();
    assert_eq!(b.spec.params["version"], "ns3");
    assert_eq!(b.spec.params["scalable_ai_cnt"], 100);
    let b = build(&CcSpec::named("yeah"), "cc", Profile::Linux, true).unwrap();
    assert!(b.spec.params.get("version").is_none());
    let mut spec = CcSpec::named("yeah");
    spec.params.insert("version".into(), "ns3".into());
    let b = build(&spec, "cc", Profile::Paper, false).unwrap();
    assert_eq!(b.spec.params["phy"], 8);
    spec.params.insert("phy".into(), 0.into());
    let e = build(&spec, "cc", Profile::Paper, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cc.phy"), "{e}");
    let mut spec = CcSpec::named("yeah");
    spec.params.insert("version".into(), "linux".into());
    let e = build(&spec, "cc", Profile::Ns3, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cc.version") && e.contains("'ns3'"), "{e}");
}
