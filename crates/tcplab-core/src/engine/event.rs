// SPDX-License-Identifier: MIT OR Apache-2.0
//! Events: small `Copy` values made of ids. No allocation per event; packets
//! live in the [`super::Slab`], and a packet on the wire waits in its link's
//! pipe, not in the event queue.

/// What a transport timer is for. Each (flow, kind) has one slot; see
/// `world::FlowTimers` for the lazy cancellation by generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TimerKind {
    /// Sender retransmission timeout (RFC 6298).
    Rto,
    /// Receiver delayed-ACK timer (RFC 1122 4.2.3.2).
    DelayedAck,
    /// Sender pacing: the next segment may leave (BBR).
    Pace,
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The packet at the head of link direction `ld`'s pipe reaches the far
    /// end (after transmission and propagation); the error model is applied
    /// here. A link's arrivals come in the order its packets were sent, so
    /// only the head of each pipe is in the event queue.
    Arrive { ld: u32 },
    /// Link direction `ld`, driven by a capacity trace, reaches the
    /// opportunity at which its discipline (one that holds its queue) gives
    /// out the next packet.
    Dequeue { ld: u32 },
    /// Packet `id`, past link direction `ld`'s far end and error model,
    /// comes out of its delay jitter.
    Release { ld: u32, id: super::PacketId },
    /// Packet `id`, lost on link direction `ld`, is sent again by the
    /// link's ARQ.
    Retransmit { ld: u32, id: super::PacketId },
    /// A packet held back by link direction `ld`'s reordering (its `tag`)
    /// has waited its longest.
    Unhold { ld: u32, tag: u32 },
    /// The application of `flow` acts: a CBR send, an ON/OFF edge, a start.
    App { flow: u32 },
    /// A transport timer of `flow`; ignored on pop if `gen` is stale.
    Timer {
        flow: u32,
        kind: TimerKind,
        gen: u32,
    },
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_stay_small() {
        assert!(std::mem::size_of::<super::Event>() <= 16);
    }
}
