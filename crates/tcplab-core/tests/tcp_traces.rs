// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exact loss-recovery traces (packetdrill style) and TCP invariants.
//!
//! Path: a -(10 Mb/s, 5 ms, MTU 1040 so MSS 1000)- b, delayed ACK off,
//! initial window 4 segments. Data segment k covers [1 + 1000 (k - 1), 1 + 1000 k).
//! When segment 25 is lost, slow start has acked 24 segments: cwnd = 28000,
//! FlightSize = 28000. Limited transmit (on by default) sends segments 53
//! and 54 on the first two duplicate ACKs; RFC 5681 3.2 leaves them out of
//! the FlightSize that sets ssthresh = 28000 / 2 = 14000, but they are in
//! flight: the recovery point is 54001.

use tcplab_core::results::EventRecord;
use tcplab_core::{run_json, Results};

fn scenario(cc: &str, drops: &[u64], extra: &str) -> String {
    format!(
        r#"{{"duration": "3s", "hosts": ["a", "b"], "trace": ["events"],
            "links": [{{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "queue": "1000p",
                        "mtu": 1040, "loss": {{"model": "list", "packets": {drops:?},
                        "flow": "tcp0", "data_only": true}}}}],
            "flows": [{{"kind": "tcp", "src": "a", "dst": "b", "cc": "{cc}",
                        "delayed_ack": 1 {extra}}}]}}"#
    )
}

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

fn trace(r: &Results) -> Vec<(&str, u64, u64, u64)> {
    r.events
        .iter()
        .filter(|e: &&EventRecord| e.event != "established")
        // (Every logged event here comes after a loss: ssthresh is finite.)
        .map(|e| (e.event.as_str(), e.seq, e.cwnd, e.ssthresh as u64))
        .collect()
}

#[test]
fn newreno_three_losses_one_window_reduction() {
    let r = run(&scenario("newreno", &[25, 27, 29], ""));
    assert_eq!(
        trace(&r),
        vec![
            // ssthresh = 28000 / 2; cwnd = ssthresh + 3 MSS.
            ("fast_retransmit", 24001, 17000, 14000),
            ("retransmit", 24001, 17000, 14000),
            // 24 more dupACKs (segments 31..54) inflate to 41000; the partial
            // ACK covers 2000 B: 41000 - 2000 + 1000.
            ("partial_ack", 26001, 40000, 14000),
            ("retransmit", 26001, 40000, 14000),
            ("partial_ack", 28001, 50000, 14000),
            ("retransmit", 28001, 50000, 14000),
            // min(ssthresh, max(FlightSize, MSS) + MSS).
            ("recovery_exit", 77001, 14000, 14000),
        ]
    );
    assert_eq!((r.flows[0].fast_retransmits, r.flows[0].timeouts), (1, 0));
}

#[test]
fn sack_three_losses_repaired_in_one_round() {
    let r = run(&scenario("sack", &[25, 27, 29], ""));
    let t = trace(&r);
    let retx: Vec<u64> = t
        .iter()
        .filter(|e| e.0 == "retransmit")
        .map(|e| e.1)
        .collect();
    assert_eq!(retx, vec![24001, 26001, 28001]);
    assert!(t.iter().all(|e| e.2 == 14000 && e.3 == 14000), "{t:?}"); // cwnd = ssthresh
    assert_eq!(t.last().unwrap().0, "recovery_exit");
    assert_eq!((r.flows[0].fast_retransmits, r.flows[0].timeouts), (1, 0));
}

#[test]
fn tahoe_restarts_from_one_segment() {
    let r = run(&scenario("tahoe", &[25], ""));
    assert_eq!(trace(&r)[0], ("fast_retransmit", 24001, 1000, 14000));
}

#[test]
fn reno_one_loss_one_halving() {
    let r = run(&scenario("reno", &[25], ""));
    assert_eq!(
        trace(&r),
        vec![
            ("fast_retransmit", 24001, 17000, 14000),
            ("retransmit", 24001, 17000, 14000),
            // The retransmission fills the only hole: segments 26..54 (the
            // last two sent by limited transmit) are acknowledged at once.
            ("recovery_exit", 54001, 14000, 14000),
        ]
    );
}

#[test]
fn without_limited_transmit_the_recovery_ends_at_the_last_segment_before_the_loss() {
    let off = run(&scenario("reno", &[25], r#", "limited_transmit": false"#));
    // Segments 26..52 only: the retransmission is acknowledged up to 52001,
    // with the same window and threshold.
    assert_eq!(
        trace(&off),
        vec![
            ("fast_retransmit", 24001, 17000, 14000),
            ("retransmit", 24001, 17000, 14000),
            ("recovery_exit", 52001, 14000, 14000),
        ]
    );
}

/// Segments 25, 27 and 29 lost, recovered by PRR with or without SACK in
/// one recovery and no timeout.
fn prr_three_losses(sack: bool) -> Results {
    let extra = format!(r#", "recovery": "prr", "sack": {sack}"#);
    let r = run(&scenario("newreno", &[25, 27, 29], &extra));
    assert_eq!((r.flows[0].fast_retransmits, r.flows[0].timeouts), (1, 0));
    r
}

#[test]
fn prr_three_losses_spread_over_the_acks() {
    let r = prr_three_losses(true);
    assert_eq!(
        trace(&r),
        vec![
            // The SACK of 30 starts it (the window is still 28000 when
            // logged): ssthresh 14000; RecoverFS = 30000 in flight - 3000
            // SACKed + 1000 this ACK = 28000; pipe = 26 segments (25 lost,
            // 26, 28, 30 SACKed) > ssthresh: sndcnt = ceil(1000 x 14000 /
            // 28000) = 500, forced to 1000: cwnd = 27000, the retransmission.
            ("fast_retransmit", 24001, 28000, 14000),
            ("retransmit", 24001, 27000, 14000),
            // SACK of 31 (27 now lost): prr_delivered 2000, pipe 25: sndcnt
            // 0. SACK of 32 (29 lost): 3000, pipe 23: 500. SACK of 33: 4000,
            // pipe 22: sndcnt 1000, cwnd 23000: hole 27 (NextSeg rule 1).
            ("retransmit", 26001, 23000, 14000),
            // SACK of 34: 500 (cwnd 22500); SACK of 35: pipe 21, 1000: 29.
            ("retransmit", 28001, 22000, 14000),
            // By the partial ACKs pipe has come down to ssthresh: cwnd 14000.
            ("partial_ack", 26001, 14000, 14000),
            ("partial_ack", 28001, 14000, 14000),
            // RFC 6675: the recovery point is what was sent at the start,
            // limited transmit's two segments included.
            ("recovery_exit", 54001, 14000, 14000),
        ]
    );
}

#[test]
fn prr_without_sack_retransmits_one_hole_per_partial_ack() {
    let r = prr_three_losses(false);
    assert_eq!(
        trace(&r),
        vec![
            // RecoverFS = FlightSize = 30000; the three duplicates reported
            // 3000; pipe = 30000 - 3000 - 1000 (the head) = 26000: sndcnt =
            // ceil(1000 x 14000 / 30000) = 467, forced to 1000.
            ("fast_retransmit", 24001, 28000, 14000),
            ("retransmit", 24001, 27000, 14000),
            // As NewReno, each partial ACK retransmits the next hole, within
            // PRR's window (at ssthresh by then).
            ("partial_ack", 26001, 14000, 14000),
            ("retransmit", 26001, 14000, 14000),
            ("partial_ack", 28001, 14000, 14000),
            ("retransmit", 28001, 14000, 14000),
            ("recovery_exit", 77001, 14000, 14000),
        ]
    );
}

/// Times of the events named `kind`.
fn times(r: &Results, kind: &str) -> Vec<f64> {
    r.events
        .iter()
        .filter(|e| e.event == kind)
        .map(|e| e.time_ns as f64 * 1e-9)
        .collect()
}

#[test]
fn rack_recovers_a_lost_retransmission_without_a_timeout() {
    // Segment 25 is lost, and so is its retransmission (the 55th data
    // packet: 54 segments went out first, limited transmit's two
    // included). RFC 6675 cannot see that: the timer fires after 1 s.
    let sack = r#", "recovery": "sack", "sack": true"#;
    let r = run(&scenario("newreno", &[25, 55], sack));
    assert_eq!(r.flows[0].timeouts, 1);
    // RACK: the segments sent after the retransmission come back SACKed
    // while it does not; one RACK.rtt after it was sent, it is lost again
    // and sent a third time, in the same recovery.
    let r = run(&scenario(
        "newreno",
        &[25, 55],
        r#", "recovery": "sack", "sack": true, "rack": true, "tlp": false"#,
    ));
    let ev: Vec<(&str, u64)> = trace(&r).iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        ev,
        vec![
            ("fast_retransmit", 24001),
            ("retransmit", 24001),
            ("retransmit", 24001),
            ("recovery_exit", 67001),
        ]
    );
    let rt = times(&r, "retransmit");
    // At least one round trip (10 ms of propagation) between the two.
    assert!(rt[1] - rt[0] > 0.010 && rt[1] - rt[0] < 0.030, "{rt:?}");
    assert_eq!((r.flows[0].fast_retransmits, r.flows[0].timeouts), (1, 0));
}

/// A 30,000-B transfer (31 segments of 988 B with timestamps) whose data
/// packet `drop` is lost.
fn tail(drop: u64, rack: bool, tlp: bool) -> Results {
    run(&scenario(
        "newreno",
        &[drop],
        &format!(
            r#", "recovery": "sack", "sack": true, "timestamps": true, "rack": {rack},
               "tlp": {tlp}, "app": {{"kind": "transfer", "size": "30000B"}}"#
        ),
    ))
}

#[test]
fn rack_reordering_timer_finds_a_loss_that_only_one_sack_reveals() {
    // The second-last segment lost: one SACK (the last segment's), never
    // three duplicate ACKs. Without RACK, the retransmission timer (1 s).
    let r = tail(30, false, false);
    assert_eq!(r.flows[0].timeouts, 1);
    assert!(r.flows[0].completion_time_s > 1.0);
    // RACK: reo_wnd = min_RTT / 4 after the SACK, the segment is lost.
    let r = tail(30, true, false);
    assert_eq!(r.flows[0].timeouts, 0);
    assert_eq!(times(&r, "fast_retransmit").len(), 1);
    assert!(r.flows[0].completion_time_s < 0.07);
}

#[test]
fn the_tail_loss_probe_repairs_the_last_segment_without_a_timeout() {
    // The last segment lost: no ACK reveals it. With one segment in
    // flight the probe waits 2 SRTT + 200 ms, then resends it.
    let r = tail(31, true, false);
    assert_eq!(r.flows[0].timeouts, 1);
    let r = tail(31, true, true);
    assert_eq!(r.flows[0].timeouts, 0);
    let probe = times(&r, "loss_probe");
    assert_eq!(probe.len(), 1);
    // The last ACK came back at about 65 ms, SRTT about 11 ms.
    assert!(
        probe[0] > 0.065 + 0.2 && probe[0] < 0.065 + 0.2 + 0.03,
        "{probe:?}"
    );
    assert!(r.flows[0].completion_time_s < 0.3);
    let ev: Vec<(&str, u64)> = trace(&r).iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        ev,
        vec![
            ("retransmit", 29641),
            ("loss_probe", 29641),
            ("closed", 30002)
        ]
    );
}

#[test]
fn a_probe_and_rack_repair_a_two_segment_tail_loss() {
    // The last two segments lost (timestamps on): the probe resends the
    // last; its SACK shows the second-last lost (RACK, after the
    // reordering window), which a fast recovery resends. No timeout.
    let r = tail_two();
    assert_eq!(r.flows[0].timeouts, 0);
    let ev: Vec<(&str, u64)> = trace(&r).iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        ev,
        vec![
            ("retransmit", 29641),
            ("loss_probe", 29641),
            ("fast_retransmit", 28653),
            ("retransmit", 28653),
            ("recovery_exit", 30002),
            ("closed", 30002),
        ]
    );
}

fn tail_two() -> Results {
    run(&scenario(
        "newreno",
        &[30, 31],
        r#", "recovery": "sack", "sack": true, "timestamps": true, "rack": true,
           "tlp": true, "app": {"kind": "transfer", "size": "30000B"}"#,
    ))
}

#[test]
fn after_a_timeout_rack_resends_a_retransmission_lost_again() {
    // 20 segments of 988 B, the last ten lost: nothing comes back, the
    // timer fires (1 s). Going back N, the retransmission of segment 12
    // (the 22nd data packet) is lost too; the SACK of 13 shows it. With
    // RACK it is sent again at once in the Loss state; without, a second,
    // backed-off timeout (2 s) waits for it.
    let loss = |rack: bool| {
        let drops: Vec<u64> = (11..=20).chain([22]).collect();
        run(&scenario(
            "newreno",
            &drops,
            &format!(
                r#", "recovery": "sack", "sack": true, "timestamps": true, "rack": {rack},
                   "tlp": false, "app": {{"kind": "transfer", "size": "19760B"}}"#
            ),
        ))
    };
    let r = loss(false);
    assert_eq!(r.flows[0].timeouts, 2);
    let r = loss(true);
    assert_eq!(r.flows[0].timeouts, 1);
    let again: Vec<f64> = r
        .events
        .iter()
        .filter(|e| e.event == "retransmit" && e.seq == 10869)
        .map(|e| e.time_ns as f64 * 1e-9)
        .collect();
    assert_eq!(again.len(), 2);
    // One round trip (about 11 ms) after it was first resent.
    assert!(again[1] - again[0] < 0.015, "{again:?}");
    assert!(r.flows[0].completion_time_s < 1.1);
}

#[test]
fn invariants_hold_for_every_variant_under_random_loss() {
    let cases = [
        ("tahoe", ""),
        ("reno", ""),
        ("newreno", ""),
        ("sack", ""),
        ("sack", r#", "rescue_retransmit": true"#),
        ("newreno", r#", "recovery": "prr", "sack": true"#),
        ("newreno", r#", "recovery": "prr", "sack": false"#),
        ("cubic", r#", "profile": "linux""#),
        (
            "newreno",
            r#", "recovery": "sack", "sack": true, "rack": true, "tlp": true"#,
        ),
    ];
    for (cc, extra) in cases {
        for seed in 1..=3 {
            let text = format!(
                r#"{{"duration": "30s", "seed": {seed}, "hosts": ["a", "b"],
                    "links": [{{"a": "a", "b": "b", "rate": "5Mbps", "delay": "20ms",
                                "queue": "30p", "loss": {{"model": "uniform", "per": 0.03}},
                                "reverse_loss": {{"model": "uniform", "per": 0.03}}}}],
                    "flows": [{{"kind": "tcp", "src": "a", "dst": "b", "cc": "{cc}",
                                "timestamps": true {extra}}},
                              {{"kind": "tcp", "src": "a", "dst": "b", "cc": "{cc}",
                                "app": {{"kind": "transfer", "size": "300KB"}} {extra}}}]}}"#
            );
            let r = run(&text);
            for f in &r.flows {
                assert_eq!(
                    f.sent_packets,
                    f.delivered_packets + f.lost_queue + f.lost_error + f.in_flight_packets,
                    "{cc} seed {seed}: {f:?}"
                );
                assert!(f.acked_bytes <= f.delivered_bytes, "{cc} seed {seed}");
                assert!(
                    f.retransmitted_segments > 0,
                    "{cc} seed {seed}: no loss exercised"
                );
            }
            assert_eq!(r.flows[1].delivered_bytes, 300_000, "{cc} seed {seed}");
            assert!(r.flows[1].completion_time_s.is_finite());
        }
    }
}
