// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBRv2/v3's state machine: Startup's exits (bandwidth plateau, loss,
//! ECN), Drain, ProbeBW's DOWN / CRUISE / REFILL / UP cycle with its upper
//! bounds, and ProbeRTT, each named after the Linux function it follows.

use super::*;

impl Bbr3 {
    /// `bbr_is_probing_bandwidth`: Startup, or ProbeBW's REFILL and UP.
    pub(super) fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.cycle_idx, Phase::Refill | Phase::Up))
    }

    fn has_elapsed_in_phase(&self, now: SimTime, interval_us: u64) -> bool {
        now > self.cycle_mstamp + SimDuration::from_micros(interval_us)
    }

    /// `bbr_reset_full_bw`.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// v3's `bbr_check_full_bw_reached`: on every ACK, a sample 25% above
    /// the last plateau starts a new one; three rounds without one mean the
    /// pipe is full (`full_bw_now`, which also ends PROBE_UP).
    pub(super) fn check_full_bw_reached(&mut self, s: &Sample) {
        if self.full_bw_now || s.is_app_limited {
            return;
        }
        if self.sample_bw >= (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE {
            self.reset_full_bw();
            self.full_bw = self.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// v2's (v1's): the max filter checked once per round, in Startup only.
    pub(super) fn check_full_bw_reached_v2(&mut self, s: &Sample) {
        if self.full_bw_reached || !self.round_start || s.is_app_limited {
            return;
        }
        if self.max_bw() >= (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_loss_too_high_in_startup`: at the end of a loss round in
    /// Recovery, with enough loss events in it (6 in v3, 8 in v2) and a
    /// loss rate above the threshold.
    pub(super) fn check_loss_too_high_in_startup(&mut self, tcb: &Tcb, s: &Sample) {
        if self.full_bw_reached {
            return;
        }
        if s.losses > 0 && self.loss_events_in_round < 0xF {
            self.loss_events_in_round += 1;
        }
        if self.loss_round_start
            && tcb.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.p.full_loss_cnt
            && self.is_inflight_too_high(s)
        {
            self.handle_queue_too_high_in_startup(tcb);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `bbr_check_drain`: Startup -> Drain once the pipe is full; Drain ->
    /// ProbeBW (DOWN) once in flight at the next departure is at most the
    /// BDP.
    pub(super) fn check_drain(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tcb.ssthresh = self.inflight(tcb, self.max_bw(), UNIT) * self.mss;
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain {
            let in_flight = self.pkts(rs.in_flight);
            if self.packets_in_net_at_edt(tcb, rs, in_flight)
                <= self.inflight(tcb, self.max_bw(), UNIT)
            {
                self.mode = Mode::ProbeBw;
                self.start_bw_probe_down(tcb);
            }
        }
    }

    /// `bbr_update_min_rtt`: the 5-s ProbeRTT filter inside the 10-s min
    /// RTT filter; ProbeRTT when the first expires, held at half the BDP
    /// for 200 ms and a round.
    pub(super) fn update_min_rtt(&mut self, tcb: &mut Tcb, s: &Sample, rs: &RateSample) {
        let now = tcb.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_WIN;
        if s.rtt_us >= 0 {
            let rtt = s.rtt_us as u64;
            let lower = if self.p.v3 {
                rtt < self.probe_rtt_min_us
            } else {
                rtt <= self.probe_rtt_min_us
            };
            if lower || probe_rtt_expired {
                self.probe_rtt_min_us = rtt;
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        if self.probe_rtt_min_us <= self.min_rtt_us || min_rtt_expired {
            self.min_rtt_us = self.probe_rtt_min_us;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tcb);
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = self.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            // Rate samples of the dip say nothing of the path: the sender
            // marks itself app-limited (`marks_app_limited`).
            if self.probe_rtt_done_stamp.is_none()
                && self.pkts(rs.in_flight) <= self.probe_rtt_cwnd()
            {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_MODE);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tcb);
                }
            }
        }
        if s.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, tcb: &mut Tcb) {
        if self.probe_rtt_done_stamp.is_none_or(|d| tcb.now <= d) {
            return;
        }
        self.probe_rtt_min_stamp = tcb.now;
        let cwnd = self.cwnd(tcb).max(self.prior_cwnd);
        self.set_cwnd_pkts(tcb, cwnd);
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tcb);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_raise_inflight_hi_slope`: inflight_hi grows by 1, 2, 4, ...
    /// packets per round of PROBE_UP.
    fn raise_inflight_hi_slope(&mut self, tcb: &Tcb) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd(tcb) / growth).max(1);
    }

    /// `bbr_probe_inflight_hi_upward`.
    fn probe_inflight_hi_upward(&mut self, tcb: &Tcb, s: &Sample, rs: &RateSample) {
        if !rs.is_cwnd_limited || self.cwnd(tcb) < self.inflight_hi {
            if !self.p.v3 {
                self.bw_probe_up_acks = 0;
            }
            return;
        }
        self.bw_probe_up_acks += s.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
            if self.p.v3 {
                self.try_fast_path = false;
            }
        }
        if self.round_start {
            self.raise_inflight_hi_slope(tcb);
        }
    }

    /// `bbr_handle_inflight_too_high`: once per probe, inflight_hi comes
    /// down to the flight that saw too much loss or ECN (at least 70% of
    /// the target), and PROBE_UP ends.
    pub(super) fn handle_inflight_too_high(&mut self, tcb: &Tcb, s: &Sample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !s.is_app_limited {
            let floor = (self.target_inflight(tcb) * (UNIT - self.p.beta)) >> BBR_SCALE;
            self.inflight_hi = s.tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            self.start_bw_probe_down(tcb);
        }
    }

    /// `bbr_adapt_upper_bounds`; true if it decided a transition.
    fn adapt_upper_bounds(&mut self, tcb: &Tcb, s: &Sample, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !s.is_app_limited && self.bw_hi[1] != 0 {
                // `bbr_advance_max_bw_filter`: forget the older cycle.
                self.bw_hi[0] = self.bw_hi[1];
                self.bw_hi[1] = 0;
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(s) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(tcb, s);
            }
        } else {
            if self.inflight_hi == UNSET {
                return false;
            }
            if s.tx_in_flight > self.inflight_hi {
                self.inflight_hi = s.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
                self.probe_inflight_hi_upward(tcb, s, rs);
            }
        }
        false
    }

    fn set_cycle_idx(&mut self, phase: Phase) {
        self.cycle_idx = phase;
        self.try_fast_path = false;
    }

    /// `bbr_start_bw_probe_refill`: a round at the estimate with the lower
    /// bounds lifted.
    fn start_bw_probe_refill(&mut self, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = self.delivered;
        self.set_cycle_idx(Phase::Refill);
    }

    /// `bbr_start_bw_probe_up`.
    fn start_bw_probe_up(&mut self, tcb: &Tcb) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = self.delivered;
        self.cycle_mstamp = tcb.now;
        if self.p.v3 {
            self.reset_full_bw();
            self.full_bw = self.sample_bw;
        }
        self.set_cycle_idx(Phase::Up);
        self.raise_inflight_hi_slope(tcb);
    }

    /// `bbr_start_bw_probe_down`: a new cycle; the next probe is due after
    /// 2-3 s (`bbr_pick_probe_wait`) or the Reno-coexistence rounds.
    pub(super) fn start_bw_probe_down(&mut self, tcb: &Tcb) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = UNSET;
        self.rounds_since_probe = self.random_below(BW_PROBE_RAND_ROUNDS);
        self.probe_wait_us = BW_PROBE_BASE_US + self.random_below(BW_PROBE_RAND_US);
        self.cycle_mstamp = tcb.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = self.delivered;
        self.set_cycle_idx(Phase::Down);
    }

    /// `bbr_start_bw_probe_cruise`.
    fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != UNSET {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_cycle_idx(Phase::Cruise);
    }

    /// `bbr_check_time_to_probe_bw`: ECN marks that stopped without loss
    /// (v3), the wall-clock wait, or as many rounds as a Reno flow would
    /// take at our BDP (at most 63).
    fn check_time_to_probe_bw(&mut self, tcb: &Tcb) -> bool {
        if self.p.ecn_reprobe_gain > 0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && tcb.ca_state == CaState::Open
        {
            let v = (self.inflight_hi * self.p.ecn_reprobe_gain) >> BBR_SCALE;
            let n = if v == 0 { 0 } else { 63 - v.leading_zeros() };
            self.start_bw_probe_refill(n);
            return true;
        }
        let rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(tcb));
        if self.has_elapsed_in_phase(tcb.now, self.probe_wait_us)
            || self.rounds_since_probe >= rounds
        {
            self.start_bw_probe_refill(0);
            return true;
        }
        false
    }

    /// `bbr_check_time_to_cruise`: in flight is down to the headroom and
    /// the BDP.
    fn check_time_to_cruise(&self, tcb: &Tcb, inflight: u64, bw: u64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(tcb, bw, UNIT)
    }

    /// `bbr_update_cycle_phase`: the ProbeBW state machine.
    pub(super) fn update_cycle_phase(&mut self, tcb: &Tcb, s: &Sample, rs: &RateSample) {
        if !self.full_bw_reached
            || self.adapt_upper_bounds(tcb, s, rs)
            || self.mode != Mode::ProbeBw
        {
            return;
        }
        let inflight = self.packets_in_net_at_edt(tcb, rs, s.prior_in_flight);
        let bw = self.max_bw();
        match self.cycle_idx {
            Phase::Cruise => {
                self.check_time_to_probe_bw(tcb);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(tcb);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.p.v3 {
                    if rs.is_cwnd_limited && self.cwnd(tcb) >= self.inflight_hi {
                        // inflight_hi limits the growth: no plateau yet.
                        self.reset_full_bw();
                        self.full_bw = self.sample_bw;
                    } else if self.full_bw_now {
                        done = true;
                    }
                } else if self.has_elapsed_in_phase(tcb.now, self.min_rtt_us)
                    && inflight >= self.inflight(tcb, bw, UNIT * 5 / 4)
                {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(tcb);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(tcb) {
                    return;
                }
                if self.check_time_to_cruise(tcb, inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    /// v3's `bbr_run_loss_probe_recovery`: a loss probe repaired one lost
    /// segment.
    pub(super) fn run_loss_probe_recovery(&mut self, tcb: &Tcb) {
        self.note_loss(self.delivered);
        if !self.bw_probe_samples {
            return;
        }
        let s = Sample {
            lost: 1,
            tx_in_flight: self.inflight_latest + 1,
            ..Sample::default()
        };
        if self.is_inflight_too_high(&s) {
            self.handle_inflight_too_high(tcb, &s);
        }
    }
}
