// SPDX-License-Identifier: MIT OR Apache-2.0
//! End-to-end behaviour of the network core, driven through scenarios.

use tcplab_core::{run_json, Results};

fn path(extra_link: &str, flows: &str, top: &str) -> String {
    format!(
        r#"{{ {top} "hosts": ["a", "b"], "routers": ["r"],
            "links": [
              {{"a": "a", "b": "r", "rate": "10Mbps", "delay": "45ms"}},
              {{"name": "bottleneck", "a": "r", "b": "b", "rate": "2Mbps", "delay": "10us" {extra_link}}}
            ],
            "flows": [{flows}] }}"#
    )
}

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn one_packet_latency_is_exactly_transmission_plus_propagation() {
    let r = run(&path(
        "",
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "1Mbps", "count": 1}"#,
        "",
    ));
    let f = &r.flows[0];
    // 1028 B: 822_400 ns at 10 Mb/s, 4_112_000 ns at 2 Mb/s; + 45 ms + 10 us.
    let expect = 822_400 + 45_000_000 + 4_112_000 + 10_000;
    assert_eq!((f.delay_min_s * 1e9).round() as u64, expect);
    assert_eq!(r.summary.sim_seconds, expect as f64 * 1e-9);
    assert_eq!(r.summary.events, 3); // send, arrive at r, arrive at b
}

#[test]
fn packets_are_conserved_per_flow_and_per_link() {
    let r = run(&path(
        r#", "queue": "20p", "loss": {"model": "uniform", "per": 0.05}"#,
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "3Mbps"},
           {"kind": "udp", "src": "b", "dst": "a", "rate": "500kbps"}"#,
        r#""duration": "20s","#,
    ));
    for f in &r.flows {
        assert_eq!(
            f.sent_packets,
            f.delivered_packets + f.lost_queue + f.lost_error + f.in_flight_packets,
            "{f:?}"
        );
    }
    let queue_drops: u64 = r.links.iter().map(|l| l.drops_queue).sum();
    let error_drops: u64 = r.links.iter().map(|l| l.drops_error).sum();
    assert_eq!(
        queue_drops,
        r.flows.iter().map(|f| f.lost_queue).sum::<u64>()
    );
    assert_eq!(
        error_drops,
        r.flows.iter().map(|f| f.lost_error).sum::<u64>()
    );
    assert!(queue_drops > 1000 && error_drops > 100);
}

#[test]
fn same_seed_same_results_other_seed_other_losses() {
    let text = |seed: u64| {
        path(
            r#", "loss": {"model": "uniform", "per": 0.05}"#,
            r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "1Mbps"}"#,
            &format!(r#""duration": "20s", "seed": {seed}, "trace": ["drops"],"#),
        )
    };
    let a = run(&text(1));
    let b = run(&text(1));
    let c = run(&text(2));
    // Compare as JSON: NaN fields (delays of UDP-less runs, TCP-only
    // columns) are not equal to themselves under PartialEq.
    let json = |r: &Results| serde_json::to_string(&(&r.flows, &r.links, &r.drops)).unwrap();
    assert_eq!(json(&a), json(&b));
    assert_ne!(a.drops, c.drops);
}

/// RED under persistent load (Floyd and Jacobson's design goal): the
/// time-average queue sits between the thresholds, the discipline's own
/// drops replace overflow, and the link stays busy.
#[test]
fn red_holds_the_average_queue_between_its_thresholds() {
    let flows: Vec<String> = (0..4)
        .map(|i| {
            format!(
                r#"{{"kind": "tcp", "src": "a", "dst": "b", "cc": "newreno", "start": "{i}ms"}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{ "duration": "60s", "hosts": ["a", "b"], "routers": ["r"],
            "links": [
              {{"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"}},
              {{"name": "bottleneck", "a": "r", "b": "b", "rate": "10Mbps", "delay": "20ms",
                "queue": {{"kind": "red", "min_th": 5, "max_th": 15, "limit": "100p"}}}}
            ],
            "flows": [{}] }}"#,
        flows.join(",")
    );
    let r = run(&text);
    let fwd = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.src == "r")
        .unwrap();
    assert!(fwd.drops_aqm > 50, "{fwd:?}");
    assert_eq!(fwd.drops_queue, 0, "{fwd:?}");
    assert!(
        fwd.queue_mean_packets > 5.0 && fwd.queue_mean_packets < 15.0,
        "{fwd:?}"
    );
    assert!(fwd.utilization > 0.9, "{fwd:?}");
    let lost: u64 = r.flows.iter().map(|f| f.lost_queue).sum();
    assert_eq!(lost, fwd.drops_aqm);
}

/// Each direction of a link has its own queue: `reverse_queue` sets the
/// b -> a one.
#[test]
fn reverse_queue_sets_the_b_to_a_direction_alone() {
    let r = run(&path(
        r#", "queue": "50p", "reverse_queue": "2p""#,
        r#"{"kind": "udp", "src": "a", "dst": "b", "rate": "3Mbps"},
           {"kind": "udp", "src": "b", "dst": "a", "rate": "3Mbps"}"#,
        r#""duration": "10s","#,
    ));
    let l = |src: &str| {
        r.links
            .iter()
            .find(|l| l.link == "bottleneck" && l.src == src)
            .unwrap()
    };
    assert_eq!(l("r").queue_max_packets, 50);
    assert_eq!(l("b").queue_max_packets, 2);
    assert!(l("b").drops_queue > l("r").drops_queue);
}
