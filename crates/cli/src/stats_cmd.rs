//! `concord stats CASES.json`: compute every case of a file in the format of
//! `stats_examples/cases.json` and print the results as JSON in the format of `expected.json`.

use concord_core::stats::cases::run_cases;

use crate::error::{CliError, Result};
use std::io::Write;

const USAGE: &str = "usage: concord stats CASES.json   (use - for standard input)";

/// Run the subcommand; `args` are the arguments after `concord stats`.
pub fn run(args: &[String]) -> Result<()> {
    let [path] = args else {
        return Err(CliError::usage(USAGE));
    };
    if path == "-h" || path == "--help" {
        println!("{USAGE}");
        return Ok(());
    }
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
