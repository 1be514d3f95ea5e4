// SPDX-License-Identifier: MIT OR Apache-2.0
//! The discrete-event machinery: the event queue, the events and the packet
//! slab. The run loop itself lives in [`crate::world`], which owns the network.

mod event;
pub mod microbench;
mod queue;
mod slab;

pub use event::{Event, TimerKind};
pub use queue::EventQueue;
pub use slab::{PacketId, Slab};
