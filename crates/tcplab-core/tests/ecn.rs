// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECN end to end (RFC 3168) and DCTCP (RFC 8257): negotiation, marks in
//! place of drops, the once-per-window response, and DCTCP's queue at K.

use tcplab_core::results::LinkResult;
use tcplab_core::{run_json, Results};

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

/// `n` bulk flows (`flow` holds their extra fields) over a bottleneck of
/// `rate` and 20 ms whose forward queue is `queue`; access links of
/// `access`, 1 ms.
fn dumbbell(queue: &str, flow: &str, n: usize, rate: &str, access: &str, dur: &str) -> String {
    path(queue, flow, n, (rate, "20ms"), (access, "1ms"), dur)
}

/// As [`dumbbell`], with the bottleneck's and the access link's rate and
/// delay given.
fn path(
    queue: &str,
    flow: &str,
    n: usize,
    (rate, delay): (&str, &str),
    (access, access_delay): (&str, &str),
    dur: &str,
) -> String {
    let flows: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"kind": "tcp", "src": "a", "dst": "b", "start": "{}ms", "rcv_buf": "16MiB",
                    {flow}}}"#,
                i * 100
            )
        })
        .collect();
    format!(
        r#"{{ "duration": "{dur}", "hosts": ["a", "b"], "routers": ["r"],
            "links": [
              {{"a": "a", "b": "r", "rate": "{access}", "delay": "{access_delay}",
                "queue": "10000p"}},
              {{"name": "bottleneck", "a": "r", "b": "b", "rate": "{rate}", "delay": "{delay}",
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

/// With ECN on both the flows and CoDel, CoDel's drops become marks: no
/// data is lost, the senders reduce once per window instead, and goodput
/// does not fall. Without ECN on the flows, CoDel drops as before.
#[test]
fn with_ecn_an_aqms_drops_become_marks_and_goodput_holds() {
    let codel = r#"{"kind": "codel", "ecn": true}"#;
    let plain = run(&dumbbell(
        codel,
        r#""cc": "newreno""#,
        4,
        "10Mbps",
        "100Mbps",
        "60s",
    ));
    let ecn = run(&dumbbell(
        codel,
        r#""cc": "newreno", "ecn": true"#,
        4,
        "10Mbps",
        "100Mbps",
        "60s",
    ));
    let (p, e) = (bottleneck(&plain), bottleneck(&ecn));
    assert!(p.drops_aqm > 50 && p.marks == 0, "{p:?}");
    assert!(e.marks > 50, "{e:?}");
    assert_eq!(e.drops_aqm + e.drops_queue, 0, "{e:?}");
    let lost: u64 = ecn
        .flows
        .iter()
        .map(|f| f.lost_queue + f.retransmitted_segments)
        .sum();
    assert_eq!(lost, 0);
    let reductions: u64 = ecn.flows.iter().map(|f| f.ecn_reductions).sum();
    // At most one reduction per mark; marks in one window count once.
    assert!(
        reductions > 20 && reductions <= e.marks,
        "{reductions} {e:?}"
    );
    assert!(plain.flows.iter().all(|f| f.ecn_reductions == 0));
    let goodput = |r: &Results| r.flows.iter().map(|f| f.goodput_bps).sum::<f64>();
    assert!(
        goodput(&ecn) >= 0.99 * goodput(&plain),
        "{} {}",
        goodput(&ecn),
        goodput(&plain)
    );
    // The queue stays as short as with drops.
    assert!(
        e.queue_mean_packets < 2.0 * p.queue_mean_packets + 2.0,
        "{e:?}"
    );
}

/// ECN needs both ends: a flow that asks for it over a queue without
/// marking is dropped as usual and reduces only on losses.
#[test]
fn ecn_capable_packets_are_dropped_by_a_queue_that_does_not_mark() {
    let r = run(&dumbbell(
        r#""30p""#,
        r#""cc": "newreno", "ecn": true"#,
        2,
        "10Mbps",
        "100Mbps",
        "30s",
    ));
    let l = bottleneck(&r);
    assert!(l.drops_queue > 0 && l.marks == 0);
    assert!(r
        .flows
        .iter()
        .all(|f| f.ecn_reductions == 0 && f.fast_retransmits > 0));
}

/// DCTCP in a data centre (1 Gb/s, 0.5 ms RTT: a bandwidth-delay product
/// of 42 packets) with a step marker at K = 65 packets (RED, min_th =
/// max_th = K, the instantaneous queue, no gentle region, marks only): the
/// queue hovers around K, the link stays busy (K is above the 0.17 BDP
/// that Alizadeh et al. 2010, section 3.3, ask for), nothing is dropped.
#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilization() {
    let marker = r#"{"kind": "red", "min_th": 65, "max_th": 65, "w_q": 1, "gentle": false,
                     "ecn": true, "hard_drop": false, "limit": "1000p"}"#;
    let flow = r#""cc": "dctcp", "delayed_ack": 1"#;
    let r = run(&path(
        marker,
        flow,
        2,
        ("1Gbps", "200us"),
        ("10Gbps", "25us"),
        "3s",
    ));
    let l = bottleneck(&r);
    assert_eq!(l.drops_queue + l.drops_aqm, 0, "{l:?}");
    assert!(l.marks > 100, "{l:?}");
    assert!(l.utilization > 0.95, "{l:?}");
    assert!(
        l.queue_mean_packets > 30.0 && l.queue_mean_packets < 100.0,
        "{l:?}"
    );
    assert!(r
        .flows
        .iter()
        .all(|f| f.retransmitted_segments == 0 && f.ecn_reductions > 5));
}

/// DCTCP refuses to run without ECN, naming the field.
#[test]
fn dctcp_without_ecn_is_refused() {
    let e = run_json(&dumbbell(
        r#""100p""#,
        r#""cc": "dctcp", "ecn": false"#,
        1,
        "10Mbps",
        "100Mbps",
        "1s",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("flows[0].ecn: dctcp needs ECN"), "{e}");
}
