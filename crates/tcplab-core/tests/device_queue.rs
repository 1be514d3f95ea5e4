// SPDX-License-Identifier: MIT OR Apache-2.0
//! A device queue below a queue discipline (`device_queue`, ns-3's
//! `TxQueue` under a queue disc), end to end: what the discipline counts,
//! when it hands packets down, and when the device asks it, emptied, for
//! one. Every expected number is worked out by hand in the test.

use tcplab_core::{run_json, Results};

fn run(text: &str) -> Results {
    run_json(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Hosts a, b and c -(10 Gb/s, 1 us)- r -(`rate`, 1 ms, `queue`)- d, with
/// `flows` and the drop log on.
fn star(rate: &str, queue: &str, flows: &[String], duration: &str) -> String {
    format!(
        r#"{{ "duration": "{duration}", "hosts": ["a", "b", "c", "d"], "routers": ["r"],
            "trace": ["drops"],
            "links": [
              {{"a": "a", "b": "r", "rate": "10Gbps", "delay": "1us"}},
              {{"a": "b", "b": "r", "rate": "10Gbps", "delay": "1us"}},
              {{"a": "c", "b": "r", "rate": "10Gbps", "delay": "1us"}},
              {{"name": "bottleneck", "a": "r", "b": "d", "rate": "{rate}", "delay": "1ms",
                "queue": {queue}}}
            ],
            "flows": [{}] }}"#,
        flows.join(",")
    )
}

/// A UDP flow from `src` to d of 1500-B packets (1472 B of payload) every
/// `interval_ms`, starting at `start_us`, `count` of them.
fn udp(name: &str, src: &str, interval_ms: f64, start_us: u64, count: u32) -> String {
    let bps = 1472.0 * 8.0 / (interval_ms * 1e-3);
    format!(
        r#"{{"name": "{name}", "kind": "udp", "src": "{src}", "dst": "d", "rate": "{bps}bps",
            "size": 1472, "start": "{start_us}us", "count": {count}}}"#
    )
}

/// The packet numbers of `flow` dropped at the bottleneck, in order.
fn dropped(r: &Results, flow: &str) -> Vec<u64> {
    r.drops
        .iter()
        .filter(|d| d.flow == flow && d.link == "bottleneck")
        .map(|d| d.packet)
        .collect()
}

/// Packets of 1500 B every 2 ms into a 1 Mb/s link (12 ms each): packet k
/// (from 0) reaches r at 2k ms + 2.2 us, and until packet 0 is done (12 ms)
/// it finds k - 1 waiting. A step marker at K = 3 (RED with min_th = max_th
/// = 3, w_q = 1, these packets not ECN-capable, so dropped) drops the
/// first packet to find 3 in the discipline: packet 4 without a device
/// queue. A device queue of one packet takes the oldest waiting, so the
/// discipline counts one fewer: packet 5. With two: packet 6 arrives as
/// packet 1 starts (departures first) and finds 4 waiting, 2 in the
/// discipline; packet 7 finds 5, 3 in the discipline.
#[test]
fn red_counts_only_the_packets_above_the_device_queue() {
    let first_drop = |device: u32| {
        let queue = format!(
            r#"{{"kind": "red", "min_th": 3, "max_th": 3, "w_q": 1, "gentle": false,
                "limit": "100p", "device_queue": {device}}}"#
        );
        let r = run(&star("1Mbps", &queue, &[udp("u", "a", 2.0, 0, 10)], "1s"));
        dropped(&r, "u")[0]
    };
    assert_eq!(first_drop(0), 5);
    assert_eq!(first_drop(1), 6);
    assert_eq!(first_drop(2), 8);
}

/// Drop-tail over a device queue is one FIFO holding the limit plus the
/// device's packets: "3p" over 2 drops as "5p" does (packet 7 finds 5
/// waiting, above), and the effective scenario says so.
#[test]
fn drop_tail_over_a_device_queue_holds_its_packets_too() {
    let flows = [udp("u", "a", 2.0, 0, 10)];
    let over = run(&star(
        "1Mbps",
        r#"{"kind": "droptail", "limit": "3p", "device_queue": 2}"#,
        &flows,
        "1s",
    ));
    let five = run(&star("1Mbps", r#""5p""#, &flows, "1s"));
    assert_eq!(dropped(&over, "u"), dropped(&five, "u"));
    assert_eq!(dropped(&over, "u")[0], 8);
    let effective = serde_json::to_value(&over.scenario).unwrap();
    assert_eq!(effective["links"][3]["queue"], "5p");
}

/// Under a CoDel that never drops, a device queue of any size sends every
/// packet when a drop-tail FIFO of the same total room would: the
/// discipline hands a packet down as the device gets room (lazily, on the
/// next arrival at the link or its far end), and the device's packets
/// start as the link is done with the one before. The queue's time
/// averages, maximum and sojourns count the device's packets as waiting,
/// as ns-3's queue disc plus device queue.
#[test]
fn a_codel_that_never_drops_over_a_device_queue_times_packets_as_drop_tail_does() {
    let flows: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"kind": "tcp", "src": "{}", "dst": "d", "cc": "newreno",
                    "start": "{}ms", "rcv_buf": "4MiB"}}"#,
                ["a", "b", "c"][i],
                i * 100
            )
        })
        .collect();
    for device in [1, 3] {
        let codel = run(&star(
            "10Mbps",
            &format!(
                r#"{{"kind": "codel", "target": "10s", "interval": "20s", "limit": "60p",
                    "device_queue": {device}}}"#
            ),
            &flows,
            "20s",
        ));
        let fifo = run(&star(
            "10Mbps",
            &format!(r#""{}p""#, 60 + device),
            &flows,
            "20s",
        ));
        assert!(
            fifo.links.iter().any(|l| l.drops_queue > 0),
            "the FIFO overflows"
        );
        for (c, f) in codel.flows.iter().zip(&fifo.flows) {
            assert_eq!(c.delivered_bytes, f.delivered_bytes, "device {device}");
            assert_eq!(c.retransmitted_segments, f.retransmitted_segments);
            assert_eq!(c.rtt_mean_s, f.rtt_mean_s);
        }
        for (c, f) in codel.links.iter().zip(&fifo.links) {
            assert_eq!(c.tx_packets, f.tx_packets);
            assert_eq!(c.drops_queue, f.drops_queue);
            assert_eq!(c.queue_max_packets, f.queue_max_packets);
            assert_eq!(c.queue_mean_packets, f.queue_mean_packets);
            assert_eq!(c.queue_mean_bytes, f.queue_mean_bytes);
            assert_eq!(c.sojourn_mean_s, f.sojourn_mean_s);
        }
    }
}

/// FQ-CoDel over a one-packet device queue at 10 Mb/s (1.2 ms a packet),
/// 1 ms of delay. a sends A1 at 0 and A2 at 0.2 ms, b sends B1 at 0.1 ms,
/// c sends C1 at 0.3 ms; each reaches r 2.2 us later. A1 goes on the wire
/// (done 1202.2 us). The device, empty, asks FQ-CoDel for another packet:
/// there is none, and A's emptied queue leaves the lists (ns-3's dequeue
/// that finds the queue empty). B1 goes down to the device (starts
/// 1202.2). A2 arrives with A inactive, so A is a new flow again, ahead of
/// C: A2 starts 2402.2 us, C1 3602.2 us. Each arrives 2200 us after its
/// start (1200 to serialize, 1000 to propagate): C1's one-way delay is
/// 5802.2 - 300 = 5502.2 us, A2's 4602.2 - 200 = 4402.2 us.
/// Without the device's ask, A would still be on the old list when A2
/// arrives (a new flow's emptied queue moves there at the next dequeue),
/// and C1, a new flow, would go first: 4302.2 and 5602.2 us. Without a
/// device queue the link asks only when it falls idle: the same order as
/// that, A1, B1, C1, A2.
#[test]
fn the_device_asks_the_emptied_discipline_for_a_packet_when_it_has_room() {
    let flows = [
        udp("A", "a", 0.2, 0, 2),
        udp("B", "b", 1.0, 100, 1),
        udp("C", "c", 1.0, 300, 1),
    ];
    let delays = |device: u32| {
        let queue = format!(r#"{{"kind": "fq_codel", "device_queue": {device}}}"#);
        let r = run(&star("10Mbps", &queue, &flows, "1s"));
        let us = |f: &str| {
            let row = r.flows.iter().find(|x| x.flow == f).unwrap();
            (row.delay_max_s * 1e6 * 10.0).round() / 10.0
        };
        (us("A"), us("C"))
    };
    assert_eq!(delays(1), (4402.2, 5502.2));
    assert_eq!(delays(0), (5602.2, 4302.2));
}
