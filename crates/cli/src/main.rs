//! `concord`: Concord's core from the shell — statistics, dataset inspection, paper tables.
//!
//! [`cli::Cli`] reads the command line (clap: a wrong argument is named, with exit code 2);
//! each command lives in its own module with its options. Output goes to stdout (JSON unless a
//! format says otherwise); errors go to stderr after the command's name, with exit code 1 (2
//! for a usage error found after parsing, such as an option that needs another).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod args;
mod audit;
mod class;
mod cli;
mod coeval;
mod error;
mod inspect;
mod meta;
mod report;
mod stats_cmd;
mod table;
mod validity;

fn main() -> ExitCode {
    // Help, the version and command-line errors end here, as clap prints them.
    let matches = cli::Cli::command().get_matches();
    let name = matches.subcommand_name().unwrap_or_default().to_owned();
    let cli = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error::CliError::Usage(message)) => {
            eprintln!(
                "concord {name}: {message}\n\nFor more information, try 'concord {name} --help'."
            );
            ExitCode::from(2)
        }
        Err(message) => {
            eprintln!("concord {name}: {message}");
            ExitCode::FAILURE
        }
    }
}
