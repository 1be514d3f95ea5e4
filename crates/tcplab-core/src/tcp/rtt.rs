// SPDX-License-Identifier: MIT OR Apache-2.0
//! The retransmission timer's estimator (RFC 6298), a component of the
//! sender that any recovery combines with.
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Then, with alpha = 1/8 and
//! beta = 1/4: RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R|,
//! SRTT = (1 - alpha) SRTT + alpha R. The timeout is computed by the RTO
//! policy ([`RtoPolicy`]); each timeout doubles it (backoff) until a new
//! sample arrives. Arithmetic is in integer nanoseconds. SRTT and the
//! smallest and latest samples live in the connection's [`Tcb`], their one
//! home; the estimator keeps what only the timer needs.

use crate::cc::Tcb;
use crate::time::SimDuration;

/// How the timeout follows from the estimates. A policy is one row here and
/// one arm in [`RtoPolicy::rto`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoPolicy {
    /// RFC 6298 2.2-2.4: RTO = SRTT + max(G, K * RTTVAR), then clamped to
    /// [min, max] (the papers, ns-2, ns-3).
    Rfc6298,
}

impl RtoPolicy {
    /// The timeout from SRTT and RTTVAR, before backoff.
    pub fn rto(self, srtt: SimDuration, rttvar: SimDuration, b: &Bounds) -> SimDuration {
        match self {
            RtoPolicy::Rfc6298 => {
                let var = (rttvar * K).max(b.granularity);
                (srtt + var).max(b.min).min(b.max)
            }
        }
    }
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
    /// Samples taken so far.
    pub samples: u64,
    policy: RtoPolicy,
    bounds: Bounds,
    rto: SimDuration,
    backoff: u32,
}

/// K in RTO = SRTT + max(G, K * RTTVAR).
const K: u64 = 4;

impl RttEstimator {
    pub fn new(policy: RtoPolicy, initial: SimDuration, bounds: Bounds) -> Self {
        RttEstimator {
            rttvar: SimDuration::ZERO,
            samples: 0,
            policy,
            rto: initial.max(bounds.min).min(bounds.max),
            bounds,
            backoff: 0,
        }
    }

    /// A new RTT sample `r`: updates SRTT and the samples in `tcb`, RTTVAR
    /// and the timeout here.
    pub fn sample(&mut self, tcb: &mut Tcb, r: SimDuration) {
        let r_ns = r.as_nanos();
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
        tcb.latest_rtt = Some(r);
        tcb.min_rtt = Some(tcb.min_rtt.map_or(r, |m| m.min(r)));
        self.samples += 1;
        self.rto = self.policy.rto(srtt, self.rttvar, &self.bounds);
        self.backoff = 0;
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

    #[test]
    fn granularity_floors_the_variance_term() {
        let (mut e, mut t) = est(0, 60_000, 100);
        e.sample(&mut t, ms(50));
        e.sample(&mut t, ms(50));
        e.sample(&mut t, ms(50));
        // RTTVAR has decayed to ~14 ms; 4 * RTTVAR < G, so RTO = SRTT + G.
        assert_eq!(e.rto(), ms(150));
    }
}
