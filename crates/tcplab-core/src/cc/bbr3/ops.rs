// SPDX-License-Identifier: MIT OR Apache-2.0
//! BBRv2/v3 as the sender sees it: Linux's `tcp_congestion_ops` hooks
//! (`init`, `cong_control`, `ssthresh`, `undo_cwnd`, `set_state`,
//! `cwnd_event`, `skb_marked_lost`) and the probes.

use super::*;

impl CongestionControl for Bbr3 {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(Bbr3::new(self.cfg.clone())))
    }
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn seed(&mut self, rng: Rng) {
        self.rng = Some(rng);
    }

    /// `bbr_init`.
    fn init(&mut self, tcb: &mut Tcb) {
        self.mss = tcb.mss.max(1);
        self.init_cwnd = self.cwnd(tcb).min(0x7F);
        self.prior_cwnd = 0;
        tcb.ssthresh = u64::MAX;
        self.next_rtt_delivered = if self.p.v3 { self.delivered } else { 0 };
        self.prev_ca_state = CaState::Open;
        let min_rtt = tcb.min_rtt.map_or(UNSET, |d| d.as_nanos() / 1000);
        self.probe_rtt_min_us = min_rtt;
        self.probe_rtt_min_stamp = tcb.now;
        self.min_rtt_us = min_rtt;
        self.min_rtt_stamp = tcb.now;
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tcb);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = tcb.now;
        // Loss rounds start after the first full flight is ACKed.
        self.loss_round_delivered = self.delivered + 1;
    }

    fn increase_window(&mut self, _tcb: &mut Tcb, _ack: &Ack) {
        // cwnd is set in `control`.
    }

    /// `bbr_ssthresh`: saves the model for an undo; ssthresh stays.
    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.save_cwnd(tcb);
        self.undo_bw_lo = self.bw_lo;
        // At a timeout Linux asks before the state changes (and
        // `bbr_set_state` sets inflight_lo): the bound from before that.
        self.undo_inflight_lo = self.loss_entry_lo.take().unwrap_or(self.inflight_lo);
        self.undo_inflight_hi = self.inflight_hi;
        tcb.ssthresh
    }

    /// `bbr_undo_cwnd`.
    fn undo_cwnd(&mut self, _tcb: &Tcb, _prior_cwnd: u64) -> u64 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        if self.p.v3 {
            self.try_fast_path = false;
        }
        self.prior_cwnd * self.mss
    }

    /// `bbr_set_state`.
    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if to == CaState::Loss {
            // Linux's tcp_enter_loss asks ssthresh (bbr_save_cwnd, the
            // undo snapshot) before the state changes; the sender here
            // tells of the state first: save now, and keep inflight_lo as
            // it was for the snapshot.
            self.save_cwnd(tcb);
            self.loss_entry_lo = Some(self.inflight_lo);
            self.prev_ca_state = CaState::Loss;
            if self.p.v3 {
                self.reset_full_bw();
            } else {
                self.full_bw = 0;
            }
            if !self.is_probing_bandwidth() && self.inflight_lo == UNSET {
                self.inflight_lo = self.cwnd(tcb).max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            let cwnd = self.cwnd(tcb).max(self.prior_cwnd);
            self.set_cwnd_pkts(tcb, cwnd);
            self.try_fast_path = false;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        match ev {
            // Only after an application-limited pause (the sender marks it
            // so when its data ran out with room in the window).
            CwndEvent::TxStart => {
                if !tcb.app_limited {
                    return;
                }
                self.idle_restart = true;
                self.ack_epoch_mstamp = tcb.now;
                self.ack_epoch_acked = 0;
                if self.mode == Mode::ProbeBw {
                    self.set_pacing_rate(tcb, self.bw(), UNIT);
                } else if self.mode == Mode::ProbeRtt {
                    self.check_probe_rtt_done(tcb);
                }
            }
            CwndEvent::TlpRecovery if self.p.v3 => self.run_loss_probe_recovery(tcb),
            _ => {}
        }
    }

    /// `bbr_skb_marked_lost`.
    fn on_marked_lost(&mut self, tcb: &mut Tcb, seg: &LostSegment) {
        self.delivered = seg.delivered;
        self.note_loss(seg.delivered);
        if !self.bw_probe_samples {
            return;
        }
        let pcount = self.pkts(seg.len);
        let mut s = Sample {
            tx_in_flight: self.pkts(seg.tx_in_flight),
            lost: self.pkts(seg.lost),
            is_app_limited: seg.is_app_limited,
            ..Sample::default()
        };
        if self.is_inflight_too_high(&s) {
            s.tx_in_flight = self.inflight_hi_from_lost_skb(&s, pcount);
            self.handle_inflight_too_high(tcb, &s);
        }
    }

    fn controls_fully(&self) -> bool {
        true
    }
    fn runs_after_loss_detection(&self) -> bool {
        true
    }

    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        self.main(tcb, rs);
    }
    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn probes(&self) -> Vec<Probe> {
        vec![
            Probe::new("bwe", "bit/s", "the bandwidth estimate: min(max bw, bw_lo)"),
            Probe::new(
                "mode",
                "code",
                "the state: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT",
            ),
            Probe::new(
                "phase",
                "code",
                "ProbeBW's phase: 0 UP, 1 DOWN, 2 CRUISE, 3 REFILL",
            ),
            Probe::new(
                "inflight_hi",
                "segments",
                "the long-term upper bound on data in flight",
            ),
            Probe::new(
                "inflight_lo",
                "segments",
                "the short-term lower bound on data in flight",
            ),
        ]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let bound = |v: u64| (v != UNSET).then_some(v as f64);
        match name {
            "bwe" => Some(self.bw_bytes_per_sec(self.bw()) as f64 * 8.0),
            "mode" => Some(self.mode as u8 as f64),
            "phase" => Some(self.cycle_idx as u8 as f64),
            "inflight_hi" => bound(self.inflight_hi),
            "inflight_lo" => bound(self.inflight_lo),
            _ => None,
        }
    }
}
