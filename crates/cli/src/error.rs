//! The CLI's errors once the command line is parsed (clap reports its own): what went wrong
//! and what to do about it. `main` prints them after the command's name and exits with status
//! 1, or 2 for [`CliError::Usage`].

use std::path::PathBuf;

/// Why a command could not do its work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The options do not fit together or with the input (e.g. `--labelled` without a table
    /// format, `--own` naming no system of the bundle); the message says what to type.
    #[error("{0}")]
    Usage(String),
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: std::io::Error },
    /// The input is not what the command needs; the core's message says why.
    #[error("{0}")]
    Input(String),
    /// The output could not be written (a closed pipe, a full disk).
    #[error("could not write the output: {0}")]
    Output(String),
    /// A command's own typed error (`concord coeval`'s `CoevalError`), said as it is.
    #[error(transparent)]
    Command(Box<dyn std::error::Error + Send + Sync>),
}

impl CliError {
    /// A usage error from anything printable.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::Usage(message.into())
    }

    /// The core's (or a parser's) complaint about the input.
    pub fn input(error: impl std::fmt::Display) -> CliError {
        CliError::Input(error.to_string())
    }

    /// Reading or writing `path` failed.
    pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CliError {
        let path = path.into();
        move |source| CliError::File { path, source }
    }
}

/// A command's result.
pub type Result<T> = std::result::Result<T, CliError>;
