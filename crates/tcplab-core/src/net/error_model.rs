// SPDX-License-Identifier: MIT OR Apache-2.0
//! Error models, applied when a packet is received at the far end of a link
//! direction (as ns-3's `ReceiveErrorModel` on a device).
//!
//! - `Uniform`: each packet is lost with probability PER.
//! - `Ber`: a bit error rate turned into a per-packet loss probability from
//!   the packet's size: p = 1 - (1 - BER)^(8 * size).
//! - `GilbertElliott`: a two-state (Good/Bad) channel in continuous time.
//!   Each state lasts a sojourn time (deterministic or exponential with the
//!   given mean); when it ends, the next state is Bad with probability
//!   `p_bad`, else Good (it may repeat). Packets arriving in a state are lost
//!   with that state's probability. The channel starts in Good at t = 0.
//!   State changes and loss draws use two separate streams, so the loss
//!   probabilities do not perturb the state sequence.
//! - `List`: drops exactly the packets whose arrival count (from 1, over this
//!   link direction, optionally only those of one flow) is listed.

use crate::net::packet::Packet;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

#[derive(Debug)]
pub enum ErrorModel {
    Uniform {
        per: f64,
        rng: Rng,
    },
    Ber {
        ber: f64,
        rng: Rng,
    },
    GilbertElliott(GilbertElliott),
    List {
        /// Sorted, deduplicated arrival numbers to drop.
        drop: Vec<u64>,
        next: usize,
        seen: u64,
        /// Count only this flow's packets, if set.
        flow: Option<u32>,
        /// Count only packets carrying payload.
        data_only: bool,
    },
}

#[derive(Debug)]
pub struct GilbertElliott {
    /// Loss probability in [Good, Bad].
    pub loss: [f64; 2],
    /// Sojourn time (or its mean) in [Good, Bad].
    pub sojourn: [SimDuration; 2],
    pub exponential: bool,
    /// Probability that each new state is Bad.
    pub p_bad: f64,
    bad: bool,
    until: SimTime,
    state_rng: Rng,
    loss_rng: Rng,
}

impl GilbertElliott {
    pub fn new(
        loss: [f64; 2],
        sojourn: [SimDuration; 2],
        exponential: bool,
        p_bad: f64,
        state_rng: Rng,
        loss_rng: Rng,
    ) -> Self {
        let mut ge = GilbertElliott {
            loss,
            sojourn,
            exponential,
            p_bad,
            bad: false,
            until: SimTime::ZERO,
            state_rng,
            loss_rng,
        };
        ge.until = SimTime::ZERO + ge.draw_sojourn(false);
        ge
    }

    fn draw_sojourn(&mut self, bad: bool) -> SimDuration {
        let mean = self.sojourn[bad as usize];
        let d = if self.exponential {
            let s = self.state_rng.exponential(mean.as_nanos() as f64);
            SimDuration::from_nanos(s.round() as u64)
        } else {
            mean
        };
        // A zero-length sojourn would stall time; one nanosecond is the floor.
        d.max(SimDuration::from_nanos(1))
    }

    /// Whether the channel is in the Bad state at `now`.
    pub fn is_bad_at(&mut self, now: SimTime) -> bool {
        while now >= self.until {
            self.bad = self.state_rng.bernoulli(self.p_bad);
            let d = self.draw_sojourn(self.bad);
            self.until += d;
        }
        self.bad
    }

    pub fn lose(&mut self, now: SimTime) -> bool {
        let bad = self.is_bad_at(now);
        let p = self.loss[bad as usize];
        p > 0.0 && self.loss_rng.bernoulli(p)
    }

    /// Long-run fraction of time in Bad and the resulting loss rate for
    /// packets arriving independently of the channel state.
    pub fn stationary_loss(loss: [f64; 2], sojourn: [SimDuration; 2], p_bad: f64) -> f64 {
        let tg = (1.0 - p_bad) * sojourn[0].as_nanos() as f64;
        let tb = p_bad * sojourn[1].as_nanos() as f64;
        let frac_bad = tb / (tg + tb);
        (1.0 - frac_bad) * loss[0] + frac_bad * loss[1]
    }
}

impl ErrorModel {
    /// Decides the fate of a packet arriving at `now`: true means lost.
    #[inline]
    pub fn lose(&mut self, now: SimTime, pkt: &Packet) -> bool {
        match self {
            ErrorModel::Uniform { per, rng } => *per > 0.0 && rng.bernoulli(*per),
            ErrorModel::Ber { ber, rng } => {
                let bits = pkt.size as f64 * 8.0;
                // 1 - (1 - ber)^bits, accurate for tiny ber; `libm` for the
                // same value on every machine.
                let p = -libm::expm1(bits * libm::log1p(-*ber));
                *ber > 0.0 && rng.bernoulli(p)
            }
            ErrorModel::GilbertElliott(ge) => ge.lose(now),
            ErrorModel::List {
                drop,
                next,
                seen,
                flow,
                data_only,
            } => {
                if flow.is_some_and(|f| f != pkt.flow) || (*data_only && pkt.payload == 0) {
                    return false;
                }
                *seen += 1;
                if drop.get(*next) == Some(seen) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Proto;

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet {
            flow,
            src: 0,
            dst: 1,
            size,
            payload: 0,
            next_hop: crate::net::route::NO_ROUTE,
            number: 0,
            sent_at: SimTime::ZERO,
            proto: Proto::Udp,
            tcp: Default::default(),
        }
    }

    #[test]
    fn list_drops_exactly_the_listed_arrivals() {
        let mut m = ErrorModel::List {
            drop: vec![2, 4, 5],
            next: 0,
            seen: 0,
            flow: None,
            data_only: false,
        };
        let lost: Vec<bool> = (0..6)
            .map(|_| m.lose(SimTime::ZERO, &pkt(0, 100)))
            .collect();
        assert_eq!(lost, [false, true, false, true, true, false]);
    }

    #[test]
    fn list_with_flow_filter_counts_only_that_flow() {
        let mut m = ErrorModel::List {
            drop: vec![2],
            next: 0,
            seen: 0,
            flow: Some(1),
            data_only: false,
        };
        let seq = [(0, false), (1, false), (0, false), (1, true), (1, false)];
        for (f, expect) in seq {
            assert_eq!(m.lose(SimTime::ZERO, &pkt(f, 100)), expect);
        }
    }

    #[test]
    fn ber_probability_grows_with_size() {
        // BER 1e-5: 1000-B packets lost with p = 1 - (1-1e-5)^8000 = 0.0769.
        let mut m = ErrorModel::Ber {
            ber: 1e-5,
            rng: Rng::stream(1, 0, "b"),
        };
        let n = 100_000;
        let lost = (0..n)
            .filter(|_| m.lose(SimTime::ZERO, &pkt(0, 1000)))
            .count();
        let p = 1.0 - (1.0f64 - 1e-5).powi(8000);
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        assert!((lost as f64 / n as f64 - p).abs() < 4.0 * sd, "{lost}");
    }

    #[test]
    fn deterministic_gilbert_elliott_follows_its_sojourns() {
        // Bad with probability 1 after every sojourn: Good for [0, 1 s), then
        // Bad forever in 100 ms steps.
        let mut ge = GilbertElliott::new(
            [0.0, 1.0],
            [SimDuration::from_secs(1), SimDuration::from_millis(100)],
            false,
            1.0,
            Rng::stream(1, 0, "s"),
            Rng::stream(1, 0, "l"),
        );
        assert!(!ge.lose(SimTime::from_nanos(999_999_999)));
        assert!(ge.lose(SimTime::from_nanos(1_000_000_000)));
        assert!(ge.lose(SimTime::from_nanos(5_000_000_000)));
    }

    #[test]
    fn stationary_loss_formula() {
        // Good 1 s, Bad 0.1 s, p_bad 0.5, loss 0 / 0.1: bad fraction 0.1/1.1.
        let l = GilbertElliott::stationary_loss(
            [0.0, 0.1],
            [SimDuration::from_secs(1), SimDuration::from_millis(100)],
            0.5,
        );
        assert!((l - 0.1 * 0.1 / 1.1).abs() < 1e-12);
    }
}
