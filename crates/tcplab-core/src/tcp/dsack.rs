// SPDX-License-Identifier: MIT OR Apache-2.0
//! Recognising a D-SACK block in an arriving ACK (RFC 2883 4).
//!
//! A receiver reports a duplicate segment in the first SACK block of its
//! ACK. The sender tells it apart from an ordinary SACK block by where it
//! lies: below the cumulative ACK (RFC 2883 4.1.1, Linux `tcp_check_dsack`:
//! `start_seq_0 < ack_seq`), or inside the second block (4.1.2, Linux:
//! `end_seq_0 <= end_seq_1 && !before(start_seq_0, start_seq_1)`).

use super::TcpHeader;

/// The D-SACK block of `h`, if its first SACK block is one.
#[inline]
pub fn dsack_block(h: &TcpHeader) -> Option<(u64, u64)> {
    let blocks = h.sack_blocks();
    let &(start, end) = blocks.first()?;
    if start < h.ack {
        return Some((start, end));
    }
    match blocks.get(1) {
        Some(&(s1, e1)) if end <= e1 && start >= s1 => Some((start, end)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(ack: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = TcpHeader {
            ack,
            nsack: blocks.len() as u8,
            ..TcpHeader::default()
        };
        h.sack[..blocks.len()].copy_from_slice(blocks);
        h
    }

    #[test]
    fn a_block_below_the_cumulative_ack_is_a_dsack() {
        // RFC 2883 4.1.1's example: segment 3000-3499 arrives twice.
        assert_eq!(dsack_block(&ack(4000, &[(3000, 3500)])), Some((3000, 3500)));
    }

    #[test]
    fn a_block_inside_the_second_is_a_dsack() {
        // RFC 2883 4.1.2: 5000-5499 arrives again while 4500-5999 is held
        // out of order: the duplicate comes first, then the block holding it.
        assert_eq!(
            dsack_block(&ack(4000, &[(5000, 5500), (4500, 6000)])),
            Some((5000, 5500))
        );
    }

    #[test]
    fn ordinary_sack_blocks_are_not() {
        assert_eq!(dsack_block(&ack(4000, &[(5000, 5500)])), None);
        assert_eq!(dsack_block(&ack(4000, &[(6000, 6500), (5000, 5500)])), None);
        assert_eq!(dsack_block(&ack(4000, &[])), None);
        // Starting at the cumulative ACK is not below it.
        assert_eq!(dsack_block(&ack(4000, &[(4000, 4500)])), None);
    }
}
