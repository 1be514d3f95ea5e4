// SPDX-License-Identifier: MIT OR Apache-2.0
//! 2.6.22's Westwood+, pinned by values worked out by hand from the
//! module's source.

use super::*;
use crate::cc::registry::{build, CcSpec, Profile};
use crate::cc::testing::{ms, CcDriver};
use crate::time::SimDuration;

const MSS: u64 = 1000;

/// The module after its first ACK at t = 0, SRTT 100 ms, cwnd 10.
fn driver() -> CcDriver<WestwoodLinux> {
    let mut d = CcDriver::new(WestwoodLinux::default(), MSS, 10);
    d.rtt_sample(ms(100));
    d.ack(1, None);
    d
}

/// An ACK of `segments` every 10 ms until `until` ms (from the driver's
/// clock, exclusive of it).
fn acks_every_10ms(d: &mut CcDriver<WestwoodLinux>, segments: u32, until: u64) {
    while d.tcb.now.as_nanos() / 1_000_000 + 10 <= until {
        d.advance(ms(10));
        d.ack(segments, None);
    }
}

#[test]
fn the_estimate_is_bytes_per_ms_filtered_twice_rounding_down() {
    let mut d = driver();
    assert_eq!((d.cc.rtt, d.cc.rtt_min), (100, 100));
    // The window closes at the first ACK more than max(100, 50) ms after
    // it opened, before that ACK counts: at 110 ms, ten ACKs of 2000 B:
    // 20000 / 110 = 181, which fills both stages.
    acks_every_10ms(&mut d, 2, 110);
    assert_eq!((d.cc.bw_ns_est, d.cc.bw_est, d.cc.bk), (181, 181, 2000));
    // At 220 ms: 2000 + 10 * 2000 = 22000 B over 110 ms = 200;
    // (7 * 181 + 200) >> 3 = 183, then (7 * 181 + 183) >> 3 = 181.
    acks_every_10ms(&mut d, 2, 220);
    assert_eq!((d.cc.bw_ns_est, d.cc.bw_est), (183, 181));
    // min_cwnd = 181 * 100 / 1000 = 18 segments.
    assert_eq!(d.cc.min_cwnd(&d.tcb), Some(18 * MSS));
}

#[test]
fn off_the_fast_path_duplicates_count_a_segment_and_later_acks_pay_them_back() {
    let mut d = driver();
    d.tcb.ca_state = CaState::Recovery;
    for _ in 0..3 {
        d.dupack();
    }
    assert_eq!((d.cc.bk, d.cc.accounted), (3000, 3000));
    // 5000 B, of which the duplicates counted 3000: 2000.
    d.ack(5, None);
    assert_eq!((d.cc.bk, d.cc.accounted), (5000, 0));
    // Two duplicates, then an ACK of 2000 B that they cover: it still
    // counts one segment.
    d.dupack();
    d.dupack();
    d.ack(2, None);
    assert_eq!((d.cc.bk, d.cc.accounted), (8000, 0));
    // An ACK of one segment counts it whatever is accounted.
    d.dupack();
    d.ack(1, None);
    assert_eq!((d.cc.bk, d.cc.accounted), (10_000, 1000));
}

#[test]
fn on_the_fast_path_an_ack_in_open_counts_everything_it_acknowledges() {
    let mut d = driver();
    d.dupack();
    d.dupack();
    assert_eq!((d.cc.bk, d.cc.accounted), (2000, 2000));
    d.ack(3, None);
    assert_eq!((d.cc.bk, d.cc.accounted), (5000, 2000));
}

#[test]
fn rtt_min_is_the_smallest_srtt_in_whole_ms_from_acks_of_new_data() {
    let mut d = driver();
    d.tcb.srtt = Some(ms(120));
    d.ack(1, None);
    assert_eq!((d.cc.rtt, d.cc.rtt_min), (120, 100));
    d.tcb.srtt = Some(SimDuration::from_micros(90_700));
    d.dupack();
    assert_eq!(
        (d.cc.rtt, d.cc.rtt_min),
        (120, 100),
        "a duplicate takes no RTT"
    );
    d.ack(1, None);
    assert_eq!((d.cc.rtt, d.cc.rtt_min), (90, 90));
}

#[test]
fn a_loss_sets_renos_ssthresh_and_the_estimate_is_the_floor_of_at_least_two() {
    let mut d = driver();
    assert_eq!(d.cc.min_cwnd(&d.tcb), Some(2 * MSS), "no estimate yet");
    d.tcb.set_cwnd(31 * MSS);
    d.loss(LossCause::DupAcks, 31 * MSS);
    assert_eq!(d.tcb.ssthresh, 15 * MSS);
    d.tcb.set_cwnd(3 * MSS);
    d.timeout(3 * MSS);
    assert_eq!(d.tcb.ssthresh, 2 * MSS);
}

#[test]
fn growth_is_one_segment_per_ack_up_to_and_at_ssthresh_then_one_per_window_of_bytes() {
    let mut d = driver();
    d.tcb.ssthresh = 10 * MSS;
    d.cc.reno.bytes_acked = 0;
    // cwnd 10 <= ssthresh 10: slow start, one segment for an ACK of two.
    d.ack_ece(2, false);
    assert_eq!(d.tcb.cwnd, 11 * MSS);
    // Above: one segment once 11 segments' bytes are acknowledged, the
    // rest carried over.
    for _ in 0..5 {
        d.ack_ece(2, false);
    }
    assert_eq!(d.tcb.cwnd, 11 * MSS);
    d.ack_ece(2, false);
    assert_eq!((d.tcb.cwnd, d.cc.reno.bytes_acked), (12 * MSS, 1000));
    // Not limited by the window (nothing in flight): no growth.
    d.ack(30, None);
    assert_eq!(d.tcb.cwnd, 12 * MSS);
}

#[test]
fn version_2_6_22_selects_this_form_and_refuses_the_other_forms_parameters() {
    let mut spec = CcSpec::named("westwoodplus");
    spec.params.insert("version".into(), "2.6.22".into());
    for p in Profile::ALL {
        let b = build(&spec, "cc", p, true).unwrap();
        assert_eq!(b.cc.name(), "westwoodplus");
        assert!(b.cc.min_cwnd(&crate::cc::Tcb::new(MSS, MSS, MSS)).is_some());
    }
    spec.params.insert("coefficient".into(), 0.9.into());
    let e = build(&spec, "cc", Profile::Linux, true)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cc.coefficient"), "{e}");
    let mut today = CcSpec::named("westwoodplus");
    today.params.insert("version".into(), "5.15".into());
    let e = build(&today, "cc", Profile::Linux, true)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cc.version"), "{e}");
    let b = build(&CcSpec::named("westwoodplus"), "cc", Profile::Linux, true).unwrap();
    assert_eq!(b.cc.min_cwnd(&crate::cc::Tcb::new(MSS, MSS, MSS)), None);
}
