// SPDX-License-Identifier: MIT OR Apache-2.0
//! The options that belong to one recovery or need one: rate halving's
//! floor, PRR's form, RACK and its tail loss probe, and how the window
//! comes down after an ECN echo. The profile table fills each in (and so
//! echoes it) only where it acts; here each is refused with the recovery
//! named where it cannot act.

use super::profile_rows::{PRR_FORM, RATE_HALVING_FLOOR};
use super::profile_table::Column;
use super::tcp_check::filled;
use crate::error::{Error, Result};
use crate::scenario::FlowSpec;
use crate::tcp::{EcnResponse, PrrForm, RackMode, RateHalvingFloor, Recovery};

/// A flow's recovery options, resolved.
pub struct RecoveryOptions {
    pub rate_halving_floor: RateHalvingFloor,
    pub prr_form: PrrForm,
    pub rack: RackMode,
    pub ecn_response: EcnResponse,
}

/// Checks them for a flow whose defaults the table's column `col` filled;
/// a recovery's own option on a flow recovering otherwise runs at its
/// column's value. `p` names a field for messages.
pub fn recovery_options(
    f: &FlowSpec,
    p: &dyn Fn(&str) -> String,
    col: Column,
) -> Result<RecoveryOptions> {
    let recovery = filled(f.recovery, "recovery")?;
    let sack = filled(f.sack, "sack")?;
    only_with(
        f.rate_halving_floor,
        ("rate_halving_floor", Recovery::RateHalving),
        recovery,
        p,
    )?;
    let rate_halving_floor = filled(
        f.rate_halving_floor.or(RATE_HALVING_FLOOR.constant(col)),
        "rate_halving_floor",
    )?;
    only_with(f.prr_form, ("prr_form", Recovery::Prr), recovery, p)?;
    let prr_form = filled(f.prr_form.or(PRR_FORM.constant(col)), "prr_form")?;
    let sack_based = matches!(
        recovery,
        Recovery::Sack | Recovery::Prr | Recovery::RateHalving
    );
    let rack = filled(f.rack, "rack")?;
    let tlp = filled(f.tlp, "tlp")?;
    if rack && !sack {
        return Err(Error::invalid(
            p("rack"),
            "RACK needs the SACK option on (RFC 8985)",
        ));
    }
    if tlp && !rack {
        return Err(Error::invalid(
            p("tlp"),
            "the tail loss probe needs rack on (RFC 8985)",
        ));
    }
    if rack && !sack_based {
        return Err(Error::invalid_allowed(
            p("rack"),
            format!("RACK does not drive the {} recovery", recovery.name()),
            "recovery sack or prr",
        ));
    }
    // Linux and ns-3 bring the window down through PRR after an echo
    // (their CWR state), which needs the prr recovery's machinery.
    let ecn_response = filled(f.ecn_response, "ecn_response")?;
    if ecn_response != EcnResponse::Immediate && recovery != Recovery::Prr {
        return Err(Error::invalid_allowed(
            p("ecn_response"),
            format!(
                "the {} response paces its reduction by PRR, which the {} recovery lacks",
                ecn_response.name(),
                recovery.name()
            ),
            "immediate, or recovery = \"prr\"",
        ));
    }
    Ok(RecoveryOptions {
        rate_halving_floor,
        prr_form,
        rack: match (rack, tlp) {
            (false, _) => RackMode::Off,
            (true, false) => RackMode::On,
            (true, true) => RackMode::WithTlp,
        },
        ecn_response,
    })
}

/// An option (`field`, named `name`) of the recovery `own` alone: refused
/// when it is set for another `recovery` (the table fills it only for
/// `own`). `p` makes the field's path.
fn only_with<T>(
    field: Option<T>,
    (name, own): (&str, Recovery),
    recovery: Recovery,
    p: &dyn Fn(&str) -> String,
) -> Result<()> {
    if recovery != own && field.is_some() {
        return Err(Error::invalid(
            p(name),
            format!(
                "applies to the {} recovery only (this flow's recovery is {})",
                own.name(),
                recovery.name()
            ),
        ));
    }
    Ok(())
}
