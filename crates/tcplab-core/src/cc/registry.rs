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

use super::variants::{construct, module_defaults};
pub use super::variants::{form_defaults, Variant, FORMS, NS3_PORTS, TABLE, VARIANTS};
use super::vegas::FineTimeout;
use super::CongestionControl;
use crate::error::{Error, Result};

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

/// The variants of Reno's growth, which differ in their recovery alone:
/// each is named after the recovery it runs with ([`TABLE`]).
pub static RENO_GROWTH: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    TABLE
        .iter()
        .filter(|v| v.recovery.paper == v.name)
        .map(|v| v.name)
        .collect()
});

/// The default parameters of `name` under `profile`, or None for an unknown
/// name (and an empty table for variants without parameters). The ns3
/// profile runs ns-3's own form of the variants it has one of
/// ([`NS3_PORTS`]).
pub fn defaults(name: &str, profile: Profile) -> Option<Value> {
    match port(name, profile) {
        Some(form) => form_defaults(name, form),
        None => module_defaults(name, profile),
    }
}

/// The variants whose Linux form (`version = "linux"`, Linux's own module
/// in its integers) the linux profile runs by default.
pub const LINUX_PORTS: &[&str] = &["cubic"];

/// The form a profile runs by default for `name`, if not tcplab's own
/// module: ns-3's under the ns3 profile ([`NS3_PORTS`]), Linux's under
/// the linux profile ([`LINUX_PORTS`]).
fn port(name: &str, profile: Profile) -> Option<&'static str> {
    match profile {
        Profile::Ns3 if NS3_PORTS.contains(&name) => Some("ns3"),
        Profile::Linux if LINUX_PORTS.contains(&name) => Some("linux"),
        _ => None,
    }
}

/// A variant's usual loss recovery under each profile (the names of
/// `crate::tcp::Recovery`'s strategies; the recoveries are TCP's, a layer
/// above). Linux and ns-3 (since 3.32) reduce the window by PRR whatever the
/// congestion control: with SACK (their default) by RFC 6675's rules,
/// without it as NewReno; their congestion-control modules do not choose.
/// ns-2's SACK agent is Agent/TCP/Sack1 (tcp/recovery/sack1.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usual {
    pub paper: &'static str,
    pub linux: &'static str,
    /// ns-3 3.44's.
    pub ns3: &'static str,
    /// ns-3 3.18's (the ns3 profile with `ns3_release = "3.18"`).
    pub ns3_18: &'static str,
    pub ns2: &'static str,
    pub inet: &'static str,
}

impl Usual {
    const fn like(paper: &'static str, ns2: &'static str) -> Usual {
        Usual {
            paper,
            linux: "prr",
            ns3: "prr",
            ns3_18: paper,
            ns2,
            inet: paper,
        }
    }
    /// Tahoe everywhere (Linux and ns-3 have no Tahoe to reduce by PRR).
    pub const TAHOE: Usual = Usual {
        linux: "tahoe",
        ns3: "tahoe",
        ..Usual::like("tahoe", "tahoe")
    };
    pub const RENO: Usual = Usual::like("reno", "reno");
    pub const NEWRENO: Usual = Usual::like("newreno", "newreno");
    pub const SACK: Usual = Usual::like("sack", "sack1");
    /// With `recovery` under the ns2 profile.
    pub const fn ns2(self, recovery: &'static str) -> Usual {
        Usual {
            ns2: recovery,
            ..self
        }
    }
    /// With `recovery` under ns-3 3.18.
    pub const fn ns3_18(self, recovery: &'static str) -> Usual {
        Usual {
            ns3_18: recovery,
            ..self
        }
    }
    /// The recovery's name under `profile` (and, for ns3, `release`).
    pub fn get(&self, profile: Profile, release: Ns3Release) -> &'static str {
        match profile {
            Profile::Paper => self.paper,
            Profile::Linux => self.linux,
            Profile::Ns3 if release == Ns3Release::V3_18 => self.ns3_18,
            Profile::Ns3 => self.ns3,
            Profile::Ns2 => self.ns2,
            Profile::Inet => self.inet,
        }
    }
}

/// How a variant answers an ECN echo (RFC 3168's Congestion Experienced).
/// The form of the sender's reduction (at once, or paced by PRR in CWR) is
/// the flow's `ecn_response`, the profile's; this is the variant's part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ecn {
    /// As one loss per window, by its own `ssthresh` (RFC 3168 6.1.2).
    Rfc3168,
    /// ECT on every segment and a cut by alpha/2, alpha the EWMA of the
    /// marked fraction (RFC 8257; its controller's `needs_ecn`).
    Dctcp,
}

/// The row of a variant written in Python (`cc = "python"`).
pub const PYTHON: Variant = Variant {
    name: "python",
    recovery: Usual::NEWRENO,
    ecn: Ecn::Rfc3168,
    summary: "a variant written in Python",
};

/// The name of the loss recovery (one of `crate::tcp::Recovery`'s, a layer
/// above) variant `name` runs with under `profile` (and `release`, for
/// ns3) unless a flow says otherwise, or None for an unknown variant
/// ("python" included: [`PYTHON`]). What `scenario::resolve::tcp` fills in
/// (`tests/usual_recovery.rs` compares them for every variant, profile and
/// release).
pub fn usual_recovery(name: &str, profile: Profile, release: Ns3Release) -> Option<&'static str> {
    let row = TABLE.iter().chain([&PYTHON]).find(|v| v.name == name)?;
    Some(row.recovery.get(profile, release))
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

/// What a row's constructor reads and sets: the resolved parameters, the
/// chosen form and the sender's options Vegas's fine retransmission needs.
pub struct Make<'a> {
    pub name: &'static str,
    /// Its scenario path (`flows[0].cc`), for messages.
    pub path: &'a str,
    pub value: &'a Value,
    /// The value of the form's key, when a form was chosen.
    pub form: Option<&'static str>,
    /// Appropriate byte counting (RFC 3465).
    pub abc: bool,
    pub fine_retransmit: bool,
    pub fine_timeout: FineTimeout,
    pub retransmit_backoff: bool,
}

impl Make<'_> {
    /// The parameters as the config `T`.
    pub fn config<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        serde_path_to_error::deserialize(self.value).map_err(|e| {
            Error::invalid(
                format!("{}.{}", self.path, e.path()),
                crate::error::user_words(&e.into_inner().to_string()),
            )
        })
    }
    /// The parameters as the config `T`, checked by `validate`.
    pub fn checked<T: serde::de::DeserializeOwned>(
        &self,
        validate: fn(&T) -> std::result::Result<(), (&'static str, String)>,
    ) -> Result<T> {
        let c = self.config()?;
        self.check_at("", validate(&c))?;
        Ok(c)
    }
    /// A check's failure as an error at the parameter it names, under
    /// `table` (a nested table's key, or "").
    pub fn check_at(
        &self,
        table: &str,
        r: std::result::Result<(), (&'static str, String)>,
    ) -> Result<()> {
        let table = if table.is_empty() {
            String::new()
        } else {
            format!(".{table}")
        };
        r.map_err(|(field, problem)| {
            Error::invalid(format!("{}{table}.{field}", self.path), problem)
        })
    }
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
    // the ns3 and linux profiles' default is their tool's form, where
    // there is one.
    let port = port(info.name, profile);
    let form = FORMS.iter().find(|&&(variant, key, value)| {
        let chosen = match spec.params.get(key) {
            Some(v) => v.as_str(),
            None => port.filter(|_| key == "version"),
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
    let mut x = Make {
        name: info.name,
        path,
        value: &value,
        form: form.map(|f| f.2),
        abc,
        fine_retransmit: false,
        fine_timeout: FineTimeout::Rfc6298,
        retransmit_backoff: false,
    };
    let cc = construct(&mut x)?;
    let (fine_retransmit, fine_timeout, retransmit_backoff) =
        (x.fine_retransmit, x.fine_timeout, x.retransmit_backoff);
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
