use super::*;
use crate::engine::PacketId;

fn ms(x: f64) -> SimTime {
    SimTime::from_nanos((x * 1e6) as u64)
}

fn pkt(id: u32, size: u32, at: SimTime, ect: bool) -> Queued {
    Queued {
        id: PacketId(id),
        size,
        enqueued: at,
        ect,
        ce: false,
        hash: 0,
    }
}

/// A CoDel with `n` packets of 1500 B queued at t = 0 (room for them all).
fn backlogged(spec: CoDelSpec, n: u32, ect: bool) -> CoDel {
    let mut c = CoDel::new(&CoDelSpec {
        limit: QueueLimit::Packets(100_000),
        ..spec
    });
    let mut dropped = vec![];
    for i in 0..n {
        c.enqueue(pkt(i, 1500, SimTime::ZERO, ect), &mut dropped);
    }
    assert!(dropped.is_empty());
    c
}

fn ids(d: &[Dropped]) -> Vec<u32> {
    d.iter().map(|d| d.id.0).collect()
}

#[test]
fn the_fixed_point_inverse_square_root_follows_newtons_iteration() {
    // From 1.0 (0xffff), each step is x (3 - n x^2) / 2 at the new count,
    // which tracks 1 / sqrt(n) within a few steps.
    let (mut rec, mut x) = (0xffffu16, 1.0f64);
    for n in 2..=100u32 {
        rec = newton_step(rec, n);
        x = x * (3.0 - n as f64 * x * x) / 2.0;
        let got = rec as f64 / 65536.0;
        assert!((got - x).abs() < 2e-4, "n={n}: {got} vs {x}");
    }
    assert!((rec as f64 / 65536.0 - 0.1).abs() < 0.002, "1/sqrt(100)");
    // The control law: interval * rec, in 0.16 fixed point.
    assert_eq!(control_law(1000, 97656, 0xffff), 1000 + 97654);
    assert_eq!(control_law(0, 97656, 0x8000), 97656 / 2);
}

#[test]
fn no_drop_while_sojourns_stay_below_target() {
    let mut c = backlogged(CoDelSpec::default(), 100, false);
    let mut dropped = vec![];
    // Every packet queued at 0 and dequeued before 5 ms.
    for i in 0..100 {
        let p = c.dequeue(ms(i as f64 * 0.04), &mut dropped).unwrap();
        assert_eq!(p.id.0, i);
    }
    assert!(dropped.is_empty() && !c.vars().dropping);
}

#[test]
fn the_first_drop_comes_an_interval_after_the_sojourn_first_exceeds_target() {
    let mut c = backlogged(CoDelSpec::default(), 200, false);
    let mut d = vec![];
    // 10 ms: above target for the first time; a drop needs a time
    // strictly after 10 ms + 100 ms (in 1.024-us units: 9765 + 97656).
    assert_eq!(c.dequeue(ms(10.0), &mut d).unwrap().id.0, 0);
    assert_eq!(c.vars().first_above, 107_421);
    assert_eq!(c.dequeue(ms(110.0), &mut d).unwrap().id.0, 1);
    assert!(d.is_empty());
    // 110.01 ms (unit 107431): packet 2 is dropped, packet 3 leaves, and
    // CoDel is in its dropping state.
    assert_eq!(c.dequeue(ms(110.01), &mut d).unwrap().id.0, 3);
    assert_eq!(ids(&d), [2]);
    assert_eq!((d[0].at, d[0].why), (ms(110.01), QueueDrop::Early));
    assert!(c.vars().dropping);
    assert_eq!(c.vars().count, 1);
    // The next drop one interval later (count 1): 107431 + 97654.
    assert_eq!(c.vars().drop_next, 205_085);
    assert_eq!(c.dequeue(ms(209.99), &mut d).unwrap().id.0, 4);
    assert_eq!(d.len(), 1);
    assert_eq!(c.dequeue(ms(210.01), &mut d).unwrap().id.0, 6);
    assert_eq!(ids(&d), [2, 5]);
    // Count 2: one Newton step from 1 gives 0x8001, a gap of 48829 units
    // (ns-3's and Linux's fixed point; a true 1/sqrt(2) would be 69053).
    assert_eq!(c.vars().count, 2);
    assert_eq!(c.vars().drop_next, 205_085 + 48_829);
}

#[test]
fn drops_come_faster_as_the_count_grows() {
    // Dequeuing every 1 ms from a standing queue: the gaps between drops
    // shrink as interval / sqrt(count).
    let mut c = backlogged(CoDelSpec::default(), 2000, false);
    let mut d = vec![];
    let mut t = 10.0;
    while t < 1500.0 {
        c.dequeue(ms(t), &mut d);
        t += 1.0;
    }
    let times: Vec<f64> = d.iter().map(|d| d.at.as_secs_f64() * 1e3).collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.len() > 10, "{times:?}");
    // The first gaps are the fixed point's (ns-3's table: 97654, 48829 and
    // 54931 units: 100.0, 50.0 and 56.2 ms), on the 1 ms dequeue grid.
    for (g, want) in gaps.iter().zip([100.0, 50.0, 56.2]) {
        assert!((g - want).abs() <= 1.0, "{gaps:?}");
    }
    // Then the Newton iteration has caught up: about interval / sqrt(n),
    // never growing.
    let expect = 100.0 / 11f64.sqrt();
    assert!((gaps[9] - expect).abs() < 0.05 * expect + 1.0, "{gaps:?}");
    assert!(
        gaps[2..].windows(2).all(|w| w[1] <= w[0] + 1.01),
        "{gaps:?}"
    );
}

#[test]
fn a_sojourn_below_target_leaves_the_dropping_state() {
    let mut c = backlogged(CoDelSpec::default(), 10, false);
    let mut d = vec![];
    c.dequeue(ms(10.0), &mut d);
    c.dequeue(ms(110.01), &mut d);
    assert!(c.vars().dropping);
    // A packet that waited 1 ms.
    c.enqueue(pkt(99, 1500, ms(119.0), false), &mut d);
    while c.waiting().0 > 1 {
        c.fifo.pop();
    }
    assert_eq!(c.dequeue(ms(120.0), &mut d).unwrap().id.0, 99);
    assert!(!c.vars().dropping && c.vars().first_above == 0);
}

#[test]
fn with_less_than_min_bytes_queued_nothing_is_dropped() {
    // Two packets of 1000 B: after the first leaves, 1000 B < 1500 remain.
    let mut c = CoDel::new(&CoDelSpec::default());
    let mut d = vec![];
    c.enqueue(pkt(0, 1000, SimTime::ZERO, false), &mut d);
    c.enqueue(pkt(1, 1000, SimTime::ZERO, false), &mut d);
    assert!(c.dequeue(ms(10.0), &mut d).is_some());
    assert_eq!(c.vars().first_above, 0, "no standing queue");
    assert!(c.dequeue(ms(500.0), &mut d).is_some());
    assert!(d.is_empty());
}

#[test]
fn with_ecn_capable_packets_marks_replace_drops() {
    let spec = CoDelSpec {
        ecn: true,
        ..CoDelSpec::default()
    };
    let mut c = backlogged(spec.clone(), 200, true);
    let mut d = vec![];
    c.dequeue(ms(10.0), &mut d);
    let p = c.dequeue(ms(110.01), &mut d).unwrap();
    assert_eq!((p.id.0, p.ce), (1, true));
    assert!(d.is_empty() && c.vars().dropping);
    assert!(!c.dequeue(ms(150.0), &mut d).unwrap().ce);
    let p = c.dequeue(ms(210.01), &mut d).unwrap();
    assert_eq!((p.id.0, p.ce), (3, true));
    // A packet that is not ECN-capable is dropped even so.
    let mut c = backlogged(spec, 200, false);
    c.dequeue(ms(10.0), &mut d);
    assert_eq!(
        c.dequeue(ms(110.01), &mut d).map(|p| (p.id.0, p.ce)),
        Some((2, false))
    );
    assert_eq!(ids(&d), [1]);
}

#[test]
fn the_ce_threshold_marks_whatever_the_state() {
    let spec = CoDelSpec {
        ce_threshold: Some(SimDuration::from_millis(1)),
        ecn: true,
        ..CoDelSpec::default()
    };
    assert!(CoDelSpec {
        ecn: false,
        ..spec.clone()
    }
    .check()
    .unwrap_err()
    .starts_with("ce_threshold:"));
    let mut c = backlogged(spec, 5, true);
    let mut d = vec![];
    assert!(!c.dequeue(ms(0.5), &mut d).unwrap().ce);
    assert!(c.dequeue(ms(1.5), &mut d).unwrap().ce);
    assert!(!c.vars().dropping && d.is_empty());
}

#[test]
fn an_arrival_over_the_limit_is_dropped() {
    let mut c = CoDel::new(&CoDelSpec {
        limit: QueueLimit::Packets(3),
        ..CoDelSpec::default()
    });
    let mut d = vec![];
    for i in 0..3 {
        c.enqueue(pkt(i, 1500, SimTime::ZERO, false), &mut d);
    }
    c.enqueue(pkt(7, 1500, ms(1.0), false), &mut d);
    assert_eq!(
        d,
        [Dropped {
            id: PacketId(7),
            at: ms(1.0),
            why: QueueDrop::Overflow
        }]
    );
    assert_eq!(c.waiting(), (3, 4500));
}

#[test]
fn re_entering_soon_after_resumes_the_drop_rate() {
    // Leave the dropping state after several drops, then re-enter within
    // 16 intervals: count restarts at count - lastcount, not at 1.
    let mut c = backlogged(CoDelSpec::default(), 3000, false);
    let mut d = vec![];
    let mut t = 10.0;
    while c.vars().count < 6 {
        c.dequeue(ms(t), &mut d);
        t += 1.0;
    }
    let count = c.vars().count;
    // A short sojourn ends the dropping state.
    c.fifo.push(pkt(9999, 1500, ms(t), false));
    while c.fifo.front_id() != Some(9999) {
        c.fifo.pop();
    }
    c.dequeue(ms(t + 0.1), &mut d);
    assert!(!c.vars().dropping);
    for i in 0..100 {
        c.enqueue(pkt(10_000 + i, 1500, ms(t + 1.0), false), &mut d);
    }
    // Above target again for an interval, then the drop re-enters, after
    // drop_next: at count - lastcount (lastcount 1), not 1.
    c.dequeue(ms(t + 20.0), &mut d);
    c.dequeue(ms(t + 121.0), &mut d);
    assert!(c.vars().dropping);
    assert_eq!(c.vars().count, count - 1);
}
