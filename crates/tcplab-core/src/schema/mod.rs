// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one source of truth for what a scenario may say and what a run
//! returns: every scenario field (type, unit, default, where the default
//! comes from), every variant (its parameters with their defaults per
//! profile, the quantities it reports), every recording and every result
//! column. The Python package's keyword lists and column lists, and the
//! reference tables in docs/, come from [`export`] or are checked against
//! it; a test here checks the field table against the parsers.
//!
//! TCP defaults are not written here: each profile's are one table
//! ([`crate::scenario::profile_table`], exported as `profile_defaults`, each
//! default with its source), and `tcp_defaults` reads them back from the
//! resolver ([`crate::scenario::resolve::tcp`]) for each profile, so they
//! cannot drift.

use serde::Serialize;
use serde_json::{json, Value};

use crate::cc::registry::{self, CcSpec, Profile, VARIANTS};
use crate::results::{FLOW_COLUMNS, LINK_COLUMNS};
use crate::scenario::profile_table::{self, Column};
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
    /// The default as text ("" when required, and for the TCP settings,
    /// whose defaults per profile are the profile table's:
    /// [`crate::scenario::profile_table`]).
    pub default: &'static str,
    pub meaning: &'static str,
    /// Where the default comes from.
    pub source: &'static str,
}

mod fields;
mod link_fields;
mod tcp_fields;
/// Every field of a scenario, in the order the docs list them.
pub static FIELDS: std::sync::LazyLock<Vec<Field>> = std::sync::LazyLock::new(|| {
    [
        fields::BEFORE_LINK_EFFECTS,
        link_fields::LINK_EFFECTS,
        fields::BEFORE_TCP,
        tcp_fields::TCP_OPTIONS,
        fields::AFTER_TCP,
    ]
    .concat()
});

/// The TCP fields' defaults under each profile, read back from the
/// resolver on a flow over a path with a 1500-byte MTU.
pub fn tcp_defaults() -> Value {
    let mut out = serde_json::Map::new();
    for profile in Profile::ALL {
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

/// Every variant: name, usual recovery (per column of the profile table
/// too), summary, parameters' defaults per profile, the quantities it
/// reports and its forms (`tl.variants()`, `tl.schema()["variants"]`).
pub fn variants() -> Vec<Value> {
    VARIANTS
        .iter()
        .map(|v| {
            let mut d = serde_json::Map::new();
            for p in Profile::ALL {
                d.insert(
                    p.name().into(),
                    registry::defaults(v.name, p).unwrap_or_default(),
                );
            }
            let probes_of = |spec: &CcSpec| {
                registry::build(spec, "cc", Profile::Paper, false)
                    .map(|b| b.cc.probes())
                    .unwrap_or_default()
            };
            let probes = probes_of(&CcSpec::named(v.name));
            let forms: Vec<Value> = registry::FORMS
                .iter()
                .filter(|f| f.0 == v.name)
                .map(|&(variant, key, value)| {
                    let mut spec = CcSpec::named(variant);
                    spec.params.insert(key.into(), value.into());
                    json!({
                        "key": key,
                        "value": value,
                        "defaults": registry::form_defaults(variant, value),
                        "probes": probes_of(&spec),
                    })
                })
                .collect();
            let mut recoveries = serde_json::Map::new();
            for col in Column::ALL {
                if let Ok(r) = resolve::usual_recovery(v, col) {
                    recoveries.insert(col.name().into(), r.name().into());
                }
            }
            json!({
                "name": v.name,
                "recovery": v.recovery,
                "summary": v.summary,
                "recoveries": recoveries,
                "defaults": d,
                "probes": probes,
                "forms": forms,
            })
        })
        .collect()
}

/// Everything, as the bindings hand it to Python (`tl.schema()`).
pub fn export() -> Value {
    let variants = variants();
    let traces: Vec<Value> = TraceKind::ALL
        .iter()
        .map(|k| json!({"name": k.name(), "meaning": k.meaning()}))
        .collect();
    json!({
        "fields": &*FIELDS,
        "profiles": Profile::ALL.iter().map(|p| p.name()).collect::<Vec<_>>(),
        "tcp_defaults": tcp_defaults(),
        "profile_defaults": profile_table::export(),
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
          "interval": 1, "trace": ["cwnd"], "memory_budget": "1GiB", "delay_percentiles": true,
          "pcap": {"dir": "d", "links": ["l"], "snaplen": 96, "capture": "rx"},
          "routes": [{"node": "r", "to": "b", "next": "b"}],
          "links": [{"name": "l", "a": "a", "b": "r", "rate": 1, "delay": 0, "queue": "1p",
                     "reverse_queue": "2p", "mtu": 1500, "reverse_rate": 2,
                     "schedule": [{"at": 1, "rate": 0, "delay": 0, "loss": 0.1}],
                     "reverse_schedule": [{"at": 1, "rate": 5}], "outage": "drop",
                     "jitter": {"dist": "uniform", "low": 0, "high": 1, "mean": 1, "std": 1,
                                "scale": 1, "shape": 2, "reorder": true},
                     "reverse_jitter": {"dist": "exponential", "mean": 1},
                     "arq": {"attempts": 2, "turnaround": 0.001, "order": "out"},
                     "reorder": {"probability": 0.1, "displacement": 3, "max_hold": 0.1},
                     "reverse_reorder": {"probability": 0.1, "displacement": 3},
                     "reverse_arq": {"attempts": 3},
                     "loss": {"model": "uniform", "per": 0.1, "ber": 0.1, "good_loss": 0,
                              "bad_loss": 0, "good_time": 1, "bad_time": 1,
                              "sojourn": "exponential", "p_bad": 0.5, "packets": [1],
                              "flow": "f", "data_only": true},
                     "reverse_loss": {"model": "uniform", "per": 0}}],
          "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b", "start": 0,
                     "start_jitter": 1, "stop": 1,
                     "rate": 1, "size": 1, "count": 1, "cc": "reno", "profile": "paper", "ns3_release": "3.44",
                     "recovery": "reno", "mss": 500, "delayed_ack": 2,
                     "delayed_ack_timeout": 1, "quick_acks": 1, "rtt_sampling": "ack", "cc_rtt": "newest", "sack": true, "timestamps": true,
                     "window_scaling": true, "rcv_buf": 10000, "initial_cwnd": 2,
                     "initial_ssthresh": 10000, "abc": true, "min_rto": 1, "max_rto": 2,
                     "initial_rto": 1, "clock_granularity": 0.001, "rto": "linux",
                     "restart_after_idle": true, "handshake": true, "recovery_exit": "flight", "recovery_exit_growth": false, "cwnd_growth": "rfc", "undo": true, "frto": true, "rate_halving_floor": "ssthresh", "prr_form": "rfc9937", "timeout_ssthresh": "rfc5681", "dupthresh": 3, "limited_transmit": true,
                     "rescue_retransmit": false, "slow_start": "hystart",
                     "rack": false, "tlp": false, "adaptive_reordering": true, "reno_recover_guard": false, "fast_retransmit_restarts_rto": false, "head_retransmit_restarts_rto": false, "ecn": true, "ecn_response": "immediate",
                     "dsack": true, "ack_timing": "linux", "pacing": "ns3", "pacing_ss_ratio": 200,
                     "pacing_ca_ratio": 120, "max_pacing_rate": "1Gbps", "pace_initial_window": false,
                     "app": {"kind": "onoff", "size": 1, "schedule": [[0, 1]], "load": 1,
                             "arrival_rate": 1, "sizes": "websearch", "until": 1}}]
        }"#;
        let sc = crate::scenario::Scenario::from_json(text).unwrap();
        let mut got = BTreeSet::new();
        paths(&serde_json::to_value(&sc).unwrap(), "", &mut got);
        got.remove("links[].reverse_loss.model");
        got.remove("links[].reverse_loss.per");
        got.remove("links[].reverse_schedule[].at");
        got.remove("links[].reverse_schedule[].rate");
        got.remove("links[].reverse_jitter.dist");
        got.remove("links[].reverse_jitter.mean");
        got.remove("links[].reverse_jitter.reorder");
        got.remove("links[].reverse_arq.attempts");
        got.remove("links[].reverse_arq.turnaround");
        got.remove("links[].reverse_arq.order");
        got.remove("links[].reverse_reorder.probability");
        got.remove("links[].reverse_reorder.displacement");
        got.remove("links[].reverse_reorder.max_hold");
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
        assert_eq!(d["inet"]["mss"], "536B");
        assert_eq!(d["ns2"]["initial_cwnd"], 2);
        for p in Profile::ALL.map(|p| p.name()) {
            for f in FIELDS
                .iter()
                .filter_map(|f| f.path.strip_prefix("flows[tcp]."))
            {
                if !f.contains('.')
                    && ![
                        "initial_ssthresh",
                        "rate_halving_floor",
                        "prr_form",
                        "max_pacing_rate",
                    ]
                    .contains(&f)
                    && (f != "ns3_release" || p == "ns3")
                {
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

    #[test]
    fn the_fields_that_list_names_list_exactly_the_core_s() {
        let kind = |path: &str| FIELDS.iter().find(|f| f.path == path).unwrap().kind;
        let recoveries: Vec<&str> = crate::tcp::Recovery::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(kind("flows[tcp].recovery"), recoveries.join(", "));
        assert_eq!(kind("flows[tcp].rto"), "rfc6298, linux, ns2, ns3_18, inet");
        // The profiles are the table's columns (less ns-3's releases).
        let profiles: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(kind("flows[tcp].profile"), profiles.join(", "));
        let columns: Vec<Profile> = Column::ALL.iter().map(|c| c.profile()).collect();
        assert!(Profile::ALL.iter().all(|p| columns.contains(p)));
        let rto: Vec<String> = ["rfc6298", "linux", "ns2", "ns3_18", "inet"]
            .iter()
            .map(|n| {
                let p: crate::tcp::rtt::RtoPolicy =
                    serde_json::from_value(serde_json::json!(n)).unwrap();
                serde_json::to_value(p)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(rto, ["rfc6298", "linux", "ns2", "ns3_18", "inet"]);
    }
}
