// SPDX-License-Identifier: MIT OR Apache-2.0
//! What Linux's BIC-family modules share (`tcp_bic.c`, and `tcp_cubic.c` as
//! 2.6.22 had it): the ACK ratio that divides cnt, beta in 1024ths, and
//! W_max with fast convergence.

/// beta is in 1024ths (Linux's `BICTCP_BETA_SCALE`).
pub const BETA_SCALE: u64 = 1024;
/// The ACK ratio is kept in 16ths (Linux's `ACK_RATIO_SHIFT`).
const ACK_RATIO_SHIFT: u32 = 4;

/// Segments per ACK in 16ths (Linux's `delayed_ack`): an integer EWMA of
/// gain 1/16, from 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRatio(pub u64);

impl AckRatio {
    /// Where it starts, and where a reset puts it: 2 segments per ACK.
    pub const START: AckRatio = AckRatio(2 << ACK_RATIO_SHIFT);

    /// A ratio of `per_ack` segments per ACK.
    pub fn of(per_ack: u64) -> Self {
        AckRatio(per_ack << ACK_RATIO_SHIFT)
    }

    /// ratio = 15/16 ratio + 1/16 `segments`, in 16ths and in integers, as
    /// the kernel's (with an ACK per segment it stops at 31/16).
    pub fn sample(&mut self, segments: u64) {
        self.0 = self.0 - (self.0 >> ACK_RATIO_SHIFT) + segments;
    }

    /// `cnt` (ACKs per one-segment increase) divided by the ratio, at least 1.
    pub fn divide(self, cnt: u64) -> u64 {
        ((cnt << ACK_RATIO_SHIFT) / self.0).max(1)
    }
}

/// `beta` must be a fraction in 1024ths.
pub fn check_beta(beta: u64) -> Result<(), (&'static str, String)> {
    if (1..BETA_SCALE).contains(&beta) {
        Ok(())
    } else {
        Err((
            "beta",
            format!("{beta} is not in 1..1023 (1024ths of the window)"),
        ))
    }
}

/// W_max after a loss at `w` segments: `w`, or w (1024 + beta) / 2048 with
/// fast convergence when `w` is below the previous W_max `last`.
pub fn w_max_after_loss(w: u64, last: u64, beta: u64, fast_convergence: bool) -> u64 {
    if fast_convergence && w < last {
        w * (BETA_SCALE + beta) / (2 * BETA_SCALE)
    } else {
        w
    }
}

/// A timeout's `bictcp_reset`, held until its ssthresh has been taken:
/// Linux computes the threshold before it enters Loss, tcplab tells the
/// controller the state first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PendingReset(bool);

impl PendingReset {
    /// The state is about to change to `to`: entering Loss asks for a reset.
    pub fn on_state(&mut self, to: super::CaState) {
        if to == super::CaState::Loss {
            self.0 = true;
        }
    }

    /// Whether a reset was asked for, which this clears.
    pub fn take(&mut self) -> bool {
        std::mem::take(&mut self.0)
    }
}
