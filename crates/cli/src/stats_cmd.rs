//! `concord stats CASES.json`: compute every case of a file in the format of
//! `stats_examples/cases.json` and print the results as JSON in the format of `expected.json`.

use concord_core::stats::cases::run_cases;
use std::io::Write;

const USAGE: &str = "usage: concord stats CASES.json   (use - for standard input)";

/// Run the subcommand; `args` are the arguments after `concord stats`.
pub fn run(args: &[String]) -> Result<(), String> {
    let [path] = args else {
        return Err(USAGE.to_string());
    };
    if path == "-h" || path == "--help" {
        println!("{USAGE}");
        return Ok(());
    }
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("reading standard input: {e}"))?
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?
    };
    let results = run_cases(&text).map_err(|e| format!("{path}: {e}"))?;
    for case in &results.results {
        if let Some(error) = case.error() {
            eprintln!("concord stats: case {}: {error}", case.id);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    serde_json::to_writer_pretty(&mut out, &results).map_err(|e| format!("writing output: {e}"))?;
    writeln!(out).map_err(|e| format!("writing output: {e}"))?;
    out.flush().map_err(|e| format!("writing output: {e}"))
}
