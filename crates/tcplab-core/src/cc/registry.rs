// SPDX-License-Identifier: MIT OR Apache-2.0
//! The named variants: an algorithm, its parameters (with defaults that state
//! their source) and its usual loss recovery.
//!
//! A flow's `cc` is a variant name (`"vegas"`) or a table with a `name` and
//! parameters (`{ name = "vegas", alpha = 2, beta = 4 }`). Unset parameters
//! take the defaults of the flow's settings profile: `paper` (the published
//! algorithm, the default), `linux` or `ns3` (as those implementations set
//! them). The resolved parameters are written back into the effective
//! scenario, so every result records exactly what ran.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::bbr::{Bbr, BbrConfig};
use super::bic::{Bic, BicConfig};
use super::cdg::{Cdg, CdgConfig};
use super::cubic::{Cubic, CubicConfig};
use super::cubic_linux::{CubicLinux, CubicLinuxConfig};
use super::dctcp::{Dctcp, DctcpConfig};
use super::highspeed::{HighSpeed, HighSpeedConfig};
use super::htcp::{Htcp, HtcpConfig};
use super::hybla::{Hybla, HyblaConfig};
use super::illinois::{Illinois, IllinoisConfig};
use super::ledbat::{Ledbat, LedbatConfig};
use super::lp::{Lp, LpConfig};
use super::nv::{Nv, NvConfig};
use super::petra::{Petra, PetraConfig};
use super::reno::{Reno, RenoConfig};
use super::scalable::{Scalable, ScalableConfig};
use super::vegas::{FineTimeout, Vegas, VegasConfig};
use super::veno::{Veno, VenoConfig};
use super::westwood::{Westwood, WestwoodConfig};
use super::westwood_linux::{WestwoodLinux, WestwoodLinuxConfig};
use super::yeah::{Yeah, YeahConfig};
use super::CongestionControl;
use crate::error::{Error, Result};
use crate::rng::Rng;

/// Whose defaults a flow uses.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The RFCs and the papers.
    #[default]
    Paper,
    /// Linux's implementation choices.
    Linux,
    /// ns-3 3.44's defaults.
    Ns3,
    /// ns-2.35's `Agent/TCP` family, as its defaults are.
    Ns2,
    /// OMNeT++'s INET 2.x (`TCP.ned`, `TCPBaseAlg`, `TCPVegas`), as its
    /// defaults are.
    Inet,
}

crate::deserialize_names!(Profile {
    "paper" => Profile::Paper,
    "linux" => Profile::Linux,
    "ns3" => Profile::Ns3,
    "ns2" => Profile::Ns2,
    "inet" => Profile::Inet,
});

impl Profile {
    /// Every profile, in declaration order.
    pub const ALL: [Profile; 5] = [
        Profile::Paper,
        Profile::Linux,
        Profile::Ns3,
        Profile::Ns2,
        Profile::Inet,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Paper => "paper",
            Profile::Linux => "linux",
            Profile::Ns3 => "ns3",
            Profile::Ns2 => "ns2",
            Profile::Inet => "inet",
        }
    }
}

/// Which ns-3 release the ns3 profile follows.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub enum Ns3Release {
    /// ns-3 3.44 (2025), the release the validation runs.
    #[default]
    #[serde(rename = "3.44")]
    V3_44,
    /// ns-3 3.18/3.19 (2013-2014), the studies' release: initial window 1,
    /// no TCP options, NewReno's recovery with inflation, no limited
    /// transmit, `RttMeanDeviation` with one gain of 0.1 and a 200 ms
    /// minimum (docs/tcp.md).
    #[serde(rename = "3.18")]
    V3_18,
}

crate::deserialize_names!(Ns3Release {
    "3.44" => Ns3Release::V3_44,
    "3.18" => Ns3Release::V3_18,
});

/// A variant name with optional parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct CcSpec {
    pub name: String,
    pub params: Map<String, Value>,
}

impl CcSpec {
    pub fn named(name: &str) -> Self {
        CcSpec {
            name: name.to_string(),
            params: Map::new(),
        }
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CcSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a variant name or a table with 'name' and parameters")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<CcSpec, E> {
                Ok(CcSpec::named(v))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<CcSpec, A::Error> {
                let mut name = None;
                let mut params = Map::new();
                while let Some(k) = m.next_key::<String>()? {
                    if k == "name" {
                        name = Some(m.next_value::<String>()?);
                    } else {
                        params.insert(k, m.next_value::<Value>()?);
                    }
                }
                let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
                Ok(CcSpec { name, params })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for CcSpec {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.params.is_empty() {
            return s.serialize_str(&self.name);
        }
        let mut m = s.serialize_map(Some(self.params.len() + 1))?;
        m.serialize_entry("name", &self.name)?;
        for (k, v) in &self.params {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One named variant.
pub struct VariantInfo {
    pub name: &'static str,
    /// The loss recovery it runs with unless a flow says otherwise (its
    /// name; the recoveries are TCP's, a layer above).
    pub recovery: &'static str,
    pub summary: &'static str,
}

pub const VARIANTS: &[VariantInfo] = &[
    VariantInfo { name: "tahoe", recovery: "tahoe", summary: "Reno growth; 3 dupACKs: cwnd = 1 MSS, go back N" },
    VariantInfo { name: "reno", recovery: "reno", summary: "Reno growth; fast retransmit and fast recovery (RFC 5681)" },
    VariantInfo { name: "newreno", recovery: "newreno", summary: "Reno growth; NewReno recovery (RFC 6582)" },
    VariantInfo { name: "sack", recovery: "sack", summary: "Reno growth; SACK-based recovery (RFC 6675)" },
    VariantInfo { name: "vegas", recovery: "newreno", summary: "Brakmo & Peterson 1994: delay-based avoidance, modified slow start, fine-grained retransmission" },
    VariantInfo { name: "westwood", recovery: "newreno", summary: "Casetti/Mascolo 2001-02: ssthresh = BWE * RTTmin, per-ACK samples, Tustin filter" },
    VariantInfo { name: "westwoodplus", recovery: "newreno", summary: "Westwood+: one bandwidth sample per RTT, EWMA filter; version = \"2.6.22\": Linux 2.6.22's module (ns-2's TCP-Linux)" },
    VariantInfo { name: "petra", recovery: "newreno", summary: "Al-Hasanat et al. 2014: Westwood with an ELC-based faster slow start" },
    VariantInfo { name: "cubic", recovery: "sack", summary: "RFC 9438: cubic window growth, Reno-friendly region, fast convergence; version = \"2.6.22\": Linux 2.6.22's CUBIC 2.1 (ns-2's TCP-Linux)" },
    VariantInfo { name: "bbr", recovery: "sack", summary: "BBR v1 (Cardwell et al. 2016): BtlBw and RTprop model, pacing, gain cycling" },
    VariantInfo { name: "dctcp", recovery: "sack", summary: "DCTCP (RFC 8257): window cut by alpha/2 on ECN echoes, alpha the EWMA of the marked fraction" },
    VariantInfo { name: "veno", recovery: "sack", summary: "Fu & Liew 2003 (Linux tcp_veno.c): Vegas's backlog N tells random loss (keep 4/5) from congestion (halve; grow every other RTT)" },
    VariantInfo { name: "highspeed", recovery: "sack", summary: "HighSpeed TCP (RFC 3649): a(w)/w per ACK and a cut of b(w), from RFC 3649's functions or Linux's table" },
    VariantInfo { name: "scalable", recovery: "sack", summary: "Scalable TCP (Kelly 2003): +0.01 segment per ACK, a loss takes 1/8; Kelly's legacy window or Linux's min(cwnd, 100)" },
    VariantInfo { name: "bic", recovery: "sack", summary: "BIC (Xu, Harfoush & Rhee 2004; Linux tcp_bic.c): binary search for the last maximum, then max probing; beta 819/1024" },
    VariantInfo { name: "hybla", recovery: "sack", summary: "Caini & Firrincieli 2004: growth scaled by rho = SRTT/RTT0 (2^rho - 1 per ACK, rho^2/cwnd), RTT0 25 ms" },
    VariantInfo { name: "illinois", recovery: "sack", summary: "Liu, Basar & Srikant 2006-08: alpha 10 to 0.3 and beta 1/8 to 1/2 from queueing delay, once per RTT" },
    VariantInfo { name: "htcp", recovery: "sack", summary: "Leith & Shorten 2004: alpha grows with the time since the last loss, beta = RTTmin/RTTmax in [0.5, 0.8]" },
    VariantInfo { name: "yeah", recovery: "sack", summary: "Baiocchi, Castellani & Vacirca 2007: Scalable growth while the Vegas-style queue estimate is small, Reno's otherwise; precautionary decongestion" },
    VariantInfo { name: "ledbat", recovery: "newreno", summary: "LEDBAT (RFC 6817): less than best effort, the window steered to a 100 ms queuing-delay target" },
    VariantInfo { name: "nv", recovery: "sack", summary: "TCP-NV (Brakmo 2010, Linux's tcp_nv.c): Vegas's successor; once per RTT, cwnd cut towards rate x min RTT + pad" },
    VariantInfo { name: "cdg", recovery: "sack", summary: "CDG (Hayes & Armitage 2011, Linux's tcp_cdg.c): probabilistic backoff on the RTT gradient, shadow window" },
    VariantInfo { name: "lp", recovery: "sack", summary: "TCP-LP (Kuzmanovic & Knightly 2003): low priority; halves, or drops to 1 segment, when the delay nears its maximum" },
];

/// The variants of Reno's growth, which differ in their recovery alone.
pub const RENO_GROWTH: &[&str] = &["tahoe", "reno", "newreno", "sack"];

/// The default parameters of `name` under `profile`, or None for an unknown
/// name (and an empty table for variants without parameters). The ns3
/// profile runs ns-3's own form of the variants it has one of
/// ([`super::ns3::PORTS`]).
pub fn defaults(name: &str, profile: Profile) -> Option<Value> {
    if profile == Profile::Ns3 && super::ns3::PORTS.contains(&name) {
        return super::ns3::defaults(name);
    }
    module_defaults(name, profile)
}

/// The parameters of tcplab's own module for `name` under `profile`.
fn module_defaults(name: &str, profile: Profile) -> Option<Value> {
    fn to<T: Serialize>(t: &T) -> Value {
        serde_json::to_value(t).expect("configs serialize")
    }
    Some(match name {
        // ns-3's TcpNewReno halves the pipe, Linux's tcp_reno_ssthresh
        // cwnd, RFC 5681 the FlightSize (and so did ns-3.18's:
        // scenario/resolve.rs).
        "tahoe" | "reno" | "newreno" | "sack" => to(&match profile {
            Profile::Ns3 => RenoConfig::ns3(),
            Profile::Linux => RenoConfig::linux(),
            Profile::Paper | Profile::Ns2 | Profile::Inet => RenoConfig::rfc(),
        }),
        "vegas" => to(&match profile {
            Profile::Paper => VegasConfig::paper(),
            Profile::Linux => VegasConfig::linux(),
            Profile::Ns3 => VegasConfig::ns3(),
            Profile::Ns2 => VegasConfig::ns2(),
            Profile::Inet => VegasConfig::inet(),
        }),
        "westwood" => to(&match profile {
            Profile::Paper | Profile::Ns2 | Profile::Inet => WestwoodConfig::paper(),
            Profile::Ns3 => WestwoodConfig::ns3(false),
            Profile::Linux => WestwoodConfig::linux(),
        }),
        "westwoodplus" => to(&match profile {
            Profile::Paper | Profile::Ns2 | Profile::Inet => WestwoodConfig::plus_paper(),
            Profile::Ns3 => WestwoodConfig::ns3(true),
            Profile::Linux => WestwoodConfig::linux(),
        }),
        "petra" => to(&PetraConfig::paper()),
        "cubic" => to(&CubicConfig::rfc()),
        "bbr" => to(&BbrConfig::paper()),
        "dctcp" => to(&DctcpConfig::rfc()),
        "veno" => to(&VenoConfig::paper()),
        "highspeed" => to(&match profile {
            Profile::Paper | Profile::Inet => HighSpeedConfig::rfc(),
            Profile::Ns2 => HighSpeedConfig::ns2(),
            Profile::Linux | Profile::Ns3 => HighSpeedConfig::linux(),
        }),
        "scalable" => to(&match profile {
            Profile::Paper | Profile::Inet => ScalableConfig::paper(),
            Profile::Linux => ScalableConfig::linux(),
            Profile::Ns2 | Profile::Ns3 => ScalableConfig::ai_count_50(),
        }),
        "bic" => to(&BicConfig::linux()),
        "hybla" => to(&match profile {
            Profile::Paper => HyblaConfig::paper(),
            Profile::Linux | Profile::Ns3 | Profile::Ns2 | Profile::Inet => HyblaConfig::linux(),
        }),
        "illinois" => to(&IllinoisConfig::linux()),
        "htcp" => to(&HtcpConfig::linux()),
        "yeah" => to(&YeahConfig::linux()),
        // Linux's form (ns-2's TCP-Linux runs Linux's module), with its
        // delay from timestamps; ns-3's TcpLp's under the ns3 profile
        // (timestamps without Linux's clock-rate estimate); the other
        // profiles' flows have no timestamps by default: RTT samples.
        "lp" => to(&match profile {
            Profile::Linux => LpConfig::linux(),
            Profile::Ns3 => LpConfig::ns3(),
            Profile::Paper | Profile::Ns2 | Profile::Inet => LpConfig::rtt(),
        }),
        // Linux's module in every profile (no other tool has TCP-NV).
        "nv" => to(&NvConfig::linux()),
        // Linux's module in every profile (no other tool has CDG).
        "cdg" => to(&CdgConfig::linux()),
        // RFC 6817's form, except under ns-3's profile (Linux, ns-2 and
        // INET have no LEDBAT).
        "ledbat" => to(&match profile {
            Profile::Ns3 => LedbatConfig::ns3(),
            _ => LedbatConfig::rfc(),
        }),
        _ => return None,
    })
}

/// The forms a variant has besides its default, each chosen by one of its
/// parameters: (variant, parameter, value). A form has its own parameters
/// ([`form_defaults`]), the same under every profile.
pub const FORMS: &[(&str, &str, &str)] = &[
    ("cubic", "version", "2.6.22"),
    ("westwoodplus", "version", "2.6.22"),
    ("bic", "version", "ns3"),
    ("highspeed", "version", "ns3"),
    ("htcp", "version", "ns3"),
    ("hybla", "version", "ns3"),
    ("illinois", "version", "ns3"),
    ("scalable", "version", "ns3"),
    ("vegas", "version", "ns3"),
    ("veno", "version", "ns3"),
    ("yeah", "version", "ns3"),
];

/// The parameters of the form of `variant` chosen by `value` (one of
/// [`FORMS`]).
pub fn form_defaults(variant: &str, value: &str) -> Option<Value> {
    let v = match (variant, value) {
        ("cubic", "2.6.22") => serde_json::to_value(CubicLinuxConfig::linux_2622()),
        ("westwoodplus", "2.6.22") => serde_json::to_value(WestwoodLinuxConfig::default()),
        (v, "ns3") => return super::ns3::defaults(v),
        _ => return None,
    };
    Some(v.expect("configs serialize"))
}

/// A built controller and its fully resolved spec.
pub struct Built {
    pub cc: Box<dyn CongestionControl>,
    pub spec: CcSpec,
    /// The sender should run Vegas's fine-grained retransmission.
    pub fine_retransmit: bool,
    /// Its timeout's form.
    pub fine_timeout: FineTimeout,
    /// Each retransmission backs the retransmission timer off (ns-2's Vegas).
    pub retransmit_backoff: bool,
}

fn config<T: serde::de::DeserializeOwned>(path: &str, merged: &Value) -> Result<T> {
    serde_path_to_error::deserialize(merged).map_err(|e| {
        Error::invalid(
            format!("{path}.{}", e.path()),
            crate::error::user_words(&e.into_inner().to_string()),
        )
    })
}

fn check<T>(path: &str, r: std::result::Result<T, (&'static str, String)>) -> Result<T> {
    r.map_err(|(field, problem)| Error::invalid(format!("{path}.{field}"), problem))
}

/// Builds the variant `spec` names (at scenario path `path`, e.g.
/// `flows[0].cc`) under `profile`.
pub fn build(spec: &CcSpec, path: &str, profile: Profile, abc: bool) -> Result<Built> {
    let names: Vec<&str> = VARIANTS.iter().map(|v| v.name).chain(["python"]).collect();
    let info = VARIANTS
        .iter()
        .find(|v| v.name == spec.name)
        .ok_or_else(|| {
            Error::invalid_allowed(
                path.to_string(),
                format!("unknown variant '{}'", spec.name),
                names.join(", "),
            )
        })?;
    // A form (`cubic` with version = "2.6.22") takes its own parameters;
    // the ns3 profile's default is ns-3's form, where there is one.
    let ns3_port = profile == Profile::Ns3 && super::ns3::PORTS.contains(&info.name);
    let form = FORMS.iter().find(|&&(variant, key, value)| {
        let chosen = match spec.params.get(key) {
            Some(v) => v.as_str(),
            None => (ns3_port && key == "version").then_some("ns3"),
        };
        variant == info.name && chosen == Some(value)
    });
    let base = match form {
        Some(&(variant, _, value)) => form_defaults(variant, value),
        None => module_defaults(info.name, profile),
    };
    let Some(Value::Object(mut merged)) = base else {
        return Err(Error::Internal(format!("no defaults for {}", info.name)));
    };
    // A form's key that the default form lacks (westwoodplus's `version`)
    // names a form or nothing.
    let own_forms = || FORMS.iter().filter(|f| f.0 == info.name);
    if form.is_none() {
        for &(variant, key, _) in own_forms() {
            let Some(v) = spec.params.get(key).filter(|_| !merged.contains_key(key)) else {
                continue;
            };
            let values: Vec<String> = own_forms()
                .filter(|f| f.1 == key)
                .map(|f| format!("'{}'", f.2))
                .collect();
            let shown = v.as_str().map_or(v.to_string(), |s| format!("'{s}'"));
            return Err(Error::invalid_allowed(
                format!("{path}.{key}"),
                format!("{shown} is not a {key} of '{variant}'"),
                values.join(", "),
            ));
        }
    }
    for (k, v) in &spec.params {
        if !merged.contains_key(k) {
            let allowed: Vec<&str> = merged.keys().map(|s| s.as_str()).collect();
            return Err(Error::invalid_allowed(
                format!("{path}.{k}"),
                format!("not a parameter of '{}'", info.name),
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                },
            ));
        }
        // A nested table (Petra's `westwood`) overrides only what it names.
        match (merged.get_mut(k), v) {
            (Some(Value::Object(base)), Value::Object(over)) => {
                for (kk, vv) in over {
                    if !base.contains_key(kk) {
                        let allowed: Vec<&str> = base.keys().map(|s| s.as_str()).collect();
                        return Err(Error::invalid_allowed(
                            format!("{path}.{k}.{kk}"),
                            format!("not a parameter of '{}'", info.name),
                            allowed.join(", "),
                        ));
                    }
                    base.insert(kk.clone(), vv.clone());
                }
            }
            _ => {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
    let value = Value::Object(merged.clone());
    let mut fine_retransmit = false;
    let mut fine_timeout = FineTimeout::Rfc6298;
    let mut retransmit_backoff = false;
    let cc: Box<dyn CongestionControl> = match info.name {
        name if form.is_some_and(|f| f.2 == "ns3") => super::ns3::build(name, path, &value)?,
        "tahoe" | "reno" | "newreno" | "sack" => {
            let c: RenoConfig = config(path, &value)?;
            Box::new(Reno {
                halve: c.halve,
                ..Reno::new(abc)
            })
        }
        "vegas" => {
            let c: VegasConfig = config(path, &value)?;
            check(path, c.validate())?;
            fine_retransmit = c.fine_retransmit;
            fine_timeout = c.fine_timeout;
            retransmit_backoff = c.retransmit_backoff;
            Box::new(Vegas::new(c, abc))
        }
        "westwoodplus" if form.is_some() => {
            let c: WestwoodLinuxConfig = config(path, &value)?;
            Box::new(WestwoodLinux::new(c))
        }
        "westwood" | "westwoodplus" => {
            let c: WestwoodConfig = config(path, &value)?;
            check(path, c.validate())?;
            let name = if info.name == "westwood" {
                "westwood"
            } else {
                "westwoodplus"
            };
            Box::new(Westwood::new(name, c, abc))
        }
        "petra" => {
            let c: PetraConfig = config(path, &value)?;
            check(&format!("{path}.westwood"), c.westwood.validate())?;
            if !(0.0..1.0).contains(&c.alpha) {
                return Err(Error::invalid(format!("{path}.alpha"), "must be in [0, 1)"));
            }
            Box::new(Petra::new(c))
        }
        "cubic" if form.is_some() => {
            let c: CubicLinuxConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(CubicLinux::new(c))
        }
        "cubic" => {
            let c: CubicConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Cubic::new(c))
        }
        "bbr" => {
            let c: BbrConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Bbr::new(c))
        }
        "dctcp" => {
            let c: DctcpConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Dctcp::new(c, abc))
        }
        "veno" => {
            let c: VenoConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Veno::new(c, abc))
        }
        "highspeed" => {
            let c: HighSpeedConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(HighSpeed::new(c, abc))
        }
        "scalable" => {
            let c: ScalableConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Scalable::new(c, abc))
        }
        "bic" => {
            let c: BicConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Bic::new(c, abc))
        }
        "hybla" => {
            let c: HyblaConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Hybla::new(c, abc))
        }
        "illinois" => {
            let c: IllinoisConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Illinois::new(c, abc))
        }
        "htcp" => {
            let c: HtcpConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Htcp::new(c, abc))
        }
        "yeah" => {
            let c: YeahConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Yeah::new(c, abc))
        }
        "ledbat" => {
            let c: LedbatConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Ledbat::new(c, abc))
        }
        "cdg" => {
            let c: CdgConfig = config(path, &value)?;
            check(path, c.validate())?;
            // The world gives each flow its own stream (`seed`) before
            // the run; this one serves a controller built on its own.
            Box::new(Cdg::new(c, abc, Rng::stream(0, 0, "cc:cdg")))
        }
        "nv" => {
            let c: NvConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Nv::new(c, abc))
        }
        "lp" => {
            let c: LpConfig = config(path, &value)?;
            check(path, c.validate())?;
            Box::new(Lp::new(c, abc))
        }
        _ => {
            return Err(Error::Internal(format!(
                "variant {} has no constructor",
                info.name
            )))
        }
    };
    Ok(Built {
        cc,
        fine_retransmit,
        fine_timeout,
        retransmit_backoff,
        spec: CcSpec {
            name: info.name.to_string(),
            params: merged,
        },
    })
}
