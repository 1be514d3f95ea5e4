use super::*;
use crate::engine::PacketId;
use crate::net::qdisc::QueueDrop;

fn pkt(id: u32, flow: u32, size: u32) -> Queued {
    Queued {
        id: PacketId(id),
        size,
        enqueued: SimTime::ZERO,
        ect: false,
        ce: false,
        hash: flow,
    }
}

/// Flow keys that land in distinct buckets of 1024.
fn keys() -> (u32, u32, u32) {
    let (a, b, c) = (0, 1, 2);
    let bucket = |k| bucket_of(k, 0, 1024);
    assert!(bucket(a) != bucket(b) && bucket(b) != bucket(c) && bucket(a) != bucket(c));
    (a, b, c)
}

#[test]
fn the_bucket_is_the_hash_modulo_the_bucket_count_masked_or_divided() {
    // MurmurHash3's finalizer of 1 is 0x514e28b7 (1,364,076,727).
    assert_eq!(flow_hash(1, 0), 0x514e_28b7);
    assert_eq!(bucket_of(1, 0, 1024), 0x514e_28b7 % 1024);
    assert_eq!(bucket_of(1, 0, 1000), 0x514e_28b7 % 1000);
    for k in 0..2048u32 {
        let h = flow_hash(k, 7);
        for n in [1u32, 2, 3, 64, 1000, 1024, 1 << 20] {
            assert_eq!(bucket_of(k, 7, n), (h % n) as usize);
        }
    }
}

fn fq(spec: FqCoDelSpec) -> FqCoDel {
    FqCoDel::new(&spec, 1500)
}

fn take(f: &mut FqCoDel, at_ms: f64) -> Option<(u32, u32)> {
    take_dropping(f, at_ms, &mut vec![])
}

fn take_dropping(f: &mut FqCoDel, at_ms: f64, d: &mut Vec<Dropped>) -> Option<(u32, u32)> {
    let at = SimTime::from_nanos((at_ms * 1e6) as u64);
    f.dequeue(at, d).map(|p| (p.id.0, p.hash))
}

#[test]
fn a_new_flow_is_served_before_the_backlogged_ones() {
    let (a, b, _) = keys();
    let mut f = fq(FqCoDelSpec::default());
    let mut d = vec![];
    for i in 0..20 {
        f.enqueue(pkt(i, a, 1500), &mut d);
    }
    // A's first packet uses its quantum; A then moves to the old list.
    assert_eq!(take(&mut f, 0.1), Some((0, a)));
    assert_eq!(take(&mut f, 0.2), Some((1, a)));
    f.enqueue(pkt(100, b, 100), &mut d);
    assert_eq!(take(&mut f, 0.3), Some((100, b)), "the sparse flow first");
    assert_eq!(take(&mut f, 0.4), Some((2, a)));
    assert!(d.is_empty());
}

#[test]
fn the_round_robin_shares_bytes_not_packets() {
    let (a, b, _) = keys();
    let mut f = fq(FqCoDelSpec::default());
    let mut d = vec![];
    for i in 0..300 {
        f.enqueue(pkt(i, a, 1500), &mut d);
        f.enqueue(pkt(1000 + i, b, 300), &mut d);
    }
    let (mut bytes_a, mut bytes_b) = (0u64, 0u64);
    // Sojourns stay under target: no CoDel drop meanwhile.
    for k in 0..120 {
        let (_, flow) = take_dropping(&mut f, 0.01 * k as f64, &mut d).unwrap();
        if flow == a {
            bytes_a += 1500;
        } else {
            bytes_b += 300;
        }
    }
    assert!(d.is_empty());
    // Quantum 1500 (the MTU): one packet of A per five of B.
    assert_eq!((bytes_a, bytes_b), (30_000, 30_000));
}

#[test]
fn an_overflow_drops_half_the_fattest_flows_bytes_from_its_head() {
    let (a, b, _) = keys();
    let mut f = fq(FqCoDelSpec {
        limit: QueueLimit::Packets(10),
        ..FqCoDelSpec::default()
    });
    let mut d = vec![];
    for i in 0..8 {
        f.enqueue(pkt(i, a, 1500), &mut d);
    }
    for i in 0..3 {
        f.enqueue(pkt(100 + i, b, 100), &mut d);
    }
    // 11 > 10 after B's third: A holds 12000 B, so its four oldest go
    // (6000 B, half); the arriving packet stays.
    let gone: Vec<u32> = d.iter().map(|x| x.id.0).collect();
    assert_eq!(gone, [0, 1, 2, 3]);
    assert!(d.iter().all(|x| x.why == QueueDrop::Overflow));
    assert_eq!(f.waiting(), (7, 4 * 1500 + 300));
    // At most drop_batch at once, and at least one.
    let mut f = fq(FqCoDelSpec {
        limit: QueueLimit::Packets(10),
        drop_batch: 2,
        ..FqCoDelSpec::default()
    });
    let mut d = vec![];
    for i in 0..11 {
        f.enqueue(pkt(i, a, 1500), &mut d);
    }
    assert_eq!(d.len(), 2);
}

#[test]
fn an_emptied_new_flow_goes_to_the_old_list_without_priority() {
    // As ns-3: A empties while new and moves behind B on the old list; a
    // packet A gets before it is reached there waits its turn.
    let (a, b, _) = keys();
    let mut f = fq(FqCoDelSpec::default());
    let mut d = vec![];
    for i in 0..10 {
        f.enqueue(pkt(i, b, 1500), &mut d);
    }
    assert_eq!(take(&mut f, 0.1), Some((0, b)));
    f.enqueue(pkt(100, a, 1500), &mut d);
    assert_eq!(take(&mut f, 0.2), Some((100, a)), "new");
    // A's deficit is spent: A rotates to the old list, behind B.
    f.enqueue(pkt(101, a, 1500), &mut d);
    assert_eq!(take(&mut f, 0.3), Some((1, b)));
    assert_eq!(take(&mut f, 0.4), Some((101, a)));
    // Empty now on the old list: it leaves the lists; back as new.
    assert_eq!(take(&mut f, 0.5), Some((2, b)));
    assert_eq!(take(&mut f, 0.6), Some((3, b)));
    f.enqueue(pkt(102, a, 1500), &mut d);
    assert_eq!(take(&mut f, 0.7), Some((102, a)), "new again");
}

#[test]
fn each_flow_runs_its_own_codel() {
    // A standing queue in A; B's packets, each alone in its queue, are
    // never dropped though they wait as long as A's.
    let (a, b, _) = keys();
    let mut f = fq(FqCoDelSpec {
        ecn: false,
        ..FqCoDelSpec::default()
    });
    let mut d = vec![];
    for i in 0..400 {
        f.enqueue(pkt(i, a, 1500), &mut d);
    }
    let mut from_b = 0;
    for k in 0..300u32 {
        if k % 3 == 0 {
            f.enqueue(pkt(1000 + k, b, 1500), &mut d);
        }
        if let Some((_, flow)) = take_dropping(&mut f, 10.0 + k as f64, &mut d) {
            from_b += (flow == b) as u32;
        }
    }
    assert_eq!(from_b, 100);
    assert!(!d.is_empty(), "A's CoDel dropped");
    assert!(d.iter().all(|x| x.id.0 < 1000), "none of B's");
    assert_eq!(f.queues(), 2);
}

#[test]
fn one_bucket_is_a_single_codel_queue_in_arrival_order() {
    let (a, b, c) = keys();
    let mut f = fq(FqCoDelSpec {
        flows: 1,
        ..FqCoDelSpec::default()
    });
    let mut d = vec![];
    for (i, k) in [a, b, c, a, b].into_iter().enumerate() {
        f.enqueue(pkt(i as u32, k, 1000), &mut d);
    }
    let order: Vec<u32> = (0..5)
        .filter_map(|k| take(&mut f, k as f64 * 0.1))
        .map(|p| p.0)
        .collect();
    assert_eq!(order, [0, 1, 2, 3, 4]);
    assert_eq!(f.queues(), 1);
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let bad = |s: FqCoDelSpec| s.check().unwrap_err();
    let d = FqCoDelSpec::default;
    assert!(bad(FqCoDelSpec { flows: 0, ..d() }).starts_with("flows:"));
    assert!(bad(FqCoDelSpec {
        quantum: Some(Bytes(0)),
        ..d()
    })
    .starts_with("quantum:"));
    assert!(bad(FqCoDelSpec {
        drop_batch: 0,
        ..d()
    })
    .starts_with("drop_batch:"));
    assert!(bad(FqCoDelSpec {
        interval: SimDuration::from_millis(1),
        ..d()
    })
    .starts_with("interval:"));
    // The timers: CoDel's clock ticks in 1.024 us, its floor.
    assert_eq!(
        bad(FqCoDelSpec {
            target: SimDuration::from_nanos(1),
            interval: SimDuration::from_nanos(1),
            ..d()
        }),
        "target: at least 1.024 us, got 1ns"
    );
    assert!(d().check().is_ok());
}
