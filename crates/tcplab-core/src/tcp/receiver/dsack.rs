// SPDX-License-Identifier: MIT OR Apache-2.0
//! D-SACK generation (RFC 2883), as Linux's receiver does it (`dsack`:
//! sysctl `net.ipv4.tcp_dsack = 1`, with SACK agreed).
//!
//! - A segment entirely below RCV.NXT is reported whole
//!   (`tcp_send_dupack`, `tcp_data_queue`: `tcp_dsack_set(seq, end_seq)`);
//!   one that starts below RCV.NXT and brings new data reports its old
//!   part, `[seq, RCV.NXT)`.
//! - A segment overlapping out-of-order data already held reports the
//!   overlap (`tcp_data_queue_ofo`), and the ordinary SACK blocks follow,
//!   the one now holding the segment first (RFC 2883 4 (3) and (4)).
//! - An in-order segment that reaches data already held above it reports
//!   its overlap with them (`tcp_ofo_queue`): the first held range's,
//!   widened by later ones only where they touch (`tcp_dsack_extend`,
//!   `tcp_sack_extend`); as Linux's packetdrill `tcp_dsack_mult.pkt`
//!   expects, 1:6001 arriving over held 1001:3001 and 4001:5001 reports
//!   1001:3001.
//! - The block goes first in the next ACK's SACK option, within its room
//!   (3 blocks with timestamps, else 4), and only in that ACK (Linux clears
//!   `rx_opt.dsack` once written): RFC 2883 4 (2), each duplicate in at
//!   most one D-SACK block. A block still unsent when the next data segment
//!   arrives is dropped (4 (1): only the latest segment's duplicate;
//!   Linux's `tcp_data_queue` clears it first).

/// The D-SACK block waiting for the next ACK.
#[derive(Debug, Default)]
pub struct Dsack {
    block: Option<(u64, u64)>,
}

impl Dsack {
    /// `tcp_dsack_set`: report `[start, end)`, replacing an unsent block.
    #[inline]
    pub fn set(&mut self, start: u64, end: u64) {
        self.block = Some((start, end));
    }

    /// `tcp_dsack_extend`: widen the waiting block by `[start, end)` where
    /// they touch, or report it if none waits.
    pub fn extend(&mut self, start: u64, end: u64) {
        match self.block {
            None => self.set(start, end),
            Some((a, b)) if start <= b && a <= end => self.block = Some((a.min(start), b.max(end))),
            Some(_) => {}
        }
    }

    /// A new data segment: a block not yet sent is forgotten.
    #[inline]
    pub fn clear(&mut self) {
        self.block = None;
    }

    /// The block for the ACK being built, which then reports it.
    #[inline]
    pub fn take(&mut self) -> Option<(u64, u64)> {
        self.block.take()
    }

    /// The overlap of a segment `[s, e)` arriving above RCV.NXT with the
    /// held out-of-order ranges `ooo` (sorted, disjoint, not touching):
    /// the first overlap is set, later ones extend it.
    pub fn overlap_ooo(&mut self, ooo: &[(u64, u64, u64)], s: u64, e: u64) {
        let mut first = true;
        for &(a, b, _) in ooo.iter().filter(|r| r.0 < e && r.1 > s) {
            let (lo, hi) = (s.max(a), e.min(b));
            if first {
                self.set(lo, hi);
                first = false;
            } else {
                self.extend(lo, hi);
            }
        }
    }
}
