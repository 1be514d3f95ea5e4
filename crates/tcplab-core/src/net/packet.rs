// SPDX-License-Identifier: MIT OR Apache-2.0
//! Packets as they cross links: a small `Copy` struct of header fields and
//! sizes. No payload bytes are carried; sizes are honest.

use crate::tcp::TcpHeader;
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
