// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one source of truth for what a scenario may say and what a run
//! returns: every scenario field (type, unit, default, where the default
//! comes from), every variant (its parameters with their defaults per
//! profile, the quantities it reports), every recording and every result
//! column. The Python package's keyword lists and column lists, and the
//! reference tables in docs/, come from [`export`] or are checked against
//! it; a test here checks the field table against the parsers.
//!
//! TCP defaults are not written here: they are read back from the resolver
//! ([`crate::scenario::resolve::tcp`]) for each profile, so they cannot drift.

use serde::Serialize;
use serde_json::{json, Value};

use crate::cc::registry::{self, CcSpec, Profile, VARIANTS};
use crate::results::{FLOW_COLUMNS, LINK_COLUMNS};
use crate::scenario::{resolve, FlowKind, FlowSpec, TraceKind, DEFAULT_MEMORY_BUDGET};
use crate::time::SimDuration;

/// One scenario field. `path` uses `[]` for list elements
/// (`links[].rate`) and names the flow kind it belongs to
/// (`flows[tcp].mss`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Field {
    pub path: &'static str,
    /// rate, duration, size, queue, count, probability, bool, name, names,
    /// table, list, or one of a set (listed in `meaning`).
    pub kind: &'static str,
    pub unit: &'static str,
    /// The default as text ("" when required; for TCP fields, see
    /// [`tcp_defaults`]).
    pub default: &'static str,
    pub meaning: &'static str,
    /// Where the default comes from.
    pub source: &'static str,
}

const fn f(
    path: &'static str,
    kind: &'static str,
    unit: &'static str,
    default: &'static str,
    meaning: &'static str,
    source: &'static str,
) -> Field {
    Field {
        path,
        kind,
        unit,
        default,
        meaning,
        source,
    }
}

/// Every field of a scenario.
pub const FIELDS: &[Field] = &[
    f("name", "string", "", "none", "a label for the run", ""),
    f(
        "duration",
        "duration",
        "s",
        "none",
        "simulated time to run; without it the run ends when no event is left",
        "",
    ),
    f("seed", "count", "", "1", "seed of every random stream", ""),
    f(
        "run",
        "count",
        "",
        "0",
        "replication index: independent streams under one seed",
        "",
    ),
    f(
        "hosts",
        "names",
        "",
        "[]",
        "end hosts; they do not forward",
        "",
    ),
    f("routers", "names", "", "[]", "routers", ""),
    f("links", "list", "", "[]", "full-duplex links", ""),
    f(
        "routes",
        "list",
        "",
        "[]",
        "explicit routes overriding the shortest paths",
        "",
    ),
    f("flows", "list", "", "required", "traffic flows", ""),
    f(
        "interval",
        "duration",
        "s",
        "none",
        "per-interval goodput in windows of this length",
        "",
    ),
    f(
        "pcap",
        "table",
        "",
        "none",
        "packet traces (pcap) of link directions",
        "",
    ),
    f(
        "trace",
        "names",
        "",
        "[]",
        "recordings: built-in ones and cc:NAME quantities",
        "",
    ),
    f(
        "memory_budget",
        "size",
        "B",
        "4GiB",
        "the most memory what grows in a run may hold",
        "tcplab: a run that fits a laptop",
    ),
    f(
        "links[].name",
        "name",
        "",
        "a-b",
        "how results and errors name the link",
        "",
    ),
    f("links[].a", "name", "", "required", "one end", ""),
    f("links[].b", "name", "", "required", "the other end", ""),
    f(
        "links[].rate",
        "rate",
        "bit/s",
        "required",
        "the rate of each direction",
        "",
    ),
    f(
        "links[].delay",
        "duration",
        "s",
        "required",
        "one-way propagation delay",
        "",
    ),
    f(
        "links[].queue",
        "queue",
        "packets or B",
        "100p",
        "each direction's egress queue: a drop-tail limit, or { kind, ... }",
        "ns-2 and ns-3 drop-tail queues",
    ),
    f(
        "links[].mtu",
        "size",
        "B",
        "1500",
        "largest IP datagram",
        "Ethernet",
    ),
    f(
        "links[].loss",
        "table",
        "",
        "none",
        "error model on a -> b, applied at b",
        "",
    ),
    f(
        "links[].reverse_loss",
        "table",
        "",
        "none",
        "error model on b -> a, applied at a",
        "",
    ),
    f(
        "links[].loss.model",
        "uniform, ber, gilbert_elliott, list",
        "",
        "required",
        "which model",
        "",
    ),
    f(
        "links[].loss.per",
        "probability",
        "",
        "required (uniform)",
        "packet error rate",
        "",
    ),
    f(
        "links[].loss.ber",
        "probability",
        "",
        "required (ber)",
        "bit error rate",
        "",
    ),
    f(
        "links[].loss.good_loss",
        "probability",
        "",
        "0",
        "Gilbert-Elliott: loss in Good",
        "",
    ),
    f(
        "links[].loss.bad_loss",
        "probability",
        "",
        "required (gilbert_elliott)",
        "Gilbert-Elliott: loss in Bad",
        "",
    ),
    f(
        "links[].loss.good_time",
        "duration",
        "s",
        "required (gilbert_elliott)",
        "sojourn (or its mean) in Good",
        "",
    ),
    f(
        "links[].loss.bad_time",
        "duration",
        "s",
        "required (gilbert_elliott)",
        "sojourn (or its mean) in Bad",
        "",
    ),
    f(
        "links[].loss.sojourn",
        "deterministic, exponential",
        "",
        "deterministic",
        "how sojourns are drawn",
        "",
    ),
    f(
        "links[].loss.p_bad",
        "probability",
        "",
        "0.5",
        "probability that a new state is Bad",
        "",
    ),
    f(
        "links[].loss.packets",
        "list",
        "",
        "required (list)",
        "arrival numbers to drop, from 1",
        "",
    ),
    f(
        "links[].loss.flow",
        "name",
        "",
        "none",
        "list: count only this flow's packets",
        "",
    ),
    f(
        "links[].loss.data_only",
        "bool",
        "",
        "false",
        "list: count only packets with payload",
        "",
    ),
    f(
        "routes[].node",
        "name",
        "",
        "required",
        "where the route applies",
        "",
    ),
    f(
        "routes[].to",
        "name",
        "",
        "required",
        "the destination host",
        "",
    ),
    f(
        "routes[].next",
        "name",
        "",
        "required",
        "the neighbour to send to",
        "",
    ),
    f(
        "flows[].kind",
        "udp, tcp",
        "",
        "required",
        "the kind of flow",
        "",
    ),
    f(
        "flows[].name",
        "name",
        "",
        "kind + index",
        "row label in results",
        "",
    ),
    f("flows[].src", "name", "", "required", "the source host", ""),
    f(
        "flows[].dst",
        "name",
        "",
        "required",
        "the destination host",
        "",
    ),
    f(
        "flows[].start",
        "duration",
        "s",
        "0",
        "when the source starts",
        "",
    ),
    f(
        "flows[].stop",
        "duration",
        "s",
        "end of run",
        "when the source stops",
        "",
    ),
    f(
        "flows[udp].rate",
        "rate",
        "bit/s",
        "required",
        "payload bits per second (ns-3's OnOffApplication)",
        "",
    ),
    f(
        "flows[udp].size",
        "size",
        "B",
        "1000B",
        "payload per datagram; 28 B of headers are added",
        "ns-2's and ns-3's CBR",
    ),
    f(
        "flows[udp].count",
        "count",
        "",
        "none",
        "stop after this many datagrams",
        "",
    ),
    f(
        "flows[tcp].cc",
        "variant",
        "",
        "newreno",
        "the variant, or { name, parameters }",
        "",
    ),
    f(
        "flows[tcp].profile",
        "paper, linux, ns3",
        "",
        "paper",
        "whose defaults",
        "the RFCs and papers",
    ),
    f(
        "flows[tcp].recovery",
        "tahoe, reno, newreno, sack",
        "",
        "the variant's",
        "loss recovery",
        "",
    ),
    f(
        "flows[tcp].mss",
        "size",
        "B",
        "",
        "payload bytes per segment (default: smallest MTU on the path - 40 B - options)",
        "RFC 879, RFC 1122",
    ),
    f(
        "flows[tcp].delayed_ack",
        "count",
        "segments",
        "",
        "ACK every N full segments; 1 or false: every segment",
        "RFC 1122 4.2.3.2, RFC 5681 4.2",
    ),
    f(
        "flows[tcp].delayed_ack_timeout",
        "duration",
        "s",
        "",
        "the delayed-ACK timer",
        "common implementations (RFC 5681: at most 500 ms)",
    ),
    f(
        "flows[tcp].sack",
        "bool",
        "",
        "",
        "the SACK option",
        "RFC 2018; on with sack recovery (ns-3, Linux: on)",
    ),
    f(
        "flows[tcp].timestamps",
        "bool",
        "",
        "",
        "the timestamps option",
        "RFC 7323 (ns-3, Linux: on)",
    ),
    f(
        "flows[tcp].window_scaling",
        "bool",
        "",
        "",
        "window scaling",
        "RFC 7323",
    ),
    f(
        "flows[tcp].rcv_buf",
        "size",
        "B",
        "",
        "receive buffer, the advertised window",
        "large enough not to cap common paths (ns-3: 128 KiB)",
    ),
    f(
        "flows[tcp].initial_cwnd",
        "count",
        "segments",
        "",
        "initial window",
        "RFC 5681 3.1 (ns-3 3.44, Linux: 10)",
    ),
    f(
        "flows[tcp].initial_ssthresh",
        "size",
        "B",
        "",
        "initial slow-start threshold",
        "RFC 5681 3.1",
    ),
    f(
        "flows[tcp].abc",
        "bool",
        "",
        "",
        "appropriate byte counting",
        "RFC 3465 (Linux: on)",
    ),
    f(
        "flows[tcp].min_rto",
        "duration",
        "s",
        "",
        "the RTO's lower bound",
        "RFC 6298 (Linux: 200 ms)",
    ),
    f(
        "flows[tcp].max_rto",
        "duration",
        "s",
        "",
        "the RTO's upper bound",
        "RFC 6298",
    ),
    f(
        "flows[tcp].initial_rto",
        "duration",
        "s",
        "",
        "the RTO before any sample",
        "RFC 6298",
    ),
    f(
        "flows[tcp].clock_granularity",
        "duration",
        "s",
        "",
        "G in RTO = SRTT + max(G, 4 RTTVAR)",
        "RFC 6298",
    ),
    f(
        "flows[tcp].restart_after_idle",
        "bool",
        "",
        "",
        "restart from the initial window after an idle RTO",
        "RFC 5681 4.1",
    ),
    f(
        "flows[tcp].recovery_exit",
        "flight, ssthresh",
        "",
        "",
        "NewReno's window when recovery ends",
        "RFC 6582 3.2 step 3 (ns-3, Linux: ssthresh)",
    ),
    f(
        "flows[tcp].dupthresh",
        "count",
        "ACKs",
        "",
        "duplicate ACKs that trigger fast retransmit",
        "RFC 5681",
    ),
    f("flows[tcp].app", "table", "", "bulk", "the application", ""),
    f(
        "flows[tcp].app.kind",
        "bulk, transfer, onoff",
        "",
        "required",
        "what the application sends",
        "",
    ),
    f(
        "flows[tcp].app.size",
        "size",
        "B",
        "required (transfer)",
        "bytes to transfer",
        "",
    ),
    f(
        "flows[tcp].app.schedule",
        "list",
        "s",
        "required (onoff)",
        "[on, off] time pairs",
        "",
    ),
    f(
        "pcap.dir",
        "string",
        "",
        "required",
        "directory for the trace files",
        "",
    ),
    f(
        "pcap.links",
        "names",
        "",
        "all",
        "link names to capture",
        "",
    ),
    f(
        "pcap.snaplen",
        "size",
        "B",
        "96",
        "bytes kept per packet",
        "",
    ),
    f(
        "pcap.capture",
        "tx, rx",
        "",
        "tx",
        "capture on transmission or on reception",
        "",
    ),
];

/// The TCP fields' defaults under each profile, read back from the
/// resolver on a flow over a path with a 1500-byte MTU.
pub fn tcp_defaults() -> Value {
    let mut out = serde_json::Map::new();
    for profile in [Profile::Paper, Profile::Linux, Profile::Ns3] {
        let mut flow = FlowSpec {
            profile: Some(profile),
            ..FlowSpec::empty(FlowKind::Tcp)
        };
        let resolved = resolve::tcp(0, "flows[0]", &mut flow, 1500, &[], &mut |_| None)
            .map(|_| serde_json::to_value(&flow).unwrap_or(Value::Null))
            .unwrap_or(Value::Null);
        out.insert(profile.name().into(), resolved);
    }
    Value::Object(out)
}

/// Everything, as the bindings hand it to Python (`tl.schema()`).
pub fn export() -> Value {
    let variants: Vec<Value> = VARIANTS
        .iter()
        .map(|v| {
            let mut d = serde_json::Map::new();
            for p in [Profile::Paper, Profile::Linux, Profile::Ns3] {
                d.insert(
                    p.name().into(),
                    registry::defaults(v.name, p).unwrap_or_default(),
                );
            }
            let probes = registry::build(&CcSpec::named(v.name), "cc", Profile::Paper, false)
                .map(|b| b.cc.probes())
                .unwrap_or_default();
            json!({
                "name": v.name,
                "recovery": v.recovery,
                "summary": v.summary,
                "defaults": d,
                "probes": probes,
            })
        })
        .collect();
    let traces: Vec<Value> = TraceKind::ALL
        .iter()
        .map(|k| json!({"name": k.name(), "meaning": k.meaning()}))
        .collect();
    json!({
        "fields": FIELDS,
        "tcp_defaults": tcp_defaults(),
        "variants": variants,
        "recoveries": crate::tcp::Recovery::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
        "queues": crate::net::qdisc::KINDS,
        "traces": traces,
        "results": {"flows": FLOW_COLUMNS, "links": LINK_COLUMNS},
        "limits": {
            "memory_budget_default": DEFAULT_MEMORY_BUDGET,
            "max_duration": SimDuration::MAX.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every key path of a JSON value, list elements as `[]`.
    fn paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    out.insert(p.clone());
                    paths(x, &p, out);
                }
            }
            Value::Array(a) => {
                for x in a {
                    if x.is_object() {
                        paths(x, &format!("{prefix}[]"), out);
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_field_table_lists_exactly_what_the_parser_takes() {
        // A scenario with every field set, through the parser and back.
        let text = r#"{
          "name": "n", "duration": 1, "seed": 2, "run": 3, "hosts": ["a", "b"], "routers": ["r"],
          "interval": 1, "trace": ["cwnd"], "memory_budget": "1GiB",
          "pcap": {"dir": "d", "links": ["l"], "snaplen": 96, "capture": "rx"},
          "routes": [{"node": "r", "to": "b", "next": "b"}],
          "links": [{"name": "l", "a": "a", "b": "r", "rate": 1, "delay": 0, "queue": "1p",
                     "mtu": 1500,
                     "loss": {"model": "uniform", "per": 0.1, "ber": 0.1, "good_loss": 0,
                              "bad_loss": 0, "good_time": 1, "bad_time": 1,
                              "sojourn": "exponential", "p_bad": 0.5, "packets": [1],
                              "flow": "f", "data_only": true},
                     "reverse_loss": {"model": "uniform", "per": 0}}],
          "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b", "start": 0, "stop": 1,
                     "rate": 1, "size": 1, "count": 1, "cc": "reno", "profile": "paper",
                     "recovery": "reno", "mss": 500, "delayed_ack": 2,
                     "delayed_ack_timeout": 1, "sack": true, "timestamps": true,
                     "window_scaling": true, "rcv_buf": 10000, "initial_cwnd": 2,
                     "initial_ssthresh": 10000, "abc": true, "min_rto": 1, "max_rto": 2,
                     "initial_rto": 1, "clock_granularity": 0.001,
                     "restart_after_idle": true, "recovery_exit": "flight", "dupthresh": 3,
                     "app": {"kind": "onoff", "size": 1, "schedule": [[0, 1]]}}]
        }"#;
        let sc = crate::scenario::Scenario::from_json(text).unwrap();
        let mut got = BTreeSet::new();
        paths(&serde_json::to_value(&sc).unwrap(), "", &mut got);
        got.remove("links[].reverse_loss.model");
        got.remove("links[].reverse_loss.per");
        // The table says which kind of flow a field belongs to.
        let want: BTreeSet<String> = FIELDS
            .iter()
            .map(|f| f.path.replace("[tcp]", "[]").replace("[udp]", "[]"))
            .collect();
        assert_eq!(got, want);
        // And the kinds agree with the parser's lists.
        for kind in [FlowKind::Udp, FlowKind::Tcp] {
            let prefix = format!("flows[{}].", kind.name());
            let listed: BTreeSet<&str> = FIELDS
                .iter()
                .filter_map(|f| f.path.strip_prefix(&prefix))
                .filter(|p| !p.contains('.'))
                .collect();
            let parsed: BTreeSet<&str> = crate::scenario::flow_kind_params(kind)
                .iter()
                .copied()
                .collect();
            assert_eq!(listed, parsed, "{}", kind.name());
        }
    }

    #[test]
    fn tcp_defaults_come_from_the_resolver_for_every_profile() {
        let d = tcp_defaults();
        assert_eq!(d["paper"]["mss"], "1460B");
        assert_eq!(d["paper"]["initial_cwnd"], 3);
        assert_eq!(d["linux"]["initial_cwnd"], 10);
        assert_eq!(d["linux"]["min_rto"], "200ms");
        assert_eq!(d["ns3"]["rcv_buf"], "131072B");
        for p in ["paper", "linux", "ns3"] {
            for f in FIELDS
                .iter()
                .filter_map(|f| f.path.strip_prefix("flows[tcp]."))
            {
                if !f.contains('.') && !["initial_ssthresh"].contains(&f) {
                    assert!(d[p].get(f).is_some(), "{p}: no default for {f}");
                }
            }
        }
    }

    #[test]
    fn every_variant_is_exported_with_its_probes() {
        let e = export();
        let v = e["variants"].as_array().unwrap();
        assert_eq!(v.len(), VARIANTS.len());
        let cubic = v.iter().find(|x| x["name"] == "cubic").unwrap();
        assert_eq!(cubic["probes"][0]["name"], "w_max");
        assert_eq!(
            e["results"]["flows"].as_array().unwrap().len(),
            FLOW_COLUMNS.len()
        );
    }
}
