// SPDX-License-Identifier: MIT OR Apache-2.0
//! The network: packets, queue disciplines, error models, links (fixed-rate
//! or trace-driven) and routing.

pub mod arq;
pub mod capacity;
pub mod error_model;
pub mod jitter;
pub mod link;
pub mod packet;
pub mod qdisc;
pub mod queue;
pub mod reorder;
pub mod route;
pub mod schedule;
pub mod shaper;
