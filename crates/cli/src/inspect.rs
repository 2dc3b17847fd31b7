//! `concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]…`: detect a file's format
//! and print its counts, attributes and diagnostics as JSON.
//!
//! The CLI only reads files; detection and parsing are `concord_core::data::load`, the same
//! function the web app calls with the bytes of a dropped file.

use concord_core::data::{self, ColumnMapping};
use serde::Serialize;
use serde_json::json;

use crate::error::{CliError, Result};

/// Detect a dataset's format; its counts, attributes and diagnostics as JSON.
///
/// Prints the detected format, the counts, the attributes and the per-line diagnostics of a
/// dataset file (and of the judge run files joined to it). Detection and parsing are the web app's: the same function reads a dropped file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset file (CSV, JSON, JSONL, …)
    file: String,
    /// Which column plays which role, as JSON (`{"document": "doc_id", "output": "output",
    /// "ratings": [{"column": "coherence_r1", "attribute": "coherence"}]}`); default: detected
    /// from the column names
    #[arg(long, value_name = "MAPPING.json")]
    mapping: Option<String>,
    /// A judge's result file to join to the dataset: what matched, what did not and which
    /// items it leaves without a rating (repeat for more files)
    #[arg(long = "join", value_name = "RUN_FILE")]
    joins: Vec<String>,
}

/// Runs `concord inspect`.
pub fn run(args: Args) -> Result<()> {
    let file = args.file.as_str();
    let mapping: Option<ColumnMapping> = match args.mapping.as_deref() {
        None => None,
        Some(path) => {
            let bytes = read(path)?;
            Some(
                serde_json::from_slice(&bytes)
                    .map_err(|e| CliError::Input(format!("{path}: not a column mapping: {e}")))?,
            )
        }
    };
    let loaded =
        data::load_with_mapping(file, &read(file)?, mapping.as_ref()).map_err(CliError::input)?;

    let mut diagnostics: Vec<data::Diagnostic> = loaded.diagnostics.clone();
    let mut joined = Vec::new();
    for path in &args.joins {
        let run_file = data::load(path, &read(path)?).map_err(CliError::input)?;
        diagnostics.extend(run_file.diagnostics.iter().cloned());
        for run in &run_file.runs {
            let j = data::join(&loaded.dataset, run);
            diagnostics.extend(j.diagnostics.iter().cloned());
            joined.push(json!({
                "run": run.name,
                "attribute": run.attribute,
                "records": run.records.len(),
                "matched": j.matched.len(),
                "unmatched": j.unmatched_records.len(),
                "uncovered_items": j.uncovered,
            }));
        }
    }
    let out = Report {
        format: &loaded.summary.format,
        counts: &loaded.summary.counts,
        attributes: &loaded.summary.attributes,
        diagnostics,
        mapping: loaded.mapping.as_ref(),
        joins: joined,
    };
    let text = serde_json::to_string_pretty(&out).map_err(|e| CliError::Output(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// The printed JSON, in the order the issue specifies (serde_json's `Value` would sort keys).
#[derive(Serialize)]
struct Report<'a> {
    format: &'a str,
    counts: &'a data::Counts,
    attributes: &'a [data::AttributeRange],
    diagnostics: Vec<data::Diagnostic>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mapping: Option<&'a ColumnMapping>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    joins: Vec<serde_json::Value>,
}

fn read(path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(CliError::file(path))
}

#[cfg(test)]
mod tests {
    use super::{Args, run};
    use crate::args::parse;

    fn check(args: &[&str], expect: Result<(), &str>) {
        let parsed: Args = parse("inspect", args).expect("the arguments parse");
        assert_eq!(
            run(parsed).map_err(|e| e.to_string()),
            expect.map_err(str::to_owned),
            "{args:?}"
        );
    }

    /// The command line's mistakes are clap's to name (exit code 2), with the usage.
    #[test]
    fn usage_errors_name_the_problem() {
        let error = |args: &[&str]| {
            let e = parse::<Args>("inspect", args).expect_err("refused");
            (e.kind(), e.render().to_string())
        };
        let (kind, text) = error(&[]);
        assert_eq!(kind, clap::error::ErrorKind::MissingRequiredArgument, "{text}");
        assert!(text.contains("<FILE>") && text.contains("Usage: inspect"), "{text}");
        let (kind, text) = error(&["a.csv", "--frobnicate"]);
        assert_eq!(kind, clap::error::ErrorKind::UnknownArgument, "{text}");
        assert!(text.contains("'--frobnicate'"), "{text}");
        let (kind, text) = error(&["a.csv", "--join"]);
        assert_eq!(kind, clap::error::ErrorKind::InvalidValue, "{text}");
        assert!(text.contains("'--join <RUN_FILE>'"), "{text}");
        check(
            &["/nonexistent/x.csv"],
            Err("/nonexistent/x.csv: No such file or directory (os error 2)"),
        );
    }

    #[test]
    fn inspects_the_fixture_with_a_mapping() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/data");
        let mapping = std::env::temp_dir()
            .join(format!("concord-inspect-mapping-{}.json", std::process::id()));
        std::fs::write(&mapping, r#"{"document": "doc_id", "output": "output", "ratings": [{"column": "coherence_r1", "attribute": "coherence"}]}"#).unwrap_or_default();
        let file = format!("{dir}/generic_min.csv");
        check(&[&file, "--mapping", &mapping.to_string_lossy()], Ok(()));
        let _ = std::fs::remove_file(mapping);
        check(
            &[&file, "--mapping", "/nonexistent.json"],
            Err("/nonexistent.json: No such file or directory (os error 2)"),
        );
    }
}
