// SPDX-License-Identifier: MIT OR Apache-2.0
//! The network: packets, drop-tail queues, error models, links and routing.

pub mod error_model;
pub mod link;
pub mod packet;
pub mod qdisc;
pub mod queue;
pub mod route;
