use super::*;
use crate::engine::PacketId;

fn ms(x: f64) -> SimTime {
    SimTime::from_nanos((x * 1e6) as u64)
}

fn pkt(id: u32, at: SimTime, ect: bool) -> Queued {
    Queued {
        id: PacketId(id),
        size: 1000,
        enqueued: at,
        ect,
        ce: false,
        hash: 0,
    }
}

fn pie(spec: PieSpec) -> Pie {
    Pie::new(&spec, Rng::stream(1, 1, "pie test"))
}

#[test]
fn an_update_moves_the_probability_by_the_scaled_pi_terms() {
    let mut q = pie(PieSpec::default());
    // 30 ms measured, 0 before, no burst allowance: (0.125 * 0.015 + 1.25
    // * 0.030) / 2048 (the probability is under 1e-6).
    q.qdelay = SimDuration::from_millis(30);
    q.update();
    let p1 = (0.125 * 0.015 + 1.25 * 0.030) / 2048.0;
    assert!((q.drop_prob - p1).abs() < 1e-15, "{}", q.drop_prob);
    // Again at 30 ms: only the proportional term, now divided by 128 (the
    // probability is between 1e-5 and 1e-4).
    q.update();
    let p2 = p1 + 0.125 * 0.015 / 128.0;
    assert!((q.drop_prob - p2).abs() < 1e-15, "{}", q.drop_prob);
    // At 0.1 and above, an increase is capped at 0.02.
    q.drop_prob = 0.15;
    q.qdelay = SimDuration::from_millis(500);
    q.update();
    assert!((q.drop_prob - 0.17).abs() < 1e-12, "{}", q.drop_prob);
    // Both delays 0: decays by 2% per update.
    q.qdelay = SimDuration::ZERO;
    q.update();
    q.update();
    let decayed = q.drop_prob;
    q.update();
    assert!((q.drop_prob - decayed * 0.98).abs() < 1e-12);
}

#[test]
fn updates_run_every_t_update_from_time_zero() {
    let mut q = pie(PieSpec::default());
    q.qdelay = SimDuration::from_millis(30);
    q.catch_up(ms(0.0));
    assert_eq!(q.next_update, ms(15.0));
    q.catch_up(ms(44.9));
    // Updates at 0, 15 and 30 ms.
    assert_eq!(q.next_update, ms(45.0));
}

#[test]
fn the_first_arrival_arms_a_burst_allowance_that_holds_the_probability_at_zero() {
    let mut q = pie(PieSpec::default());
    let mut d = vec![];
    q.enqueue(pkt(0, ms(1.0), false), &mut d);
    assert_eq!(q.burst_allowance, SimDuration::from_millis(150));
    q.qdelay = SimDuration::from_millis(100);
    // Ten updates (15 ms each) use it up; the probability stays 0 meanwhile.
    for k in 1..=10 {
        q.catch_up(ms(15.0 * k as f64));
        assert_eq!(q.drop_prob, 0.0, "update {k}");
    }
    assert_eq!(q.burst_allowance, SimDuration::ZERO);
    q.catch_up(ms(165.0));
    assert!(q.drop_prob > 0.0);
}

#[test]
fn a_full_queue_drops_and_two_waiting_packets_are_never_dropped_early() {
    let mut q = pie(PieSpec {
        limit: QueueLimit::Packets(5),
        ..PieSpec::default()
    });
    let mut d = vec![];
    // A certain drop once past the burst allowance and the delay guard.
    q.burst = Burst::In;
    q.drop_prob = 1.0;
    q.qdelay_old = SimDuration::from_millis(100);
    q.next_update = ms(1000.0);
    for i in 0..3 {
        q.enqueue(pkt(i, ms(1.0), false), &mut d);
    }
    assert!(d.is_empty(), "at most 2 waiting ahead: no early drop");
    q.enqueue(pkt(3, ms(1.0), false), &mut d);
    assert_eq!(
        d.iter().map(|x| (x.id.0, x.why)).collect::<Vec<_>>(),
        [(3, QueueDrop::Early)]
    );
    // Full: an overflow, whatever the probability.
    q.drop_prob = 0.0;
    q.enqueue(pkt(4, ms(1.0), false), &mut d);
    q.enqueue(pkt(5, ms(1.0), false), &mut d);
    q.enqueue(pkt(6, ms(1.0), false), &mut d);
    assert_eq!(
        d.last().map(|x| (x.id.0, x.why)),
        Some((6, QueueDrop::Overflow))
    );
    assert_eq!(q.waiting().0, 5);
}

#[test]
fn with_ecn_a_small_probability_marks_a_large_one_drops() {
    let mut q = pie(PieSpec {
        ecn: true,
        limit: QueueLimit::Packets(10_000),
        ..PieSpec::default()
    });
    q.burst = Burst::In;
    q.qdelay_old = SimDuration::from_millis(100);
    q.next_update = ms(1000.0);
    let mut d = vec![];
    for i in 0..3 {
        q.enqueue(pkt(i, ms(1.0), true), &mut d);
    }
    // Under 0.1 (a certain draw needs p = 1; take 0.05 and count).
    q.drop_prob = 0.05;
    let mut marked = 0;
    for i in 3..2003 {
        q.enqueue(pkt(i, ms(1.0), true), &mut d);
    }
    while let Some(p) = q.dequeue(ms(2.0)) {
        marked += p.ce as u32;
    }
    assert!(d.is_empty());
    // About 5% of 2000 (binomial sd ~10).
    assert!((60..=140).contains(&marked), "{marked}");
    // At 0.1 and above, the same packets are dropped.
    for i in 0..3 {
        q.enqueue(pkt(i, ms(3.0), true), &mut d);
    }
    q.drop_prob = 0.5;
    for i in 3..23 {
        q.enqueue(pkt(i, ms(3.0), true), &mut d);
    }
    assert!(!d.is_empty() && d.iter().all(|x| x.why == QueueDrop::Early));
}

#[test]
fn the_measured_delay_is_the_last_sojourn_or_zero_when_emptied() {
    let mut q = pie(PieSpec::default());
    let mut d = vec![];
    q.enqueue(pkt(0, ms(1.0), false), &mut d);
    q.enqueue(pkt(1, ms(2.0), false), &mut d);
    q.dequeue(ms(11.0));
    assert_eq!(q.qdelay, SimDuration::from_millis(10));
    q.dequeue(ms(12.0));
    assert_eq!(q.qdelay, SimDuration::ZERO, "left the queue empty");
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let bad = |s: PieSpec| s.check().unwrap_err();
    let d = PieSpec::default;
    assert!(bad(PieSpec { alpha: -1.0, ..d() }).starts_with("alpha:"));
    assert!(bad(PieSpec {
        mark_ecn_threshold: 1.5,
        ..d()
    })
    .starts_with("mark_ecn_threshold:"));
    assert!(bad(PieSpec {
        t_update: SimDuration::ZERO,
        ..d()
    })
    .starts_with("t_update:"));
    // A timer far below a packet's time (2 s of PIE at 1 ns took 20 s of
    // wall time) is refused, naming the floor.
    assert_eq!(
        bad(PieSpec {
            t_update: SimDuration::from_nanos(1),
            ..d()
        }),
        "t_update: at least 1 us (a discipline's timer; a 1500-B packet takes 1.2 us at 10 \
         Gb/s), got 1ns"
    );
    assert!(PieSpec {
        t_update: SimDuration::from_micros(1),
        ..d()
    }
    .check()
    .is_ok());
    assert!(d().check().is_ok());
}
