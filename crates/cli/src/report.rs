//! `concord report`: every table (and with `--format svg`, every figure) a bundle shows in the
//! app, written by the core's exporters — the same bytes as the app's export buttons.

use std::path::PathBuf;

use concord_core::report::{Format, Report};
use concord_core::stats::KrippendorffLevel;
use concord_core::study::workbench::{Bundle, report as workbench_report};

const HELP: &str = "\
concord report BUNDLE [--screen workbench|coeval] [--format md|csv|latex|json|svg] [--out DIR]

  BUNDLE          a bundle exported by the app (Results → Export bundle)
  --screen S      which screen's report: workbench (the Results screen; default) or coeval
                  (the CoEval screen's Results panel, from the bundle's CoEval study)
  --format F      md (default), csv, latex, json, or svg (the figures)
  --out DIR       write one file per table (or figure) into DIR, named as the app names its
                  exports (concord-results.csv, …), instead of printing them

Tables come out as the app shows them right after opening the bundle: its statistic, level,
baseline and layout, with bootstrap intervals when the bundle says they were shown.
";

struct Args {
    bundle: PathBuf,
    screen: String,
    format: Format,
    out: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Option<Args>, String> {
    let mut bundle = None;
    let mut screen = "workbench".to_owned();
    let mut format = Format::Markdown;
    let mut out = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value\n\n{HELP}"));
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--screen" => screen = value()?.clone(),
            "--format" => {
                let name = value()?;
                format = Format::from_name(name).ok_or_else(|| {
                    format!("unknown format `{name}` (known: md, csv, latex, json, svg)")
                })?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            other if other.starts_with("--") => {
                return Err(format!("unexpected argument `{other}`\n\n{HELP}"));
            }
            path if bundle.is_none() => bundle = Some(PathBuf::from(path)),
            other => return Err(format!("unexpected argument `{other}` (one bundle at a time)")),
        }
    }
    let bundle = bundle.ok_or_else(|| format!("a bundle file is required\n\n{HELP}"))?;
    Ok(Some(Args { bundle, screen, format, out }))
}

fn screen_report(bundle: &Bundle, screen: &str) -> Result<Report, String> {
    match screen {
        "workbench" | "results" => Ok(workbench_report::bundle_report(bundle)),
        "coeval" => {
            let snapshot = bundle
                .coeval
                .as_ref()
                .ok_or("this bundle has no CoEval study (it was exported before one was made)")?;
            let restored = snapshot.restore().map_err(|e| e.to_string())?;
            // The screen's default α level.
            let results =
                restored.results(KrippendorffLevel::Interval).map_err(|e| e.to_string())?;
            Ok(results.report())
        }
        other => Err(format!("unknown screen `{other}` (known: workbench, coeval)")),
    }
}

/// Runs `concord report` with the arguments after `report`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(args) = parse_args(args)? else {
        print!("{HELP}");
        return Ok(());
    };
    let text = std::fs::read_to_string(&args.bundle)
        .map_err(|e| format!("{}: {e}", args.bundle.display()))?;
    let bundle = Bundle::from_json(&text).map_err(|e| format!("{}: {e}", args.bundle.display()))?;
    for note in &bundle.changed_on_import {
        eprintln!("note: {note}");
    }
    let report = screen_report(&bundle, &args.screen)?;
    match &args.out {
        None => print!("{}", report.to_text(args.format)),
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for file in report.files(args.format) {
                let path = dir.join(&file.name);
                std::fs::write(&path, &file.text)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                println!("{}", path.display());
            }
        }
    }
    Ok(())
}
