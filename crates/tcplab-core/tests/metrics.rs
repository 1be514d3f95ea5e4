// SPDX-License-Identifier: MIT OR Apache-2.0
//! Delay metrics against numbers worked out by hand: queue sojourns and
//! the time-average queue (Little's law), one-way delays and jitter.

use tcplab_core::{run_json, Results};

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

/// a -(10 Mb/s, 45 ms)- r -(2 Mb/s, 10 us, `queue`)- b, with ns-3's
/// FlowMonitor's delay distributions.
fn path(queue: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"{{ "duration": "{duration}", "hosts": ["a", "b"], "routers": ["r"],
            "delay_percentiles": true,
            "links": [
              {{"a": "a", "b": "r", "rate": "10Mbps", "delay": "45ms"}},
              {{"name": "bottleneck", "a": "r", "b": "b", "rate": "2Mbps", "delay": "10us",
                "queue": {queue}}}
            ],
            "flows": [{flows}] }}"#
    )
}

/// 1000-B datagrams (1028 B on the wire) at 3 Mb/s of payload into 2 Mb/s
/// for one second: datagram k arrives at k * 2666667 ns (8000/3 us, to the
/// ns) and starts when the k before it are done, k * 4112 us, so it waits
/// k * 1445333 ns.
#[test]
fn sojourns_of_an_overloaded_queue_grow_linearly_and_obey_littles_law() {
    let r = run(&path(
        r#""1000p""#,
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "3Mbps", "stop": "1s"}"#,
        "5s",
    ));
    let l = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.src == "r")
        .unwrap();
    assert_eq!(l.drops_queue, 0);
    let n = l.tx_packets as f64;
    // Sent at 0, 2666.67 us, ...: the last before 1 s is number 375.
    assert_eq!(l.tx_packets, 375);
    // Packets reach r 822.4 us + 45 ms after being sent, spaced alike.
    let step = (4_112_000 - 2_666_667) as f64 * 1e-9;
    assert!((l.sojourn_max_s - (n - 1.0) * step).abs() < 1e-8, "{l:?}");
    assert!(
        (l.sojourn_mean_s - (n - 1.0) / 2.0 * step).abs() < 1e-8,
        "{l:?}"
    );
    let median = (n / 2.0).ceil() - 1.0; // the 188th of 0..374
    assert!(
        (l.sojourn_p50_s / (median * step) - 1.0).abs() < 0.016,
        "{l:?}"
    );
    assert!((l.sojourn_p99_s / (((0.99 * n).ceil() - 1.0) * step) - 1.0).abs() < 0.016);
    // Little's law: the time-average queue is the sum of the waits over
    // the run (every packet has left by its end).
    assert!(
        (l.queue_mean_packets * 5.0 - l.sojourn_mean_s * n).abs() < 1e-9,
        "{l:?}"
    );
    assert!((l.queue_mean_bytes - 1028.0 * l.queue_mean_packets).abs() < 1e-6);
    // The first link never queues: every sojourn 0.
    let first = r.links.iter().find(|l| l.src == "a").unwrap();
    assert_eq!((first.sojourn_max_s, first.sojourn_p99_s), (0.0, 0.0));
}

/// On an idle path every datagram takes the same time: the one-way delay
/// is transmission plus propagation, its percentiles that value, and the
/// jitter 0.
#[test]
fn one_way_delays_on_an_idle_path_are_exact_and_jitter_free() {
    let r = run(&path(
        r#""100p""#,
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "1Mbps"}"#,
        "2s",
    ));
    let f = &r.flows[0];
    let expect = (822_400 + 45_000_000 + 4_112_000 + 10_000) as f64 * 1e-9;
    for d in [
        f.delay_min_s,
        f.delay_mean_s,
        f.delay_p50_s,
        f.delay_p99_s,
        f.delay_max_s,
    ] {
        assert!((d - expect).abs() < 1e-12, "{d} vs {expect}");
    }
    assert_eq!(f.jitter_s, 0.0);
    assert!(f.ack_delay_mean_s.is_nan(), "UDP has no ACKs");
}

/// A TCP flow's ACKs travel an almost idle reverse path: 40 B at 2 Mb/s
/// and at 10 Mb/s plus 45.01 ms, each (a few wait one ACK's time behind
/// another); its data queues at the bottleneck, so its delays spread and
/// jitter.
#[test]
fn a_tcp_flows_data_and_ack_delays_are_measured_apart() {
    let r = run(&path(
        r#""100p""#,
        r#"{"kind": "tcp", "src": "a", "dst": "b", "cc": "newreno", "delayed_ack": 1,
            "sack": true, "recovery": "sack", "timestamps": false}"#,
        "20s",
    ));
    let f = &r.flows[0];
    let ack = (40.0 * 8.0 / 2e6) + (40.0 * 8.0 / 10e6) + 0.045 + 10e-6;
    assert!((f.ack_delay_mean_s - ack).abs() < 5e-5, "{f:?}");
    assert!(f.ack_delay_max_s - ack < 2e-4, "{f:?}");
    assert!((f.ack_delay_p50_s / ack - 1.0).abs() < 0.016);
    assert!(f.ack_jitter_s < 1e-6);
    // The SYN (40 B, as an ACK) is the fastest packet src -> dst.
    assert!((f.delay_min_s - ack).abs() < 1e-9, "{f:?}");
    let base = (1500.0 * 8.0 / 10e6) + (1500.0 * 8.0 / 2e6) + 0.045 + 10e-6;
    // A standing queue of up to 100 packets of 6 ms each at 2 Mb/s.
    assert!(
        f.delay_p99_s > base + 0.3 && f.delay_max_s <= base + 0.61,
        "{f:?}"
    );
    assert!(f.delay_p50_s < f.delay_p95_s && f.delay_p95_s <= f.delay_p99_s);
    assert!(f.jitter_s > 0.0);
}

/// Without `delay_percentiles`, a TCP flow reports its mean delays (kept for
/// every flow) and no distribution; the means are the same numbers.
#[test]
fn the_delay_means_are_always_kept_the_distributions_on_request() {
    let flow = r#"{"kind": "tcp", "src": "a", "dst": "b", "cc": "newreno"}"#;
    let with = run(&path(r#""100p""#, flow, "10s"));
    let without = run(&path(r#""100p""#, flow, "10s").replace(r#""delay_percentiles": true,"#, ""));
    let (a, b) = (&with.flows[0], &without.flows[0]);
    assert_eq!(a.delay_mean_s, b.delay_mean_s);
    assert_eq!(a.ack_delay_mean_s, b.ack_delay_mean_s);
    assert!(a.delay_mean_s > 0.045);
    for v in [
        b.delay_min_s,
        b.delay_p50_s,
        b.delay_p99_s,
        b.jitter_s,
        b.ack_delay_max_s,
    ] {
        assert!(v.is_nan());
    }
    assert!(a.delay_p99_s > a.delay_p50_s);
    assert_eq!(
        with.flows[0].delivered_bytes,
        without.flows[0].delivered_bytes
    );
}

/// The sojourn series on request: one sample per packet put on the wire,
/// at its transmission start, the k-th waiting k * 1445333 ns (as above).
#[test]
fn the_sojourn_series_has_every_packets_wait_at_its_start() {
    let text = path(
        r#""1000p""#,
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "3Mbps", "stop": "1s"}"#,
        "5s",
    )
    .replace(r#""delay_percentiles": true,"#, r#""trace": ["sojourn"],"#);
    let r = run(&text);
    let s = r
        .series
        .iter()
        .find(|s| s.name == "sojourn" && s.target == "bottleneck:r>b")
        .unwrap();
    assert_eq!(s.values.len(), 375);
    for (k, (&t, &v)) in s.times_ns.iter().zip(&s.values).enumerate() {
        assert!((v - k as f64 * 1_445_333e-9).abs() < 1e-12, "{k}: {v}");
        // It starts when the k before it are done: k * 4112 us after the first.
        assert_eq!(t - s.times_ns[0], k as u64 * 4_112_000);
    }
}
