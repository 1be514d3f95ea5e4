// SPDX-License-Identifier: MIT OR Apache-2.0
//! Groups: a field that holds one value or one per member of a group.

use serde::{Deserialize, Serialize};

/// One value, or one per member of a group: `a = ["s0", "s1", "s2"]` makes
/// three links, `src = [...]` as many flows, each member taking the
/// group's other fields. A single value beside lists serves every member.
#[derive(Clone, Debug, PartialEq)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The number of members, for a list.
    pub fn count(&self) -> Option<usize> {
        match self {
            OneOrMany::One(_) => None,
            OneOrMany::Many(v) => Some(v.len()),
        }
    }

    /// The value of member `k` (the one value serves every member).
    pub fn get(&self, k: usize) -> &T {
        match self {
            OneOrMany::One(x) => x,
            OneOrMany::Many(v) => &v[k],
        }
    }
}

impl<T: Serialize> Serialize for OneOrMany<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            OneOrMany::One(x) => x.serialize(s),
            OneOrMany::Many(v) => v.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{self, value, Visitor};
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a value or a list of values (one per member of a group)")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                a: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                Vec::<T>::deserialize(value::SeqAccessDeserializer::new(a)).map(OneOrMany::Many)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                T::deserialize(value::StrDeserializer::<E>::new(v)).map(OneOrMany::One)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                T::deserialize(value::U64Deserializer::<E>::new(v)).map(OneOrMany::One)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                T::deserialize(value::I64Deserializer::<E>::new(v)).map(OneOrMany::One)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
                T::deserialize(value::F64Deserializer::<E>::new(v)).map(OneOrMany::One)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Self::Value, E> {
                T::deserialize(value::BoolDeserializer::<E>::new(v)).map(OneOrMany::One)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}
