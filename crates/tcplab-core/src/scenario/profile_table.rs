// SPDX-License-Identifier: MIT OR Apache-2.0
//! The settings profiles' TCP defaults as one table: one [`Row`] per
//! setting (in [`super::profile_rows`]), holding its value under each
//! profile (and under ns-3 3.18 where that release differs from 3.44) with
//! the source it was read from. Resolving a flow fills its unset fields
//! from the table ([`fill`]); checking the result is a separate step
//! (`resolve::check`). The schema, docs/reference.md, `tl.schema()`,
//! `tl.variants()`, `tcplab variants` and the CLI's help read the same
//! table ([`export`]).

use serde::Serialize;
use serde_json::{json, Value as Json};

use crate::cc::registry::{Ns3Release, Profile};
use crate::scenario::FlowSpec;
use crate::tcp::Recovery;

/// A column of the table: a profile, or a release of one whose defaults
/// differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Paper,
    Linux,
    /// ns-3 3.44.
    Ns3,
    /// ns-3 3.18/3.19 (`ns3_release = "3.18"`); a row without a cell for
    /// it takes ns-3 3.44's.
    Ns3_18,
    Ns2,
    Inet,
}

impl Column {
    /// Every column, in the table's order.
    pub const ALL: [Column; 6] = [
        Column::Paper,
        Column::Linux,
        Column::Ns3,
        Column::Ns3_18,
        Column::Ns2,
        Column::Inet,
    ];

    /// The column of a flow's profile and (for ns3) release.
    pub fn of(profile: Profile, release: Option<Ns3Release>) -> Column {
        match profile {
            Profile::Paper => Column::Paper,
            Profile::Linux => Column::Linux,
            Profile::Ns3 if release == Some(Ns3Release::V3_18) => Column::Ns3_18,
            Profile::Ns3 => Column::Ns3,
            Profile::Ns2 => Column::Ns2,
            Profile::Inet => Column::Inet,
        }
    }

    /// Its name in listings: the profile's, "ns3 3.18" for that release.
    pub fn name(self) -> &'static str {
        match self {
            Column::Ns3_18 => "ns3 3.18",
            c => c.profile().name(),
        }
    }

    pub fn profile(self) -> Profile {
        match self {
            Column::Paper => Profile::Paper,
            Column::Linux => Profile::Linux,
            Column::Ns3 | Column::Ns3_18 => Profile::Ns3,
            Column::Ns2 => Profile::Ns2,
            Column::Inet => Profile::Inet,
        }
    }

    /// Whose defaults it holds, and where they were read.
    pub fn summary(self) -> &'static str {
        match self {
            Column::Paper => "the RFCs and the papers",
            Column::Linux => "Linux's implementation choices (sysctls and source constants)",
            Column::Ns3 => "ns-3 3.44's attribute defaults (the ns3 profile)",
            Column::Ns3_18 => {
                "ns-3 3.18/3.19's defaults (profile ns3 with ns3_release = \"3.18\"), \
                 where they differ from 3.44's"
            }
            Column::Ns2 => "ns-2.35's Agent/TCP family, as `ns` prints its defaults",
            Column::Inet => "OMNeT++'s INET 2.x (TCP.ned, TCPBaseAlg, TCPTahoeRenoFamily)",
        }
    }
}

/// What a rule reads: the flow as filled so far (the table's rows are in
/// the order their rules need), its variant, the recovery its variant and
/// column usually take, and its path's smallest MTU.
pub struct Ctx<'a> {
    pub f: &'a FlowSpec,
    pub variant: &'a str,
    pub usual_recovery: Recovery,
    pub path_mtu: u32,
}

impl Ctx<'_> {
    /// The flow's recovery (filled by the first row).
    pub fn recovery(&self) -> Recovery {
        self.f.recovery.unwrap_or(self.usual_recovery)
    }

    /// The payload of a segment (filled before the rows that read it).
    pub fn mss(&self) -> u64 {
        self.f.mss.map_or(0, |b| b.0)
    }

    pub fn sack(&self) -> bool {
        self.f.sack.unwrap_or(false)
    }
}

/// A default that follows from other settings: `f(ctx, n)`, described by
/// `says` (where `{n}` stands for `n`, the cell's own constant).
#[derive(Clone, Copy)]
pub struct Rule<T: 'static> {
    pub says: &'static str,
    pub n: u64,
    pub f: fn(&Ctx, u64) -> T,
}

/// One cell's default.
#[derive(Clone, Copy)]
pub enum Value<T: 'static> {
    Is(T),
    /// No default: the field stays unset (and says so by its absence).
    Unset,
    Rule(Rule<T>),
}

/// A value.
pub const fn is<T>(v: T) -> Value<T> {
    Value::Is(v)
}

/// A rule without a constant.
pub const fn rule<T>(says: &'static str, f: fn(&Ctx, u64) -> T) -> Value<T> {
    Value::Rule(Rule { says, n: 0, f })
}

/// A rule with its constant `n`.
pub const fn rule_n<T>(says: &'static str, n: u64, f: fn(&Ctx, u64) -> T) -> Value<T> {
    Value::Rule(Rule { says, n, f })
}

/// One setting: its field, and per column its default and the source it
/// was read from. `only`: the field belongs to that recovery alone and is
/// filled only for a flow recovering by it (another flow runs with its
/// column's value, not echoed).
pub struct Row<T: 'static> {
    pub field: &'static str,
    pub slot: fn(&mut FlowSpec) -> &mut Option<T>,
    pub only: Option<Recovery>,
    pub cells: &'static [(Column, Value<T>, &'static str)],
}

impl<T: Copy> Row<T> {
    /// The cell of `col` (ns-3 3.18 falls back on ns-3's).
    fn cell(&self, col: Column) -> Option<&(Column, Value<T>, &'static str)> {
        let find = |c| self.cells.iter().find(|x| x.0 == c);
        find(col).or_else(|| (col == Column::Ns3_18).then(|| find(Column::Ns3)).flatten())
    }

    /// The default under `col` when it is a value, not a rule.
    pub fn constant(&self, col: Column) -> Option<T> {
        match self.cell(col)?.1 {
            Value::Is(v) => Some(v),
            Value::Unset | Value::Rule(_) => None,
        }
    }

    /// The default under `col` for the flow `ctx` describes.
    pub fn value(&self, col: Column, ctx: &Ctx) -> Option<T> {
        match self.cell(col)?.1 {
            Value::Is(v) => Some(v),
            Value::Unset => None,
            Value::Rule(r) => Some((r.f)(ctx, r.n)),
        }
    }
}

/// A row whatever its type: what filling and the listings need.
pub trait Setting: Sync {
    fn field(&self) -> &'static str;
    /// Fills the field of `f` if unset.
    fn fill(&self, f: &mut FlowSpec, col: Column, variant: &str, usual: Recovery, path_mtu: u32);
    /// The row for the listings: field, and per column its default and source.
    fn export(&self) -> Json;
    /// Whether `col` has a cell of its own.
    fn has(&self, col: Column) -> bool;
    /// The source under `col` ("" when the cell is missing).
    fn source(&self, col: Column) -> &'static str;
}

impl<T: Copy + Serialize + Sync + 'static> Setting for Row<T> {
    fn field(&self) -> &'static str {
        self.field
    }

    fn fill(&self, f: &mut FlowSpec, col: Column, variant: &str, usual: Recovery, path_mtu: u32) {
        if (self.slot)(f).is_some() {
            return;
        }
        if let Some(own) = self.only {
            if f.recovery != Some(own) {
                return;
            }
        }
        let ctx = Ctx {
            f,
            variant,
            usual_recovery: usual,
            path_mtu,
        };
        let v = self.value(col, &ctx);
        *(self.slot)(f) = v;
    }

    fn export(&self) -> Json {
        let mut cells = serde_json::Map::new();
        for col in Column::ALL {
            if !self.has(col) {
                continue;
            }
            if let Some((_, v, source)) = self.cell(col) {
                let default = match v {
                    Value::Is(v) => serde_json::to_value(v).unwrap_or(Json::Null),
                    Value::Unset => Json::Null,
                    Value::Rule(r) => Json::String(r.says.replace("{n}", &r.n.to_string())),
                };
                let rule = matches!(v, Value::Rule(_));
                cells.insert(
                    col.name().into(),
                    json!({"default": default, "rule": rule, "source": source}),
                );
            }
        }
        json!({
            "field": self.field,
            "only_with_recovery": self.only.map(|r| r.name()),
            "defaults": cells,
        })
    }

    fn has(&self, col: Column) -> bool {
        self.cells.iter().any(|c| c.0 == col)
    }

    fn source(&self, col: Column) -> &'static str {
        self.cell(col).map_or("", |c| c.2)
    }
}

/// Fills every unset TCP field of `f` from the table's column `col`.
pub fn fill(f: &mut FlowSpec, col: Column, variant: &str, usual: Recovery, path_mtu: u32) {
    for row in super::profile_rows::TABLE {
        row.fill(f, col, variant, usual, path_mtu);
    }
}

/// The table for the listings (`tl.schema()["profile_defaults"]`).
pub fn export() -> Json {
    let columns: Vec<Json> = Column::ALL
        .iter()
        .map(|c| {
            json!({
                "name": c.name(),
                "profile": c.profile().name(),
                "release": (*c == Column::Ns3_18).then_some("3.18"),
                "summary": c.summary(),
            })
        })
        .collect();
    let rows: Vec<Json> = super::profile_rows::TABLE
        .iter()
        .map(|r| r.export())
        .collect();
    json!({"columns": columns, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::super::profile_rows::TABLE;
    use super::*;

    #[test]
    fn every_row_names_a_source_for_every_profile() {
        for row in TABLE {
            for col in Column::ALL {
                if col != Column::Ns3_18 {
                    assert!(row.has(col), "{}: no cell for {}", row.field(), col.name());
                }
                assert!(
                    !row.source(col).trim().is_empty(),
                    "{}: no source for {}",
                    row.field(),
                    col.name()
                );
            }
        }
    }

    #[test]
    fn every_tcp_field_but_the_selectors_has_one_row() {
        let mut fields: Vec<&str> = TABLE.iter().map(|r| r.field()).collect();
        let n = fields.len();
        fields.sort_unstable();
        fields.dedup();
        assert_eq!(fields.len(), n, "a field has two rows");
        for p in crate::scenario::flow_kind_params(crate::scenario::FlowKind::Tcp) {
            let selector = ["cc", "profile", "ns3_release", "app"].contains(p);
            assert_eq!(fields.contains(p), !selector, "{p}");
        }
    }
}
