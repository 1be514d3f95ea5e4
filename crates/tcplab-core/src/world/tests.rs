// SPDX-License-Identifier: MIT OR Apache-2.0
//! The world's handling of what its parts decide, seen from inside.

use super::*;
use crate::net::packet::Ecn;
use crate::results::ColumnData;

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
    w.net.links[0].queue.set_qdisc(Qdisc::MarkAll);
    w.run().unwrap();
    let l = &w.net.links[0];
    // Three times the link's rate offered: a drop-tail queue would drop;
    // this one marks every packet it admits, and admits them all.
    assert_eq!(l.stats.marks, w.ep.flows[0].stats.fwd.sent);
    assert!(l.stats.marks > 300);
    assert_eq!(l.stats.drops_queue, 0);
    w.rec.pcap[0].as_mut().unwrap().flush();
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
    let l = &w.net.links[0];
    // Three times its rate offered for a second: a third goes on the wire,
    // 100 wait, the rest is dropped.
    let sent = w.ep.flows[0].stats.fwd.sent;
    assert!(
        l.stats.drops_queue > sent / 3,
        "{} of {sent}",
        l.stats.drops_queue
    );
    assert_eq!(l.stats.marks, 0);
}

/// A column as bits (so that NaN compares equal to NaN) or text.
type Bits = (&'static str, Vec<u64>, String);

/// The columns as bits.
fn bits(tables: &Tables) -> Vec<(&'static str, Vec<Bits>)> {
    tables
        .iter()
        .map(|(name, cols)| {
            let cols = cols
                .iter()
                .map(|(col, data)| match data {
                    ColumnData::U64(v) => (*col, v.clone(), String::new()),
                    ColumnData::F64(v) => {
                        (*col, v.iter().map(|x| x.to_bits()).collect(), String::new())
                    }
                    ColumnData::Str(s) => (*col, Vec::new(), s.clone()),
                })
                .collect();
            (*name, cols)
        })
        .collect()
}

#[test]
fn the_tables_built_from_the_world_in_chunks_are_those_of_the_records() {
    // More flows and link directions than one chunk (1024 rows), UDP and
    // TCP of two variants, so that every string column changes along it.
    let n = 1300;
    let hosts: Vec<String> = (0..n)
        .flat_map(|i| [format!("\"s{i}\""), format!("\"d{i}\"")])
        .collect();
    let mut links = vec![
        r#"{"a": "r1", "b": "r2", "rate": "10Mbps", "delay": "5ms", "name": "bn"}"#.to_string(),
    ];
    let mut flows = Vec::new();
    for i in 0..n {
        links.push(format!(
            r#"{{"a": "s{i}", "b": "r1", "rate": "100Mbps", "delay": "1ms"}}"#
        ));
        links.push(format!(
            r#"{{"a": "r2", "b": "d{i}", "rate": "100Mbps", "delay": "1ms"}}"#
        ));
        flows.push(match i % 3 {
            0 => format!(r#"{{"kind": "udp", "src": "s{i}", "dst": "d{i}", "rate": "10kbps"}}"#),
            1 => format!(r#"{{"kind": "tcp", "cc": "reno", "src": "s{i}", "dst": "d{i}"}}"#),
            _ => format!(r#"{{"kind": "tcp", "cc": "cubic", "src": "s{i}", "dst": "d{i}"}}"#),
        });
    }
    let text = format!(
        r#"{{"duration": "0.3s", "hosts": [{}], "routers": ["r1", "r2"], "links": [{}], "flows": [{}]}}"#,
        hosts.join(","),
        links.join(","),
        flows.join(",")
    );
    let sc = Scenario::from_json(&text).unwrap();
    let mut a = World::build(&sc).unwrap();
    a.run().unwrap();
    let rows = a.into_results();
    assert_eq!(rows.flows.len(), n);
    assert!(rows
        .flows
        .iter()
        .any(|f| f.sent_packets > 0 && f.cc == "cubic"));
    let mut b = World::build(&sc).unwrap();
    b.run().unwrap();
    let (tables, rest) = b.into_tables();
    assert!(rest.flows.is_empty() && rest.links.is_empty());
    assert_eq!(bits(&tables), bits(&rows.tables()));
    let ColumnData::Str(names) = &tables[0].1[0].1 else {
        panic!("the flow column holds names")
    };
    assert_eq!(names.split('\0').count(), n);
}

#[test]
fn a_world_built_and_reported_on_two_threads_is_the_one_built_on_one() {
    // Everything that draws or is shared while building: a RED queue and an
    // error model (each with its link direction's stream), CDG (its flow's
    // stream), a TCP group sharing its first member's configuration, a
    // trace-driven direction (a shaper), UDP.
    let trace = std::env::temp_dir().join(format!("tcplab-two-{}.txt", std::process::id()));
    std::fs::write(&trace, "1\n2\n3\n5\n8\n").unwrap();
    let text = format!(
        r#"{{"duration": "2s", "seed": 7,
            "hosts": ["s0", "s1", "s2", "s3", "d0", "d1", "d2", "d3"], "routers": ["r1", "r2"],
            "links": [
              {{"a": "r1", "b": "r2", "rate": "5Mbps", "delay": "10ms", "name": "bn",
                "queue": {{"kind": "red", "limit": "60p", "min_th": 5, "max_th": 15}},
                "loss": {{"model": "uniform", "per": 0.01}}}},
              {{"a": ["s0", "s1", "s2", "s3"], "b": "r1", "rate": "100Mbps", "delay": "1ms"}},
              {{"a": "r2", "b": ["d0", "d1", "d2"], "rate": "100Mbps", "delay": "1ms"}},
              {{"a": "r2", "b": "d3", "rate": {{"trace": "{}"}}, "delay": "1ms"}}],
            "flows": [
              {{"kind": "tcp", "cc": "cdg", "src": "s0", "dst": "d0"}},
              {{"kind": "tcp", "cc": "cubic", "src": ["s1", "s2"], "dst": ["d1", "d2"],
                "start": ["0s", "0.1s"]}},
              {{"kind": "udp", "src": "s3", "dst": "d3", "rate": "1Mbps"}}]}}"#,
        trace.display()
    );
    let sc = Scenario::from_json(&text).unwrap();
    let run = |two_threads: bool| {
        let plan = crate::scenario::plan(&sc, &mut |_| None).unwrap();
        let mut w = World::from_plan_on(plan, two_threads).unwrap();
        w.run().unwrap();
        assert!(w.net.links[0].stats.drops_aqm > 0 && w.net.links[0].stats.drops_error > 0);
        assert_eq!(w.net.shapers.len(), 2, "both directions follow the trace");
        w.into_tables_on(two_threads).0
    };
    assert_eq!(bits(&run(true)), bits(&run(false)));
    let _ = std::fs::remove_file(trace);
}

#[test]
fn a_connection_fits_in_fifteen_cache_lines() {
    // Every delivery reads its connection, and the whole of it is
    // prefetched before its timer fires: one line more costs 5-8% at
    // 10,000 flows (docs/performance.md). Large recovery state goes behind
    // a box (PRR's) so that the strategy enum stays 16 bytes.
    assert_eq!(std::mem::size_of::<super::TcpFlow>(), 960);
    assert_eq!(std::mem::size_of::<crate::tcp::recovery::Strategy>(), 16);
}
