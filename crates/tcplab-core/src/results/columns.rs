// SPDX-License-Identifier: MIT OR Apache-2.0
//! The columns of the flows and links tables: name, unit, type, meaning.

use serde::Serialize;

/// A column of a results table: its name, unit, type and meaning (the
/// metadata Python's column lists and docs/results.md come from).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    /// "" for a name, a count in the column's own terms, or a ratio.
    pub unit: &'static str,
    /// "str", "int" or "float" (NaN where it does not apply).
    pub kind: &'static str,
    pub meaning: &'static str,
}

/// Makes a results table from its declaration (`flow_table!` in
/// results/flows.rs, `link_table!` in results/links.rs: one line per
/// column, its name, type (`str`, `u64` or `f64`), unit, meaning, and the
/// expression that computes it from a row view `v`):
///
/// ```ignore
/// macro_rules! flow_table {
///     ($make:ident $($args:tt)*) => { $make! { [$($args)*]
///         /// The record's docs.
///         FlowResult, FLOW_COLUMNS, flow_columns;
///         flow: str, "", "the flow's name", |v| &v.f.name;
///         start_s: f64, "s", "when the source starts", |v| v.f.start.as_secs_f64();
///     } };
/// }
/// flow_table!(result_table);
/// ```
///
/// From the list come the record `FlowResult<S = String>` (one field per
/// column, names as `S`; its docs are the meanings), the metadata
/// `FLOW_COLUMNS` (the schema, `tl.schema()`, Python's column lists and
/// dtypes and docs/results.md read it), `flow_columns(rows)` (the table as
/// columns, in the list's order: what Python, CSV, parquet and the store
/// get) and `to_owned_names` (a row with its names owned). The world makes
/// the rows from the same list with [`result_rows!`]; the expressions are
/// compiled only there.
macro_rules! result_table {
    (
        [] $(#[$doc:meta])*
        $record:ident, $meta:ident, $columns:ident;
        $($name:ident : $kind:ident, $unit:literal, $meaning:literal, |$v:ident| $e:expr;)+
    ) => {
        $crate::results::result_table!(
            @record [$(#[$doc])*] $record [] $($name $kind $meaning,)+
        );

        #[doc = concat!("The columns of [`", stringify!($record), "`], in its fields' order.")]
        pub const $meta: &[$crate::results::Column] = &[$(
            $crate::results::Column {
                name: stringify!($name),
                unit: $unit,
                kind: $crate::results::result_table!(@kind $kind),
                meaning: $meaning,
            },
        )+];

        #[doc = concat!("The rows as columns, in the order of [`", stringify!($meta), "`].")]
        pub fn $columns<S: AsRef<str>>(rows: &[$record<S>]) -> $crate::results::Columns {
            vec![$(
                (stringify!($name), $crate::results::result_table!(@col rows, $name, $kind)),
            )+]
        }

        impl $record<&str> {
            /// The row with its names owned.
            pub fn to_owned_names(&self) -> $record {
                $record { $($name: $crate::results::result_table!(@own $kind, self.$name),)+ }
            }
        }
    };
    // The record's fields, one column at a time (a derive cannot read a
    // type made by a macro).
    (@record [$($doc:tt)*] $record:ident [$($fields:tt)*]) => {
        $($doc)*
        #[derive(Clone, Debug, Default, ::serde::Serialize, PartialEq)]
        pub struct $record<S = String> {
            $($fields)*
        }
    };
    (@record $doc:tt $record:ident [$($fields:tt)*] $name:ident str $meaning:literal,
        $($rest:tt)*) => {
        $crate::results::result_table!(
            @record $doc $record [$($fields)* #[doc = $meaning] pub $name: S,] $($rest)*
        );
    };
    (@record $doc:tt $record:ident [$($fields:tt)*] $name:ident $kind:ident $meaning:literal,
        $($rest:tt)*) => {
        $crate::results::result_table!(
            @record $doc $record [$($fields)* #[doc = $meaning] pub $name: $kind,] $($rest)*
        );
    };
    (@kind str) => { "str" };
    (@kind u64) => { "int" };
    (@kind f64) => { "float" };
    (@own str, $x:expr) => { $x.to_owned() };
    (@own $kind:ident, $x:expr) => { $x };
    (@col $rows:expr, $field:ident, str) => {
        $crate::results::ColumnData::Str($crate::results::joined(
            $rows.iter().map(|r| AsRef::<str>::as_ref(&r.$field)),
        ))
    };
    (@col $rows:expr, $field:ident, u64) => {
        $crate::results::ColumnData::U64($rows.iter().map(|r| r.$field).collect())
    };
    (@col $rows:expr, $field:ident, f64) => {
        $crate::results::ColumnData::F64($rows.iter().map(|r| r.$field).collect())
    };
}
pub(crate) use result_table;

/// Makes the rows of a results table from its declaration (see
/// [`result_table!`]): `flow_table!(result_rows pub(super) FlowRow)` gives
/// `FlowResult::of(&FlowRow) -> FlowResult<&str>`, each field the
/// declaration's expression with `v` the row view.
macro_rules! result_rows {
    (
        [$vis:vis $view:ident] $(#[$doc:meta])*
        $record:ident, $meta:ident, $columns:ident;
        $($name:ident : $kind:ident, $unit:literal, $meaning:literal, |$v:ident| $e:expr;)+
    ) => {
        impl<'a> $record<&'a str> {
            /// The row of `row`, its names borrowed.
            $vis fn of(row: &$view<'a>) -> Self {
                $record { $($name: { let $v = row; $e },)+ }
            }
        }
    };
}
pub(crate) use result_rows;
