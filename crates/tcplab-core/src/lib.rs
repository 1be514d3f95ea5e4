// SPDX-License-Identifier: MIT OR Apache-2.0
//! tcplab-core: a packet-level discrete-event network simulator for TCP
//! congestion-control research. Pure Rust, no Python; the `tcplab` Python
//! package drives it through the thin `tcplab-py` bindings.
//!
//! The path of data: a [`Scenario`] (plain serializable data) is checked and
//! built into a [`World`], which runs to completion and returns [`Results`].

pub mod alloc;
pub mod cc;
pub mod drill;
pub mod engine;
pub mod error;
pub mod hist;
pub mod net;
pub mod par;
pub mod pcap;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod tcp;
pub mod time;
pub mod units;
pub mod world;

pub use error::{Error, Result};
pub use results::Results;
pub use scenario::Scenario;
pub use world::World;

/// Parses, checks, builds and runs a scenario given as JSON.
pub fn run_json(text: &str) -> Result<Results> {
    let scenario = Scenario::from_json(text)?;
    run(&scenario)
}

/// Checks, builds and runs a scenario.
pub fn run(scenario: &Scenario) -> Result<Results> {
    run_with(scenario, &mut |_| None, &mut |_, _| false)
}

/// As [`run_with`], taking the scenario (no copy of it is made: with a
/// million flows a copy costs more than a second), and giving every table as
/// columns (see [`World::into_tables`]: the returned `Results` has no flow
/// or link rows).
pub fn run_owned(
    scenario: Scenario,
    custom: cc::CustomCc<'_>,
    stop: &mut world::Poll<'_>,
) -> Result<(results::Tables, Results)> {
    let t = std::time::Instant::now();
    let plan = scenario::validate::plan_owned(scenario, custom)?;
    let check = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let mut world = World::from_plan(plan)?;
    let build = t.elapsed().as_secs_f64();
    world.run_polled(stop)?;
    let t = std::time::Instant::now();
    let (tables, mut r) = world.into_tables();
    r.timing.check_seconds = check;
    r.timing.build_seconds = build;
    r.timing.results_seconds = t.elapsed().as_secs_f64();
    Ok((tables, r))
}

/// As `run`, with user-written controllers for flows whose `cc` is "python",
/// asking `stop` every few thousand events whether to stop (see
/// [`World::run_polled`]).
pub fn run_with(
    scenario: &Scenario,
    custom: cc::CustomCc<'_>,
    stop: &mut world::Poll<'_>,
) -> Result<Results> {
    let mut world = World::build_with(scenario, custom)?;
    world.run_polled(stop)?;
    Ok(world.into_results())
}
