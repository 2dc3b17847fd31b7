//! `concord`'s command line: one clap parser, a subcommand per command, each command's options
//! (with their help) in the command's own module.

use clap::{Parser, Subcommand};

use crate::error::Result;
use crate::{audit, class, coeval, inspect, meta, report, stats_cmd, table, validity};

/// LLM-as-a-judge evaluation from the command line: Concord's core — statistics, datasets, the
/// papers' tables and every table (and figure) a bundle shows in the app, byte for byte.
#[derive(Debug, Parser)]
#[command(
    name = "concord",
    version,
    arg_required_else_help = true,
    after_help = "Output goes to stdout (JSON unless a format says otherwise). Errors go to \
                  stderr: exit code 1 when the input cannot be used, 2 when the command line \
                  is not understood.\n\n`concord help COMMAND` or `concord COMMAND --help`: \
                  a command's options."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands, in the order `concord --help` lists them.
#[derive(Debug, Subcommand)]
#[command(args_override_self = true)]
pub enum Command {
    Stats(stats_cmd::Args),
    Inspect(inspect::Args),
    Table(table::Args),
    Meta(meta::Args),
    Coeval(coeval::Args),
    Report(report::Args),
    Audit(audit::Args),
    AltTest(validity::AltTestArgs),
    Trust(validity::TrustArgs),
    Class(class::Args),
}

impl Command {
    /// Runs the command.
    pub fn run(self) -> Result<()> {
        match self {
            Command::Stats(a) => stats_cmd::run(a),
            Command::Inspect(a) => inspect::run(a),
            Command::Table(a) => table::run(a),
            Command::Meta(a) => meta::run(a),
            Command::Coeval(a) => coeval::run(a),
            Command::Report(a) => report::run(a),
            Command::Audit(a) => audit::run(a),
            Command::AltTest(a) => validity::alt_test(a),
            Command::Trust(a) => validity::trust(a),
            Command::Class(a) => class::run(a),
        }
    }
}

#[cfg(test)]
mod tests;
