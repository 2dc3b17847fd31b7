//! Why a meta-evaluation analysis could not use a file (every analysis returns it).

use std::fmt;

/// Why a meta-evaluation analysis could not use a file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaError {
    /// The file has no judge outputs (a dataset rather than a results file).
    NoJudgeRun { file: String },
    /// The file has none of what the analysis needs.
    WrongShape { file: String, expected: &'static str },
    /// A record lacks a field the analysis needs.
    MissingField { file: String, line: usize, field: &'static str },
    /// Two runs that must cover the same pairs differ in length.
    LengthMismatch { left: usize, right: usize },
    /// The file is of another kind (a dataset, another paper's results).
    NotResults { format: &'static str },
}

impl fmt::Display for MetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaError::NoJudgeRun { file } => {
                write!(f, "{file}: no evaluator outputs in this file (is it a dataset?)")
            }
            MetaError::WrongShape { file, expected } => {
                write!(f, "{file}: expected {expected}, found none")
            }
            MetaError::MissingField { file, line, field } => {
                write!(f, "{file}, line {line}: missing `{field}`")
            }
            MetaError::LengthMismatch { left, right } => {
                write!(f, "the two runs have {left} and {right} verdicts; they must match")
            }
            MetaError::NotResults { format } => {
                write!(f, "a {format} file is not an evaluator or meta-evaluator results file")
            }
        }
    }
}

impl std::error::Error for MetaError {}
