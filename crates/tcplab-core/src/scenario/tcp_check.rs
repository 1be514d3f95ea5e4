// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checking a TCP flow once the profile table has filled its defaults
//! ([`super::profile_table::fill`]): every refusal names the field, in the
//! order a reader of the flow meets them.

use crate::error::{Error, Result};
use crate::net::packet::{IPV4_HEADER, TCP_HEADER};
use crate::scenario::FlowSpec;
use crate::tcp::Recovery;

/// A filled field's value (the table fills every TCP field it has a row
/// for, so this only fails on a bug).
pub(super) fn filled<T: Copy>(x: Option<T>, field: &str) -> Result<T> {
    x.ok_or_else(|| Error::Internal(format!("the profile table left {field} unset")))
}

/// Checks the filled TCP fields of `f` (cc `variant`, over a path whose
/// smallest MTU is `path_mtu`); `p` makes a field's path.
pub(super) fn check(
    f: &FlowSpec,
    p: &dyn Fn(&str) -> String,
    path_mtu: u32,
    variant: &str,
) -> Result<()> {
    let recovery = filled(f.recovery, "recovery")?;
    if recovery == Recovery::Ns2Vegas && variant != "vegas" {
        // (It reads the send times Vegas's fine retransmission keeps.)
        return Err(Error::invalid_allowed(
            p("recovery"),
            format!("ns2_vegas is ns-2's Vegas recovery; this flow's cc is {variant}"),
            "cc vegas with it, or another recovery",
        ));
    }
    if recovery.needs_sack() && !filled(f.sack, "sack")? {
        return Err(Error::invalid(
            p("sack"),
            format!("the {} recovery needs the SACK option on", recovery.name()),
        ));
    }
    let mss = check_sizes(f, p, path_mtu)?;
    check_acks_and_window(f, p, mss)?;
    check_timers(f, p)
}

/// The MSS against the path, and the receive buffer; returns the MSS.
fn check_sizes(f: &FlowSpec, p: &dyn Fn(&str) -> String, path_mtu: u32) -> Result<u64> {
    let timestamps = filled(f.timestamps, "timestamps")?;
    let window_scaling = filled(f.window_scaling, "window_scaling")?;
    let base = crate::tcp::base_options(timestamps);
    let max_mss = path_mtu.saturating_sub(IPV4_HEADER + TCP_HEADER + base) as u64;
    let mss = filled(f.mss, "mss")?.0;
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
    let rcv_buf = filled(f.rcv_buf, "rcv_buf")?.0;
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
    Ok(mss)
}

/// Delayed ACKs, the initial window and threshold (`mss`: the flow's).
fn check_acks_and_window(f: &FlowSpec, p: &dyn Fn(&str) -> String, mss: u64) -> Result<()> {
    if filled(f.delayed_ack, "delayed_ack")? == 0 {
        return Err(Error::invalid_allowed(
            p("delayed_ack"),
            "0 is not a number of segments",
            "1 (an ACK per segment) to 65535",
        ));
    }
    if filled(f.delayed_ack_timeout, "delayed_ack_timeout")?.is_zero() {
        return Err(Error::invalid(
            p("delayed_ack_timeout"),
            "must be longer than 0 s",
        ));
    }
    if filled(f.initial_cwnd, "initial_cwnd")? == 0 {
        return Err(Error::invalid_allowed(
            p("initial_cwnd"),
            "must be positive",
            ">= 1 segment",
        ));
    }
    let initial_ssthresh = f.initial_ssthresh.map_or(u64::MAX, |b| b.0);
    if initial_ssthresh < mss {
        return Err(Error::invalid_allowed(
            p("initial_ssthresh"),
            format!("{initial_ssthresh} B is less than one segment"),
            format!(">= {mss} B"),
        ));
    }
    Ok(())
}

/// Linux's ACK timing decides itself which ACKs go at once: `quick_acks`
/// set by the flow (`set`) to more than 0 is refused, and a profile's value
/// becomes 0 (as the effective scenario shows).
pub(super) fn check_ack_timing(
    f: &mut FlowSpec,
    p: &dyn Fn(&str) -> String,
    set: bool,
) -> Result<()> {
    if filled(f.ack_timing, "ack_timing")? != crate::tcp::receiver::AckTiming::Linux {
        return Ok(());
    }
    if set && f.quick_acks != Some(0) {
        return Err(Error::invalid_allowed(
            p("quick_acks"),
            "not used with ack_timing = \"linux\" (Linux's quick-ACK mode decides which ACKs go \
             at once)",
            "0, unset, or ack_timing = \"fixed\"",
        ));
    }
    f.quick_acks = Some(0);
    Ok(())
}

/// The retransmission timer's bounds and the duplicate-ACK threshold.
fn check_timers(f: &FlowSpec, p: &dyn Fn(&str) -> String) -> Result<()> {
    let min_rto = filled(f.min_rto, "min_rto")?;
    let max_rto = filled(f.max_rto, "max_rto")?;
    if max_rto < min_rto {
        return Err(Error::invalid(
            p("max_rto"),
            format!("{max_rto} is below min_rto ({min_rto})"),
        ));
    }
    if filled(f.initial_rto, "initial_rto")?.is_zero() {
        return Err(Error::invalid(p("initial_rto"), "must be longer than 0 s"));
    }
    let dupthresh = filled(f.dupthresh, "dupthresh")?;
    // (Held in 16 bits, to keep a connection in its cache lines.)
    if u16::try_from(dupthresh).is_err() {
        return Err(Error::invalid_allowed(
            p("dupthresh"),
            format!("{dupthresh} is too large"),
            "1 to 65535",
        ));
    }
    if dupthresh == 0 {
        return Err(Error::invalid_allowed(
            p("dupthresh"),
            "must be positive",
            "1 to 65535",
        ));
    }
    Ok(())
}

/// The pacing fields: `true` becomes the profile's form (linux under the
/// linux profile, ns3 under ns3 3.44, segment under the others and ns-3.18,
/// which has no pacing), so that the
/// effective scenario names it; the ratios are 1 to 1000 percent (Linux's
/// sysctls' range); bbr is refused unpaced.
pub(super) fn check_pacing(
    f: &mut FlowSpec,
    p: &dyn Fn(&str) -> String,
    col: super::profile_table::Column,
    variant: &str,
) -> Result<()> {
    use super::profile_table::Column;
    use crate::tcp::Pacing;
    let pacing = filled(f.pacing, "pacing")?;
    if pacing == Pacing::On {
        f.pacing = Some(match col {
            Column::Linux => Pacing::Linux,
            Column::Ns3 => Pacing::Ns3,
            _ => Pacing::Segment,
        });
    }
    for (field, v) in [
        ("pacing_ss_ratio", f.pacing_ss_ratio),
        ("pacing_ca_ratio", f.pacing_ca_ratio),
    ] {
        let v = filled(v, field)?;
        if !(1..=1000).contains(&v) {
            return Err(Error::invalid_allowed(
                p(field),
                format!("{v} percent is not a pacing ratio"),
                "1 to 1000 (percent of cwnd / srtt; Linux's and ns-3's defaults: 200 and 120)",
            ));
        }
    }
    if pacing == Pacing::Off && variant == "bbr" {
        return Err(Error::invalid_allowed(
            p("pacing"),
            "bbr paces by design (its model is a rate); it cannot run unpaced",
            "true, \"linux\", \"ns3\" or \"segment\", or leave it out",
        ));
    }
    Ok(())
}
