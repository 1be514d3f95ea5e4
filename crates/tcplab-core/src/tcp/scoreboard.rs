// SPDX-License-Identifier: MIT OR Apache-2.0
//! The SACK scoreboard of RFC 6675: which bytes above the cumulative ACK the
//! receiver has reported, and the questions recovery asks of them: IsLost,
//! the pipe estimate, and the next segment to send (NextSeg).
//!
//! It is kept as a sorted list of disjoint SACKed ranges above SND.UNA;
//! windows hold at most a few hundred segments, and the ranges are few.

/// A sorted, disjoint list of SACKed byte ranges [start, end).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Records one SACK block, merged in place with the ranges it overlaps
    /// or touches.
    pub fn add(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        // The ranges wholly below it, then those it overlaps or touches.
        let i = self.ranges.partition_point(|&(_, b)| b < start);
        let j = i + self.ranges[i..].partition_point(|&(a, _)| a <= end);
        if i == j {
            self.ranges.insert(i, (start, end));
        } else {
            let s = start.min(self.ranges[i].0);
            let e = end.max(self.ranges[j - 1].1);
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        }
    }

    /// Forgets everything below the cumulative ACK.
    pub fn advance(&mut self, una: u64) {
        self.ranges.retain(|&(_, b)| b > una);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= seq && seq < b)
    }

    /// If `seq` is inside a SACKed range, the end of that range.
    pub fn sacked_until(&self, seq: u64) -> Option<u64> {
        self.ranges
            .iter()
            .find(|&&(a, b)| a <= seq && seq < b)
            .map(|&(_, b)| b)
    }

    /// The highest SACKed sequence number + 1, if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|&(_, b)| b)
    }

    /// The SACKed bytes in [`from`, `to`).
    pub fn sacked_between(&self, from: u64, to: u64) -> u64 {
        self.ranges
            .iter()
            .map(|&(a, b)| b.min(to).saturating_sub(a.max(from)))
            .sum()
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|&(a, b)| b - a).sum()
    }

    /// RFC 6675 IsLost(seq): DupThresh discontiguous SACKed ranges above
    /// `seq`, or more than (DupThresh - 1) * MSS SACKed bytes above it.
    pub fn is_lost(&self, seq: u64, mss: u64, dupthresh: u32) -> bool {
        let mut blocks = 0u32;
        let mut bytes = 0u64;
        for &(a, b) in self.ranges.iter().rev() {
            if b <= seq {
                break;
            }
            blocks += 1;
            bytes += b - a.max(seq + 1).min(b);
            if blocks >= dupthresh || bytes > (dupthresh as u64 - 1) * mss {
                return true;
            }
        }
        false
    }

    /// RFC 6675 SetPipe: bytes in flight between `una` and `high_data`,
    /// counting each MSS-sized segment once if not SACKed and not lost, and
    /// once more if it was retransmitted (at or below `high_rxt`).
    pub fn pipe(&self, una: u64, high_data: u64, high_rxt: u64, mss: u64, dupthresh: u32) -> u64 {
        let mut pipe = 0;
        let mut s = una;
        while s < high_data {
            if let Some(end) = self.sacked_until(s) {
                s = end;
                continue;
            }
            let mut e = (s + mss).min(high_data);
            if let Some(&(a, _)) = self.ranges.iter().find(|&&(a, _)| a > s) {
                e = e.min(a); // never count SACKed bytes
            }
            let len = e - s;
            if !self.is_lost(s, mss, dupthresh) {
                pipe += len;
            }
            if s < high_rxt {
                pipe += len;
            }
            s = e;
        }
        pipe
    }

    /// RFC 6675 NextSeg rule (1): the first unSACKed segment start at or
    /// above `from` that is below the highest SACKed byte and IsLost.
    /// Rule (3) (`require_lost = false`): any such unSACKed segment.
    pub fn next_hole(
        &self,
        from: u64,
        mss: u64,
        dupthresh: u32,
        require_lost: bool,
    ) -> Option<u64> {
        let high = self.high_sacked()?;
        let mut s = from;
        while s < high {
            if let Some(end) = self.sacked_until(s) {
                s = end;
                continue;
            }
            if !require_lost || self.is_lost(s, mss, dupthresh) {
                return Some(s);
            }
            // Later holes have fewer SACKed bytes above them: none is lost.
            if require_lost {
                return None;
            }
        }
        None
    }

    /// Where the lost holes end: one past the last unSACKed byte below the
    /// highest SACKed byte whose segment IsLost (`una` if none is). Lost
    /// holes form a prefix of the holes (a hole has at least as much SACKed
    /// above it as any hole after it), so this grows exactly when an ACK
    /// makes another hole lost.
    pub fn lost_until(&self, una: u64, mss: u64, dupthresh: u32) -> u64 {
        let mut end = una;
        let mut s = una;
        for &(a, b) in &self.ranges {
            if s < a {
                // A hole [s, a): lost up to where IsLost stops holding.
                let mut t = s;
                while t < a && self.is_lost(t, mss, dupthresh) {
                    t = (t + mss).min(a);
                }
                if t == s {
                    return end;
                }
                end = t;
                if t < a {
                    return end;
                }
            }
            s = s.max(b);
        }
        end
    }

    /// RFC 6675 NextSeg rule (4), the rescue retransmission: the segment of
    /// up to `mss` bytes that ends at the highest unSACKed byte below
    /// `high_data`, if there is one above `una`.
    pub fn rescue_segment(&self, una: u64, high_data: u64, mss: u64) -> Option<u64> {
        // The highest unSACKed byte + 1, and the SACKed range below it.
        let mut end = high_data;
        let mut floor = una;
        for (i, &(a, b)) in self.ranges.iter().enumerate().rev() {
            if b >= end {
                end = end.min(a);
                floor = if i > 0 { self.ranges[i - 1].1 } else { una };
            } else {
                floor = b;
                break;
            }
        }
        let start = end.saturating_sub(mss).max(floor).max(una);
        (start < end).then_some(start)
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 100;

    #[test]
    fn merges_ranges() {
        let mut sb = Scoreboard::default();
        sb.add(300, 400);
        sb.add(600, 700);
        sb.add(400, 500);
        assert_eq!(sb.ranges(), &[(300, 500), (600, 700)]);
        sb.add(450, 650);
        assert_eq!(sb.ranges(), &[(300, 700)]);
        sb.advance(350);
        assert_eq!(sb.ranges(), &[(350, 700)]);
        sb.advance(800);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_three_segments_sacked_above() {
        // Segments of 100 B from 0; 0 lost; 100..300 SACKed (2 segments).
        let mut sb = Scoreboard::default();
        sb.add(100, 300);
        assert!(!sb.is_lost(0, M, 3));
        sb.add(300, 400); // 3 segments = 300 B > 2 * MSS
        assert!(sb.is_lost(0, M, 3));
        // Three discontiguous blocks also make it lost.
        let mut sb = Scoreboard::default();
        sb.add(100, 110);
        sb.add(200, 210);
        sb.add(300, 310);
        assert!(sb.is_lost(0, M, 3));
    }

    #[test]
    fn pipe_counts_unsacked_unlost_and_retransmitted() {
        // 10 segments out [0, 1000); 0 and 500 lost; the rest above 0 SACKed
        // except 500; 0 retransmitted (high_rxt = 100).
        let mut sb = Scoreboard::default();
        sb.add(100, 500);
        sb.add(600, 1000);
        // Segment 0: lost, retransmitted -> 1 segment. Segment 500: lost (4
        // segments SACKed above) -> 0. Pipe = 100.
        assert_eq!(sb.pipe(0, 1000, 100, M, 3), 100);
        // Before the retransmission, nothing is in flight.
        assert_eq!(sb.pipe(0, 1000, 0, M, 3), 0);
        // Unsent data beyond the SACKed region counts as in flight.
        assert_eq!(sb.pipe(0, 1200, 0, M, 3), 200);
    }

    #[test]
    fn lost_holes_end_where_is_lost_stops() {
        // 0 lost (4 segments SACKed above), 500 lost (4 above), 1000..1100
        // not SACKed and below nothing: never lost.
        let mut sb = Scoreboard::default();
        sb.add(100, 500);
        sb.add(600, 1000);
        assert_eq!(sb.lost_until(0, M, 3), 600);
        // Only 0 lost: 2 segments SACKed above 300.
        let mut sb = Scoreboard::default();
        sb.add(100, 300);
        sb.add(400, 500);
        assert_eq!(sb.lost_until(0, M, 3), 100);
        sb.add(600, 800); // 300 now has 3 SACKed segments above it
        assert_eq!(sb.lost_until(0, M, 3), 400);
        assert_eq!(Scoreboard::default().lost_until(7, M, 3), 7);
    }

    #[test]
    fn the_rescue_segment_ends_at_the_highest_unsacked_byte() {
        let mut sb = Scoreboard::default();
        sb.add(100, 500);
        // Data above the SACKed range: the last segment sent.
        assert_eq!(sb.rescue_segment(0, 800, M), Some(700));
        // Everything above 500 SACKed: the segment below it, [400, 500) is
        // SACKed so the hole is [0, 100).
        sb.add(500, 800);
        assert_eq!(sb.rescue_segment(0, 800, M), Some(0));
        // A short hole is retransmitted as it is.
        let mut sb = Scoreboard::default();
        sb.add(100, 350);
        sb.add(400, 800);
        assert_eq!(sb.rescue_segment(0, 800, M), Some(350));
        // Nothing unSACKed above una.
        let mut sb = Scoreboard::default();
        sb.add(0, 800);
        assert_eq!(sb.rescue_segment(0, 800, M), None);
    }

    #[test]
    fn next_hole_finds_lost_segments_in_order() {
        let mut sb = Scoreboard::default();
        sb.add(100, 500);
        sb.add(600, 1000);
        assert_eq!(sb.next_hole(0, M, 3, true), Some(0));
        assert_eq!(sb.next_hole(100, M, 3, true), Some(500));
        assert_eq!(sb.next_hole(600, M, 3, true), None);
    }

    #[test]
    fn sacked_between_counts_the_ranges_clipped_to_the_interval() {
        let mut sb = Scoreboard::default();
        sb.add(100, 200);
        sb.add(300, 500);
        assert_eq!(sb.sacked_between(0, 1000), 300);
        assert_eq!(sb.sacked_between(150, 350), 50 + 50);
        assert_eq!(sb.sacked_between(200, 300), 0);
        assert_eq!(sb.sacked_between(450, 450), 0);
    }

    #[test]
    fn add_keeps_the_union_of_every_block_as_sorted_disjoint_ranges() {
        // Random blocks in [0, 200) against a byte map of their union;
        // ranges that touch are one range.
        let mut x = 12_345u64;
        let mut next = |n: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) % n
        };
        for _ in 0..200 {
            let mut sb = Scoreboard::default();
            let mut map = [false; 200];
            for _ in 0..next(12) {
                let a = next(200);
                let b = (a + next(30)).min(200);
                sb.add(a, b);
                map[a as usize..b as usize].fill(true);
            }
            let mut want = vec![];
            let mut k = 0;
            while k < 200 {
                if map[k] {
                    let s = k;
                    while k < 200 && map[k] {
                        k += 1;
                    }
                    want.push((s as u64, k as u64));
                }
                k += 1;
            }
            assert_eq!(sb.ranges(), &want[..]);
        }
    }
}
