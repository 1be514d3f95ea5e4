// SPDX-License-Identifier: MIT OR Apache-2.0
//! The options that belong to one recovery or need one: rate halving's
//! floor, PRR's form, RACK and its tail loss probe, and how the window
//! comes down after an ECN echo. Each is filled in (and echoed) only where
//! it acts, and refused with the recovery named where it cannot.

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

/// Resolves them for a flow recovering by `recovery` (`sack`: the option is
/// on; `linux`, `ns3`: the flow's profile, ns-3 3.44's for `ns3`), filling
/// the defaults into `f`; `p` names a field for messages.
pub fn recovery_options(
    f: &mut FlowSpec,
    p: &dyn Fn(&str) -> String,
    recovery: Recovery,
    sack: bool,
    linux: bool,
    ns3: bool,
) -> Result<RecoveryOptions> {
    let rate_halving_floor = only_with(
        &mut f.rate_halving_floor,
        RateHalvingFloor::Ssthresh,
        ("rate_halving_floor", Recovery::RateHalving),
        recovery,
        p,
    )?;
    // ns-3 3.44's TcpPrrRecovery in the ns3 profile; RFC 9937's elsewhere.
    let prr_form = only_with(
        &mut f.prr_form,
        if ns3 { PrrForm::Ns3 } else { PrrForm::Rfc9937 },
        ("prr_form", Recovery::Prr),
        recovery,
        p,
    )?;
    // Linux: tcp_recovery = 1 (RACK), tcp_early_retrans = 3 (TLP).
    let sack_based = matches!(
        recovery,
        Recovery::Sack | Recovery::Prr | Recovery::RateHalving
    );
    let rack = *f.rack.get_or_insert(linux && sack && sack_based);
    let tlp = *f.tlp.get_or_insert(rack);
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
    let ecn_response = *f.ecn_response.get_or_insert(match recovery {
        Recovery::Prr if linux => EcnResponse::Linux,
        Recovery::Prr if ns3 => EcnResponse::Ns3,
        _ => EcnResponse::Immediate,
    });
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

/// An option (`field`, named `name`) of the recovery `own` alone: its
/// value, or `default` filled in so that it is echoed, when the flow
/// recovers by `own`; refused when it is set for another `recovery`; else
/// `default`, not echoed. `p` makes the field's path.
fn only_with<T: Copy>(
    field: &mut Option<T>,
    default: T,
    (name, own): (&str, Recovery),
    recovery: Recovery,
    p: &dyn Fn(&str) -> String,
) -> Result<T> {
    if recovery == own {
        Ok(*field.get_or_insert(default))
    } else if field.is_some() {
        Err(Error::invalid(
            p(name),
            format!(
                "applies to the {} recovery only (this flow's recovery is {})",
                own.name(),
                recovery.name()
            ),
        ))
    } else {
        Ok(default)
    }
}
