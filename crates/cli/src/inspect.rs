//! `concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]...`: detect a file's format
//! and print its counts, attributes and diagnostics as JSON.
//!
//! The CLI only reads files; detection and parsing are `concord_core::data::load`, the same
//! function the web app calls with the bytes of a dropped file.

use concord_core::data::{self, ColumnMapping};
use serde::Serialize;
use serde_json::json;

use crate::error::{CliError, Result};

const USAGE: &str = "usage: concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]...";

/// Runs `concord inspect` with the arguments after `inspect`.
pub fn run(args: &[String]) -> Result<()> {
    let mut file = None;
    let mut mapping_file = None;
    let mut joins = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--mapping" => {
                mapping_file =
                    Some(it.next().ok_or_else(|| CliError::usage("--mapping needs a file"))?)
            }
            "--join" => {
                joins.push(it.next().ok_or_else(|| CliError::usage("--join needs a file"))?)
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with("--") => {
                return Err(CliError::Usage(format!("unknown option `{flag}`\n{USAGE}")));
            }
            path if file.is_none() => file = Some(path),
            extra => {
                return Err(CliError::Usage(format!("unexpected argument `{extra}`\n{USAGE}")));
            }
        }
    }
    let file = file.ok_or_else(|| CliError::usage(USAGE))?;
    let mapping: Option<ColumnMapping> = match mapping_file {
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
    for path in joins {
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
    use super::run;

    fn check(args: &[&str], expect: Result<(), &str>) {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        assert_eq!(
            run(&args).map_err(|e| e.to_string()),
            expect.map_err(str::to_owned),
            "{args:?}"
        );
    }

    #[test]
    fn usage_errors_name_the_problem() {
        check(
            &[],
            Err("usage: concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]..."),
        );
        check(
            &["a.csv", "--frobnicate"],
            Err(
                "unknown option `--frobnicate`\nusage: concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]...",
            ),
        );
        check(&["a.csv", "--join"], Err("--join needs a file"));
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
