//! The small value shapes several keys share: a scalar, one string or many, a count that may be
//! a template, and `true` or an options object.

use serde::Deserialize;

/// A string, number or boolean (environment values, log messages).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Scalar {
    String(String),
    Number(serde_json::Number),
    Bool(bool),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::String(s) => f.write_str(s),
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// One string or a list of them (`select`'s values, `upload`'s files).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// A count: a number, or a template that renders to one.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum IntOrTemplate {
    Int(i64),
    Template(String),
}

/// `true` or an options object.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Toggle<T> {
    On(True),
    Options(T),
}

/// Only the literal `true`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct True;

impl<'de> Deserialize<'de> for True {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<True, D::Error> {
        if bool::deserialize(d)? {
            Ok(True)
        } else {
            Err(serde::de::Error::custom("expected `true` or an object"))
        }
    }
}
