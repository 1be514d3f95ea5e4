// SPDX-License-Identifier: MIT OR Apache-2.0
//! Packets as they cross links: a small `Copy` struct of header fields and
//! sizes. No payload bytes are carried; sizes are honest.

use crate::time::SimTime;

/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;
/// TCP header without options (RFC 793).
pub const TCP_HEADER: u32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Udp,
    Tcp,
}

/// The ECN field of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    /// Congestion Experienced: set by a queue discipline instead of a drop.
    Ce = 3,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    /// Source and destination node ids.
    pub src: u32,
    pub dst: u32,
    /// Size of the IP datagram in bytes (headers included): what links
    /// serialize and queues count.
    pub size: u32,
    /// Application bytes carried.
    pub payload: u32,
    /// Set when the packet enters a link: the link direction it takes at
    /// the far end, or `NO_ROUTE` if the far end is its destination.
    pub next_hop: u32,
    /// Per-flow packet number, from 1, in the direction of travel.
    pub number: u64,
    /// When the source handed it to the network.
    pub sent_at: SimTime,
    pub proto: Proto,
    /// The ECN field.
    pub ecn: Ecn,
    /// The TCP header (default for UDP).
    pub tcp: TcpHeader,
}

// ---- the TCP header -----------------------------------------------------------

/// SYN flag.
pub const SYN: u8 = 0x02;
/// RST flag.
pub const RST: u8 = 0x04;
/// ACK flag.
pub const ACK: u8 = 0x10;
/// ECN-Echo (RFC 3168): set on ACKs (and in a SYN with CWR, or alone in a
/// SYN-ACK, to negotiate ECN).
pub const ECE: u8 = 0x40;
/// Congestion Window Reduced (RFC 3168): the sender reduced its window.
pub const CWR: u8 = 0x80;
/// FIN flag.
pub const FIN: u8 = 0x01;

/// Largest number of SACK blocks one header can carry (RFC 2018: 4 without
/// timestamps, 3 with).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The TCP header fields the simulator models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    pub flags: u8,
    /// Payload bytes.
    pub len: u32,
    /// Window field as on the wire (to be shifted by the peer's scale).
    pub wnd: u16,
    /// Bytes of TCP options (a multiple of 4, at most 40).
    pub opt_len: u8,
    /// Timestamps option (RFC 7323), in nanoseconds of simulated time.
    pub ts_val: u64,
    pub ts_ecr: u64,
    pub nsack: u8,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Not on the wire: this data segment is a retransmission.
    pub retx: bool,
    /// Not in the TCP header: the IP header's ECN field is to say ECT(0).
    pub ect: bool,
}

impl TcpHeader {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..self.nsack as usize]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_packet_is_160_bytes_with_its_ecn_field_in_padding() {
        // The bare-loop benchmark (engine::microbench) moves a stand-in of
        // this size. 6 u32 + 2 u64 + a 112-byte TCP header = 152, and the
        // protocol and the ECN field share the last word.
        assert_eq!(std::mem::size_of::<super::TcpHeader>(), 112);
        assert_eq!(std::mem::size_of::<super::Packet>(), 160);
    }
}
