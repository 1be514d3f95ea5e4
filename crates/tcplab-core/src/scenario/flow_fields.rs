// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which fields a flow of each kind takes, and which of them a flow sets:
//! how a UDP field on a TCP flow (or the reverse) is refused by name.

use super::{FlowKind, FlowSpec};

impl FlowSpec {
    /// (field, is set) for every kind-specific field.
    pub fn kind_fields(&self) -> Vec<(&'static str, bool)> {
        vec![
            ("rate", self.rate.is_some()),
            ("size", self.size.is_some()),
            ("count", self.count.is_some()),
            ("cc", self.cc.is_some()),
            ("profile", self.profile.is_some()),
            ("ns3_release", self.ns3_release.is_some()),
            ("recovery", self.recovery.is_some()),
            ("mss", self.mss.is_some()),
            ("delayed_ack", self.delayed_ack.is_some()),
            ("delayed_ack_timeout", self.delayed_ack_timeout.is_some()),
            ("quick_acks", self.quick_acks.is_some()),
            ("rtt_sampling", self.rtt_sampling.is_some()),
            ("cc_rtt", self.cc_rtt.is_some()),
            ("sack", self.sack.is_some()),
            ("timestamps", self.timestamps.is_some()),
            ("window_scaling", self.window_scaling.is_some()),
            ("rcv_buf", self.rcv_buf.is_some()),
            ("initial_cwnd", self.initial_cwnd.is_some()),
            ("initial_ssthresh", self.initial_ssthresh.is_some()),
            ("abc", self.abc.is_some()),
            ("min_rto", self.min_rto.is_some()),
            ("max_rto", self.max_rto.is_some()),
            ("initial_rto", self.initial_rto.is_some()),
            ("clock_granularity", self.clock_granularity.is_some()),
            ("rto", self.rto.is_some()),
            ("restart_after_idle", self.restart_after_idle.is_some()),
            ("handshake", self.handshake.is_some()),
            ("recovery_exit", self.recovery_exit.is_some()),
            ("recovery_exit_growth", self.recovery_exit_growth.is_some()),
            ("rate_halving_floor", self.rate_halving_floor.is_some()),
            ("prr_form", self.prr_form.is_some()),
            ("timeout_ssthresh", self.timeout_ssthresh.is_some()),
            ("dupthresh", self.dupthresh.is_some()),
            ("limited_transmit", self.limited_transmit.is_some()),
            ("rescue_retransmit", self.rescue_retransmit.is_some()),
            ("slow_start", self.slow_start.is_some()),
            ("rack", self.rack.is_some()),
            ("tlp", self.tlp.is_some()),
            ("reno_recover_guard", self.reno_recover_guard.is_some()),
            (
                "fast_retransmit_restarts_rto",
                self.fast_retransmit_restarts_rto.is_some(),
            ),
            (
                "head_retransmit_restarts_rto",
                self.head_retransmit_restarts_rto.is_some(),
            ),
            ("ecn", self.ecn.is_some()),
            ("ecn_response", self.ecn_response.is_some()),
            ("app", self.app.is_some()),
        ]
    }
}

/// The fields each flow kind takes, beyond kind, name, src, dst, start, stop.
pub fn flow_kind_params(kind: FlowKind) -> &'static [&'static str] {
    match kind {
        FlowKind::Udp => &["rate", "size", "count"],
        FlowKind::Tcp => &[
            "cc",
            "profile",
            "ns3_release",
            "recovery",
            "mss",
            "delayed_ack",
            "delayed_ack_timeout",
            "quick_acks",
            "rtt_sampling",
            "cc_rtt",
            "sack",
            "timestamps",
            "window_scaling",
            "rcv_buf",
            "initial_cwnd",
            "initial_ssthresh",
            "abc",
            "min_rto",
            "max_rto",
            "initial_rto",
            "clock_granularity",
            "rto",
            "restart_after_idle",
            "handshake",
            "recovery_exit",
            "recovery_exit_growth",
            "rate_halving_floor",
            "prr_form",
            "timeout_ssthresh",
            "dupthresh",
            "limited_transmit",
            "rescue_retransmit",
            "slow_start",
            "rack",
            "tlp",
            "reno_recover_guard",
            "fast_retransmit_restarts_rto",
            "head_retransmit_restarts_rto",
            "ecn",
            "ecn_response",
            "app",
        ],
    }
}
