// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scenario data read straight from Python objects, without JSON text.
//!
//! The builders hold a scenario as plain data: dicts with string keys,
//! lists, strings, ints, floats, bools and None. Encoding that as JSON and
//! parsing it again costs two seconds with a million flows (90 MB of text).
//! [`PyDe`] is a serde deserializer over the objects themselves that hands
//! the scenario's `Deserialize` the same calls serde_json would for the
//! JSON text of the same data (a non-negative int as u64, a negative one as
//! i64, a float as f64, None as unit, a dict as a map, a list or tuple as a
//! sequence).
//!
//! It reads only exact plain types. Anything else (numpy numbers, paths,
//! subclasses, non-finite floats, ints beyond 64 bits, non-string keys) and
//! any error of the scenario's own make it give up with [`NotPlain`]; the
//! caller then takes the JSON path, whose conversions and messages stay
//! the one source of both.

use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

/// Why the objects could not be read directly (never shown to a user).
#[derive(Debug)]
pub struct NotPlain(String);

impl fmt::Display for NotPlain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotPlain {}

impl de::Error for NotPlain {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NotPlain(msg.to_string())
    }
}

fn not_plain(what: &str) -> NotPlain {
    NotPlain(what.to_owned())
}

/// A deserializer over one Python object.
pub struct PyDe<'a, 'py>(pub &'a Bound<'py, PyAny>);

impl PyDe<'_, '_> {
    fn str(&self) -> Result<Option<&str>, NotPlain> {
        match self.0.cast_exact::<PyString>() {
            Ok(s) => s
                .to_str()
                .map(Some)
                .map_err(|_| not_plain("a string that is not UTF-8")),
            Err(_) => Ok(None),
        }
    }

    /// None, a bool, an int or a float, as serde_json visits them.
    fn scalar<'de, V: Visitor<'de>>(o: &Bound<'_, PyAny>, v: V) -> Result<V::Value, NotPlain> {
        if o.is_none() {
            return v.visit_unit();
        }
        if let Ok(b) = o.cast_exact::<PyBool>() {
            return v.visit_bool(b.is_true());
        }
        if o.is_exact_instance_of::<PyInt>() {
            if let Ok(x) = o.extract::<u64>() {
                return v.visit_u64(x);
            }
            if let Ok(x) = o.extract::<i64>() {
                return v.visit_i64(x);
            }
            return Err(not_plain("an int beyond 64 bits"));
        }
        if let Ok(f) = o.cast_exact::<PyFloat>() {
            let x = f.value();
            if !x.is_finite() {
                return Err(not_plain("a non-finite float"));
            }
            return v.visit_f64(x);
        }
        Err(not_plain("not plain data"))
    }
}

impl<'de> de::Deserializer<'de> for PyDe<'_, '_> {
    type Error = NotPlain;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NotPlain> {
        let o = self.0;
        // Strings first: most of a large scenario is names.
        if let Some(s) = self.str()? {
            return v.visit_str(s);
        }
        // As serde_json, a visitor must take every element: a pair given
        // three is an error, not a pair.
        if let Ok(d) = o.cast_exact::<PyDict>() {
            let mut map = Map {
                items: d.iter(),
                value: None,
            };
            let out = v.visit_map(&mut map)?;
            return match map.items.len() {
                0 => Ok(out),
                _ => Err(not_plain("a table with more fields than were read")),
            };
        }
        let mut seq = if let Ok(l) = o.cast_exact::<PyList>() {
            Seq::List(l.iter())
        } else if let Ok(t) = o.cast_exact::<PyTuple>() {
            Seq::Tuple(t.iter())
        } else {
            return Self::scalar(o, v);
        };
        let out = v.visit_seq(&mut seq)?;
        match de::SeqAccess::size_hint(&seq) {
            Some(0) => Ok(out),
            _ => Err(not_plain("a sequence with more elements than were read")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NotPlain> {
        if self.0.is_none() {
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, NotPlain> {
        v.visit_newtype_struct(self)
    }

    /// As serde_json: `"variant"` for a unit variant, `{"variant": value}`
    /// for any other.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, NotPlain> {
        if let Some(s) = self.str()? {
            return v.visit_enum(s.into_deserializer());
        }
        let d = self
            .0
            .cast_exact::<PyDict>()
            .map_err(|_| not_plain("an enum that is neither a string nor a table"))?;
        let mut items = d.iter();
        match (items.next(), items.next()) {
            (Some((key, value)), None) => v.visit_enum(Variant { key, value }),
            _ => Err(not_plain("an enum table without exactly one key")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

enum Seq<'py> {
    List(pyo3::types::iter::BoundListIterator<'py>),
    Tuple(pyo3::types::iter::BoundTupleIterator<'py>),
}

impl<'de> de::SeqAccess<'de> for Seq<'_> {
    type Error = NotPlain;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, NotPlain> {
        let next = match self {
            Seq::List(items) => items.next(),
            Seq::Tuple(items) => items.next(),
        };
        match next {
            Some(x) => seed.deserialize(PyDe(&x)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(match self {
            Seq::List(items) => items.len(),
            Seq::Tuple(items) => items.len(),
        })
    }
}

/// A table's key: JSON would turn other keys into strings; the JSON path
/// decides.
fn string_key<'a, 'py>(key: &'a Bound<'py, PyAny>) -> Result<PyDe<'a, 'py>, NotPlain> {
    if key.is_exact_instance_of::<PyString>() {
        Ok(PyDe(key))
    } else {
        Err(not_plain("a key that is not a string"))
    }
}

struct Map<'py> {
    items: pyo3::types::iter::BoundDictIterator<'py>,
    value: Option<Bound<'py, PyAny>>,
}

impl<'de> de::MapAccess<'de> for Map<'_> {
    type Error = NotPlain;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, NotPlain> {
        let Some((key, value)) = self.items.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(string_key(&key)?).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, NotPlain> {
        let value = self
            .value
            .take()
            .ok_or_else(|| not_plain("a value without its key"))?;
        seed.deserialize(PyDe(&value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Variant<'py> {
    key: Bound<'py, PyAny>,
    value: Bound<'py, PyAny>,
}

impl<'de, 'py> de::EnumAccess<'de> for Variant<'py> {
    type Error = NotPlain;
    type Variant = Value<'py>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Value<'py>), NotPlain> {
        let tag = seed.deserialize(string_key(&self.key)?)?;
        Ok((tag, Value(self.value)))
    }
}

/// The value of a `{"variant": value}` table.
struct Value<'py>(Bound<'py, PyAny>);

impl<'de> de::VariantAccess<'de> for Value<'_> {
    type Error = NotPlain;

    fn unit_variant(self) -> Result<(), NotPlain> {
        de::Deserialize::deserialize(PyDe(&self.0))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, NotPlain> {
        seed.deserialize(PyDe(&self.0))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, NotPlain> {
        de::Deserializer::deserialize_any(PyDe(&self.0), v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, NotPlain> {
        de::Deserializer::deserialize_any(PyDe(&self.0), v)
    }
}

/// `data` as a `T`, or `None` when it is not plain data or `T` refuses it.
pub fn from_py<T: de::DeserializeOwned>(data: &Bound<'_, PyAny>) -> Option<T> {
    T::deserialize(PyDe(data)).ok()
}
