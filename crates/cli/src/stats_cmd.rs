//! `concord stats CASES.json`: compute every case of a file in the format of
//! `stats_examples/cases.json` and print the results as JSON in the format of `expected.json`.

use concord_core::stats::cases::run_cases;

use crate::error::{CliError, Result};
use std::io::Write;

/// Every statistic of a case file, as JSON.
///
/// The case file is in the format of `crates/core/tests/fixtures/stats/edge.cases.json`; the
/// results are printed in the format of `edge.expected.json` beside it, as STATS_SPEC.md
/// specifies them (a case's error goes to stderr and into its result).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A case file in the format of `crates/core/tests/fixtures/stats/edge.cases.json`
    /// (`-`: standard input)
    #[arg(value_name = "CASES.json")]
    cases: String,
}

/// Runs `concord stats`.
pub fn run(args: Args) -> Result<()> {
    let path = &args.cases;
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(CliError::file("standard input"))?
    } else {
        std::fs::read_to_string(path).map_err(CliError::file(path))?
    };
    let results = run_cases(&text).map_err(|e| CliError::Input(format!("{path}: {e}")))?;
    for case in &results.results {
        if let Some(error) = case.error() {
            eprintln!("concord stats: case {}: {error}", case.id);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let fail = |e: &dyn std::fmt::Display| CliError::Output(e.to_string());
    serde_json::to_writer_pretty(&mut out, &results).map_err(|e| fail(&e))?;
    writeln!(out).map_err(|e| fail(&e))?;
    out.flush().map_err(|e| fail(&e))
}
