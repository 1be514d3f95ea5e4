// SPDX-License-Identifier: MIT OR Apache-2.0
//! Explicit reordering on a link direction: with a probability, a packet
//! reaching the far end is held back until a number of later packets
//! (its displacement, as RFC 4737 and RFC 5236 measure reordering) have
//! passed it, then goes on right behind the last of them. A link that falls
//! quiet releases it after at most `max_hold`, so a held packet never
//! waits for traffic that does not come.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::engine::PacketId;
use crate::error::{Error, Result};
use crate::net::error_model::check_probability;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

fn default_max_hold() -> SimDuration {
    SimDuration::from_millis(100)
}

/// A link direction's `reorder`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReorderSpec {
    /// The probability that a packet is held back.
    pub probability: f64,
    /// How many later packets pass a held one.
    pub displacement: u32,
    /// The longest a packet is held when fewer packets come.
    #[serde(default = "default_max_hold")]
    pub max_hold: SimDuration,
}

impl ReorderSpec {
    /// Checks it (`path` names the field in errors) and makes the state.
    pub fn build(&self, path: &str, rng: Rng) -> Result<Reorder> {
        check_probability(format!("{path}.probability"), self.probability)?;
        if self.displacement == 0 {
            return Err(Error::invalid_allowed(
                format!("{path}.displacement"),
                "0 packets",
                "1 or more later packets to pass a held one",
            ));
        }
        Ok(Reorder {
            p: self.probability,
            k: self.displacement,
            max_hold: self.max_hold,
            rng,
            held: VecDeque::new(),
            next_tag: 0,
            held_total: 0,
        })
    }
}

/// A held packet: its tag (for its time-out), the later packets still to
/// pass it, and when it goes on regardless.
#[derive(Debug, Clone, Copy)]
struct Held {
    tag: u32,
    id: PacketId,
    left: u32,
}

/// A link direction's reordering state.
#[derive(Debug)]
pub struct Reorder {
    p: f64,
    k: u32,
    max_hold: SimDuration,
    rng: Rng,
    held: VecDeque<Held>,
    next_tag: u32,
    /// Packets held back so far.
    pub held_total: u64,
}

/// What a packet reaching the far end comes to.
#[derive(Debug, PartialEq, Eq)]
pub struct Reordered {
    /// If it is held back: its tag, and when it goes on unless later
    /// packets pass it first ([`Reorder::timed_out`]).
    pub held: Option<(u32, SimTime)>,
    /// What goes on now, in order: the packet itself unless held, then the
    /// held packets it was the last to pass.
    pub go: Vec<PacketId>,
}

impl Reorder {
    /// Packet `id` reaches the far end at `now`.
    pub fn arrival(&mut self, id: PacketId, now: SimTime) -> Reordered {
        // It passes the packets held before it.
        let mut passed = Vec::new();
        self.held.retain_mut(|h| {
            h.left -= 1;
            if h.left == 0 {
                passed.push(h.id);
            }
            h.left > 0
        });
        if self.p > 0.0 && self.rng.bernoulli(self.p) {
            let tag = self.next_tag;
            self.next_tag = self.next_tag.wrapping_add(1);
            self.held.push_back(Held {
                tag,
                id,
                left: self.k,
            });
            self.held_total += 1;
            return Reordered {
                held: Some((tag, now + self.max_hold)),
                go: passed,
            };
        }
        let mut go = Vec::with_capacity(1 + passed.len());
        go.push(id);
        go.append(&mut passed);
        Reordered { held: None, go }
    }

    /// The held packet `tag` has waited `max_hold`: on now, if it still
    /// waits.
    pub fn timed_out(&mut self, tag: u32) -> Option<PacketId> {
        let i = self.held.iter().position(|h| h.tag == tag)?;
        self.held.remove(i).map(|h| h.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reorder(p: f64, k: u32) -> Reorder {
        ReorderSpec {
            probability: p,
            displacement: k,
            max_hold: SimDuration::from_millis(100),
        }
        .build("r", Rng::stream(1, 0, "reorder"))
        .unwrap()
    }

    #[test]
    fn a_held_packet_goes_on_behind_its_displacement_th_passer() {
        let mut r = reorder(1.0, 2);
        let t = SimTime::from_nanos(5);
        // Probability 1: every packet is held; each later one passes those before.
        let a = r.arrival(PacketId(1), t);
        assert_eq!(a.held.map(|h| h.1), Some(t + SimDuration::from_millis(100)));
        assert!(a.go.is_empty());
        assert!(r.arrival(PacketId(2), t).go.is_empty());
        // The third passes 1 (its second passer) and 2 (its first).
        let c = r.arrival(PacketId(3), t);
        assert_eq!(c.go, vec![PacketId(1)]);
        assert_eq!(r.timed_out(c.held.unwrap().0), Some(PacketId(3)));
        assert_eq!(r.timed_out(c.held.unwrap().0), None, "once");
    }

    #[test]
    fn about_a_fraction_p_of_the_packets_is_held() {
        let mut r = reorder(0.1, 3);
        let mut out = 0;
        for i in 0..100_000 {
            let x = r.arrival(PacketId(i), SimTime::ZERO);
            out += x.go.len();
        }
        assert!((r.held_total as f64 - 10_000.0).abs() < 400.0);
        // All but the last few held are out.
        assert!(100_000 - out <= 3 * 3);
    }

    #[test]
    fn parameters_are_checked() {
        let spec = |p: f64, k: u32| ReorderSpec {
            probability: p,
            displacement: k,
            max_hold: SimDuration::ZERO,
        };
        let err = |s: ReorderSpec| s.build("l.reorder", Rng::stream(1, 0, "r")).unwrap_err();
        assert!(err(spec(1.5, 1))
            .to_string()
            .starts_with("l.reorder.probability"));
        assert!(err(spec(0.5, 0))
            .to_string()
            .starts_with("l.reorder.displacement"));
    }
}
