// SPDX-License-Identifier: MIT OR Apache-2.0
//! What each link direction does to a packet that reaches its far end,
//! built from the scenario: the error model (`loss`), a schedule's losses,
//! then at most one of link-layer ARQ, explicit reordering and delay jitter.
//! Each part draws from a stream of its own, named after the link direction
//! and the field, so that adding one leaves the others' draws alone.

use std::collections::HashMap;

use super::validate::{LinkEntryPlan, LinkPlan, NodePlan};
use super::LinkSpec;
use crate::error::{Error, Result};
use crate::net::arq::Arq;
use crate::net::error_model::ErrorModel;
use crate::net::qdisc::{FIFO, HOLDING};
use crate::rng::Rng;

/// Builds `lp`'s two directions' reception models from its `spec`.
pub(super) fn build(
    lp: &mut LinkPlan,
    spec: &LinkSpec,
    shared: &LinkEntryPlan,
    nodes: &[NodePlan],
    flow_ids: &HashMap<&str, u32, impl std::hash::BuildHasher>,
    seed: u64,
    run: u64,
) -> Result<()> {
    for dir in 0..2 {
        let field = |name: &str| {
            if dir == 0 {
                name.to_string()
            } else {
                format!("reverse_{name}")
            }
        };
        let path = |name: &str| format!("links[{}].{}", lp.entry, field(name));
        // The direction's stream for one of its fields.
        let (from, to) = if dir == 0 { (lp.a, lp.b) } else { (lp.b, lp.a) };
        let stream = |name: &str| {
            let (from, to) = (&nodes[from as usize].name, &nodes[to as usize].name);
            crate::rng::link_stream(&lp.name, from, to, &field(name))
        };
        let rng = |name: &str| Rng::stream(seed, run, &stream(name));

        let mut model = match pick(dir, &spec.loss, &spec.reverse_loss) {
            Some(loss) => Some(ErrorModel::from_spec(
                &path("loss"),
                loss,
                flow_ids,
                seed,
                run,
                &stream("loss"),
            )?),
            None => None,
        };
        // A schedule's losses come on top of the link's error model.
        if let Some(losses) = &shared.rate[dir].loss_schedule {
            model = Some(ErrorModel::scheduled(
                model,
                losses.clone(),
                rng("schedule"),
            ));
        }
        let arq = pick(dir, &spec.arq, &spec.reverse_arq);
        let reorder = pick(dir, &spec.reorder, &spec.reverse_reorder);
        let jitter = pick(dir, &spec.jitter, &spec.reverse_jitter);
        let movers = [
            ("arq", arq.is_some()),
            ("reorder", reorder.is_some()),
            ("jitter", jitter.is_some()),
        ];
        let given: Vec<&str> = movers.iter().filter(|m| m.1).map(|m| m.0).collect();
        if given.len() > 1 {
            return Err(Error::invalid_allowed(
                path(given[1]),
                format!("this direction also has {}", given[0]),
                "one of arq, reorder and jitter per direction",
            ));
        }
        if let Some(arq) = arq {
            arq.check(&path("arq"))?;
            // Its retransmissions join the link's FIFO: a discipline that
            // holds its own queue has none to join.
            if shared.queue[dir].holds() {
                return Err(Error::invalid_allowed(
                    path("arq"),
                    format!(
                        "ARQ on this direction: its queue discipline holds its packets ({})",
                        HOLDING.join(", ")
                    ),
                    format!("ARQ on a direction behind {}", FIFO.join(" or ")),
                ));
            }
            model = Some(ErrorModel::with_arq(model, Arq::new(arq)));
        }
        if let Some(reorder) = reorder {
            let r = reorder.build(&path("reorder"), rng("reorder"))?;
            model = Some(ErrorModel::with_reorder(model, r));
        }
        if let Some(jitter) = jitter {
            let j = jitter.build(&path("jitter"), rng("jitter"))?;
            model = Some(ErrorModel::jittered(model, j));
        }
        lp.error[dir] = model.map(Box::new);
    }
    Ok(())
}

/// Direction `dir`'s setting: the a -> b field's, or the b -> a one's.
fn pick<'a, T>(dir: usize, fwd: &'a Option<T>, rev: &'a Option<T>) -> Option<&'a T> {
    if dir == 0 {
        fwd.as_ref()
    } else {
        rev.as_ref()
    }
}
