// SPDX-License-Identifier: MIT OR Apache-2.0
//! TCP Westwood and Westwood+: Reno growth, with ssthresh set from an
//! end-to-end bandwidth estimate after a loss.
//!
//! Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood: end-to-end
//! congestion control for wired/wireless networks", Wireless Networks 8(5),
//! 2002; Mascolo et al., "TCP Westwood: bandwidth estimation for enhanced
//! transport over wireless links", MobiCom 2001; and Westwood+ (Mascolo,
//! Grieco et al.), which takes one sample per RTT to be robust to ACK
//! compression.
//!
//! One module, two axes:
//! - sampling: `per_ack` (Westwood: sample = bytes newly acknowledged / time
//!   since the previous ACK; a duplicate ACK counts as one segment, and the
//!   cumulative ACK that follows is reduced by what the duplicates already
//!   counted) or `per_rtt` (Westwood+: bytes acknowledged, with the same
//!   accounting, over the last RTT / that RTT);
//! - filter: `tustin` (bwe = a bwe' + (1 - a)/2 (s + s'), with a = 0.9047 in
//!   the paper, i.e. 0.9047 / 0.0476, and 0.9 in ns-3) or `ewma` (bwe = a
//!   bwe' + (1 - a) s, a = 0.9 in the Westwood+ papers; Linux uses 7/8
//!   applied twice: `passes = 2`).
//!
//! A third axis, `accounting`, says how many bytes each ACK reports:
//! - `paper` (default): the duplicate-ACK accounting above, so that over a
//!   loss episode the counted bytes equal the bytes delivered;
//! - `ns3`: what ns-3 3.44's TcpSocketBase hands to TcpWestwoodPlus's
//!   PktsAcked, and how that class windows it. A duplicate ACK counts one
//!   segment in every state; a partial ACK in fast recovery counts one
//!   segment; the ACK that ends fast recovery counts every segment it
//!   acknowledges, including those its duplicates already counted; the
//!   first new ACK after one or two duplicates (Disorder) is reduced by
//!   them; after a timeout, ACKs below the recovery point count in full and
//!   the one that passes it counts only the part above it. Per-RTT windows
//!   open at an ACK, last one SRTT (as measured when they open), include
//!   the opening ACK, and the sample is the count over that SRTT. With
//!   random loss the ACK that ends recovery counts a window twice, so the
//!   estimate runs above the delivered rate (docs/validation.md measures
//!   it); the mode exists to reproduce ns-3's numbers, not as a model.
//!
//! Virtual null samples (MobiCom 2001 section 2.2): with per-ACK sampling,
//! when a time tau/m passes without an ACK, the filter takes a sample of 0
//! for each such interval, so the estimate decays when ACKs stop. The paper
//! requires m >= 2 and does not fix tau; the defaults here are tau = 1 s,
//! m = 2 (`null_samples = false` switches them off, as ns-3 and Linux do).
//!
//! After DupThresh duplicate ACKs: ssthresh = max(2 MSS, BWE * RTTmin); the
//! recovery strategy then sets cwnd (with newreno, cwnd ends at
//! min(ssthresh, FlightSize + MSS), which is the paper's "cwnd = ssthresh if
//! cwnd > ssthresh" once recovery is over). After a timeout: the same
//! ssthresh and cwnd = 1 MSS. Before the first estimate, Reno's ssthresh.

use serde::{Deserialize, Serialize};

use super::reno::Reno;
use super::{reno_ssthresh, Ack, CaState, CongestionControl, LossCause, Probe, Tcb};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    PerAck,
    PerRtt,
}

crate::deserialize_names!(Sampling {
    "per_ack" => Sampling::PerAck,
    "per_rtt" => Sampling::PerRtt,
});

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    Tustin,
    Ewma,
}

crate::deserialize_names!(Filter {
    "tustin" => Filter::Tustin,
    "ewma" => Filter::Ewma,
});

/// How many bytes each ACK reports to the estimator (see the module doc).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Accounting {
    /// Duplicate ACKs count one segment; the cumulative ACK after them is
    /// reduced by what they counted (the papers, Linux, INET, ns-2 TCPW).
    #[default]
    Paper,
    /// ns-3 3.44's PktsAcked segment counts and EstimateBW window.
    Ns3,
}

crate::deserialize_names!(Accounting {
    "paper" => Accounting::Paper,
    "ns3" => Accounting::Ns3,
});

/// Which RTT minimum multiplies the estimate in ssthresh = BWE * RTTmin.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttMin {
    /// The smallest RTT sample (the papers, Linux).
    Sample,
    /// The smallest smoothed RTT (ns-3's m_minRtt).
    Srtt,
}

crate::deserialize_names!(RttMin {
    "sample" => RttMin::Sample,
    "srtt" => RttMin::Srtt,
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WestwoodConfig {
    pub sampling: Sampling,
    pub filter: Filter,
    /// The filter's coefficient a (see the module doc).
    pub coefficient: f64,
    /// EWMA passes (Linux cascades two 7/8 filters).
    pub passes: u32,
    /// Virtual null samples when no ACK arrives for tau/m.
    pub null_samples: bool,
    pub tau: SimDuration,
    pub m: u32,
    /// Per-RTT sampling: the shortest sampling interval (Linux: 50 ms).
    pub min_interval: SimDuration,
    /// RTTmin from raw samples or from SRTT (ns-3).
    pub rtt_min: RttMin,
    /// How ACKs are counted (see the module doc).
    #[serde(default)]
    pub accounting: Accounting,
}

impl WestwoodConfig {
    /// Westwood as published: per-ACK samples, Tustin 0.9047/0.0476, null samples.
    pub fn paper() -> Self {
        WestwoodConfig {
            sampling: Sampling::PerAck,
            filter: Filter::Tustin,
            coefficient: 0.9047,
            passes: 1,
            null_samples: true,
            tau: SimDuration::from_secs(1),
            m: 2,
            min_interval: SimDuration::ZERO,
            rtt_min: RttMin::Sample,
            accounting: Accounting::Paper,
        }
    }
    /// Westwood+ as published: one sample per RTT, EWMA 0.9.
    pub fn plus_paper() -> Self {
        WestwoodConfig {
            sampling: Sampling::PerRtt,
            filter: Filter::Ewma,
            coefficient: 0.9,
            null_samples: false,
            ..Self::paper()
        }
    }
    /// ns-3's TcpWestwood (per ACK, removed in ns-3.38) and TcpWestwoodPlus
    /// (per RTT): Tustin 0.9, RTTmin from SRTT, ns-3's ACK accounting.
    pub fn ns3(plus: bool) -> Self {
        WestwoodConfig {
            sampling: if plus {
                Sampling::PerRtt
            } else {
                Sampling::PerAck
            },
            filter: Filter::Tustin,
            coefficient: 0.9,
            null_samples: false,
            rtt_min: RttMin::Srtt,
            accounting: Accounting::Ns3,
            ..Self::paper()
        }
    }
    /// Linux tcp_westwood.c (which is Westwood+): per RTT (at least 50 ms),
    /// EWMA 7/8 applied twice.
    pub fn linux() -> Self {
        WestwoodConfig {
            sampling: Sampling::PerRtt,
            filter: Filter::Ewma,
            coefficient: 0.875,
            passes: 2,
            null_samples: false,
            min_interval: SimDuration::from_millis(50),
            ..Self::paper()
        }
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(0.0..1.0).contains(&self.coefficient) {
            return Err((
                "coefficient",
                format!("{} is not in [0, 1)", self.coefficient),
            ));
        }
        if self.passes == 0 || self.passes > 4 {
            return Err(("passes", format!("{} is not 1 to 4", self.passes)));
        }
        if self.null_samples && (self.m < 2 || self.tau.is_zero()) {
            return Err((
                "m",
                "null samples need m >= 2 and tau > 0 (MobiCom 2001 2.2)".into(),
            ));
        }
        Ok(())
    }
}

/// The bandwidth estimator, usable on its own (Petra reuses it).
#[derive(Clone, Debug)]
pub struct Estimator {
    pub cfg: WestwoodConfig,
    /// Filtered estimate, bytes per second.
    pub bwe: f64,
    /// Inner EWMA stages (passes > 1).
    stages: [f64; 4],
    prev_sample: f64,
    last_ack: Option<SimTime>,
    /// Bytes counted by duplicate ACKs not yet covered by a cumulative ACK.
    accounted: u64,
    /// Per-RTT sampling: bytes acknowledged since `window_start`.
    window_bytes: u64,
    window_start: Option<SimTime>,
    /// ns-3 accounting: the open window's length (SRTT when it opened).
    window_len: SimDuration,
    /// ns-3 accounting: duplicate ACKs since the last new ACK.
    dups: u64,
    pub samples: u64,
    /// Smallest smoothed RTT seen (for `RttMin::Srtt`).
    min_srtt: Option<SimDuration>,
}

impl Estimator {
    pub fn new(cfg: WestwoodConfig) -> Self {
        Estimator {
            cfg,
            bwe: 0.0,
            stages: [0.0; 4],
            prev_sample: 0.0,
            last_ack: None,
            accounted: 0,
            window_bytes: 0,
            window_start: None,
            window_len: SimDuration::ZERO,
            dups: 0,
            samples: 0,
            min_srtt: None,
        }
    }

    /// Bytes this ACK reports as delivered, with the duplicate-ACK
    /// accounting: a dupACK counts one segment; a cumulative ACK is reduced
    /// by what earlier dupACKs already counted.
    pub fn acked_bytes(&mut self, ack: &Ack, mss: u64) -> u64 {
        if ack.is_dup {
            self.accounted += mss;
            return mss;
        }
        let acked = ack.bytes_acked;
        if self.accounted >= acked {
            // Everything this ACK covers was already counted by duplicates.
            self.accounted -= acked;
            0
        } else {
            let net = acked - self.accounted;
            self.accounted = 0;
            net
        }
    }

    /// Bytes this ACK reports under ns-3 3.44's accounting (see the module
    /// doc); `tcb` is the sender after the ACK moved SND.UNA, before it
    /// changed state.
    pub fn acked_bytes_ns3(&mut self, ack: &Ack, tcb: &Tcb) -> u64 {
        let mss = tcb.mss;
        if ack.is_dup {
            self.dups += 1;
            return mss;
        }
        let dups = std::mem::take(&mut self.dups);
        let acked = ack.bytes_acked;
        let ack_no = tcb.snd_una;
        match tcb.ca_state {
            // ns-3 3.44 counts an ACK in CWR as in Open (ProcessAck's
            // cumulative branch).
            CaState::Open | CaState::Cwr => acked,
            CaState::Disorder => acked.saturating_sub(dups * mss),
            CaState::Recovery if ack_no < tcb.recover => mss,
            CaState::Recovery => acked,
            CaState::Loss if ack_no < tcb.recover => acked,
            CaState::Loss => ack_no - tcb.recover,
        }
    }

    fn filter(&mut self, sample: f64) {
        let a = self.cfg.coefficient;
        self.samples += 1;
        match self.cfg.filter {
            Filter::Tustin => {
                self.bwe = a * self.bwe + (1.0 - a) / 2.0 * (sample + self.prev_sample);
            }
            Filter::Ewma => {
                let mut x = sample;
                for k in 0..self.cfg.passes as usize {
                    self.stages[k] = if self.samples == 1 {
                        x
                    } else {
                        a * self.stages[k] + (1.0 - a) * x
                    };
                    x = self.stages[k];
                }
                self.bwe = x;
            }
        }
        self.prev_sample = sample;
    }

    /// Feeds one ACK; the RTT for per-RTT windows is the sender's SRTT (or
    /// its latest sample before there is one).
    pub fn on_ack(&mut self, ack: &Ack, tcb: &Tcb) {
        let rtt = tcb.srtt.or(tcb.latest_rtt);
        let bytes = match self.cfg.accounting {
            Accounting::Paper => self.acked_bytes(ack, tcb.mss),
            Accounting::Ns3 => self.acked_bytes_ns3(ack, tcb),
        };
        self.feed(ack.now, bytes, rtt);
    }

    /// Feeds `bytes` reported at `now`; `rtt` is the current RTT estimate.
    pub fn feed(&mut self, now: SimTime, bytes: u64, rtt: Option<SimDuration>) {
        if let Some(r) = rtt {
            self.min_srtt = Some(self.min_srtt.map_or(r, |m| m.min(r)));
        }
        match self.cfg.sampling {
            Sampling::PerAck => {
                if let Some(last) = self.last_ack {
                    let dt = now - last;
                    if self.cfg.null_samples {
                        let step =
                            SimDuration::from_nanos(self.cfg.tau.as_nanos() / self.cfg.m as u64);
                        // One virtual null sample per tau/m without an ACK.
                        let missed = dt.as_nanos() / step.as_nanos().max(1);
                        for _ in 0..missed.min(64) {
                            self.filter(0.0);
                        }
                    }
                    if !dt.is_zero() {
                        self.filter(bytes as f64 / dt.as_secs_f64());
                    }
                }
                self.last_ack = Some(now);
            }
            Sampling::PerRtt if self.cfg.accounting == Accounting::Ns3 => {
                // ns-3's EstimateBW fires one SRTT after the window opened;
                // here the first ACK past that instant closes it first.
                if let Some(start) = self.window_start {
                    if now > start + self.window_len {
                        self.filter(self.window_bytes as f64 / self.window_len.as_secs_f64());
                        self.window_bytes = 0;
                        self.window_start = None;
                    }
                }
                if self.window_start.is_none() {
                    // ns-3 ignores ACKs while it has no (nonzero) RTT.
                    match rtt {
                        Some(r) if !r.is_zero() => {
                            self.window_start = Some(now);
                            self.window_len = r;
                        }
                        _ => return,
                    }
                }
                self.window_bytes += bytes;
            }
            Sampling::PerRtt => {
                self.window_bytes += bytes;
                let start = *self.window_start.get_or_insert(now);
                let Some(rtt) = rtt else { return };
                let interval = rtt.max(self.cfg.min_interval);
                let dt = now - start;
                if dt >= interval && !dt.is_zero() {
                    self.filter(self.window_bytes as f64 / dt.as_secs_f64());
                    self.window_bytes = 0;
                    self.window_start = Some(now);
                }
            }
        }
    }

    /// ssthresh = max(2 MSS, BWE * RTTmin), or None before any estimate.
    pub fn ssthresh(&self, tcb: &Tcb) -> Option<u64> {
        let rtt_min = match self.cfg.rtt_min {
            RttMin::Sample => tcb.min_rtt?,
            RttMin::Srtt => self.min_srtt.or(tcb.min_rtt)?,
        };
        if self.samples == 0 || self.bwe <= 0.0 {
            return None;
        }
        Some(((self.bwe * rtt_min.as_secs_f64()) as u64).max(2 * tcb.mss))
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    name: &'static str,
    reno: Reno,
    pub est: Estimator,
}

impl Westwood {
    pub fn new(name: &'static str, cfg: WestwoodConfig, abc: bool) -> Self {
        Westwood {
            name,
            reno: Reno::new(abc),
            est: Estimator::new(cfg),
        }
    }
}

impl CongestionControl for Westwood {
    fn fresh(&self) -> Option<Box<dyn CongestionControl>> {
        Some(Box::new(self.clone()))
    }
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        self.est.on_ack(ack, tcb);
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.reno.increase_window(tcb, ack);
    }

    fn ssthresh(&mut self, tcb: &Tcb, _cause: LossCause) -> u64 {
        self.est.ssthresh(tcb).unwrap_or_else(|| reno_ssthresh(tcb))
    }

    fn probes(&self) -> Vec<Probe> {
        vec![Probe::new(
            "bwe",
            "bit/s",
            "the filtered bandwidth estimate (BWE)",
        )]
    }

    fn probe(&self, name: &str) -> Option<f64> {
        (name == "bwe").then_some(self.est.bwe * 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::CcDriver;
    use crate::cc::CaState;

    const MSS: u64 = 1000;

    fn ack_at(ms: u64, bytes: u64, dup: bool) -> Ack {
        Ack {
            now: SimTime::ZERO + SimDuration::from_millis(ms),
            bytes_acked: bytes,
            segments_acked: bytes.div_ceil(MSS) as u32,
            grow_segments: bytes.div_ceil(MSS) as u32,
            is_dup: dup,
            rtt: None,
            seg_rtt: None,
            prior_in_flight: 0,
            ece: false,
            ts: None,
        }
    }

    /// One ACK through the paper's accounting.
    fn push(e: &mut Estimator, ack: Ack, rtt: Option<SimDuration>) {
        let bytes = e.acked_bytes(&ack, MSS);
        e.feed(ack.now, bytes, rtt);
    }

    #[test]
    fn tustin_filter_after_a_known_ack_sequence() {
        let mut e = Estimator::new(WestwoodConfig {
            null_samples: false,
            ..WestwoodConfig::paper()
        });
        // ACKs of 1000 B every 10 ms: samples of 100000 B/s.
        push(&mut e, ack_at(0, 1000, false), None); // first ACK: no interval yet
        push(&mut e, ack_at(10, 1000, false), None);
        // bwe1 = 0.9047 * 0 + 0.04765 * (100000 + 0) = 4765
        assert!((e.bwe - 4765.0).abs() < 1e-6, "{}", e.bwe);
        push(&mut e, ack_at(20, 1000, false), None);
        // bwe2 = 0.9047 * 4765 + 0.04765 * 200000 = 4310.8955 + 9530 = 13840.8955
        assert!((e.bwe - 13840.8955).abs() < 1e-6, "{}", e.bwe);
        // It converges to the sample rate.
        for k in 3..400 {
            push(&mut e, ack_at(10 * k, 1000, false), None);
        }
        assert!((e.bwe - 100_000.0).abs() < 1.0, "{}", e.bwe);
    }

    #[test]
    fn duplicate_acks_count_one_segment_and_are_deducted_later() {
        let mut e = Estimator::new(WestwoodConfig::paper());
        assert_eq!(e.acked_bytes(&ack_at(0, 0, true), MSS), 1000);
        assert_eq!(e.acked_bytes(&ack_at(1, 0, true), MSS), 1000);
        // A cumulative ACK of 5000 B after 2 dupACKs reports 3000 B new.
        assert_eq!(e.acked_bytes(&ack_at(2, 5000, false), MSS), 3000);
        // A later cumulative ACK smaller than what dupACKs counted reports 0.
        e.acked_bytes(&ack_at(3, 0, true), MSS);
        e.acked_bytes(&ack_at(4, 0, true), MSS);
        assert_eq!(e.acked_bytes(&ack_at(5, 1000, false), MSS), 0);
        assert_eq!(e.acked_bytes(&ack_at(6, 2000, false), MSS), 1000);
    }

    #[test]
    fn virtual_null_samples_decay_the_estimate_when_acks_stop() {
        let mut e = Estimator::new(WestwoodConfig::paper()); // tau 1 s, m 2: 500 ms
        for k in 0..200 {
            push(&mut e, ack_at(10 * k, 1000, false), None);
        }
        let before = e.bwe;
        let n = e.samples;
        // 1.2 s of silence: two null samples, then the real one.
        push(&mut e, ack_at(1990 + 1200, 1000, false), None);
        assert_eq!(e.samples, n + 3);
        assert!(e.bwe < 0.85 * before, "{} vs {}", e.bwe, before);
    }

    #[test]
    fn per_rtt_sampling_takes_one_sample_per_rtt() {
        let cfg = WestwoodConfig::plus_paper();
        let mut e = Estimator::new(cfg);
        let rtt = Some(SimDuration::from_millis(100));
        // 10 ACKs of 1000 B over 100 ms: one sample of 100 kB/s at t = 100 ms.
        for k in 0..=10 {
            push(&mut e, ack_at(10 * k, 1000, false), rtt);
        }
        assert_eq!(e.samples, 1);
        // First EWMA sample initializes: 11000 B over 100 ms (the first ACK's bytes count too).
        assert!((e.bwe - 110_000.0).abs() < 1e-6, "{}", e.bwe);
    }

    /// A sender view for ns-3 accounting: SND.UNA after the ACK, state, recover.
    fn tcb_at(una_segs: u64, state: CaState, recover_segs: u64) -> Tcb {
        let mut d = CcDriver::new(Reno::new(false), MSS, 10);
        d.tcb.snd_una = una_segs * MSS;
        d.tcb.ca_state = state;
        d.tcb.recover = recover_segs * MSS;
        d.tcb.srtt = Some(SimDuration::from_millis(100));
        d.tcb
    }

    #[test]
    fn ns3_accounting_counts_the_window_twice_across_fast_recovery() {
        // Segment 10 of 10..30 is lost: 19 dupACKs, a retransmission, then
        // one cumulative ACK of 20 segments that ends recovery (recover = 30).
        let mut paper = Estimator::new(WestwoodConfig::plus_paper());
        let mut ns3 = Estimator::new(WestwoodConfig::ns3(true));
        let (mut p, mut n) = (0, 0);
        for k in 0..19 {
            let state = if k < 3 {
                CaState::Disorder
            } else {
                CaState::Recovery
            };
            let dup = ack_at(k, 0, true);
            p += paper.acked_bytes(&dup, MSS);
            n += ns3.acked_bytes_ns3(&dup, &tcb_at(10, state, 30));
        }
        let exit = ack_at(20, 20 * MSS, false);
        p += paper.acked_bytes(&exit, MSS);
        n += ns3.acked_bytes_ns3(&exit, &tcb_at(30, CaState::Recovery, 30));
        assert_eq!(p, 20 * MSS, "paper: each delivered segment once");
        assert_eq!(n, 39 * MSS, "ns-3: 19 dupACKs + all 20 segments again");
    }

    #[test]
    fn ns3_accounting_partial_disorder_and_timeout_cases() {
        let mut e = Estimator::new(WestwoodConfig::ns3(true));
        // (ACK bytes, duplicate, SND.UNA, state, recover, counted), in segments:
        let cases = [
            // a partial ACK of 5 segments in fast recovery counts one
            (5, false, 15, CaState::Recovery, 30, 1),
            // two dupACKs, then a new ACK of 4 segments in Disorder: 4 - 2
            (0, true, 15, CaState::Disorder, 30, 1),
            (0, true, 15, CaState::Disorder, 30, 1),
            (4, false, 19, CaState::Disorder, 30, 2),
            // after a timeout: in full below recover, only the part above it after
            (3, false, 22, CaState::Loss, 30, 3),
            (10, false, 32, CaState::Loss, 30, 2),
            // in Open, everything
            (2, false, 34, CaState::Open, 30, 2),
        ];
        for (k, (segs, dup, una, state, recover, counted)) in cases.into_iter().enumerate() {
            let ack = ack_at(k as u64 + 1, segs * MSS, dup);
            let got = e.acked_bytes_ns3(&ack, &tcb_at(una, state, recover));
            assert_eq!(got, counted * MSS, "case {k}");
        }
    }

    #[test]
    fn ns3_window_opens_at_an_ack_lasts_one_srtt_and_divides_by_it() {
        let mut e = Estimator::new(WestwoodConfig::ns3(true));
        let rtt = Some(SimDuration::from_millis(100));
        // ACKs of 1000 B every 10 ms from t = 0: the window [0, 100 ms]
        // holds 11 of them; the ACK at 110 ms closes it: 11000 B / 0.1 s.
        for k in 0..=11 {
            e.feed(ack_at(10 * k, 0, false).now, 1000, rtt);
        }
        assert_eq!(e.samples, 1);
        // Tustin with a = 0.9 from zero: 0.05 * (110000 + 0).
        assert!((e.bwe - 5500.0).abs() < 1e-6, "{}", e.bwe);
        // The closing ACK opened the next window with its own bytes.
        assert_eq!(e.window_bytes, 1000);
        // Without an RTT, ACKs are ignored (ns-3 returns on a zero RTT).
        let mut f = Estimator::new(WestwoodConfig::ns3(true));
        f.feed(SimTime::ZERO, 1000, None);
        assert_eq!((f.window_bytes, f.samples), (0, 0));
    }

    #[test]
    fn ssthresh_is_bwe_times_rtt_min() {
        let mut d = CcDriver::new(
            Westwood::new(
                "westwood",
                WestwoodConfig {
                    null_samples: false,
                    ..WestwoodConfig::paper()
                },
                false,
            ),
            MSS,
            10,
        );
        d.tcb.min_rtt = Some(SimDuration::from_millis(50));
        // Before an estimate: Reno's rule.
        d.loss(LossCause::DupAcks, 20_000);
        assert_eq!(d.tcb.ssthresh, 10_000);
        d.cc.est.bwe = 200_000.0; // 200 kB/s * 50 ms = 10000 B
        d.cc.est.samples = 5;
        d.tcb.ca_state = CaState::Open;
        d.loss(LossCause::DupAcks, 40_000);
        assert_eq!(d.tcb.ssthresh, 10_000);
        d.cc.est.bwe = 10_000.0; // 500 B: floored at 2 MSS
        d.loss(LossCause::Timeout, 40_000);
        assert_eq!(d.tcb.ssthresh, 2000);
    }

    #[test]
    fn a_timeout_sets_ssthresh_to_the_estimate_times_the_minimum_rtt() {
        // ACKs of one segment every 10 ms for 5 s: BWE converges to 100 kB/s;
        // RTTmin 100 ms: ssthresh = 10 kB (not half the 20 kB in flight).
        let mut d = CcDriver::new(
            Westwood::new("westwood", WestwoodConfig::paper(), false),
            MSS,
            20,
        );
        d.rtt_sample(SimDuration::from_millis(120));
        d.rtt_sample(SimDuration::from_millis(100));
        for _ in 0..500 {
            d.advance(SimDuration::from_millis(10));
            d.ack(1, None);
        }
        let bwe = d.cc.est.bwe;
        assert!((bwe - 100_000.0).abs() < 100.0, "{bwe}");
        d.timeout(20_000);
        assert_eq!(d.tcb.cwnd, MSS);
        assert_eq!(d.tcb.ssthresh, (bwe * 0.1) as u64);
    }

    #[test]
    fn a_silence_before_the_timeout_decays_the_estimate_by_null_samples() {
        // The paper's virtual null samples: 2 s without an ACK (tau/m =
        // 500 ms) are four samples of 0, then the duplicate ACK's own (one
        // segment over 2 s), each through the Tustin filter.
        let mut d = CcDriver::new(
            Westwood::new("westwood", WestwoodConfig::paper(), false),
            MSS,
            20,
        );
        d.rtt_sample(SimDuration::from_millis(100));
        for _ in 0..500 {
            d.advance(SimDuration::from_millis(10));
            d.ack(1, None);
        }
        let (a, mut bwe) = (WestwoodConfig::paper().coefficient, d.cc.est.bwe);
        let mut prev = 100_000.0;
        for sample in [0.0, 0.0, 0.0, 0.0, 1000.0 / 2.0] {
            bwe = a * bwe + (1.0 - a) / 2.0 * (sample + prev);
            prev = sample;
        }
        d.advance(SimDuration::from_secs(2));
        d.dupack();
        d.timeout(20_000);
        assert_eq!(d.tcb.ssthresh, (bwe * 0.1) as u64);
        assert!(d.tcb.ssthresh < 7_000, "{}", d.tcb.ssthresh);
    }
}
