// SPDX-License-Identifier: MIT OR Apache-2.0
//! The retransmission timer's estimator, RFC 6298.
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Then, with alpha = 1/8 and
//! beta = 1/4: RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R|,
//! SRTT = (1 - alpha) SRTT + alpha R. RTO = SRTT + max(G, K RTTVAR) with
//! K = 4, clamped to [min, max]. Each timeout doubles the RTO (backoff)
//! until a new sample arrives. Arithmetic is in integer nanoseconds.

use crate::time::SimDuration;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<SimDuration>,
    pub rttvar: SimDuration,
    /// Smallest sample seen.
    pub min_rtt: Option<SimDuration>,
    /// The last sample.
    pub latest: Option<SimDuration>,
    /// Samples taken so far.
    pub samples: u64,
    rto: SimDuration,
    backoff: u32,
    min: SimDuration,
    max: SimDuration,
    granularity: SimDuration,
}

/// K in RTO = SRTT + max(G, K * RTTVAR).
const K: u64 = 4;

impl RttEstimator {
    pub fn new(
        initial: SimDuration,
        min: SimDuration,
        max: SimDuration,
        granularity: SimDuration,
    ) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            latest: None,
            samples: 0,
            rto: initial.max(min).min(max),
            backoff: 0,
            min,
            max,
            granularity,
        }
    }

    pub fn sample(&mut self, r: SimDuration) {
        let r_ns = r.as_nanos();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration::from_nanos(r_ns / 2);
            }
            Some(srtt) => {
                let s = srtt.as_nanos();
                let err = s.abs_diff(r_ns);
                self.rttvar = SimDuration::from_nanos((3 * self.rttvar.as_nanos() + err) / 4);
                self.srtt = Some(SimDuration::from_nanos((7 * s + r_ns) / 8));
            }
        }
        self.latest = Some(r);
        self.samples += 1;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let var = (self.rttvar * K).max(self.granularity);
        self.rto = (self.srtt.unwrap() + var).max(self.min).min(self.max);
        self.backoff = 0;
    }

    /// The current timeout, backoff included.
    pub fn rto(&self) -> SimDuration {
        let mut r = self.rto;
        for _ in 0..self.backoff {
            r = (r * 2).min(self.max);
        }
        r
    }

    /// A timeout fired: double the RTO (up to the maximum).
    pub fn back_off(&mut self) {
        if self.rto() < self.max {
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
        self.rto = self.rto.max(THREE_S).min(self.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    fn est() -> RttEstimator {
        RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1))
    }

    #[test]
    fn first_sample_then_smoothing() {
        let mut e = est();
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100));
        // SRTT 100, RTTVAR 50, RTO = 100 + 4 * 50 = 300.
        assert_eq!(
            (e.srtt, e.rttvar, e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        e.sample(ms(200));
        // RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5; SRTT = 7/8 * 100 + 200/8 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rttvar, SimDuration::from_micros(62_500));
        assert_eq!(e.srtt, Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(362_500));
        assert_eq!(e.min_rtt, Some(ms(100)));
    }

    #[test]
    fn clamps_and_backs_off() {
        let mut e = est();
        e.sample(ms(10)); // 10 + 20 = 30 ms, clamped up to 200 ms
        assert_eq!(e.rto(), ms(200));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(800));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(200));
        let mut big = RttEstimator::new(ms(1000), ms(200), ms(3000), ms(1));
        for _ in 0..5 {
            big.back_off();
        }
        assert_eq!(big.rto(), ms(3000));
    }

    #[test]
    fn syn_timeout_without_sample_starts_data_at_three_seconds() {
        let mut e = est();
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.reinit_after_syn_timeout();
        assert_eq!(e.rto(), ms(3000));
    }

    #[test]
    fn granularity_floors_the_variance_term() {
        let mut e = RttEstimator::new(ms(1000), ms(0), ms(60_000), ms(100));
        e.sample(ms(50));
        e.sample(ms(50));
        e.sample(ms(50));
        // RTTVAR has decayed to ~14 ms; 4 * RTTVAR < G, so RTO = SRTT + G.
        assert_eq!(e.rto(), ms(150));
    }
}
