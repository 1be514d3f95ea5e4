// SPDX-License-Identifier: MIT OR Apache-2.0
//! Resolving a TCP flow: its settings profile (the column of the profile
//! table, [`super::profile_table`]) and variant, then every default filled
//! from that table, then the result checked ([`super::tcp_check`]), then
//! the variant built and the application laid out. The defaults are
//! written back into the scenario, so that every result records exactly
//! what ran.

use crate::cc::registry::{self, CcSpec, Ns3Release, Profile, VariantInfo, VARIANTS};
use crate::cc::slow_start::SlowStartKind;
use crate::cc::{CongestionControl, CustomCc, Probe};
use crate::error::{Error, Result};
use crate::scenario::{concat, AppKind, FlowSpec, TraceKind, TraceSpec};
use crate::tcp::{Recovery, RtoRestart, TcpConfig};
use crate::time::{SimDuration, SimTime};

use super::profile_table::{self, Column};
use super::recovery_options::{recovery_options, RecoveryOptions};
use super::tcp_check::{self, filled};

/// A TCP flow resolved: what the world needs to build its endpoints.
pub struct TcpPlan {
    pub cfg: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    /// The variant's name ("python" for a user-written one), shared by a
    /// group's members.
    pub cc_name: std::sync::Arc<str>,
    /// The controller is user-written and may fail.
    pub custom_cc: bool,
    /// Vegas's fine-grained retransmission.
    pub fine_retransmit: bool,
    /// Application edges: (time, has data). Bulk: [(start, on)]; ON/OFF:
    /// each window; a stop time adds a final off edge.
    pub edges: Vec<(SimTime, bool)>,
    /// A transfer's size in bytes.
    pub transfer: Option<u64>,
    /// The per-connection series to record: built-in ones and the
    /// controller's own quantities.
    pub series: Vec<TraceSpec>,
    /// The quantities the controller reports about itself.
    pub probes: Vec<Probe>,
    /// Whether to log TCP events.
    pub events: bool,
    /// Whether the connection opens with a handshake; without, both ends
    /// start established.
    pub handshake: bool,
    /// How the sender paces, if it does.
    pub pacing: Option<Box<crate::tcp::PacingConfig>>,
}

/// The variant written in Python, as the variants' table would list it.
const PYTHON_INFO: VariantInfo = VariantInfo {
    name: registry::PYTHON.name,
    recovery: registry::PYTHON.recovery.paper,
    summary: registry::PYTHON.summary,
};

/// Resolves a TCP flow's configuration, filling the defaults into `f` so
/// that the effective scenario shows them.
/// `flow` is the index of the flow's entry (for `custom`), `entry` the path of its
/// entry in the scenario (`flows[3]`, for messages).
pub fn tcp(
    flow: usize,
    entry: &str,
    f: &mut FlowSpec,
    path_mtu: u32,
    trace: &[TraceSpec],
    custom: CustomCc<'_>,
) -> Result<TcpPlan> {
    let p = |field: &str| concat(&[entry, ".", field]);
    let col = column(f, &p)?;
    let spec = f.cc.get_or_insert_with(|| CcSpec::named("newreno")).clone();
    let (info, user_cc) = variant(&spec, &p, || custom(flow))?;
    let usual = usual_recovery(info, col)?;
    let quick_acks_set = f.quick_acks.is_some();
    profile_table::fill(f, col, &spec.name, usual, path_mtu);
    tcp_check::check(f, &p, path_mtu, &spec.name)?;
    tcp_check::check_ack_timing(f, &p, quick_acks_set)?;
    tcp_check::check_pacing(f, &p, col, &spec.name)?;
    let options = recovery_options(f, &p, col)?;
    let cfg = config(f, options)?;
    let built = match user_cc {
        Some(cc) => registry::Built {
            cc,
            spec: spec.clone(),
            fine_retransmit: false,
            fine_timeout: Default::default(),
            retransmit_backoff: false,
        },
        None => {
            // ns-3.18's TcpNewReno halves the FlightSize: its BytesInFlight
            // was m_highTxMark less the first unacknowledged byte.
            let mut spec = spec.clone();
            if col == Column::Ns3_18 && registry::RENO_GROWTH.contains(&spec.name.as_str()) {
                spec.params
                    .entry("halve")
                    .or_insert_with(|| "flightsize".into());
            }
            registry::build(&spec, &p("cc"), col.profile(), cfg.abc)?
        }
    };
    let pacing = cfg.pacing;
    let mut cfg = cfg.cfg;
    if cfg.slow_start != SlowStartKind::Standard && built.cc.controls_fully() {
        return Err(Error::invalid_allowed(
            p("slow_start"),
            format!("'{}' sets its window itself, without slow start", spec.name),
            "standard",
        ));
    }
    let custom_cc = spec.name == "python";
    cfg.retransmit_backoff = built.retransmit_backoff;
    cfg.fine_timeout = built.fine_timeout;
    cfg.ecn_per_segment = built.cc.needs_ecn();
    if cfg.ecn_per_segment && !cfg.ecn {
        return Err(Error::invalid(
            p("ecn"),
            format!("{} needs ECN (RFC 8257 3.1); leave ecn on", spec.name),
        ));
    }
    f.cc = Some(built.spec);
    let probes = built.cc.probes();
    let (edges, transfer) = application(f, entry, &p)?;
    let series = super::trace::series_for(trace, &probes);
    Ok(TcpPlan {
        cfg,
        cc: built.cc,
        cc_name: spec.name.as_str().into(),
        custom_cc,
        fine_retransmit: built.fine_retransmit,
        edges,
        transfer,
        series,
        probes,
        events: trace.contains(&TraceSpec::Kind(TraceKind::Events)),
        handshake: filled(f.handshake, "handshake")?,
        pacing,
    })
}

/// The flow's column of the profile table: its profile (paper unless
/// set), and for ns3 its release (3.44 unless set; refused elsewhere).
fn column(f: &mut FlowSpec, p: &dyn Fn(&str) -> String) -> Result<Column> {
    let profile = *f.profile.get_or_insert(Profile::Paper);
    if f.ns3_release.is_some() && profile != Profile::Ns3 {
        return Err(Error::invalid_allowed(
            p("ns3_release"),
            format!("the {} profile has no ns-3 release", profile.name()),
            "profile = \"ns3\" with it, or leave it out",
        ));
    }
    if profile == Profile::Ns3 {
        f.ns3_release.get_or_insert(Ns3Release::V3_44);
    }
    Ok(Column::of(profile, f.ns3_release))
}

/// The variant `spec` names, from the variants' table, and for "python"
/// the controller `custom` supplies.
fn variant(
    spec: &CcSpec,
    p: &dyn Fn(&str) -> String,
    custom: impl FnOnce() -> Option<Box<dyn CongestionControl>>,
) -> Result<(&'static VariantInfo, Option<Box<dyn CongestionControl>>)> {
    if spec.name == "python" {
        let cc = custom().ok_or_else(|| {
            Error::invalid(
                p("cc"),
                "'python' names a variant written in Python: pass a tcplab.CongestionControl \
                 object as cc= from Python (it cannot be given in a file)",
            )
        })?;
        return Ok((&PYTHON_INFO, Some(cc)));
    }
    match VARIANTS.iter().find(|v| v.name == spec.name) {
        Some(info) => Ok((info, None)),
        None => {
            let names: Vec<&str> = VARIANTS.iter().map(|v| v.name).chain(["python"]).collect();
            Err(Error::invalid_allowed(
                p("cc"),
                format!("unknown variant '{}'", spec.name),
                names.join(", "),
            ))
        }
    }
}

/// The recovery a flow of variant `info` takes by default in column `col`:
/// the variants table's per-profile column ([`registry::usual_recovery`]),
/// as a `Recovery`.
pub fn usual_recovery(info: &VariantInfo, col: Column) -> Result<Recovery> {
    let release = match col {
        Column::Ns3_18 => Ns3Release::V3_18,
        _ => Ns3Release::V3_44,
    };
    let name = registry::usual_recovery(info.name, col.profile(), release);
    Recovery::ALL
        .iter()
        .copied()
        .find(|r| Some(r.name()) == name)
        .ok_or_else(|| Error::Internal(format!("{}: no recovery {name:?}", info.name)))
}

/// A flow's connection configuration, less what its variant sets, and
/// whether it counts bytes (which the variant is built with).
struct Config {
    cfg: TcpConfig,
    abc: bool,
    pacing: Option<Box<crate::tcp::PacingConfig>>,
}

/// The configuration of a flow whose fields are filled and checked.
fn config(f: &FlowSpec, options: RecoveryOptions) -> Result<Config> {
    let RecoveryOptions {
        rate_halving_floor,
        prr_form,
        rack,
        ecn_response,
    } = options;
    let mss = filled(f.mss, "mss")?.0;
    let cfg = TcpConfig {
        mss: mss as u32,
        recovery: filled(f.recovery, "recovery")?,
        sack: filled(f.sack, "sack")?,
        timestamps: filled(f.timestamps, "timestamps")?,
        window_scaling: filled(f.window_scaling, "window_scaling")?,
        rcv_buf: filled(f.rcv_buf, "rcv_buf")?.0,
        delayed_ack: filled(f.delayed_ack, "delayed_ack")?,
        delayed_ack_timeout: filled(f.delayed_ack_timeout, "delayed_ack_timeout")?,
        quick_acks: filled(f.quick_acks, "quick_acks")?,
        rtt_sampling: filled(f.rtt_sampling, "rtt_sampling")?,
        cc_rtt: filled(f.cc_rtt, "cc_rtt")?,
        initial_cwnd: filled(f.initial_cwnd, "initial_cwnd")? as u64 * mss,
        initial_ssthresh: f.initial_ssthresh.map_or(u64::MAX, |b| b.0),
        min_rto: filled(f.min_rto, "min_rto")?,
        max_rto: filled(f.max_rto, "max_rto")?,
        initial_rto: filled(f.initial_rto, "initial_rto")?,
        clock_granularity: filled(f.clock_granularity, "clock_granularity")?,
        rto: filled(f.rto, "rto")?,
        restart_after_idle: filled(f.restart_after_idle, "restart_after_idle")?,
        // (Checked to fit in 16 bits.)
        dupthresh: filled(f.dupthresh, "dupthresh")? as u16,
        adaptive_reordering: filled(f.adaptive_reordering, "adaptive_reordering")?,
        limited_transmit: filled(f.limited_transmit, "limited_transmit")?,
        rescue_retransmit: filled(f.rescue_retransmit, "rescue_retransmit")?,
        rate_halving_floor,
        prr_form,
        timeout_ssthresh: filled(f.timeout_ssthresh, "timeout_ssthresh")?,
        slow_start: filled(f.slow_start, "slow_start")?,
        rack,
        reno_recover_guard: filled(f.reno_recover_guard, "reno_recover_guard")?,
        rto_restart: match (
            filled(
                f.head_retransmit_restarts_rto,
                "head_retransmit_restarts_rto",
            )?,
            filled(
                f.fast_retransmit_restarts_rto,
                "fast_retransmit_restarts_rto",
            )?,
        ) {
            (true, _) => RtoRestart::HeadRetransmit,
            (false, true) => RtoRestart::FastRetransmit,
            (false, false) => RtoRestart::Ack,
        },
        ecn: filled(f.ecn, "ecn")?,
        ecn_per_segment: false, // the variant's
        ecn_response,
        fine_timeout: Default::default(), // the variant's
        retransmit_backoff: false,        // the variant's
        recovery_exit: filled(f.recovery_exit, "recovery_exit")?,
        recovery_exit_growth: filled(f.recovery_exit_growth, "recovery_exit_growth")?,
        cwnd_growth: filled(f.cwnd_growth, "cwnd_growth")?,
        dsack: filled(f.dsack, "dsack")?,
        ack_timing: filled(f.ack_timing, "ack_timing")?,
        undo: filled(f.undo, "undo")?,
        frto: filled(f.frto, "frto")?,
    };
    Ok(Config {
        cfg,
        abc: filled(f.abc, "abc")?,
        pacing: match filled(f.pacing, "pacing")? {
            crate::tcp::Pacing::Off => None,
            form => Some(Box::new(crate::tcp::PacingConfig {
                form,
                ss_ratio: filled(f.pacing_ss_ratio, "pacing_ss_ratio")?,
                ca_ratio: filled(f.pacing_ca_ratio, "pacing_ca_ratio")?,
                // Bytes per second; unlimited when unset.
                max_rate: f
                    .max_pacing_rate
                    .map_or(f64::INFINITY, |r| r.bps() as f64 / 8.0),
                pace_initial_window: filled(f.pace_initial_window, "pace_initial_window")?,
            })),
        },
    })
}

/// Application edges: (time, has data).
type Edges = Vec<(SimTime, bool)>;

/// The flow's application (bulk unless set): its on/off edges and a
/// transfer's size.
fn application(
    f: &mut FlowSpec,
    entry: &str,
    p: &dyn Fn(&str) -> String,
) -> Result<(Edges, Option<u64>)> {
    let app = f.app.get_or_insert(crate::scenario::AppSpec {
        kind: AppKind::Bulk,
        size: None,
        schedule: None,
        load: None,
        arrival_rate: None,
        sizes: None,
        until: None,
    });
    let start = SimTime::ZERO + *f.start.get(0);
    let mut edges = Vec::new();
    let mut transfer = None;
    for (field, set) in [
        ("load", app.load.is_some()),
        ("arrival_rate", app.arrival_rate.is_some()),
        ("sizes", app.sizes.is_some()),
        ("until", app.until.is_some()),
    ] {
        if set {
            return Err(Error::invalid(
                p(&format!("app.{field}")),
                "only a poisson application has one",
            ));
        }
    }
    match app.kind {
        AppKind::Bulk | AppKind::Transfer => {
            if app.schedule.is_some() {
                return Err(Error::invalid(
                    p("app.schedule"),
                    "only an onoff application has one",
                ));
            }
            if app.kind == AppKind::Transfer {
                let size = app.size.ok_or_else(|| {
                    Error::invalid(p("app.size"), "required for a transfer (e.g. '10MiB')")
                })?;
                if size.0 == 0 {
                    return Err(Error::invalid_allowed(
                        p("app.size"),
                        "must be positive",
                        ">= 1 B",
                    ));
                }
                transfer = Some(size.0);
            } else if app.size.is_some() {
                return Err(Error::invalid(p("app.size"), "only a transfer has a size"));
            }
            edges.push((start, true));
        }
        // Expanded into its transfers before any member is resolved.
        AppKind::Poisson => {
            return Err(Error::invalid(
                p("app.kind"),
                "a poisson workload is expanded into transfers before this point",
            ))
        }
        AppKind::Onoff => {
            if app.size.is_some() {
                return Err(Error::invalid(p("app.size"), "only a transfer has a size"));
            }
            let sched = app.schedule.clone().ok_or_else(|| {
                Error::invalid(p("app.schedule"), "required for onoff: [[on, off], ...]")
            })?;
            let mut last = SimDuration::ZERO;
            for (k, &(on, off)) in sched.iter().enumerate() {
                if off <= on || (k > 0 && on < last) {
                    return Err(Error::invalid(
                        format!("{entry}.app.schedule[{k}]"),
                        format!(
                            "windows must be increasing and not overlap: [{on}, {off}] after \
                             a window ending at {last}"
                        ),
                    ));
                }
                last = off;
                edges.push((SimTime::ZERO + on, true));
                edges.push((SimTime::ZERO + off, false));
            }
        }
    }
    Ok((super::app::app_edges(edges, f.stop), transfer))
}
