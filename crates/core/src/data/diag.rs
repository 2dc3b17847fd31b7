//! Diagnostics (problems a loader worked around) and load errors (files it could not use).

use serde::{Deserialize, Serialize};
use std::fmt;

/// One problem found while loading, naming the file, the line or row, and the field.
///
/// Loaders keep going after a diagnostic: the row is skipped or the field left empty, and the
/// user sees exactly what was dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: String,
    /// 1-based line of a JSON/JSONL record or a CSV row (the row's first line); `None` for
    /// problems about the whole file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A decision the loader made for the user (e.g. a guessed column mapping).
    Info,
    /// Data was dropped or altered.
    Warning,
}

impl Diagnostic {
    pub fn warning(file: &str, line: Option<usize>, field: Option<&str>, message: String) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            file: file.to_owned(),
            line,
            field: field.map(str::to_owned),
            message,
        }
    }

    pub fn info(file: &str, line: Option<usize>, field: Option<&str>, message: String) -> Self {
        Diagnostic { severity: Severity::Info, ..Diagnostic::warning(file, line, field, message) }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, " [{field}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Why a file could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// The file has no content (or only whitespace).
    Empty { file: String },
    /// The bytes are neither JSON, JSONL nor delimited text Concord understands.
    UnknownFormat { file: String, detail: String },
    /// The file's structure is broken before any record could be read.
    Malformed { file: String, line: usize, message: String },
    /// The format was recognised but not a single usable record came out of it.
    NoRecords { file: String, format: String, first_problem: Option<Box<Diagnostic>> },
    /// A column mapping names a column the file does not have.
    BadMapping { file: String, column: String, role: &'static str },
    /// The bytes are not text at all (an image, an archive, random data).
    Binary { file: String, what: String },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Empty { file } => write!(f, "{file}: the file is empty"),
            LoadError::UnknownFormat { file, detail } => {
                write!(f, "{file}: not a format Concord recognises ({detail})")
            }
            LoadError::Malformed { file, line, message } => {
                write!(f, "{file}:{line}: {message}")
            }
            LoadError::NoRecords { file, format, first_problem } => {
                write!(f, "{file}: read as {format}, but no record could be loaded")?;
                if let Some(d) = first_problem {
                    write!(f, "; first problem: {d}")?;
                }
                Ok(())
            }
            LoadError::Binary { file, what } => write!(
                f,
                "{file}: this is not a text file ({what}); load a CSV, TSV, JSON or JSON Lines file"
            ),
            LoadError::BadMapping { file, column, role } => {
                write!(
                    f,
                    "{file}: the mapping uses column `{column}` as {role}, but the file has no such column"
                )
            }
        }
    }
}

impl std::error::Error for LoadError {}
