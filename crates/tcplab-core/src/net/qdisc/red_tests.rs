// SPDX-License-Identifier: MIT OR Apache-2.0
//! RED's arithmetic, checked against numbers worked out by hand from
//! Floyd and Jacobson's formulas and ns-3's automatic settings.

use super::*;

const MBPS: u64 = 1_000_000;

fn spec(json: &str) -> RedSpec {
    let s: RedSpec = serde_json::from_str(json).unwrap();
    s.check().unwrap();
    s
}

fn red(json: &str, rate_mbps: u64) -> Red {
    Red::new(
        &spec(json),
        Rate::from_bps(rate_mbps * MBPS),
        Rng::stream(1, 0, "red"),
    )
}

fn ms(x: u64) -> SimTime {
    SimTime::from_nanos(x * 1_000_000)
}

/// An arrival at `now` finding `waiting` packets of 1000 B ahead of it on a
/// busy link (or an idle one when `waiting` is 0 and `busy` false).
fn at(now: SimTime, waiting: u64, busy: bool) -> Arrival {
    Arrival {
        now,
        size: 1000,
        tx_start: if busy {
            now + SimDuration::from_millis(1)
        } else {
            now
        },
        waiting_packets: waiting,
        waiting_bytes: waiting * 1000,
        device_packets: 0,
        ect: false,
    }
}

#[test]
fn the_defaults_are_ns3s() {
    let r = red("{}", 10);
    assert_eq!(r.parameters(), (5.0, 15.0, 0.002, 0.02));
    assert_eq!(r.hard, DropTail::new(QueueLimit::Packets(25)));
    assert!(r.gentle && r.wait && r.adapt.is_none());
    // 10 Mb/s of 500-B packets.
    assert_eq!(r.ptc, 2500.0);
}

#[test]
fn automatic_settings_follow_the_link_rate() {
    // 10 Mb/s, 500 B: 2500 packets/s; 5 ms of them is 12.5 packets, so
    // min_th = 12.5 / 2 = 6.25 (more than 5), max_th = 3 min_th.
    let r = red(r#"{"min_th": "auto", "max_th": "auto", "w_q": "auto"}"#, 10);
    let (lo, hi, w, _) = r.parameters();
    assert_eq!((lo, hi), (6.25, 18.75));
    assert!((w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
    assert!((w - 3.9992e-4).abs() < 1e-7);
    // At 1 Mb/s the target is 1.25 packets: min_th stays 5.
    let r = red(r#"{"adaptive": true}"#, 1);
    assert_eq!(r.parameters().0, 5.0);
    assert_eq!(r.parameters().1, 15.0);
    // bottom = min(0.01, 8 * 500 B * 100 ms / 1 Mb/s) = 0.0004.
    assert!((r.adapt.as_ref().unwrap().bottom - 4e-4).abs() < 1e-15);
    // Byte mode: the automatic thresholds in bytes.
    let r = red(r#"{"limit": "50000B", "adaptive": true}"#, 10);
    assert_eq!(r.parameters().0, 6.25 * 500.0);
}

#[test]
fn the_average_is_an_ewma_that_decays_over_idle_time() {
    // w_q = 1/2, 8 Mb/s of 1000-B packets: 1000 packets/s.
    let mut r = red(
        r#"{"w_q": 0.5, "mean_packet_size": 1000, "min_th": 50, "max_th": 100, "limit": "200p"}"#,
        8,
    );
    assert_eq!(r.enqueue(&at(ms(0), 4, true)), Verdict::Enqueue);
    assert_eq!(r.average(), 2.0);
    r.enqueue(&at(ms(1), 4, true));
    assert_eq!(r.average(), 3.0);
    // The last admitted packet waited (its start, t = 2 ms, is after its
    // arrival at t = 1 ms): once it is on the wire and nothing waits, the
    // queue is idle from its start. 5 ms later the link could have sent 5
    // packets: avg * (1/2)^(5 + 1).
    r.enqueue(&at(ms(7), 0, false));
    assert_eq!(r.average(), 3.0 / 64.0);
    // That packet went straight on the wire: no idle period follows it, as
    // in ns-3, where only a dequeue finding the queue empty starts one.
    r.enqueue(&at(ms(20), 0, false));
    assert_eq!(r.average(), 3.0 / 128.0);
}

#[test]
fn the_drop_probability_is_linear_then_gentle() {
    let mut r = red(r#"{"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 1}"#, 10);
    for (avg, p) in [
        (5.0, 0.0),
        (10.0, 0.05),
        (15.0, 0.1),
        (20.0, 0.4),
        (29.0, 0.94),
    ] {
        r.avg = avg;
        assert!(
            (r.base_probability() - p).abs() < 1e-12,
            "{avg}: {}",
            r.base_probability()
        );
    }
    let mut r = red(r#"{"max_p": 0.1, "gentle": false}"#, 10);
    r.avg = 16.0;
    assert_eq!(r.base_probability(), 1.0);
}

#[test]
fn forced_drops_above_the_drop_region_and_overflow_at_the_limit() {
    // w_q = 1: the average is the queue found.
    let mut r = red(r#"{"w_q": 1, "limit": "100p"}"#, 10);
    assert_eq!(
        r.enqueue(&at(ms(0), 30, true)),
        Verdict::Drop(QueueDrop::Forced)
    );
    assert_eq!(r.enqueue(&at(ms(0), 29, true)), Verdict::Enqueue); // first in the region
    let mut r = red(r#"{"w_q": 1, "gentle": false, "limit": "100p"}"#, 10);
    assert_eq!(
        r.enqueue(&at(ms(0), 15, true)),
        Verdict::Drop(QueueDrop::Forced)
    );
    // Below min_th, only the hard limit drops.
    let mut r = red(r#"{"w_q": 0.001, "limit": "3p"}"#, 10);
    assert_eq!(r.enqueue(&at(ms(0), 2, true)), Verdict::Enqueue);
    assert_eq!(
        r.enqueue(&at(ms(0), 3, true)),
        Verdict::Drop(QueueDrop::Overflow)
    );
    // A packet finding the link idle is never dropped.
    assert_eq!(r.enqueue(&at(ms(5), 0, false)), Verdict::Enqueue);
}

/// With `wait`, Floyd and Jacobson's spacing: after a drop, p_a = 0 while
/// count * p_b < 1, then p_b / (2 - count * p_b), then 1.
#[test]
fn early_drops_are_spaced_by_the_count_since_the_last_one() {
    // The average held at 10: p_b = 0.05, so no drop before the 20th
    // arrival after the last, and a sure one at the 40th.
    let mut r = red(r#"{"w_q": 1, "max_p": 0.1, "limit": "100p"}"#, 10);
    let mut gaps = Vec::new();
    let mut since = 0u64;
    for _ in 0..1_000_000 {
        since += 1;
        if r.enqueue(&at(ms(0), 10, true)) == Verdict::Drop(QueueDrop::Early) {
            gaps.push(since);
            since = 0;
        }
    }
    let first = gaps[0];
    let gaps = &gaps[1..];
    assert!(
        (21..=41).contains(&first),
        "the crossing arrival is spared: {first}"
    );
    // After a drop the count restarts at 0: the next drop is the arrival
    // with count c in 20..=40.
    assert!(
        gaps.iter().all(|g| (20..=40).contains(g)),
        "{:?}",
        &gaps[..20]
    );
    // The mean gap, from P(drop at c | none before) = p_b / (2 - c p_b).
    let (mut survive, mut mean, mut square) = (1.0, 0.0, 0.0);
    for c in 20..=40 {
        let cp = c as f64 * 0.05;
        let pa = if cp < 2.0 { 0.05 / (2.0 - cp) } else { 1.0 };
        mean += c as f64 * survive * pa;
        square += (c * c) as f64 * survive * pa;
        survive *= 1.0 - pa;
    }
    assert!(survive.abs() < 1e-12);
    // Within four standard errors of that mean (29.5; sd 5.6).
    let se = ((square - mean * mean) / gaps.len() as f64).sqrt();
    let got = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
    assert!(
        (got - mean).abs() < 4.0 * se,
        "mean gap {got}, expected {mean} +- {se}"
    );
    // Without `wait`: p_b / (1 - count p_b), so drops can come at once.
    let mut r = red(
        r#"{"w_q": 1, "max_p": 0.1, "wait": false, "limit": "100p"}"#,
        10,
    );
    let early = (0..20_000)
        .filter(|_| r.enqueue(&at(ms(0), 10, true)) == Verdict::Drop(QueueDrop::Early))
        .count();
    // Mean gap sum_{c>=1} of survival: about 1 / p_b... within the bounds
    // 1 <= gap <= 20.
    assert!(early > 20_000 / 20 && early < 20_000 / 2, "{early}");
}

#[test]
fn adaptive_red_moves_max_p_toward_the_target_band() {
    let mut r = red(
        r#"{"adaptive": true, "min_th": 5, "max_th": 15, "w_q": 1, "limit": "100p"}"#,
        1,
    );
    // The band is (5 + 4, 15 - 4) = (9, 11). Below it, max_p * 0.9 once per
    // 0.5 s; not again within the interval.
    r.enqueue(&at(ms(501), 6, true));
    assert!((r.parameters().3 - 0.018).abs() < 1e-15);
    r.enqueue(&at(ms(900), 6, true));
    assert!((r.parameters().3 - 0.018).abs() < 1e-15);
    // Above it, + min(0.01, max_p / 4) = + 0.0045.
    r.enqueue(&at(ms(1002), 12, true));
    assert!((r.parameters().3 - 0.0225).abs() < 1e-15);
    // Inside it, unchanged.
    r.enqueue(&at(ms(1600), 10, true));
    assert!((r.parameters().3 - 0.0225).abs() < 1e-15);
}

#[test]
fn byte_mode_counts_bytes_and_scales_by_packet_size() {
    let mut r = red(
        r#"{"limit": "100000B", "min_th": 5000, "max_th": 15000, "max_p": 0.1, "w_q": 1}"#,
        10,
    );
    // 10 packets of 1000 B waiting: the average is 10,000 bytes.
    r.enqueue(&at(ms(0), 10, true));
    assert_eq!(r.average(), 10_000.0);
    assert!((r.base_probability() - 0.05).abs() < 1e-12);
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let bad = |json: &str| {
        let s: RedSpec = serde_json::from_str(json).unwrap();
        s.check().unwrap_err()
    };
    assert_eq!(
        bad(r#"{"min_th": 10, "max_th": 5}"#),
        "max_th: at least min_th (10), got 5"
    );
    assert!(bad(r#"{"max_p": 1.5}"#).starts_with("max_p: a probability in [0, 1]"));
    assert!(bad(r#"{"w_q": 0}"#).starts_with("w_q: a weight in (0, 1]"));
    assert!(bad(r#"{"beta": 1}"#).starts_with("beta:"));
    assert!(bad(r#"{"min_th": "auto", "max_th": 9}"#).starts_with("min_th, max_th"));
    // One threshold alone, beyond the other's default, as if both were given.
    assert_eq!(
        bad(r#"{"min_th": 20}"#),
        "max_th: the default 15 is below min_th (20); give max_th too, at least min_th"
    );
    assert_eq!(
        bad(r#"{"max_th": 3}"#),
        "min_th: the default 5 is above max_th (3); give min_th too, at most max_th"
    );
    assert!(bad(r#"{"adaptive": true, "min_th": 20}"#).starts_with("max_th: the default 15"));
    // Discipline timers below 1 us (a packet's time on the wire) are refused.
    assert_eq!(
        bad(r#"{"adaptive": true, "interval": "1ns"}"#),
        "interval: at least 1 us (a discipline's timer; a 1500-B packet takes 1.2 us at 10 \
         Gb/s), got 1ns"
    );
    assert!(bad(r#"{"limit": "0p"}"#).starts_with("limit:"));
    let e = serde_json::from_str::<RedSpec>(r#"{"minth": 5}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field `minth`"), "{e}");
}

/// With `ecn`, RED marks an ECN-capable packet where it would drop it
/// early; a packet that is not ECN-capable is dropped as before, and above
/// the drop region the hard drop stays unless `hard_drop` is off.
#[test]
fn with_ecn_early_drops_become_marks() {
    let spec = r#"{"ecn": true, "min_th": 1, "max_th": 3, "w_q": 1, "max_p": 1,
                   "gentle": false, "wait": false, "limit": "100p"}"#;
    let ect = |a: Arrival| Arrival { ect: true, ..a };
    let mut r = red(spec, 10);
    let t = SimTime::from_nanos(1);
    // avg = 2 (w_q 1), between the thresholds: the first arrival there is
    // spared, the later ones marked with p_b = 0.5.
    r.enqueue(&ect(at(t, 2, true)));
    let mut marks = 0;
    for _ in 0..200 {
        match r.enqueue(&ect(at(t, 2, true))) {
            Verdict::Mark => marks += 1,
            Verdict::Enqueue => {}
            v => panic!("{v:?}"),
        }
    }
    assert!(marks > 50, "{marks}");
    // Not ECN-capable: dropped.
    let dropped = (0..200)
        .filter(|_| r.enqueue(&at(t, 2, true)) == Verdict::Drop(QueueDrop::Early))
        .count();
    assert!(dropped > 50);
    // Above max_th (not gentle): forced; dropped with hard_drop, marked without.
    assert_eq!(
        r.enqueue(&ect(at(t, 5, true))),
        Verdict::Drop(QueueDrop::Forced)
    );
    let mut soft = red(
        &spec.replace("\"ecn\": true", "\"ecn\": true, \"hard_drop\": false"),
        10,
    );
    assert_eq!(soft.enqueue(&ect(at(t, 5, true))), Verdict::Mark);
}

/// Over a device queue of one packet the average decays from the moment
/// the device asks the emptied queue for a packet (ns-3's dequeue that
/// finds it empty): when the last packet handed down starts, or at once if
/// it went straight on the wire. 1000 packets/s at 8 Mb/s: 1 ms idle is 1
/// packet the link could have sent.
#[test]
fn over_a_device_queue_the_average_decays_from_the_devices_ask() {
    let mut r = red(
        r#"{"w_q": 0.5, "mean_packet_size": 1000, "min_th": 50, "max_th": 100, "limit": "200p",
            "device_queue": 1}"#,
        8,
    );
    let us = |x: u64| SimTime::from_nanos(x * 1000);
    // At `now` (us), `waiting` in the discipline and `device` in the device
    // queue; the packet starts at `start` (us).
    let mut step = |now: u64, waiting: u64, device: u64, start: u64| {
        let a = Arrival {
            now: us(now),
            size: 1000,
            tx_start: us(start),
            waiting_packets: waiting,
            waiting_bytes: waiting * 1000,
            device_packets: device,
            ect: false,
        };
        assert_eq!(r.enqueue(&a), Verdict::Enqueue);
        r.average()
    };
    // Four waiting above the device: 4 / 2. The packet waits; the device
    // asks for another when it starts, at 5 ms.
    assert_eq!(step(0, 4, 1, 5000), 2.0);
    // Idle since 5 ms: 2 packets, 2 (1/2)^3. It goes straight on the wire,
    // and the device, empty, asks at once.
    assert_eq!(step(7000, 0, 0, 7000), 0.25);
    // Idle since 7 ms (3 packets): (1/4) (1/2)^4. Without a device queue
    // the queue would not count as idle after a packet that never waited
    // (the test above): (1/4) (1/2).
    assert_eq!(step(10_000, 0, 0, 10_000), 1.0 / 64.0);
    // The link is busy until 11 ms; this packet goes down to the device
    // (idle since 10 ms, less than a packet: m = 0) and fills it.
    assert_eq!(step(10_500, 0, 0, 11_000), 1.0 / 128.0);
    // The device is full (the packet before starts at 11 ms): not idle.
    // This one stays above the device until 11 ms and starts at 12 ms.
    assert_eq!(step(10_800, 0, 1, 12_000), 1.0 / 256.0);
    // It is in the device now, until 12 ms: still not idle.
    assert_eq!(step(11_500, 0, 1, 13_000), 1.0 / 512.0);
    // The device asked when the last packet started (13 ms): 2 packets.
    assert_eq!(step(15_000, 0, 0, 15_000), 1.0 / 4096.0);
}

#[test]
fn a_busy_arrival_s_weight_is_pow_s_to_the_bit() {
    // enqueue skips powf when the queue was not idle (m = 0): (1 - w_q)^1
    // must be 1 - w_q exactly for the averages to stay those powf gave.
    let mut w = 1e-6;
    while w < 1.0 {
        for x in [w, 0.002, 0.0001, 1.0 / 3.0, 0.2] {
            assert_eq!((1.0f64 - x).powf(1.0), 1.0 - x, "{x}");
        }
        w *= 1.37;
    }
}
