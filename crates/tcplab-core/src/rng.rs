// SPDX-License-Identifier: MIT OR Apache-2.0
//! Independent random streams, one per random component.
//!
//! A stream is derived from (seed, run index, component name): the name is
//! hashed with FNV-1a and mixed with the seed and run through SplitMix64,
//! which seeds a xoshiro256++ generator (Blackman & Vigna, 2019). Because the
//! component is named ("link:bottleneck:a>b:loss", "flow:udp0"), not numbered
//! by creation order, adding a flow never changes the draws of another link.

/// FNV-1a, 64 bit: a stable hash of a component's name.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One SplitMix64 step (Steele, Lea, Flood 2014): used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// The name of a link direction's stream for `what` (its error model's
/// field, or `queue`): `link:NAME:FROM>TO:WHAT`, so that adding or
/// reordering links leaves other directions' draws unchanged.
pub fn link_stream(link: &str, from: &str, to: &str, what: &str) -> String {
    format!("link:{link}:{from}>{to}:{what}")
}

impl Rng {
    /// The stream for `component` in run `run` of seed `seed`.
    pub fn stream(seed: u64, run: u64, component: &str) -> Rng {
        let mut sm = seed;
        let a = splitmix64(&mut sm);
        let mut sm2 = run ^ a;
        let b = splitmix64(&mut sm2);
        let mut state = b ^ fnv1a(component.as_bytes());
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut state);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so ln never sees zero. `libm`, not the
        // platform's C library: the same draw on every machine.
        -mean * libm::log(1.0 - self.uniform())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::stream(1, 0, "link:x");
        let mut b = Rng::stream(1, 0, "link:x");
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut c = Rng::stream(1, 0, "link:y");
        let mut d = Rng::stream(2, 0, "link:x");
        let mut e = Rng::stream(1, 1, "link:x");
        assert_ne!(xs[0], c.next_u64());
        assert_ne!(xs[0], d.next_u64());
        assert_ne!(xs[0], e.next_u64());
    }

    #[test]
    fn uniform_mean_and_exponential_mean() {
        let mut r = Rng::stream(7, 0, "t");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // sd of the mean = sqrt(1/12/n) ~ 0.00065; 5 sd.
        assert!((m - 0.5).abs() < 0.0033, "{m}");
        let e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // sd of the mean = 2/sqrt(n) ~ 0.0045; 5 sd.
        assert!((e - 2.0).abs() < 0.023, "{e}");
    }
}
