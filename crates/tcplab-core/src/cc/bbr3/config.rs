// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBRv2/v3's settings (`Bbr3Config`), each version's constants
//! (`Params`) and the fixed-point units.

use serde::{Deserialize, Serialize};

use crate::time::SimDuration;

/// Bandwidth: packets per microsecond << 24; gains: << 8.
pub(super) const BW_SCALE: u32 = 24;
pub(super) const BW_UNIT: u64 = 1 << BW_SCALE;
pub(super) const BBR_SCALE: u32 = 8;
pub(super) const UNIT: u64 = 1 << BBR_SCALE;
/// Linux's ~0U: a bound not set.
pub(super) const UNSET: u64 = u32::MAX as u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BbrVersion {
    V2,
    V3,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bbr3Config {
    pub version: BbrVersion,
    /// The fraction of a flight lost above which a bandwidth probe went
    /// too far (`bbr_loss_thresh`, 2%).
    pub loss_thresh: f64,
    /// The cut of the lower bounds per round with loss (`bbr_beta`, 30%).
    pub beta: f64,
    /// The fraction of delivered data CE-marked above which a probe went
    /// too far (`bbr_ecn_thresh`, 50%).
    pub ecn_thresh: f64,
    /// The headroom left below inflight_hi after a probe found it
    /// (`bbr_inflight_headroom`, 15%).
    pub inflight_headroom: f64,
    /// The path marks CE at a shallow threshold (Linux's per-route
    /// `ecn_low`; v2's `bbr_ecn_enable`): BBR then takes ECN as a signal,
    /// with a min RTT of at most 5 ms. Off: ECN echoes are ignored, as
    /// Linux does by default.
    pub ecn: bool,
}

impl Bbr3Config {
    pub fn linux(version: BbrVersion) -> Self {
        Bbr3Config {
            version,
            loss_thresh: 0.02,
            beta: 0.3,
            ecn_thresh: 0.5,
            inflight_headroom: 0.15,
            ecn: false,
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let frac = |name: &'static str, v: f64, hi_open: bool| {
            let ok = v.is_finite() && v >= 0.0 && if hi_open { v < 1.0 } else { v <= 1.0 };
            if ok {
                Ok(())
            } else {
                let range = if hi_open { "[0, 1)" } else { "[0, 1]" };
                Err((name, format!("{v} must be in {range}")))
            }
        };
        // In BBR's fixed point (1/256ths) a threshold below 1/256 is 0.
        let lt = self.loss_thresh;
        if !(lt.is_finite() && (1.0 / 256.0..1.0).contains(&lt)) {
            return Err(("loss_thresh", format!("{lt} must be in [1/256, 1)")));
        }
        frac("beta", self.beta, true)?;
        frac("ecn_thresh", self.ecn_thresh, false)?;
        frac("inflight_headroom", self.inflight_headroom, true)
    }
}

/// A fraction in BBR's fixed point (truncated, as Linux's `BBR_UNIT * n /
/// 100`).
pub(super) fn fixed(x: f64) -> u64 {
    (x * UNIT as f64) as u64
}

/// The version's constants, in BBR_UNIT.
#[derive(Clone, Debug)]
pub(super) struct Params {
    pub(super) v3: bool,
    pub(super) startup_pacing_gain: u64,
    pub(super) startup_cwnd_gain: u64,
    pub(super) pacing_gain: [u64; 4],
    /// PROBE_UP's cwnd gain increment, in BBR_UNIT / 4.
    pub(super) bw_probe_cwnd_gain: u64,
    pub(super) full_loss_cnt: u32,
    pub(super) ecn_reprobe_gain: u64,
    pub(super) loss_thresh: u64,
    pub(super) beta: u64,
    pub(super) ecn_thresh: u64,
    pub(super) inflight_headroom: u64,
    pub(super) ecn: bool,
}

pub(super) const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
pub(super) const CWND_GAIN: u64 = UNIT * 2;
pub(super) const CWND_MIN_TARGET: u64 = 4;
pub(super) const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
pub(super) const FULL_BW_CNT: u32 = 3;
pub(super) const FULL_ECN_CNT: u32 = 2;
pub(super) const ECN_ALPHA_GAIN: u64 = UNIT / 16;
pub(super) const ECN_FACTOR: u64 = UNIT / 3;
pub(super) const ECN_MAX_RTT_US: u64 = 5000;
pub(super) const PROBE_RTT_CWND_GAIN: u64 = UNIT / 2;
pub(super) const PROBE_RTT_MODE: SimDuration = SimDuration::from_millis(200);
pub(super) const PROBE_RTT_WIN: SimDuration = SimDuration::from_millis(5000);
pub(super) const MIN_RTT_WIN: SimDuration = SimDuration::from_secs(10);
pub(super) const BW_PROBE_MAX_ROUNDS: u64 = 63;
pub(super) const BW_PROBE_RAND_ROUNDS: u64 = 2;
pub(super) const BW_PROBE_BASE_US: u64 = 2_000_000;
pub(super) const BW_PROBE_RAND_US: u64 = 1_000_000;
pub(super) const EXTRA_ACKED_WIN_RTTS: u32 = 5;
pub(super) const EXTRA_ACKED_MAX_US: u64 = 100_000;
pub(super) const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
pub(super) const PACING_MARGIN_PERCENT: u64 = 1;

impl Params {
    pub(super) fn of(c: &Bbr3Config) -> Params {
        let v3 = c.version == BbrVersion::V3;
        Params {
            v3,
            startup_pacing_gain: if v3 {
                UNIT * 277 / 100 + 1
            } else {
                UNIT * 2885 / 1000 + 1
            },
            startup_cwnd_gain: if v3 { UNIT * 2 } else { UNIT * 2885 / 1000 + 1 },
            pacing_gain: [
                UNIT * 5 / 4,
                if v3 { UNIT * 91 / 100 } else { UNIT * 3 / 4 },
                UNIT,
                UNIT,
            ],
            bw_probe_cwnd_gain: if v3 { 1 } else { 0 },
            full_loss_cnt: if v3 { 6 } else { 8 },
            ecn_reprobe_gain: if v3 { UNIT / 2 } else { 0 },
            loss_thresh: fixed(c.loss_thresh),
            beta: fixed(c.beta),
            ecn_thresh: fixed(c.ecn_thresh),
            inflight_headroom: fixed(c.inflight_headroom),
            ecn: c.ecn,
        }
    }
}
