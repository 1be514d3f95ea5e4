// SPDX-License-Identifier: MIT OR Apache-2.0
//! Resolving a TCP flow: the settings profile, every default (with its
//! source in docs/tcp.md), the variant and its parameters, the application.
//! The defaults are written back into the scenario, so that every result
//! records exactly what ran.

use crate::cc::registry::{self, CcSpec, Ns3Release, Profile, VARIANTS};
use crate::cc::slow_start::SlowStartKind;
use crate::cc::{CongestionControl, CustomCc, Probe};
use crate::error::{Error, Result};
use crate::net::packet::{IPV4_HEADER, TCP_HEADER};
use crate::scenario::{concat, AppKind, FlowSpec, TraceKind, TraceSpec};
use crate::tcp::ca_rtt::CcRtt;
use crate::tcp::rtt::RtoPolicy;
use crate::tcp::rtt_timing::RttSampling;
use crate::tcp::{Recovery, RecoveryExit, RtoRestart, TcpConfig, TimeoutSsthresh};
use crate::time::{SimDuration, SimTime};
use crate::units::Bytes;

use super::recovery_options::{recovery_options, RecoveryOptions};

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
}

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
    let profile = *f.profile.get_or_insert(Profile::Paper);
    let linux = profile == Profile::Linux;
    let ns3 = profile == Profile::Ns3;
    if f.ns3_release.is_some() && !ns3 {
        return Err(Error::invalid_allowed(
            p("ns3_release"),
            format!("the {} profile has no ns-3 release", profile.name()),
            "profile = \"ns3\" with it, or leave it out",
        ));
    }
    // ns-3 3.18/3.19 (2013-2014): tcp-socket.cc, tcp-newreno.cc,
    // rtt-estimator.cc at that release (docs/tcp.md).
    let ns3_18 = ns3 && *f.ns3_release.get_or_insert(Ns3Release::V3_44) == Ns3Release::V3_18;
    // From here `ns3` means ns-3 3.44's defaults; 3.18's are `ns3_18`'s.
    let ns3 = ns3 && !ns3_18;
    // INET 2.x's TCP.ned and TCPBaseAlg (docs/tcp.md).
    let inet = profile == Profile::Inet;
    // ns-2.35's defaults, as `ns` prints them (docs/tcp.md).
    let ns2 = profile == Profile::Ns2;
    let spec = f.cc.get_or_insert_with(|| CcSpec::named("newreno")).clone();
    let mut user_cc = None;
    if spec.name == "python" {
        user_cc = Some(custom(flow).ok_or_else(|| {
            Error::invalid(
                p("cc"),
                "'python' names a variant written in Python: pass a tcplab.CongestionControl \
                 object as cc= from Python (it cannot be given in a file)",
            )
        })?);
    }
    let python_info = registry::VariantInfo {
        name: "python",
        recovery: "newreno",
        summary: "a variant written in Python",
    };
    let info = if user_cc.is_some() {
        Some(&python_info)
    } else {
        VARIANTS.iter().find(|v| v.name == spec.name)
    };
    let Some(info) = info else {
        let names: Vec<&str> = VARIANTS.iter().map(|v| v.name).chain(["python"]).collect();
        return Err(Error::invalid_allowed(
            p("cc"),
            format!("unknown variant '{}'", spec.name),
            names.join(", "),
        ));
    };
    let usual = if ns3_18 && info.name.starts_with("westwood") {
        // ns-3.18's TcpWestwood has its own Reno-style recovery: the first
        // new ACK ends it (tcp-westwood.cc DupAck, NewAck).
        Recovery::Reno
    } else if ns2 && info.name == "vegas" {
        // ns-2's Agent/TCP/Vegas (tcp/recovery/ns2_vegas.rs).
        Recovery::Ns2Vegas
    } else if ns2 && info.recovery == "sack" {
        // ns-2's SACK agent, Agent/TCP/Sack1 (tcp/recovery/sack1.rs).
        Recovery::Sack1
    } else if (linux || ns3) && info.name != "tahoe" {
        // Linux and ns-3 (since 3.32) reduce the window by PRR whatever the
        // congestion control: with SACK (their default) by RFC 6675's rules,
        // without it as NewReno; their congestion-control modules do not
        // choose.
        Recovery::Prr
    } else {
        Recovery::ALL
            .iter()
            .copied()
            .find(|r| r.name() == info.recovery)
            .ok_or_else(|| {
                Error::Internal(format!("{}: no recovery {}", info.name, info.recovery))
            })?
    };
    let recovery = *f.recovery.get_or_insert(usual);
    if recovery == Recovery::Ns2Vegas && spec.name != "vegas" {
        // (It reads the send times Vegas's fine retransmission keeps.)
        return Err(Error::invalid_allowed(
            p("recovery"),
            format!(
                "ns2_vegas is ns-2's Vegas recovery; this flow's cc is {}",
                spec.name
            ),
            "cc vegas with it, or another recovery",
        ));
    }
    let sack = *f.sack.get_or_insert(recovery.needs_sack() || linux || ns3);
    if recovery.needs_sack() && !sack {
        return Err(Error::invalid(
            p("sack"),
            format!("the {} recovery needs the SACK option on", recovery.name()),
        ));
    }
    let timestamps = *f.timestamps.get_or_insert(linux || ns3);
    // ns-3.18 parses no TCP options at all.
    let window_scaling = *f.window_scaling.get_or_insert(!ns2 && !ns3_18 && !inet);
    let base = crate::tcp::base_options(timestamps);
    let max_mss = path_mtu.saturating_sub(IPV4_HEADER + TCP_HEADER + base) as u64;
    // ns-2: packetSize_ 1000 B of payload (plus its 40-B header).
    // INET: mss 536.
    let usual_mss = if ns2 {
        max_mss.min(1000)
    } else if inet {
        max_mss.min(536)
    } else {
        max_mss
    };
    let mss = f.mss.get_or_insert(Bytes(usual_mss)).0;
    if !(8..=max_mss).contains(&mss) {
        return Err(Error::invalid_allowed(
            p("mss"),
            format!(
                "{mss} B does not fit: the smallest MTU on the path is {path_mtu} B, less 40 B \
                 of IPv4 and TCP headers{}",
                if timestamps {
                    " and 12 B of timestamps"
                } else {
                    ""
                }
            ),
            format!("8 to {max_mss} B"),
        ));
    }
    let rcv_buf = f
        .rcv_buf
        .get_or_insert(Bytes(if ns3 {
            128 << 10
        } else if ns3_18 {
            // RcvBufSize 128 KiB, advertised at most 65,535 B (no scaling).
            65_535
        } else if inet {
            14 * mss // advertisedWindow 14 * mss
        } else if ns2 {
            20 * mss // window_ 20 packets
        } else {
            4 << 20
        }))
        .0;
    let max_buf = if window_scaling {
        65_535u64 << 14
    } else {
        65_535
    };
    if rcv_buf < mss || rcv_buf > max_buf {
        return Err(Error::invalid_allowed(
            p("rcv_buf"),
            format!(
                "{rcv_buf} B cannot be advertised{}",
                if window_scaling {
                    ""
                } else {
                    " without window scaling"
                }
            ),
            format!("{mss} (one MSS) to {max_buf} B"),
        ));
    }
    // ns-2's Agent/TCPSink ACKs every packet; its DelAck sink waits 100 ms.
    // INET: delayedAcksEnabled false.
    let delayed_ack = *f.delayed_ack.get_or_insert(if ns2 || inet { 1 } else { 2 });
    if delayed_ack == 0 {
        return Err(Error::invalid_allowed(
            p("delayed_ack"),
            "0 is not a number of segments",
            "1 (an ACK per segment) to 65535",
        ));
    }
    let delayed_ack_timeout = *f
        .delayed_ack_timeout
        .get_or_insert(SimDuration::from_millis(if ns2 { 100 } else { 200 }));
    if delayed_ack_timeout.is_zero() {
        return Err(Error::invalid(
            p("delayed_ack_timeout"),
            "must be longer than 0 s",
        ));
    }
    // RFC 5681 3.1: 4 segments up to an SMSS of 1095 B, 3 up to 2190 B, else 2.
    let default_iw = match mss {
        0..=1095 => 4,
        1096..=2190 => 3,
        _ => 2,
    };
    let iw = *f.initial_cwnd.get_or_insert(if linux || ns3 {
        10
    } else if ns3_18 || inet {
        1 // ns-3.18 InitialCwnd; INET increasedIWEnabled false
    } else if ns2 {
        2 // windowInit_
    } else {
        default_iw as u32
    });
    if iw == 0 {
        return Err(Error::invalid_allowed(
            p("initial_cwnd"),
            "must be positive",
            ">= 1 segment",
        ));
    }
    if ns3_18 || inet {
        // ns-3.18 SlowStartThreshold 0xffff; INET TCPTahoeRenoFamily.
        f.initial_ssthresh.get_or_insert(Bytes(65_535));
    }
    let initial_ssthresh = f.initial_ssthresh.map_or(u64::MAX, |b| b.0);
    if initial_ssthresh < mss {
        return Err(Error::invalid_allowed(
            p("initial_ssthresh"),
            format!("{initial_ssthresh} B is less than one segment"),
            format!(">= {mss} B"),
        ));
    }
    // ns-3's TcpDctcp is a TcpLinuxReno, which counts bytes (its NewReno
    // does not).
    let abc = *f.abc.get_or_insert(linux || (ns3 && spec.name == "dctcp"));
    // ns-3.18: RttEstimator's MinRTO, 200 ms.
    let min_rto = *f.min_rto.get_or_insert(if linux || ns2 || ns3_18 {
        SimDuration::from_millis(200)
    } else {
        SimDuration::from_secs(1)
    });
    // INET: MAX_REXMIT_TIMEOUT 240 s.
    let max_rto = *f
        .max_rto
        .get_or_insert(SimDuration::from_secs(if inet { 240 } else { 60 }));
    // ns-2: rtxcur_init_ 3 s, tcpTick_ 10 ms; INET: 3 s.
    let initial_rto = *f
        .initial_rto
        .get_or_insert(SimDuration::from_secs(if ns2 || inet { 3 } else { 1 }));
    let clock_granularity = *f
        .clock_granularity
        .get_or_insert(SimDuration::from_millis(if ns2 { 10 } else { 1 }));
    if max_rto < min_rto {
        return Err(Error::invalid(
            p("max_rto"),
            format!("{max_rto} is below min_rto ({min_rto})"),
        ));
    }
    if initial_rto.is_zero() {
        return Err(Error::invalid(p("initial_rto"), "must be longer than 0 s"));
    }
    let restart_after_idle = *f.restart_after_idle.get_or_insert(true);
    // Every profile: ns-2.35's one-way agents model a SYN exchange too
    // (`syn_` and `delay_growth_` true since 2001).
    let handshake = *f.handshake.get_or_insert(true);
    let dupthresh = *f.dupthresh.get_or_insert(3);
    // (Held in 16 bits, to keep a connection in its cache lines.)
    let Ok(dupthresh) = u16::try_from(dupthresh) else {
        return Err(Error::invalid_allowed(
            p("dupthresh"),
            format!("{dupthresh} is too large"),
            "1 to 65535",
        ));
    };
    if dupthresh == 0 {
        return Err(Error::invalid_allowed(
            p("dupthresh"),
            "must be positive",
            "1 to 65535",
        ));
    }
    let RecoveryOptions {
        rate_halving_floor,
        prr_form,
        rack,
        ecn_response,
    } = recovery_options(f, &p, recovery, sack, linux, ns3)?;
    let cfg = TcpConfig {
        mss: mss as u32,
        recovery,
        sack,
        timestamps,
        window_scaling,
        rcv_buf,
        delayed_ack,
        delayed_ack_timeout,
        // ns-3 (3.18 and 3.44): "Always respond to first data packet to
        // speed up the connection" (m_delAckCount = m_delAckMaxCount once
        // the connection is established).
        quick_acks: *f
            .quick_acks
            .get_or_insert(if ns3 || ns3_18 { 1 } else { 0 }),
        // ns-3 (3.18's RttEstimator::AckSeq, 3.44's EstimateRtt) samples
        // every ACK from its RttHistory of sent segments.
        rtt_sampling: *f.rtt_sampling.get_or_insert(if ns3 || ns3_18 {
            RttSampling::Ack
        } else {
            RttSampling::Segment
        }),
        // Linux's modules are given the RTT of the newest segment an ACK
        // delivers (ca_rtt_us in tcp_clean_rtx_queue), as TCP-Linux's are.
        cc_rtt: *f.cc_rtt.get_or_insert(if linux {
            CcRtt::Newest
        } else {
            CcRtt::Estimator
        }),
        initial_cwnd: iw as u64 * mss,
        initial_ssthresh,
        min_rto,
        max_rto,
        initial_rto,
        clock_granularity,
        rto: *f.rto.get_or_insert(if linux {
            RtoPolicy::Linux
        } else if ns2 {
            RtoPolicy::Ns2
        } else if ns3_18 {
            RtoPolicy::Ns3_18
        } else if inet {
            RtoPolicy::Inet
        } else {
            RtoPolicy::Rfc6298
        }),
        restart_after_idle,
        dupthresh,
        // ns-3.18's TcpNewReno: LimitedTransmit false.
        // INET: limitedTransmitEnabled false.
        // ns-2's Agent/TCP/Vegas has its own recv, without singledup_: it
        // sends nothing on the first two duplicate ACKs.
        limited_transmit: *f
            .limited_transmit
            .get_or_insert(!ns3_18 && !inet && recovery != Recovery::Ns2Vegas),
        rescue_retransmit: *f.rescue_retransmit.get_or_insert(false),
        rate_halving_floor,
        prr_form,
        // ns-3 3.44's ReTxTimeout sets ssthresh at every timeout, from a
        // BytesInFlight that counts its retransmissions, and 3.18's
        // Retransmit at every one from all outstanding (timeout_ssthresh.rs).
        timeout_ssthresh: *f.timeout_ssthresh.get_or_insert(if ns3 {
            TimeoutSsthresh::Ns3
        } else if ns3_18 {
            TimeoutSsthresh::Ns3_18
        } else {
            TimeoutSsthresh::Rfc5681
        }),
        // Linux's CUBIC runs HyStart by default (tcp_cubic.c, hystart = 1).
        slow_start: *f
            .slow_start
            .get_or_insert(if linux && spec.name == "cubic" {
                SlowStartKind::Hystart
            } else {
                SlowStartKind::Standard
            }),
        rack,
        // ns-2's bugFix_ (on by default): its Reno needs an ACK above the
        // last recovery point for another fast retransmit. Its Vegas only
        // after a timeout (tcp-vegas.cc: `last_cwnd_action_ !=
        // CWND_ACTION_TIMEOUT`), which the Loss state already covers here.
        reno_recover_guard: *f
            .reno_recover_guard
            .get_or_insert(ns2 && spec.name != "vegas"),
        // ns-2's dupack_action: reset_rtx_timer(1, 0); Linux's
        // tcp_xmit_retransmit_queue rearms at each resend of the head
        // (docs/tcp.md).
        rto_restart: match (
            *f.head_retransmit_restarts_rto.get_or_insert(linux),
            *f.fast_retransmit_restarts_rto.get_or_insert(ns2),
        ) {
            (true, _) => RtoRestart::HeadRetransmit,
            (false, true) => RtoRestart::FastRetransmit,
            (false, false) => RtoRestart::Ack,
        },
        // DCTCP needs ECN (RFC 8257 3.1); for the others, as Linux and
        // ns-3 by default, only when asked.
        ecn: *f.ecn.get_or_insert(spec.name == "dctcp"),
        ecn_per_segment: false, // the variant's (below)
        ecn_response,
        fine_timeout: Default::default(), // the variant's (below)
        retransmit_backoff: false,        // the variant's (below)
        recovery_exit: *f.recovery_exit.get_or_insert(if linux || ns3 || ns2 {
            RecoveryExit::Ssthresh
        } else {
            RecoveryExit::Flight
        }),
        // ns-3 3.44's ProcessAck, and 3.18's TcpNewReno::NewAck, grow the
        // window on the ACK that ends the recovery; so do ns-2's Reno and
        // NewReno (recv_newack_helper's opencwnd) and its Vegas (its step on
        // every new ACK), but not its Sack1 (newack alone).
        recovery_exit_growth: *f.recovery_exit_growth.get_or_insert(
            ns3 || ns3_18
                || (ns2
                    && matches!(
                        recovery,
                        Recovery::Reno | Recovery::Newreno | Recovery::Ns2Vegas
                    )),
        ),
    };
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
            if ns3_18 && registry::RENO_GROWTH.contains(&spec.name.as_str()) {
                spec.params
                    .entry("halve")
                    .or_insert_with(|| "flightsize".into());
            }
            registry::build(&spec, &p("cc"), profile, abc)?
        }
    };
    if cfg.slow_start != SlowStartKind::Standard && built.cc.controls_fully() {
        return Err(Error::invalid_allowed(
            p("slow_start"),
            format!("'{}' sets its window itself, without slow start", spec.name),
            "standard",
        ));
    }
    let custom_cc = spec.name == "python";
    let mut cfg = cfg;
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
    let fine_retransmit = built.fine_retransmit;
    let probes = built.cc.probes();
    let variant = spec.name.clone();

    // The application.
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
    let edges = super::app::app_edges(edges, f.stop);

    let series = super::trace::series_for(trace, &probes);
    Ok(TcpPlan {
        cfg,
        cc: built.cc,
        cc_name: variant.into(),
        custom_cc,
        fine_retransmit,
        edges,
        transfer,
        series,
        probes,
        events: trace.contains(&TraceSpec::Kind(TraceKind::Events)),
        handshake,
    })
}
