// SPDX-License-Identifier: MIT OR Apache-2.0
//! Queue disciplines that hold their own queue (CoDel, FQ-CoDel), end to
//! end: the lazily run dequeues against drop-tail's exact timing, and each
//! discipline's design goal under load.

use tcplab_core::results::LinkResult;
use tcplab_core::{run_json, Results};

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

/// `n` bulk NewReno flows a -> b over a 10 Mb/s, 20 ms bottleneck whose
/// forward queue is `queue`, plus `extra_flows`.
fn dumbbell(queue: &str, n: usize, extra_flows: &str, duration: &str) -> String {
    let mut flows: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"kind": "tcp", "src": "a", "dst": "b", "cc": "newreno", "start": "{}ms",
                    "rcv_buf": "4MiB"}}"#,
                i * 100
            )
        })
        .collect();
    if !extra_flows.is_empty() {
        flows.push(extra_flows.into());
    }
    format!(
        r#"{{ "duration": "{duration}", "hosts": ["a", "b"], "routers": ["r"], "delay_percentiles": true,
            "links": [
              {{"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"}},
              {{"name": "bottleneck", "a": "r", "b": "b", "rate": "10Mbps", "delay": "20ms",
                "queue": {queue}}}
            ],
            "flows": [{}] }}"#,
        flows.join(",")
    )
}

fn bottleneck(r: &Results) -> &LinkResult {
    r.links
        .iter()
        .find(|l| l.link == "bottleneck" && l.src == "r")
        .unwrap()
}

/// A CoDel that never drops sends every packet when drop-tail would: the
/// dequeues it runs lazily (on the next arrival at the link or at its far
/// end) happen at the times the link falls idle.
#[test]
fn a_codel_that_never_drops_times_packets_as_drop_tail_does() {
    let tail = run(&dumbbell(r#""100p""#, 4, "", "20s"));
    let codel = run(&dumbbell(
        r#"{"kind": "codel", "target": "10s", "interval": "20s", "limit": "100p"}"#,
        4,
        "",
        "20s",
    ));
    assert!(bottleneck(&tail).drops_queue > 0, "the queue overflows");
    for (t, c) in tail.flows.iter().zip(&codel.flows) {
        assert_eq!(
            (t.delivered_bytes, t.sent_packets, t.lost_queue, t.timeouts),
            (c.delivered_bytes, c.sent_packets, c.lost_queue, c.timeouts)
        );
    }
    let (t, c) = (bottleneck(&tail), bottleneck(&codel));
    assert_eq!(
        (t.tx_packets, t.drops_queue, t.queue_max_packets),
        (c.tx_packets, c.drops_queue, c.queue_max_packets)
    );
    assert!((t.queue_mean_packets - c.queue_mean_packets).abs() < 1e-9);
    assert_eq!(c.drops_aqm, 0);
}

/// CoDel under persistent load (RFC 8289's goal): the standing queue stays
/// near 5 ms (4 packets of 1500 B at 10 Mb/s) where drop-tail fills its
/// 100 packets, with its own drops instead of overflow, and the link busy.
#[test]
fn codel_keeps_the_standing_queue_near_its_target() {
    let tail = run(&dumbbell(r#""100p""#, 4, "", "60s"));
    let r = run(&dumbbell(r#"{"kind": "codel"}"#, 4, "", "60s"));
    let l = bottleneck(&r);
    assert!(bottleneck(&tail).queue_mean_packets > 50.0);
    assert!(l.drops_aqm > 50, "{l:?}");
    assert_eq!(l.drops_queue, 0, "{l:?}");
    assert!(
        l.queue_mean_packets > 1.0 && l.queue_mean_packets < 10.0,
        "{l:?}"
    );
    // The median sojourn near target; drop-tail's near its full 120 ms.
    assert!(l.sojourn_p50_s > 0.003 && l.sojourn_p50_s < 0.010, "{l:?}");
    assert!(bottleneck(&tail).sojourn_p50_s > 0.08);
    assert!(l.utilization > 0.95, "{l:?}");
    let lost: u64 = r.flows.iter().map(|f| f.lost_queue).sum();
    assert_eq!(lost, l.drops_aqm);
    for f in &r.flows {
        assert_eq!(
            f.sent_packets,
            f.delivered_packets + f.lost_queue + f.lost_error + f.in_flight_packets
        );
    }
}

/// FQ-CoDel gives a sparse flow its own queue: a 100 kb/s UDP flow beside
/// four bulk flows sees almost no queueing delay, where behind one CoDel
/// queue it waits the standing queue.
#[test]
fn fq_codel_spares_a_sparse_flow_the_standing_queue() {
    let udp = r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "100kbps", "size": 200,
                  "start": "1s"}"#;
    let delay = |queue: &str| {
        let r = run(&dumbbell(queue, 4, udp, "30s"));
        let f = r.flows.iter().find(|f| f.kind == "udp").unwrap();
        (f.delay_mean_s, f.lost_queue)
    };
    // Propagation 21 ms, serialization of 228 B: 18 us + 182 us.
    let base = 0.021 + 0.0002;
    let (fq, fq_lost) = delay(r#"{"kind": "fq_codel"}"#);
    let (single, single_lost) = delay(r#"{"kind": "codel"}"#);
    assert!(fq - base < 0.0015, "fq_codel: {fq}");
    assert_eq!(fq_lost, 0, "never above target in its own queue");
    assert!(single - base > 0.003, "codel: {single}");
    assert!(single_lost > 0, "dropped with the bulk flows' packets");
}

/// PIE under persistent load (RFC 8033's goal): the queueing delay hovers
/// around its 15 ms reference, 12.5 packets of 1500 B at 10 Mb/s, with its
/// early drops doing most of the work of a 100-packet limit (which the
/// first slow starts still reach, under the burst allowance).
#[test]
fn pie_steers_the_queueing_delay_to_its_reference() {
    let r = run(&dumbbell(
        r#"{"kind": "pie", "limit": "100p"}"#,
        4,
        "",
        "60s",
    ));
    let l = bottleneck(&r);
    assert!(l.drops_aqm > 50, "{l:?}");
    assert!(l.drops_queue < l.drops_aqm / 4, "{l:?}");
    assert!(
        l.queue_mean_packets > 9.0 && l.queue_mean_packets < 16.0,
        "{l:?}"
    );
    assert!(l.sojourn_p50_s > 0.012 && l.sojourn_p50_s < 0.020, "{l:?}");
    assert!(l.utilization > 0.95, "{l:?}");
}
