//! `concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]...`: detect a file's format
//! and print its counts, attributes and diagnostics as JSON.
//!
//! The CLI only reads files; detection and parsing are `concord_core::data::load`, the same
//! function the web app calls with the bytes of a dropped file.

use concord_core::data::{self, ColumnMapping};
use serde_json::json;

const USAGE: &str = "usage: concord inspect FILE [--mapping MAPPING.json] [--join RUN_FILE]...";

/// Runs `concord inspect` with the arguments after `inspect`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut file = None;
    let mut mapping_file = None;
    let mut joins = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--mapping" => mapping_file = Some(it.next().ok_or("--mapping needs a file")?),
            "--join" => joins.push(it.next().ok_or("--join needs a file")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            path if file.is_none() => file = Some(path),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    let file = file.ok_or(USAGE)?;
    let mapping: Option<ColumnMapping> = match mapping_file {
        None => None,
        Some(path) => {
            let bytes = read(path)?;
            Some(
                serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{path}: not a column mapping: {e}"))?,
            )
        }
    };
    let loaded =
        data::load_with_mapping(file, &read(file)?, mapping.as_ref()).map_err(|e| e.to_string())?;

    let mut diagnostics: Vec<_> = loaded.diagnostics.iter().map(diagnostic_json).collect();
    let mut joined = Vec::new();
    for path in joins {
        let run_file = data::load(path, &read(path)?).map_err(|e| e.to_string())?;
        diagnostics.extend(run_file.diagnostics.iter().map(diagnostic_json));
        for run in &run_file.runs {
            let j = data::join(&loaded.dataset, run);
            diagnostics.extend(j.diagnostics.iter().map(diagnostic_json));
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
    let mut out = json!({
        "format": loaded.summary.format,
        "counts": loaded.summary.counts,
        "attributes": loaded.summary.attributes,
        "diagnostics": diagnostics,
    });
    if let Some(m) = &loaded.mapping {
        out["mapping"] = json!(m);
    }
    if !joined.is_empty() {
        out["joins"] = json!(joined);
    }
    let text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn diagnostic_json(d: &data::Diagnostic) -> serde_json::Value {
    json!({
        "severity": d.severity,
        "file": d.file,
        "line": d.line,
        "field": d.field,
        "message": d.message,
    })
}
