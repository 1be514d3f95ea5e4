// SPDX-License-Identifier: MIT OR Apache-2.0
//! The retransmission timer's estimator, a component of the sender that any
//! recovery combines with.
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Then, with alpha = 1/8 and
//! beta = 1/4: RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R|,
//! SRTT = (1 - alpha) SRTT + alpha R (RFC 6298). The timeout is computed by
//! the RTO policy ([`RtoPolicy`]): RFC 6298's, or Linux's, which keeps a
//! variance term of its own; each timeout doubles it (backoff) until a new
//! sample arrives. Arithmetic is in integer nanoseconds. SRTT and the
//! smallest and latest samples live in the connection's [`Tcb`], their one
//! home; the estimator keeps what only the timer needs.

use serde::Serialize;

use crate::cc::Tcb;
use crate::time::SimDuration;

/// How the timeout follows from the RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoPolicy {
    /// RFC 6298 2.2-2.4: RTO = SRTT + max(G, K * RTTVAR), then clamped to
    /// [min, max] (the papers, ns-3).
    #[default]
    Rfc6298,
    /// ns-2.35 (`rtt_update`, `rtt_timeout`): SRTT and RTTVAR in integer
    /// ticks of the clock granularity (ns-2's `tcpTick_`), RTO = SRTT + 4
    /// RTTVAR truncated to ticks, then clamped to [min, max].
    Ns2,
    /// Linux (`tcp_rtt_estimator`, `tcp_set_rto`): RTO = SRTT + V, clamped
    /// to max, where V is at least the minimum RTO: the minimum bounds the
    /// variance term, not the whole timeout, so RTO >= SRTT + min. V follows
    /// the largest mean deviation (times 4) seen in each window of data:
    /// it rises at once to a larger one and, once per window, decays a
    /// quarter of the way down to the window's largest (itself at least the
    /// minimum). A sample below SRTT moves the deviation with a gain of
    /// 1/32 instead of 1/4, so a falling RTT does not inflate the timeout.
    Linux,
    /// ns-3 3.18's `RttMeanDeviation` (rtt-estimator.cc `Measurement`,
    /// `RetransmitTimeout`): one gain of 0.1 for SRTT and the deviation,
    /// the first sample giving both SRTT and the deviation R; RTO = SRTT +
    /// 4 deviations in whole milliseconds (each truncated), at least the
    /// minimum (its `MinRTO`, 200 ms), with no granularity term.
    #[serde(rename = "ns3_18")]
    Ns3_18,
    /// INET 2.x's `TCPBaseAlg::rttMeasurementComplete`: one gain of 1/8 for
    /// SRTT and RTTVAR, starting from SRTT 0 and RTTVAR 0.75 s (so the first
    /// sample R gives RTO = 2.625 s + 0.625 R); RTO = SRTT + 4 RTTVAR, with
    /// no granularity term, clamped to [min, max].
    Inet,
}

crate::deserialize_names!(RtoPolicy {
    "rfc6298" => RtoPolicy::Rfc6298,
    "linux" => RtoPolicy::Linux,
    "ns2" => RtoPolicy::Ns2,
    "ns3_18" => RtoPolicy::Ns3_18,
    "inet" => RtoPolicy::Inet,
});

/// ns-2's estimator (tcp.cc `rtt_update`, `rtt_timeout`): integers in
/// ticks of the clock granularity, SRTT times 8 and RTTVAR times 4.
#[derive(Clone, Copy, Debug, Default)]
struct Ns2Var {
    srtt8: i32,
    rttvar4: i32,
}

/// Linux's variance term: the mean deviation `mdev`, its largest value in
/// the current window `mdev_max`, the term `var` the timeout adds to SRTT
/// (all four times the deviation, in nanoseconds), and `seq`: the window
/// ends when snd_una passes it.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVar {
    mdev: u64,
    mdev_max: u64,
    var: u64,
    seq: u64,
}

/// The RTO's bounds and the clock granularity G.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub min: SimDuration,
    pub max: SimDuration,
    pub granularity: SimDuration,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub rttvar: SimDuration,
    /// Samples taken so far, their sum and the largest (the smallest is
    /// the Tcb's `min_rtt`).
    pub samples: u64,
    pub sum_ns: u64,
    pub max: SimDuration,
    policy: RtoPolicy,
    bounds: Bounds,
    rto: SimDuration,
    backoff: u32,
    linux: LinuxVar,
    ns2: Ns2Var,
}

/// K in RTO = SRTT + max(G, K * RTTVAR).
const K: u64 = 4;

impl RttEstimator {
    pub fn new(policy: RtoPolicy, initial: SimDuration, bounds: Bounds) -> Self {
        RttEstimator {
            rttvar: SimDuration::ZERO,
            samples: 0,
            sum_ns: 0,
            max: SimDuration::ZERO,
            policy,
            rto: initial.max(bounds.min).min(bounds.max),
            bounds,
            backoff: 0,
            linux: LinuxVar::default(),
            ns2: Ns2Var::default(),
        }
    }

    /// A new RTT sample `r`: updates SRTT and the samples in `tcb`, RTTVAR
    /// and the timeout here. `tcb.snd_una` is that of the acknowledgement
    /// the sample came with.
    pub fn sample(&mut self, tcb: &mut Tcb, r: SimDuration) {
        let r_ns = r.as_nanos();
        match self.policy {
            RtoPolicy::Ns2 => return self.ns2_sample(tcb, r),
            RtoPolicy::Ns3_18 => return self.ns3_18_sample(tcb, r),
            RtoPolicy::Inet => return self.inet_sample(tcb, r),
            RtoPolicy::Linux => self.linux_sample(tcb, r_ns),
            RtoPolicy::Rfc6298 => {}
        }
        let srtt = match tcb.srtt {
            None => {
                self.rttvar = SimDuration::from_nanos(r_ns / 2);
                r
            }
            Some(srtt) => {
                let s = srtt.as_nanos();
                let err = s.abs_diff(r_ns);
                self.rttvar = SimDuration::from_nanos((3 * self.rttvar.as_nanos() + err) / 4);
                SimDuration::from_nanos((7 * s + r_ns) / 8)
            }
        };
        tcb.srtt = Some(srtt);
        self.count(tcb, r);
        self.rto = match self.policy {
            RtoPolicy::Rfc6298 => {
                let var = (self.rttvar * K).max(self.bounds.granularity);
                (srtt + var).max(self.bounds.min).min(self.bounds.max)
            }
            RtoPolicy::Linux => {
                (srtt + SimDuration::from_nanos(self.linux.var)).min(self.bounds.max)
            }
            RtoPolicy::Ns2 | RtoPolicy::Ns3_18 | RtoPolicy::Inet => {
                unreachable!("own sample functions")
            }
        };
        self.backoff = 0;
    }

    /// Counts sample `r`: the latest and smallest in `tcb`, the number,
    /// sum and largest here.
    #[inline]
    fn count(&mut self, tcb: &mut Tcb, r: SimDuration) {
        tcb.latest_rtt = Some(r);
        tcb.min_rtt = Some(tcb.min_rtt.map_or(r, |m| m.min(r)));
        self.samples += 1;
        self.sum_ns += r.as_nanos();
        self.max = self.max.max(r);
    }

    /// ns-2's `rtt_update` and `rtt_timeout` (with `rfc2988_`, its
    /// default): the sample in whole ticks of the clock granularity (at
    /// least one; rounded to the nearest, where ns-2 floors it on a clock
    /// of random phase), SRTT and RTTVAR in fixed point (gains 1/8 and 1/4,
    /// the first sample giving SRTT = R, RTTVAR = R / 2), RTO = SRTT + 4
    /// RTTVAR truncated to whole ticks, then at least the minimum and at
    /// least 2 ticks, at most the maximum.
    fn ns2_sample(&mut self, tcb: &mut Tcb, r: SimDuration) {
        let tick = self.bounds.granularity.as_nanos().max(1);
        let ticks = ((r.as_nanos() + tick / 2) / tick).clamp(1, 1 << 27) as i32;
        let v = &mut self.ns2;
        if tcb.srtt.is_none() {
            v.srtt8 = ticks << 3;
            v.rttvar4 = ticks << 1;
        } else {
            let mut delta = ticks - (v.srtt8 >> 3);
            v.srtt8 += delta;
            if v.srtt8 <= 0 {
                v.srtt8 = 1;
            }
            delta = delta.abs() - (v.rttvar4 >> 2);
            v.rttvar4 += delta;
            if v.rttvar4 <= 0 {
                v.rttvar4 = 1;
            }
        }
        let rto_ticks = ((v.rttvar4 << 3) + v.srtt8) >> 3;
        let rto = SimDuration::from_nanos(rto_ticks as u64 * tick);
        tcb.srtt = Some(SimDuration::from_nanos(v.srtt8 as u64 * tick / 8));
        self.rttvar = SimDuration::from_nanos(v.rttvar4 as u64 * tick / 4);
        self.count(tcb, r);
        self.rto = rto
            .max(self.bounds.min)
            .max(SimDuration::from_nanos(2 * tick))
            .min(self.bounds.max);
        self.backoff = 0;
    }

    /// ns-3 3.18's `RttMeanDeviation::Measurement` and `RetransmitTimeout`:
    /// err = R - SRTT; SRTT += 0.1 err; var += 0.1 (|err| - var) (both
    /// from R itself on the first sample); RTO = SRTT + 4 var in whole
    /// milliseconds (each term truncated), at least the minimum, at most
    /// the maximum.
    fn ns3_18_sample(&mut self, tcb: &mut Tcb, r: SimDuration) {
        const GAIN: f64 = 0.1;
        let m = r.as_nanos() as f64;
        let (srtt, var) = match tcb.srtt {
            None => (m, m),
            Some(s) => {
                let s = s.as_nanos() as f64;
                let v = self.rttvar.as_nanos() as f64;
                let err = m - s;
                (s + GAIN * err, v + GAIN * (err.abs() - v))
            }
        };
        // Each term in whole milliseconds, as `GetMilliSeconds` truncates.
        let ms = (srtt / 1e6).floor() as u64 + 4 * (var.max(0.0) / 1e6).floor() as u64;
        self.settle(tcb, r, srtt, var, SimDuration::from_millis(ms));
    }

    /// INET's estimator: err = R - SRTT, SRTT += err/8, RTTVAR += (|err| -
    /// RTTVAR)/8 from SRTT 0 and RTTVAR 0.75 s; RTO = SRTT + 4 RTTVAR.
    fn inet_sample(&mut self, tcb: &mut Tcb, r: SimDuration) {
        let m = r.as_nanos() as f64;
        let (s, v) = match tcb.srtt {
            None => (0.0, 0.75e9),
            Some(s) => (s.as_nanos() as f64, self.rttvar.as_nanos() as f64),
        };
        let err = m - s;
        let srtt = s + err / 8.0;
        let var = v + (err.abs() - v) / 8.0;
        let rto = SimDuration::from_nanos((srtt + 4.0 * var).round() as u64);
        self.settle(tcb, r, srtt, var, rto);
    }

    /// The end of a sample in floating-point nanoseconds (ns-3.18's and
    /// INET's estimators): SRTT and the deviation kept, the sample counted,
    /// `rto` bounded, the backoff reset.
    fn settle(&mut self, tcb: &mut Tcb, r: SimDuration, srtt: f64, var: f64, rto: SimDuration) {
        tcb.srtt = Some(SimDuration::from_nanos(srtt.round() as u64));
        self.rttvar = SimDuration::from_nanos(var.max(0.0).round() as u64);
        self.count(tcb, r);
        self.rto = rto.max(self.bounds.min).min(self.bounds.max);
        self.backoff = 0;
    }

    /// Linux's variance term after sample `r` (before SRTT takes it).
    fn linux_sample(&mut self, tcb: &Tcb, r: u64) {
        let min = self.bounds.min.as_nanos();
        let v = &mut self.linux;
        let Some(srtt) = tcb.srtt else {
            // The first sample: a deviation of R/2, so RTO = 3 R at least.
            v.mdev = 2 * r;
            v.var = v.mdev.max(min);
            v.mdev_max = v.var;
            v.seq = tcb.snd_nxt;
            return;
        };
        let s = srtt.as_nanos();
        // mdev = 3/4 mdev + |err| (four times the deviation), with an
        // eighth of the usual gain when the sample is below SRTT.
        let quarter = v.mdev / 4;
        let err = s.abs_diff(r);
        if r < s && err > quarter {
            v.mdev += (err - quarter) / 8;
        } else {
            v.mdev = v.mdev - quarter + err;
        }
        if v.mdev > v.mdev_max {
            v.mdev_max = v.mdev;
            v.var = v.var.max(v.mdev_max);
        }
        if tcb.snd_una > v.seq {
            // A window of data is acknowledged: decay towards its largest
            // deviation, and start the next window at the minimum.
            if v.mdev_max < v.var {
                v.var -= (v.var - v.mdev_max) / 4;
            }
            v.seq = tcb.snd_nxt;
            v.mdev_max = min;
        }
    }

    /// The current timeout, backoff included.
    pub fn rto(&self) -> SimDuration {
        let mut r = self.rto;
        for _ in 0..self.backoff {
            r = (r * 2).min(self.bounds.max);
        }
        r
    }

    /// A timeout fired: double the RTO (up to the maximum).
    pub fn back_off(&mut self) {
        if self.rto() < self.bounds.max {
            self.backoff += 1;
        }
    }

    /// Timeouts in a row without a fresh sample.
    pub fn backoffs(&self) -> u32 {
        self.backoff
    }

    /// RFC 6298 5.7: after a SYN timeout with no RTT sample, data
    /// transmission begins with an RTO of 3 s (if it was lower).
    pub fn reinit_after_syn_timeout(&mut self) {
        const THREE_S: SimDuration = SimDuration::from_secs(3);
        self.backoff = 0;
        self.rto = self.rto.max(THREE_S).min(self.bounds.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    fn est(min: u64, max: u64, g: u64) -> (RttEstimator, Tcb) {
        let bounds = Bounds {
            min: ms(min),
            max: ms(max),
            granularity: ms(g),
        };
        (
            RttEstimator::new(RtoPolicy::Rfc6298, ms(1000), bounds),
            Tcb::new(1000, u64::MAX, 1000),
        )
    }

    #[test]
    fn first_sample_then_smoothing() {
        let (mut e, mut t) = est(200, 60_000, 1);
        assert_eq!(e.rto(), ms(1000));
        e.sample(&mut t, ms(100));
        // SRTT 100, RTTVAR 50, RTO = 100 + 4 * 50 = 300.
        assert_eq!(
            (t.srtt, e.rttvar, e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        e.sample(&mut t, ms(200));
        // RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5; SRTT = 7/8 * 100 + 200/8 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rttvar, SimDuration::from_micros(62_500));
        assert_eq!(t.srtt, Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(362_500));
        assert_eq!((t.min_rtt, t.latest_rtt), (Some(ms(100)), Some(ms(200))));
    }

    #[test]
    fn clamps_and_backs_off() {
        let (mut e, mut t) = est(200, 60_000, 1);
        e.sample(&mut t, ms(10)); // 10 + 20 = 30 ms, clamped up to 200 ms
        assert_eq!(e.rto(), ms(200));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(800));
        e.sample(&mut t, ms(10));
        assert_eq!(e.rto(), ms(200));
        let (mut big, _) = est(200, 3000, 1);
        for _ in 0..5 {
            big.back_off();
        }
        assert_eq!(big.rto(), ms(3000));
    }

    #[test]
    fn syn_timeout_without_sample_starts_data_at_three_seconds() {
        let (mut e, _) = est(200, 60_000, 1);
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.reinit_after_syn_timeout();
        assert_eq!(e.rto(), ms(3000));
    }

    fn linux(min: u64) -> (RttEstimator, Tcb) {
        let bounds = Bounds {
            min: ms(min),
            max: ms(120_000),
            granularity: ms(1),
        };
        (
            RttEstimator::new(RtoPolicy::Linux, ms(1000), bounds),
            Tcb::new(1000, u64::MAX, 1000),
        )
    }

    fn us(v: u64) -> SimDuration {
        SimDuration::from_micros(v)
    }

    /// A sample with the ACK that carried it: `window` ends the window of
    /// data the estimator tracks (snd_una passes the snd_nxt of its start).
    fn ack(e: &mut RttEstimator, t: &mut Tcb, r: SimDuration, window: bool) {
        if window {
            t.snd_una = t.snd_nxt + 1;
        }
        t.snd_nxt = t.snd_una + 10_000;
        e.sample(t, r);
    }

    #[test]
    fn linux_starts_at_three_rtts_and_decays_a_quarter_of_the_way_per_window() {
        let (mut e, mut t) = linux(200);
        // First sample 250 ms: deviation R/2, times four = 500 ms, above the
        // 200 ms minimum: RTO = 250 + 500 = 750 ms (3 R).
        ack(&mut e, &mut t, ms(250), false);
        assert_eq!(e.rto(), ms(750));
        // Same RTT, next window: mdev = 3/4 * 500 = 375 ms; the window's
        // largest was 500 ms, no decay yet.
        ack(&mut e, &mut t, ms(250), true);
        assert_eq!(e.rto(), ms(750));
        // Next: mdev = 281.25 ms is the window's largest; the term decays a
        // quarter of the way to it: 500 - 218.75 / 4 = 445.3125 ms.
        ack(&mut e, &mut t, ms(250), true);
        assert_eq!(
            e.rto(),
            ms(250) + us(445_312) + SimDuration::from_nanos(500)
        );
    }

    #[test]
    fn linux_rto_never_falls_under_srtt_plus_the_minimum() {
        // RFC 6298 with a steady RTT: RTTVAR decays to nothing, and the
        // timeout to max(SRTT + G, min) = 251 ms, a hair above the RTT.
        let (mut rfc, mut t) = est(200, 120_000, 1);
        for _ in 0..100 {
            rfc.sample(&mut t, ms(250));
        }
        assert_eq!(rfc.rto(), ms(251));
        // Linux bounds the variance term instead: never under SRTT + 200 ms,
        // and at SRTT + 200 ms once the deviation has gone.
        let (mut e, mut t) = linux(200);
        for i in 0..100 {
            ack(&mut e, &mut t, ms(250), true);
            assert!(
                e.rto() >= t.srtt.unwrap() + ms(200),
                "sample {i}: {:?}",
                e.rto()
            );
        }
        assert!(e.rto() - ms(450) < us(1), "{:?}", e.rto());
        // With the minimum as low as 1 ms the bound follows it.
        let (mut low, mut t) = linux(1);
        for _ in 0..100 {
            ack(&mut low, &mut t, ms(250), true);
        }
        assert!(low.rto() < ms(252), "{:?}", low.rto());
    }

    #[test]
    fn linux_gives_a_falling_rtt_an_eighth_of_the_gain() {
        let (mut e, mut t) = linux(200);
        ack(&mut e, &mut t, ms(250), false);
        // 50 ms, in the same window: |err| = 200 ms, a quarter of mdev is
        // 125 ms; the excess 75 ms counts an eighth: mdev = 509.375 ms (RFC
        // 6298's update would give 575 ms). It is the window's largest, so
        // the term rises to it at once. SRTT = (7 * 250 + 50) / 8 = 225 ms.
        ack(&mut e, &mut t, ms(50), false);
        assert_eq!(t.srtt, Some(ms(225)));
        assert_eq!(e.rto(), ms(225) + us(509_375));
        // A rising RTT takes the full gain: 450 ms, err = 225 ms:
        // mdev = 509.375 - 127.34375 + 225 = 607.03125 ms.
        ack(&mut e, &mut t, ms(450), false);
        assert_eq!(t.srtt, SimDuration::from_micros(253_125).into());
        assert_eq!(
            e.rto(),
            us(253_125) + us(607_031) + SimDuration::from_nanos(250)
        );
    }

    #[test]
    fn granularity_floors_the_variance_term() {
        let (mut e, mut t) = est(0, 60_000, 100);
        e.sample(&mut t, ms(50));
        e.sample(&mut t, ms(50));
        e.sample(&mut t, ms(50));
        // RTTVAR has decayed to ~14 ms; 4 * RTTVAR < G, so RTO = SRTT + G.
        assert_eq!(e.rto(), ms(150));
    }

    fn with(policy: RtoPolicy, min_ms: u64, max_ms: u64, initial_ms: u64) -> (RttEstimator, Tcb) {
        let bounds = Bounds {
            min: ms(min_ms),
            max: ms(max_ms),
            granularity: ms(1),
        };
        let e = RttEstimator::new(policy, ms(initial_ms), bounds);
        (e, Tcb::new(1000, u64::MAX, 1000))
    }

    #[test]
    fn ns3_18_uses_one_gain_of_a_tenth_and_whole_milliseconds() {
        let (mut e, mut t) = with(RtoPolicy::Ns3_18, 200, 60_000, 1000);
        assert_eq!(e.rto(), ms(1000), "InitialEstimation 1 s");
        // First sample 100 ms: SRTT = var = 100 ms: RTO = 100 + 4 * 100.
        e.sample(&mut t, ms(100));
        assert_eq!((t.srtt, e.rto()), (Some(ms(100)), ms(500)));
        // 200 ms: err = 100; SRTT = 110, var = 100 + 0.1 (100 - 100) = 100.
        e.sample(&mut t, ms(200));
        assert_eq!((t.srtt, e.rto()), (Some(ms(110)), ms(510)));
        // 110 ms: err = 0; var = 100 - 10 = 90: 110 + 360.
        e.sample(&mut t, ms(110));
        assert_eq!(e.rto(), ms(470));
        // 10.9 ms for a while: each term truncated to whole ms, and the
        // 200 ms MinRTO holds it up.
        for _ in 0..200 {
            e.sample(&mut t, us(10_900));
        }
        assert_eq!(e.rto(), ms(200));
    }

    #[test]
    fn inet_starts_from_srtt_0_and_rttvar_three_quarters_of_a_second() {
        let (mut e, mut t) = with(RtoPolicy::Inet, 1000, 240_000, 3000);
        assert_eq!(e.rto(), ms(3000));
        // First sample 100 ms: SRTT = 12.5 ms, RTTVAR = 0.75 + (0.1 -
        // 0.75) / 8 = 668.75 ms: RTO = 2.625 s + 0.625 * 0.1 s.
        e.sample(&mut t, ms(100));
        assert_eq!((t.srtt, e.rto()), (Some(us(12_500)), us(2_687_500)));
        // Again 100 ms: err = 87.5 ms; SRTT = 23.4375 ms, RTTVAR =
        // 668.75 - 72.65625 = 596.09375 ms: RTO = 2.4078125 s.
        e.sample(&mut t, ms(100));
        assert_eq!(e.rto(), us(2_407_812) + SimDuration::from_nanos(500));
        // Steady at 100 ms it settles at SRTT = 100 ms and the 1 s minimum.
        for _ in 0..300 {
            e.sample(&mut t, ms(100));
        }
        assert_eq!(e.rto(), ms(1000));
        assert!(t.srtt.unwrap().as_nanos().abs_diff(ms(100).as_nanos()) < 1000);
    }

    #[test]
    fn ns2_keeps_srtt_and_rttvar_in_whole_ticks() {
        // tcpTick_ 10 ms, minrto_ 200 ms. 100 ms = 10 ticks: SRTT x 8 = 80,
        // RTTVAR x 4 = 20; RTO = SRTT + 4 RTTVAR = (8 x 20 + 80) >> 3 = 30 ticks.
        let bounds = Bounds {
            min: ms(200),
            max: ms(60_000),
            granularity: ms(10),
        };
        let mut e = RttEstimator::new(RtoPolicy::Ns2, ms(3000), bounds);
        let mut tcb = Tcb::new(1000, u64::MAX, 1000);
        assert_eq!(e.rto(), ms(3000), "ns-2's rtxcur_init_");
        e.sample(&mut tcb, ms(100));
        assert_eq!(e.rto(), ms(300));
        assert_eq!(tcb.srtt, Some(ms(100)));
        // 120 ms = 12 ticks: err 2, SRTT x 8 = 82; RTTVAR x 4 = 20 + 2 - 5 =
        // 17; RTO = (136 + 82) >> 3 = 27 ticks (RFC 6298 in ns: 272.5 ms).
        e.sample(&mut tcb, ms(120));
        assert_eq!(e.rto(), ms(270));
        // 104 ms rounds to 10 ticks: err 0, RTTVAR x 4 = 17 - 4 = 13; RTO =
        // (104 + 82) >> 3 = 23 ticks.
        e.sample(&mut tcb, ms(104));
        assert_eq!(e.rto(), ms(230));
        // Small RTTs: the minimum applies before any backoff.
        for _ in 0..50 {
            e.sample(&mut tcb, ms(10));
        }
        assert_eq!(e.rto(), ms(200));
        e.back_off();
        assert_eq!(e.rto(), ms(400));
    }
}
