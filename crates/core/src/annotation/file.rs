//! What one person exports and imports: their whole event log as a versioned JSON file, so an
//! import replays exactly what they did (undos included).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::log::{Entry, Log};

/// How a kind of annotation is written to a file: its `format` tag, the version this build
/// writes and reads, and the names of the fields naming the person and what they worked on.
pub trait Format: Entry + Serialize + DeserializeOwned {
    /// The `format` tag (`concord-review`, `concord-coeval-annotations`).
    const FORMAT: &'static str;
    /// The newest version this build reads and the one it writes.
    const VERSION: u32;
    /// The field naming the person (`reviewer`, `annotator`).
    const PERSON: &'static str;
    /// The field naming what the person worked on (`task`), if the file has one.
    const SCOPE: Option<&'static str>;
}

/// One person's work: `{"format", "version", <person>, [<scope>,] "events"}`, in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonFile<E> {
    pub format: String,
    pub version: u32,
    /// Who did the work (the file's [`Format::PERSON`] field).
    pub person: String,
    /// What they worked on (the file's [`Format::SCOPE`] field; empty when it has none).
    pub scope: String,
    pub events: Vec<E>,
}

/// Why a person's file was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FileError<X> {
    /// The file ends before its JSON does (a download cut short): serde's message.
    #[error("the file is cut short: {0}")]
    Truncated(String),
    /// Not JSON, or JSON of another shape (serde's message, with line and column).
    #[error("not a file of this kind: {0}")]
    Json(String),
    /// A JSON file of another tool or kind.
    #[error("format is `{found}`, expected `{expected}`")]
    Foreign { found: String, expected: &'static str },
    /// Written by a newer Concord.
    #[error("file version {found} is newer than this Concord reads ({reads}); update Concord")]
    Newer { found: u32, reads: u32 },
    /// The file names no person, so their work could not be told apart from others'.
    #[error("the file names no {field}")]
    NoPerson { field: &'static str },
    /// An event that does not replay, by position in the file's event list.
    #[error("event {index}: {error}")]
    BadEvent { index: usize, error: X },
}

impl<X> FileError<X> {
    /// serde's error as a truncated file or another shape.
    pub fn from_json(e: &serde_json::Error) -> FileError<X> {
        if e.is_eof() {
            FileError::Truncated(e.to_string())
        } else {
            FileError::Json(e.to_string())
        }
    }
}

#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

impl<E: Format> PersonFile<E> {
    /// `person`'s log, working on `scope` (ignored when the format has no scope).
    pub fn new(person: &str, scope: &str, log: &Log<E>) -> PersonFile<E> {
        PersonFile {
            format: E::FORMAT.to_owned(),
            version: E::VERSION,
            person: person.to_owned(),
            scope: scope.to_owned(),
            events: log.events().to_vec(),
        }
    }

    /// `person`'s log, in a format without a scope.
    pub fn by(person: &str, log: &Log<E>) -> PersonFile<E> {
        PersonFile::new(person, "", log)
    }

    /// The events as a log; files from [`PersonFile::read`] always replay.
    pub fn log(&self) -> Result<Log<E>, FileError<E::Error>> {
        Log::from_events(self.events.clone())
            .map_err(|(index, error)| FileError::BadEvent { index, error })
    }

    /// Pretty JSON, the file a person exports.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The header of a file of this kind: its format tag checked, then its version.
    pub fn check_header(bytes: &[u8]) -> Result<(), FileError<E::Error>> {
        let header: Header = serde_json::from_slice(bytes).map_err(|e| FileError::from_json(&e))?;
        if header.format != E::FORMAT {
            return Err(FileError::Foreign { found: header.format, expected: E::FORMAT });
        }
        if header.version > E::VERSION {
            return Err(FileError::Newer { found: header.version, reads: E::VERSION });
        }
        Ok(())
    }

    /// Reads a person's file: its header, its shape, a named person, and that it replays.
    pub fn read(bytes: &[u8]) -> Result<PersonFile<E>, FileError<E::Error>> {
        Self::check_header(bytes)?;
        let file: PersonFile<E> =
            serde_json::from_slice(bytes).map_err(|e| FileError::from_json(&e))?;
        file.check()?;
        Ok(file)
    }

    /// A file already parsed: a named person, and events that replay.
    pub fn check(&self) -> Result<(), FileError<E::Error>> {
        if self.person.trim().is_empty() {
            return Err(FileError::NoPerson { field: E::PERSON });
        }
        self.log().map(|_| ())
    }
}

impl<E: Format> Serialize for PersonFile<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = if E::SCOPE.is_some() { 5 } else { 4 };
        let mut out = s.serialize_struct("PersonFile", len)?;
        out.serialize_field("format", &self.format)?;
        out.serialize_field("version", &self.version)?;
        out.serialize_field(E::PERSON, &self.person)?;
        if let Some(scope) = E::SCOPE {
            out.serialize_field(scope, &self.scope)?;
        }
        out.serialize_field("events", &self.events)?;
        out.end()
    }
}

impl<'de, E: Format> Deserialize<'de> for PersonFile<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<E>(PhantomData<E>);
        impl<'de, E: Format> Visitor<'de> for Fields<E> {
            type Value = PersonFile<E>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("struct PersonFile")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut format, mut version, mut person, mut scope, mut events) =
                    (None, None, None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "format" => format = Some(map.next_value()?),
                        "version" => version = Some(map.next_value()?),
                        "events" => events = Some(map.next_value()?),
                        k if k == E::PERSON => person = Some(map.next_value()?),
                        k if Some(k) == E::SCOPE => scope = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let format = format.ok_or_else(|| de::Error::missing_field("format"))?;
                let version = version.ok_or_else(|| de::Error::missing_field("version"))?;
                let person = person.ok_or_else(|| de::Error::missing_field(E::PERSON))?;
                let scope = match E::SCOPE {
                    Some(field) => scope.ok_or_else(|| de::Error::missing_field(field))?,
                    None => String::new(),
                };
                let events = events.ok_or_else(|| de::Error::missing_field("events"))?;
                Ok(PersonFile { format, version, person, scope, events })
            }
        }
        d.deserialize_map(Fields(PhantomData))
    }
}
