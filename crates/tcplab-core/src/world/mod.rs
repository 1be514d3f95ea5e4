// SPDX-License-Identifier: MIT OR Apache-2.0
//! The world: the network built from a scenario, and the run loop.
//!
//! `World::build` has the whole scenario checked and laid out as a plan
//! (names, ranges, routes, sizes: [`crate::scenario::validate`]), refused
//! with a path-named error before anything runs, and builds the network from
//! it ([`World::from_plan`]). `run`
//! then processes events in (time, scheduling order) until the duration is
//! reached or nothing is left.
//!
//! The world is four parts and the loop over them: `Sim` (the clock, the
//! event queue, the packets in flight), `Network` (links, queues,
//! shapers, routes: `forward.rs`, `held.rs`, `arrival.rs`), `Endpoints`
//! (flows, connections, timers, per-flow counters: `endpoints.rs`,
//! `timers.rs`) and `Recording` (series, logs, packet traces:
//! `recording.rs`). A part's methods take the other parts they touch as
//! arguments (`sim`, `ep`, `rec`: fields of the world, so passing them costs
//! a register each; a context struct of borrows would be built per packet).
//! What is left in `impl World` is the event loop, its dispatch, and the
//! hand-overs between parts: a packet the network delivers goes to the
//! endpoints (`received` -> `deliver`), the segments they answer with go
//! back to the network (`emit_tcp` -> `send_on`).

use std::path::Path;

mod arrival;
mod build;
mod endpoints;
mod flow;
mod flow_table;
mod forward;
mod held;
mod layout;
mod link_table;
mod memory;
mod recording;
mod results;
mod timers;

#[cfg(test)]
mod tests;

use crate::par::{both_if, LARGE};
use flow::*;
use layout::prefetch_bytes;
use results::add_interval;
use timers::FlowTimers;

use crate::alloc;
use crate::cc::CustomCc;
use crate::engine::{Event, EventQueue, PacketId, Slab, TimerKind};
use crate::error::{Error, Result};
use crate::hist::Delays;
use crate::net::capacity::{CapacityTrace, TraceLink, OPPORTUNITY_BYTES};
use crate::net::link::{LinkDir, LinkStats, NO_SHAPER};
use crate::net::packet::TcpHeader;
use crate::net::packet::TCP_HEADER;
use crate::net::packet::{Packet, Proto, IPV4_HEADER, UDP_HEADER};
use crate::net::qdisc::{Dropped, Qdisc};
use crate::net::queue::InFlight;
use crate::net::queue::LinkQueue;
use crate::net::route::{RouteTable, NO_ROUTE};
use crate::net::schedule::ScheduleLink;
use crate::net::shaper::{Shaper, ShaperKind};
use crate::pcap::{FlowOptions, PcapWriter};
use crate::results::{
    chunked, chunked_beside, flow_columns, link_columns, DropCause, DropRecord, EventRecord,
    FlowResult, IntervalRecord, LinkResult, PcapRecord, Results, RunSummary, RunTiming, Series,
    Tables,
};
use crate::rng::{link_stream, Rng};
use crate::scenario::resolve::TcpPlan;
use crate::scenario::{
    AppPlan, CapturePoint, FlowKind, PcapSpec, Plan, Scenario, TraceKind, TraceSpec,
};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, TcpEvent};
use crate::time::{SimDuration, SimTime};

#[derive(Debug)]
struct Node {
    name: String,
    routes: RouteTable,
}

/// A dropped packet as logged during the run: (time, link direction, flow,
/// packet number, cause).
type DropEntry = (SimTime, u32, u32, u64, DropCause);

/// What a run asks every few thousand events: stop now? It is told the
/// simulated time and the number of events processed so far.
pub type Poll<'a> = dyn FnMut(SimTime, u64) -> bool + 'a;

pub struct World {
    /// The clock, the event queue and the packets in flight.
    sim: Sim,
    /// The end of the run, if a duration was given.
    end: Option<SimTime>,
    /// The links, their queues and the routes.
    net: Network,
    /// The flows: their applications, connections, timers and counters.
    ep: Endpoints,
    /// What the run records besides the counters: series, logs, packet
    /// traces.
    rec: Recording,
    events: u64,
    /// When the last event that did something happened.
    last_activity: SimTime,
    wall_seconds: f64,
    finished_at: Option<SimTime>,
    /// The scenario with every default filled in.
    scenario: Scenario,
    /// The scenario's memory budget, bytes (see [`memory`]).
    budget: u64,
    /// What the built network is estimated to hold (counted in the budget).
    built: crate::scenario::budget::Built,
}

/// What every part of the packet path shares: the clock, the event queue
/// and the packets in flight (and two settings read per packet). The
/// network's and the endpoints' methods take it (with the other parts they
/// touch) as an argument.
struct Sim {
    now: SimTime,
    /// The end of the run, or `SimTime::MAX` without a duration: one
    /// comparison per packet.
    horizon: SimTime,
    /// The scenario's `delay_percentiles`: every link direction's sojourn
    /// and every flow's delay distribution.
    delay_percentiles: bool,
    queue: EventQueue,
    packets: Slab<Packet>,
}

/// The network: nodes and their routes, link directions with their queues
/// and shapers.
struct Network {
    nodes: Vec<Node>,
    /// Link directions: index `2 * link + dir`, dir 0 is a -> b.
    links: Vec<LinkDir>,
    link_names: Vec<String>,
    /// Per link, its entry in the scenario's `links` (for messages).
    link_entries: Vec<u32>,
    /// The trace-driven link directions' state ([`LinkDir::shaper`]).
    shapers: Vec<Shaper>,
    /// Reused buffer for the packets a discipline that holds its queue
    /// drops at one call.
    held_drops: Vec<Dropped>,
}

/// The endpoints: the flows, their TCP connections, timer slots and
/// per-flow counters.
struct Endpoints {
    flows: Vec<Flow>,
    /// The TCP connections, indexed by their flows' `App::Tcp`.
    tcps: Vec<TcpFlow>,
    /// Timer slots per flow.
    timers: Vec<FlowTimers>,
    /// Per flow, a TCP transfer's completion time alone on its path.
    ideal: Vec<Option<SimDuration>>,
    /// Reused buffer for the segments a TCP endpoint emits.
    scratch: Vec<TcpHeader>,
    /// Per-interval counters allocated so far, over all flows.
    interval_buckets: u64,
}

/// The recording: time series, drop and event logs, packet traces.
struct Recording {
    /// Per link direction, when `trace` asks for "queue": (times, lengths).
    queue_trace: Option<Vec<(Vec<u64>, Vec<f64>)>>,
    /// Per link direction, when `trace` asks for "sojourn": (transmission
    /// starts, sojourns in seconds).
    sojourn_trace: Option<Vec<(Vec<u64>, Vec<f64>)>>,
    /// When `trace` asks for "drops": (time, link direction, flow, number, cause).
    drop_log: Option<Vec<DropEntry>>,
    /// When `trace` asks for "events": (flow, event).
    event_log: Option<Vec<(u32, TcpEvent)>>,
    /// Packet traces by link direction (empty when none is asked for).
    pcap: Vec<Option<PcapWriter>>,
    /// Per flow: the options its SYNs carry, for encoding them.
    flow_opts: Vec<FlowOptions>,
    /// Capture on reception (after the error model) rather than on transmission.
    pcap_rx: bool,
    /// Capture on transmission: some packet trace is open and `pcap_rx` is not set.
    pcap_tx: bool,
    /// Samples recorded in time series so far (queue and TCP series).
    series_samples: u64,
    /// Some connection records a time series / runs a user-written
    /// controller. Checked before the per-flow fields, which sit on cache
    /// lines of their own that a packet need not touch otherwise.
    any_series: bool,
}

/// Every this many events the run asks whether to stop (Ctrl-C) and checks
/// its memory: a few hundred microseconds of wall time.
const CHECK_EVERY: u64 = 4096;

impl World {
    /// Checks `scenario` completely and builds the network, ready to run.
    pub fn build(scenario: &Scenario) -> Result<World> {
        World::build_with(scenario, &mut |_| None)
    }

    /// As `build`, with user-written controllers for flows whose `cc` is
    /// "python".
    pub fn build_with(scenario: &Scenario, custom: CustomCc<'_>) -> Result<World> {
        World::from_plan(crate::scenario::plan(scenario, custom)?)
    }

    /// As `build_with`, taking the scenario (no copy of it is made).
    pub fn build_owned(scenario: Scenario, custom: CustomCc<'_>) -> Result<World> {
        World::from_plan(crate::scenario::validate::plan_owned(scenario, custom)?)
    }

    /// Runs to the end of the duration, or until no event is left. Fails
    /// before the first event if a trace file cannot be created.
    pub fn run(&mut self) -> Result<()> {
        self.run_polled(&mut |_, _| false)
    }

    /// As [`World::run`], asking `stop` every few thousand events (a few
    /// hundred microseconds of wall time) whether to stop, with the
    /// simulated time and the events so far (a progress display reads
    /// them): the bindings answer from Python's signal handlers, so Ctrl-C
    /// stops a run with [`Error::Interrupted`]. The memory budget is
    /// checked at the same points ([`Error::OutOfMemory`]).
    pub fn run_polled(&mut self, stop: &mut Poll<'_>) -> Result<()> {
        if let Some(spec) = self.scenario.pcap.clone() {
            self.rec.open_pcap(&spec, &self.net, &self.ep)?;
        }
        let started = std::time::Instant::now();
        loop {
            // An arrival's successor on the same link takes its place in the
            // event queue at once.
            let net = &self.net;
            let popped = self.sim.queue.pop_and_follow(|ev| match *ev {
                Event::Arrive { ld } => net.follower(ld),
                _ => None,
            });
            let Some((t, ev)) = popped else { break };
            if t > self.sim.horizon {
                break;
            }
            self.sim.now = t;
            self.events += 1;
            if self.events.is_multiple_of(CHECK_EVERY) {
                self.checkpoint(stop)?;
            }
            if !matches!(ev, Event::Arrive { .. }) {
                self.prefetch_timers();
            }
            let acted = match ev {
                Event::Arrive { ld } => {
                    let (sim, ep, rec) = (&mut self.sim, &mut self.ep, &mut self.rec);
                    let e = self.net.pop_arrival(ld, t, sim, ep, rec);
                    debug_assert_eq!(e.arrive, t);
                    self.arrive(ld, e.id);
                    true
                }
                Event::App { flow } => {
                    self.app(flow);
                    true
                }
                Event::Dequeue { ld } => {
                    let s = &mut self.sim;
                    self.net.advance_held(ld, t, s, &mut self.ep, &mut self.rec);
                    false
                }
                Event::Release { ld, id } => {
                    self.received(ld, id);
                    true
                }
                Event::Retransmit { ld, id } => {
                    self.resend(ld, id);
                    true
                }
                Event::Unhold { ld, tag } => {
                    self.unhold(ld, tag);
                    true
                }
                Event::Timer { flow, kind, gen } => self.timer(flow, kind, gen),
            };
            if acted {
                self.last_activity = t;
            }
        }
        // Without a duration the run ends with its last real event, not with
        // a cancelled timer that popped later.
        let finished = self.end.unwrap_or(self.last_activity);
        self.finished_at = Some(finished);
        // Queues up to date at the end: departures that happened by then.
        let (sim, ep, rec) = (&mut self.sim, &mut self.ep, &mut self.rec);
        self.net.advance_all(finished, sim, ep, rec);
        for w in self.rec.pcap.iter_mut().flatten() {
            w.flush();
        }
        self.wall_seconds = started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Asks whether to stop, and checks the memory the run holds against
    /// its budget.
    #[cold]
    #[inline(never)]
    fn checkpoint(&self, stop: &mut Poll<'_>) -> Result<()> {
        if stop(self.sim.now, self.events) {
            return Err(Error::Interrupted);
        }
        memory::check_use(self)
    }

    pub fn now(&self) -> SimTime {
        self.sim.now
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The scenario with every default filled in (what a check reports).
    pub fn effective_scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The effective scenario, the rest of the world freed first (as
    /// [`World::dispose`] frees it): what a check returns.
    pub fn into_effective_scenario(mut self) -> Scenario {
        let sc = std::mem::take(&mut self.scenario);
        self.dispose();
        sc
    }

    /// Frees the world once its results are out. A large one (a million
    /// flows hold several gigabytes in tens of millions of allocations, a
    /// second or more to free) is freed on a thread of its own, so that the
    /// results reach the caller meanwhile; a small one here, where a
    /// thread would cost more than the freeing.
    pub fn dispose(self) {
        if self.ep.flows.len() + self.net.links.len() < LARGE {
            return;
        }
        let freeing = std::thread::Builder::new().name("tcplab-free".into());
        // When no thread can be had, the closure, and the world in it, is
        // dropped by the failed spawn, here.
        let _ = freeing.spawn(move || drop(self));
    }
}
