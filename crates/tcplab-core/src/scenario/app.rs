// SPDX-License-Identifier: MIT OR Apache-2.0
//! The application driving a TCP flow: its kind and fields.

use serde::{Deserialize, Serialize};

use super::workload;
use crate::time::{SimDuration, SimTime};
use crate::units::Bytes;

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Always has data to send (persistent, "FTP").
    Bulk,
    /// Sends `size` bytes, then closes; completion time is reported.
    Transfer,
    /// Has data to send only inside the ON windows of `schedule`.
    Onoff,
    /// Transfers arriving as a Poisson process (a workload of short
    /// flows); expanded into one transfer per arrival when checked.
    Poisson,
}

crate::deserialize_names!(AppKind {
    "bulk" => AppKind::Bulk,
    "transfer" => AppKind::Transfer,
    "onoff" => AppKind::Onoff,
    "poisson" => AppKind::Poisson,
});

/// The application driving a TCP flow.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub kind: AppKind,
    /// transfer: bytes to send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// onoff: [on, off] time pairs (absolute, increasing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<(SimDuration, SimDuration)>>,
    /// poisson: the offered load, a fraction of the path's bottleneck rate
    /// (sizes times arrivals per second, in payload bits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// poisson: arrivals per second (instead of `load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_rate: Option<f64>,
    /// poisson: the flow-size distribution, "websearch", "datamining" or a
    /// CDF as [[bytes, probability], ...].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<workload::SizeDist>,
    /// poisson: no arrivals from this time on (default: the end of the
    /// run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<SimDuration>,
}

/// The application's edges: `edges` (its windows, or its start) cut at the
/// flow's `stop`, which adds a final off edge, in time order.
pub(crate) fn app_edges(
    mut edges: Vec<(SimTime, bool)>,
    stop: Option<SimDuration>,
) -> Vec<(SimTime, bool)> {
    if let Some(stop) = stop {
        let stop = SimTime::ZERO + stop;
        edges.retain(|e| e.0 < stop);
        edges.push((stop, false));
    }
    edges.sort_by_key(|e| e.0);
    edges
}
