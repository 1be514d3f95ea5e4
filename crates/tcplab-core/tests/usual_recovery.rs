// SPDX-License-Identifier: MIT OR Apache-2.0
//! The variants table's usual recovery (`cc::registry::usual_recovery`) is
//! the one the resolver fills in when a flow names none, for every variant
//! (and "python"), profile and ns-3 release. (Here, not in `cc/`: the
//! congestion-control layer may not use the scenario's.)

use tcplab_core::cc::registry::{usual_recovery, Ns3Release, Profile, PYTHON, TABLE};
use tcplab_core::cc::CongestionControl;
use tcplab_core::scenario::{resolve, FlowKind, FlowSpec};
use tcplab_core::tcp::Recovery;

#[test]
fn the_usual_recovery_is_the_resolvers_for_every_variant_profile_and_release() {
    let names = TABLE.iter().chain([&PYTHON]).map(|v| v.name);
    for name in names {
        for p in Profile::ALL {
            for release in [Ns3Release::V3_44, Ns3Release::V3_18] {
                let mut f = FlowSpec {
                    profile: Some(p),
                    cc: Some(tcplab_core::cc::registry::CcSpec::named(name)),
                    ns3_release: (p == Profile::Ns3).then_some(release),
                    ..FlowSpec::empty(FlowKind::Tcp)
                };
                let mut python = |_| {
                    Some(Box::new(tcplab_core::cc::reno::Reno::new(false))
                        as Box<dyn CongestionControl>)
                };
                resolve::tcp(0, "flows[0]", &mut f, 1500, &[], &mut python)
                    .unwrap_or_else(|e| panic!("{name} {p:?} {release:?}: {e}"));
                let usual = usual_recovery(name, p, release)
                    .map(|n| *Recovery::ALL.iter().find(|r| r.name() == n).unwrap());
                assert_eq!(usual, f.recovery, "{name} {p:?} {release:?}");
            }
        }
    }
    assert_eq!(
        usual_recovery("nonesuch", Profile::Paper, Ns3Release::V3_44),
        None
    );
}
