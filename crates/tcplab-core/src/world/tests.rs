// SPDX-License-Identifier: MIT OR Apache-2.0
//! The world's handling of what its parts decide, seen from inside.

use super::*;
use crate::net::packet::Ecn;

fn two_hosts(extra: &str) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"duration": "1s", "hosts": ["a", "b"],
            "links": [{{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}}],
            "flows": [{{"kind": "udp", "src": "a", "dst": "b", "rate": "3Mbps"}}]{extra}}}"#
    ))
    .unwrap()
}

#[test]
fn a_marking_verdict_sets_ce_on_the_packet_and_counts_a_mark_not_a_drop() {
    let dir = std::env::temp_dir().join(format!("tcplab-mark-{}", std::process::id()));
    let extra = format!(r#", "pcap": {{"dir": "{}"}}"#, dir.display());
    let mut w = World::build(&two_hosts(&extra)).unwrap();
    w.links[0].queue.set_qdisc(Qdisc::MarkAll);
    w.run().unwrap();
    let l = &w.links[0];
    // Three times the link's rate offered: a drop-tail queue would drop;
    // this one marks every packet it admits, and admits them all.
    assert_eq!(l.stats.marks, w.flows[0].stats.fwd.sent);
    assert!(l.stats.marks > 300);
    assert_eq!(l.stats.drops_queue, 0);
    w.pcap[0].as_mut().unwrap().flush();
    let bytes = std::fs::read(dir.join("a-b-0.pcap")).unwrap();
    // The first record's IPv4 header starts after the 24-byte file header
    // and the 16-byte record header; byte 1 holds the ECN field.
    assert_eq!(bytes[24 + 16 + 1] & 3, Ecn::Ce as u8);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn drop_tail_drops_what_it_cannot_hold() {
    let mut w = World::build(&two_hosts("")).unwrap();
    w.run().unwrap();
    let l = &w.links[0];
    // Three times its rate offered for a second: a third goes on the wire,
    // 100 wait, the rest is dropped.
    let sent = w.flows[0].stats.fwd.sent;
    assert!(
        l.stats.drops_queue > sent / 3,
        "{} of {sent}",
        l.stats.drops_queue
    );
    assert_eq!(l.stats.marks, 0);
}
