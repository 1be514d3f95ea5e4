// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBRv2/v3's model and control: the bandwidth and inflight bounds, the
//! pacing rate, cwnd and its caps, and the congestion signals (loss rounds,
//! ECN's alpha), each named after the Linux function it follows.

use super::*;

impl Bbr3 {
    /// `bbr_max_bw`: the 2-slot max filter of bandwidth samples (bw_hi).
    pub(super) fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// `bbr_bw`: the estimate, the max filter capped by bw_lo.
    pub(super) fn bw(&self) -> u64 {
        self.max_bw().min(self.bw_lo)
    }

    fn extra_acked_max(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`, in Linux's order of operations.
    fn rate_bytes_per_sec(&self, bw: u64, gain: u64, margin: u64) -> u64 {
        let mut rate = bw as u128 * self.mss as u128;
        rate *= gain as u128;
        rate >>= BBR_SCALE;
        rate *= (1_000_000 / 100 * (100 - margin)) as u128;
        rate >>= BW_SCALE;
        (rate as u64).max(1)
    }

    pub(super) fn bw_bytes_per_sec(&self, bw: u64) -> u64 {
        self.rate_bytes_per_sec(bw, UNIT, 0)
    }

    fn bw_to_pacing_rate(&self, bw: u64, gain: u64) -> u64 {
        self.rate_bytes_per_sec(bw, gain, PACING_MARGIN_PERCENT)
    }

    /// `bbr_init_pacing_rate_from_rtt`: startup gain x cwnd / srtt (1 ms
    /// before any RTT).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, tcb: &mut Tcb) {
        let rtt_us = match tcb.srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s.as_nanos() / 1000).max(1)
            }
            None => 1000,
        };
        let bw = self.cwnd(tcb) * BW_UNIT / rtt_us;
        tcb.pacing_rate = self.bw_to_pacing_rate(bw, self.p.startup_pacing_gain) as f64;
    }

    /// `bbr_set_pacing_rate`: before the pipe is full, only upwards.
    pub(super) fn set_pacing_rate(&mut self, tcb: &mut Tcb, bw: u64, gain: u64) {
        let rate = self.bw_to_pacing_rate(bw, gain) as f64;
        if !self.has_seen_rtt && tcb.srtt.is_some() {
            self.init_pacing_rate_from_rtt(tcb);
        }
        if self.full_bw_reached || rate > tcb.pacing_rate {
            tcb.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal`: segments per skb from the pacing rate (~1 ms)
    /// plus 64 KB halved per 512 us of min RTT, under 64 KB less headers;
    /// at least 2 (v3's `tcp_min_tso_segs`), or v2's 1 below 150 kB/s.
    pub(super) fn tso_segs_goal(&self, tcb: &Tcb) -> u64 {
        const GSO_MAX: u64 = 65_536;
        const MAX_TCP_HEADER: u64 = 320;
        let rate = tcb.pacing_rate.max(0.0) as u64;
        let mut bytes = rate >> 10;
        let r = self.min_rtt_us >> 9;
        if r < 32 {
            bytes += GSO_MAX >> r;
        }
        let bytes = bytes.min(GSO_MAX - 1 - MAX_TCP_HEADER);
        let min = if self.p.v3 || rate >= 1_200_000 >> 3 {
            2
        } else {
            1
        };
        (bytes / self.mss).max(min)
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain), or the initial window before
    /// an RTT is known.
    pub(super) fn bdp(&self, bw: u64, gain: u64) -> u64 {
        if self.min_rtt_us == UNSET {
            return self.init_cwnd;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        (((w * gain as u128) >> BBR_SCALE) as u64).div_ceil(BW_UNIT)
    }

    /// `bbr_quantization_budget`: room for 3 skbs, at least 4 packets, 2
    /// more in PROBE_UP.
    pub(super) fn quantization_budget(&self, tcb: &Tcb, cwnd: u64) -> u64 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal(tcb)).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    pub(super) fn inflight(&self, tcb: &Tcb, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(tcb, self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will be in flight when the next
    /// skb departs, at the estimated bandwidth.
    pub(super) fn packets_in_net_at_edt(
        &self,
        tcb: &Tcb,
        rs: &RateSample,
        inflight_now: u64,
    ) -> u64 {
        let interval_us = rs.departure_wait.as_nanos() / 1000;
        let interval_delivered = ((self.bw() as u128 * interval_us as u128) >> BW_SCALE) as u64;
        let mut at_edt = inflight_now;
        if self.pacing_gain > UNIT {
            at_edt += self.tso_segs_goal(tcb);
        }
        at_edt.saturating_sub(interval_delivered)
    }

    fn ack_aggregation_cwnd(&self) -> u64 {
        let max_aggr = self.bw() * EXTRA_ACKED_MAX_US / BW_UNIT;
        self.extra_acked_max().min(max_aggr)
    }

    /// `bbr_probe_rtt_cwnd`: half the BDP, at least 4.
    pub(super) fn probe_rtt_cwnd(&self) -> u64 {
        CWND_MIN_TARGET.max(self.bdp(self.bw(), PROBE_RTT_CWND_GAIN))
    }

    /// `bbr_set_cwnd`: toward the BDP target plus aggregation, growing by
    /// what was delivered; before the pipe is full never cut.
    pub(super) fn set_cwnd(&mut self, tcb: &mut Tcb, acked: u64, bw: u64, gain: u64) {
        let mut cwnd = self.cwnd(tcb);
        if acked > 0 {
            let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
            let target = self.quantization_budget(tcb, target);
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        self.set_cwnd_pkts(tcb, cwnd);
    }

    /// `bbr_update_ack_aggregation`: the most data ACKed beyond bw x time
    /// in an epoch, max-filtered over 5-10 rounds (1-2 in startup).
    pub(super) fn update_ack_aggregation(&mut self, tcb: &Tcb, s: &Sample) {
        if s.acked_sacked == 0 || s.delivered < 0 || s.interval_us <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            let thresh = if self.full_bw_reached {
                EXTRA_ACKED_WIN_RTTS
            } else {
                1
            };
            if self.extra_acked_win_rtts >= thresh {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = (self.delivered_mstamp - self.ack_epoch_mstamp).as_nanos() / 1000;
        let mut expected = self.bw() * epoch_us / BW_UNIT;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + s.acked_sacked >= ACK_EPOCH_ACKED_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + s.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd(tcb));
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_target_inflight`: the BDP, unless congestion cut cwnd below.
    pub(super) fn target_inflight(&self, tcb: &Tcb) -> u64 {
        self.inflight(tcb, self.bw(), UNIT).min(self.cwnd(tcb))
    }

    /// `bbr_is_inflight_too_high`: more than 2% of the flight lost, or
    /// (ECN eligible) more than half of what was delivered CE-marked (v2:
    /// at least half).
    pub(super) fn is_inflight_too_high(&self, s: &Sample) -> bool {
        if s.lost > 0 && s.tx_in_flight > 0 {
            let thresh = (s.tx_in_flight * self.p.loss_thresh) >> BBR_SCALE;
            if s.lost > thresh {
                return true;
            }
        }
        if s.delivered_ce > 0 && s.delivered > 0 && self.ecn_eligible && self.p.ecn_thresh > 0 {
            let thresh = (s.delivered as u64 * self.p.ecn_thresh) >> BBR_SCALE;
            if s.delivered_ce > thresh || (!self.p.v3 && s.delivered_ce >= thresh) {
                return true;
            }
        }
        false
    }

    /// `bbr_inflight_hi_from_lost_skb`: the flight at which the loss rate
    /// crossed the threshold, within the lost skb.
    pub(super) fn inflight_hi_from_lost_skb(&self, s: &Sample, pcount: u64) -> u64 {
        let (Some(inflight_prev), Some(lost_prev)) = (
            s.tx_in_flight.checked_sub(pcount),
            s.lost.checked_sub(pcount),
        ) else {
            return UNSET;
        };
        let budget = (inflight_prev * self.p.loss_thresh + UNIT - 1) >> BBR_SCALE;
        let prefix = if lost_prev >= budget {
            0
        } else {
            ((budget - lost_prev) << BBR_SCALE) / (UNIT - self.p.loss_thresh)
        };
        inflight_prev + prefix
    }

    /// `bbr_inflight_with_headroom`: inflight_hi less 15%, at least 4.
    pub(super) fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == UNSET {
            return UNSET;
        }
        let headroom = ((self.inflight_hi * self.p.inflight_headroom) >> BBR_SCALE).max(1);
        (self.inflight_hi as i64 - headroom as i64).max(CWND_MIN_TARGET as i64) as u64
    }

    /// `bbr_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&self, tcb: &mut Tcb) {
        let mut cap = UNSET;
        if self.mode == Mode::ProbeBw && self.cycle_idx != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        let cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        let cwnd = self.cwnd(tcb).min(cap);
        self.set_cwnd_pkts(tcb, cwnd);
    }

    /// `bbr_adapt_lower_bounds`: once per round with loss or ECN while not
    /// probing, cut bw_lo and inflight_lo (by beta for loss, by alpha x
    /// 1/3 for ECN), never below what the last round delivered.
    fn adapt_lower_bounds(&mut self, tcb: &Tcb) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = UNSET;
        if self.ecn_in_round && (self.p.v3 || self.ecn_eligible) {
            if self.inflight_lo == UNSET {
                self.inflight_lo = self.cwnd(tcb);
            }
            let cut = UNIT - ((self.ecn_alpha * ECN_FACTOR) >> BBR_SCALE);
            ecn_inflight_lo = (self.inflight_lo * cut) >> BBR_SCALE;
        }
        if self.loss_in_round {
            if self.bw_lo == UNSET {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo == UNSET {
                self.inflight_lo = self.cwnd(tcb);
            }
            let cut = UNIT - self.p.beta;
            self.bw_lo = self.bw_latest.max((self.bw_lo * cut) >> BBR_SCALE);
            self.inflight_lo = self
                .inflight_latest
                .max((self.inflight_lo * cut) >> BBR_SCALE);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        if self.p.v3 {
            self.bw_lo = self.bw_lo.max(1);
        }
    }

    /// `bbr_reset_lower_bounds`.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = UNSET;
        self.inflight_lo = UNSET;
    }

    /// `bbr_reset_congestion_signals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// v3's `bbr_update_latest_delivery_signals`: the round's max rate and
    /// delivered volume, and the loss round's end.
    pub(super) fn update_latest_delivery_signals(&mut self, s: &Sample) {
        self.loss_round_start = false;
        if s.interval_us <= 0 || s.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(self.sample_bw);
        self.inflight_latest = self.inflight_latest.max(s.delivered.max(0) as u64);
        if s.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// `bbr_update_congestion_signals` (v2's also tracks the latest
    /// delivery and the loss round itself).
    pub(super) fn update_congestion_signals(&mut self, tcb: &Tcb, s: &Sample) {
        if !self.p.v3 {
            self.loss_round_start = false;
        }
        if s.interval_us <= 0 || s.acked_sacked == 0 {
            return;
        }
        let bw = self.sample_bw;
        if !s.is_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
        self.loss_in_round |= s.losses > 0;
        if !self.p.v3 {
            self.bw_latest = self.bw_latest.max(bw);
            self.inflight_latest = self.inflight_latest.max(s.delivered.max(0) as u64);
            if s.prior_delivered < self.loss_round_delivered {
                return;
            }
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        } else if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(tcb);
        self.loss_in_round = false;
        self.ecn_in_round = false;
        if !self.p.v3 {
            self.bw_latest = bw;
            self.inflight_latest = s.delivered.max(0) as u64;
        }
    }

    /// `bbr_update_ecn_alpha`, at a round's start: eligibility (ECN on the
    /// path and a min RTT of at most 5 ms), the EWMA of the CE fraction,
    /// and startup's exit on two rounds above the threshold.
    pub(super) fn update_ecn_alpha(&mut self, tcb: &Tcb) {
        if !self.ecn_eligible && self.p.ecn && self.min_rtt_us <= ECN_MAX_RTT_US {
            self.ecn_eligible = true;
        }
        if self.p.v3 && !self.ecn_eligible {
            return;
        }
        let delivered = self.pkts(self.delivered) - self.pkts(self.alpha_last_delivered);
        let delivered_ce = self.pkts(self.delivered_ce) - self.pkts(self.alpha_last_delivered_ce);
        if delivered == 0 {
            return;
        }
        let ce_ratio = (delivered_ce << BBR_SCALE) / delivered;
        let alpha = (((UNIT - ECN_ALPHA_GAIN) * self.ecn_alpha) >> BBR_SCALE)
            + ((ECN_ALPHA_GAIN * ce_ratio) >> BBR_SCALE);
        self.ecn_alpha = alpha.min(UNIT);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        if self.full_bw_reached || !self.ecn_eligible || self.p.ecn_thresh == 0 {
            return;
        }
        if ce_ratio >= self.p.ecn_thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_CNT {
            self.handle_queue_too_high_in_startup(tcb);
        }
    }

    /// `bbr_handle_queue_too_high_in_startup`: the pipe is full; inflight_hi
    /// at the BDP (v3: or the last round's delivered volume, if more).
    pub(super) fn handle_queue_too_high_in_startup(&mut self, tcb: &Tcb) {
        self.full_bw_reached = true;
        let bdp = self.inflight(tcb, self.max_bw(), UNIT);
        self.inflight_hi = if self.p.v3 {
            bdp.max(self.inflight_latest)
        } else {
            bdp
        };
    }

    /// `bbr_update_gains`.
    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.startup_pacing_gain, self.p.startup_cwnd_gain),
            Mode::Drain => (DRAIN_GAIN, self.p.startup_cwnd_gain),
            Mode::ProbeBw => {
                let mut cwnd_gain = CWND_GAIN;
                if self.cycle_idx == Phase::Up {
                    cwnd_gain += UNIT * self.p.bw_probe_cwnd_gain / 4;
                }
                (self.p.pacing_gain[self.cycle_idx as usize], cwnd_gain)
            }
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }
}
