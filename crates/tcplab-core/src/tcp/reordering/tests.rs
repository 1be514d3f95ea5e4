// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux's rules for the reordering degree and RACK's window, by hand.

use super::*;

const M: u64 = 1000;

fn t(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

#[test]
fn the_degree_is_the_distance_to_the_highest_sack_in_segments() {
    // Linux's tcp_sack_sack-shift-sacked-7-3-4-8-9-fack script: 7001:8001
    // SACKed, then 3001:4001 (never retransmitted): fack 8001 - 3001 =
    // 5000 B, five segments of 1000 B, above the degree of 3.
    let mut o = Reordering::new(3);
    assert_eq!(o.check(3, 3001, 8001, M), 5);
    assert_eq!(o.seen, 1);
    // google's cubic-rack-reo-timeout script: 9001:10001 SACKed, then
    // 3001:4001 (7), then ACK 10001 fills the hole from 1 (10): seen twice.
    let mut o = Reordering::new(3);
    let d = o.check(3, 3001, 10_001, M);
    assert_eq!(d, 7);
    assert_eq!(o.check(d, 1, 10_001, M), 10);
    assert_eq!(o.seen, 2);
}

#[test]
fn a_distance_within_the_degree_counts_an_event_and_keeps_the_degree() {
    let mut o = Reordering::new(3);
    // 3000 B is not more than 3 segments; a part segment rounds up.
    assert_eq!(o.check(3, 5001, 8001, M), 3);
    assert_eq!(o.check(3, 5000, 8001, M), 4);
    assert_eq!(o.seen, 2);
    // Nothing below the highest SACK: no reordering at all.
    assert_eq!(o.check(3, 8001, 8001, M), 3);
    assert_eq!(o.seen, 2);
}

#[test]
fn the_degree_stops_at_tcp_max_reordering() {
    let mut o = Reordering::new(3);
    assert_eq!(o.check(3, 1, 1 + 400 * M, M), MAX_REORDERING);
    assert_eq!(MAX_REORDERING, 300);
}

#[test]
fn a_timeout_in_disorder_with_dupthresh_sacks_brings_the_degree_back() {
    let mut o = Reordering::new(3);
    // The last ACK left the connection in Disorder with 3 segments SACKed;
    // a timeout came before the next ACK (tcp_enter_loss).
    o.after_ack(true, 0);
    assert_eq!(o.after_timeouts(7, 1), 3);
    // In a recovery (or with fewer SACKs) the timeout leaves it.
    o.after_ack(false, 1);
    assert_eq!(o.after_timeouts(7, 2), 7);
    // No timeout: nothing changes.
    o.after_ack(true, 2);
    assert_eq!(o.after_timeouts(7, 2), 7);
}

#[test]
fn segments_sacked_or_retransmitted_are_not_fresh() {
    let mut o = Reordering::new(3);
    let mut sb = Scoreboard::default();
    sb.add(1001, 3001);
    o.on_retransmit(1, 3001, 4001, 5);
    assert_eq!(o.lowest_fresh(&sb, 1001, 6001), Some(4001));
    assert_eq!(o.lowest_fresh(&sb, 1, 6001), Some(1));
    assert_eq!(o.lowest_fresh(&sb, 1001, 4001), None);
    assert!(o.retransmitted(3001) && !o.retransmitted(4001));
    // Linux's tcp_packet_delayed: an echo older than the first
    // retransmission (TSval 5).
    assert!(o.delayed(4) && !o.delayed(5) && !o.delayed(0));
    // A retransmission still outstanding keeps the episode's stamp; once
    // the cumulative ACK passes it, the episode is over.
    o.settled(3001);
    assert!(o.delayed(4));
    o.settled(4001);
    assert!(!o.delayed(4));
}

#[test]
fn rack_s_window_is_zero_before_reordering_in_a_recovery_or_at_dupthresh_sacks() {
    let o = Reordering::new(3);
    let (min, srtt) = (Some(ms(100)), Some(ms(120)));
    assert_eq!(o.rack_reo_wnd(true, 0, 3, min, srtt), SimDuration::ZERO);
    assert_eq!(o.rack_reo_wnd(false, 3, 3, min, srtt), SimDuration::ZERO);
    // The degree is Linux's tp->reordering, not a fixed 3.
    assert_eq!(o.rack_reo_wnd(false, 3, 5, min, srtt), ms(25));
    assert_eq!(o.rack_reo_wnd(false, 2, 3, min, srtt), ms(25));
    // Once reordering is seen: min_RTT / 4 in a recovery too.
    let mut o = Reordering::new(3);
    o.check(3, 1, 5001, M);
    assert_eq!(o.rack_reo_wnd(true, 9, 3, min, srtt), ms(25));
}

#[test]
fn a_dsack_widens_rack_s_window_by_a_quarter_min_rtt_once_per_round_trip() {
    let (min, srtt) = (Some(ms(100)), Some(ms(120)));
    let mut o = Reordering::new(3);
    // No reordering seen yet: a D-SACK does not widen the window.
    assert!(o.on_dsack(M, M, 1, false));
    o.update_reo_wnd(t(100), Some(t(50)));
    assert_eq!(o.steps, 1);
    o.check(3, 1, 5001, M);
    // The D-SACK of a retransmission; the ACK at 200 ms delivers a
    // segment sent at 150 ms: 2 steps, 50 ms.
    assert!(o.on_dsack(M, M, 2, false));
    o.update_reo_wnd(t(200), Some(t(150)));
    assert_eq!(o.steps, 2);
    assert_eq!(o.rack_reo_wnd(false, 0, 3, min, srtt), ms(50));
    // A D-SACK whose ACK delivers only a segment sent before the last
    // step (at 200 ms) is within the same round trip: dropped.
    assert!(o.on_dsack(M, M, 3, false));
    o.update_reo_wnd(t(250), Some(t(190)));
    assert_eq!(o.steps, 2);
    // An ACK that delivers nothing keeps a D-SACK waiting.
    assert!(o.on_dsack(M, M, 4, false));
    o.update_reo_wnd(t(300), None);
    o.update_reo_wnd(t(320), Some(t(210)));
    assert_eq!(o.steps, 3);
    assert_eq!(o.rack_reo_wnd(false, 0, 3, min, srtt), ms(75));
    // Never beyond SRTT.
    o.steps = 6;
    assert_eq!(o.rack_reo_wnd(false, 0, 3, min, srtt), ms(120));
}

#[test]
fn dsacks_of_data_never_retransmitted_or_of_the_loss_probe_do_not_widen_it() {
    let mut o = Reordering::new(3);
    o.check(3, 1, 5001, M);
    // Two D-SACKed segments, one retransmission: the second is dubious.
    assert!(o.on_dsack(M, M, 1, false));
    o.update_reo_wnd(t(100), Some(t(90)));
    assert_eq!(o.steps, 2);
    assert!(!o.on_dsack(M, M, 1, false));
    o.update_reo_wnd(t(400), Some(t(300)));
    assert_eq!(o.steps, 2);
    // The probe's D-SACK counts as a D-SACK but does not widen.
    assert!(o.on_dsack(M, M, 5, true));
    o.update_reo_wnd(t(500), Some(t(450)));
    assert_eq!(o.steps, 2);
    // A D-SACK of two segments counts two and is never the probe's (Linux
    // compares the probe's end for a one-segment D-SACK only).
    assert!(o.on_dsack(2 * M, M, 5, true));
    o.update_reo_wnd(t(600), Some(t(550)));
    assert_eq!(o.steps, 3);
}

#[test]
fn the_widened_window_lasts_sixteen_recoveries_then_returns_to_one_step() {
    let mut o = Reordering::new(3);
    o.check(3, 1, 5001, M);
    o.on_dsack(M, M, 1, false);
    o.update_reo_wnd(t(100), Some(t(90)));
    assert_eq!(o.steps, 2);
    for _ in 0..15 {
        o.recovery_ended(false);
        o.update_reo_wnd(t(200), Some(t(150)));
    }
    assert_eq!(o.steps, 2);
    // A recovery undone does not count.
    o.recovery_ended(true);
    o.update_reo_wnd(t(200), Some(t(150)));
    assert_eq!(o.steps, 2);
    o.recovery_ended(false);
    o.update_reo_wnd(t(200), Some(t(150)));
    assert_eq!(o.steps, 1);
    // A D-SACK undo gives one recovery more (at most 16).
    o.dsack_undo();
    assert_eq!(o.persist, 1);
}

#[test]
fn the_steps_stop_at_255() {
    let mut o = Reordering::new(3);
    o.check(3, 1, 5001, M);
    for k in 0..300 {
        o.on_dsack(M, M, 1000, false);
        o.update_reo_wnd(t(10 * k + 5), Some(t(10 * k + 5)));
    }
    assert_eq!(o.steps, MAX_STEPS);
}
