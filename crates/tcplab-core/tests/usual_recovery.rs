// SPDX-License-Identifier: MIT OR Apache-2.0
//! The variants table's usual recovery (`cc::registry::usual_recovery`),
//! which the resolver fills in when a flow names none, follows the tools'
//! rules for every variant (and "python"), profile and ns-3 release. (Here,
//! not in `cc/`: the congestion-control layer may not use the scenario's.)

use tcplab_core::cc::registry::{usual_recovery, Ns3Release, Profile, PYTHON, TABLE};
use tcplab_core::cc::CongestionControl;
use tcplab_core::scenario::{resolve, FlowKind, FlowSpec};
use tcplab_core::tcp::Recovery;

/// The rules, written out apart from the table: Linux and ns-3 (since 3.32)
/// reduce by PRR whatever the controller (no Tahoe there); ns-3.18's
/// TcpWestwood has its own Reno-style recovery; ns-2 runs Agent/TCP/Vegas's
/// own and Agent/TCP/Sack1 for the SACK variants; otherwise the variant's
/// paper recovery.
fn rule(name: &str, paper: &'static str, p: Profile, release: Ns3Release) -> &'static str {
    let ns3_18 = p == Profile::Ns3 && release == Ns3Release::V3_18;
    match p {
        _ if ns3_18 && name.starts_with("westwood") => "reno",
        _ if ns3_18 => paper,
        Profile::Ns2 if name == "vegas" => "ns2_vegas",
        Profile::Ns2 if paper == "sack" => "sack1",
        Profile::Linux | Profile::Ns3 if name != "tahoe" => "prr",
        _ => paper,
    }
}

#[test]
fn the_usual_recovery_follows_the_tools_rules_and_is_the_resolvers_for_every_variant_profile_and_release(
) {
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
                let paper = usual_recovery(name, Profile::Paper, release).unwrap();
                assert_eq!(
                    usual_recovery(name, p, release),
                    Some(rule(name, paper, p, release)),
                    "{name} {p:?} {release:?}"
                );
            }
        }
    }
    assert_eq!(
        usual_recovery("nonesuch", Profile::Paper, Ns3Release::V3_44),
        None
    );
}
