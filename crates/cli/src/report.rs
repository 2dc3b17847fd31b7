//! `concord report`: every table (and with `--format svg`, every figure) a bundle shows in the
//! app, written by the core's exporters — the same bytes as the app's export buttons.

use std::path::{Path, PathBuf};

use concord_core::report::{Format, Report};
use concord_core::stats::KrippendorffLevel;
use concord_core::study::meta::{SnapshotFile, Workspace};

use crate::args::OutputFormat;
use crate::error::{CliError, Result};
use concord_core::bundle::Bundle;
use concord_core::study::workbench::report as workbench_report;

/// Every table (or figure) a screen shows for a bundle.
///
/// Prints every table (with `--format svg`, every figure) as the app shows it right after
/// opening the bundle — the same bytes as its export buttons. Tables come out with the bundle's statistic, level, baseline and layout, with bootstrap
/// intervals when the bundle says they were shown. A bundle with a review adds, on the
/// workbench screen, the `<method> + review` rows of the results table, the before/after table
/// (concord-review), the reviewers' conflicts and the history of revisions
/// (concord-revisions).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A bundle exported by the app (Results → Export bundle)
    bundle: PathBuf,
    /// Which screen's report
    #[arg(long, value_enum, default_value_t = Screen::Workbench)]
    screen: Screen,
    /// meta: where the released files the bundle names are (searched below DIR by file name
    /// and checked by SHA-256), e.g. ../shared/data/meta-evaluation
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// The output: tables, or svg for the figures
    #[arg(long, value_enum, default_value_t = OutputFormat::Md)]
    format: OutputFormat,
    /// Write one file per table (or figure) into DIR, named as the app names its exports
    /// (concord-results.csv, …), instead of printing them
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// A screen of the app with a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Screen {
    /// the Results screen
    #[value(alias = "results")]
    Workbench,
    /// the Results screen's "Judge audit" panel, as `concord audit`
    Audit,
    /// the Results screen's "Can the judge replace the annotators?" panel: alt-test,
    /// selective trust, cascade, label planner, stability
    Validity,
    /// the meta-evaluation screen (its released files: --data)
    Meta,
    /// the CoEval screen's Results panel
    Coeval,
}

/// Every file below `dir` whose name is one of `names`, with its bytes.
fn find_files(dir: &Path, names: &[&str], out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(CliError::file(dir))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            find_files(&path, names, out)?;
        } else if let Some(name) = path.file_name().and_then(|n| n.to_str())
            && names.contains(&name)
        {
            let bytes = std::fs::read(&path).map_err(CliError::file(&path))?;
            out.push((name.to_owned(), bytes));
        }
    }
    Ok(())
}

fn meta_report(bundle: &Bundle, data: Option<&Path>) -> Result<Report> {
    let snapshot = bundle.meta.as_ref().ok_or_else(|| {
        CliError::input("this bundle has no meta-evaluation workspace (it was empty when exported)")
    })?;
    let names: Vec<&str> = snapshot
        .files
        .iter()
        .filter_map(|f| match f {
            SnapshotFile::Released { name, .. } => Some(name.as_str()),
            SnapshotFile::Live { .. } => None,
        })
        .collect();
    let mut given = Vec::new();
    if !names.is_empty() {
        let dir = data.ok_or_else(|| {
            CliError::Usage(format!(
                "the bundle's meta-evaluation workspace reads released files ({}): say where they are with --data DIR",
                names.join(", ")
            ))
        })?;
        find_files(dir, &names, &mut given)?;
    }
    let given: Vec<(&str, &[u8])> = given.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let workspace = Workspace::from_snapshot(snapshot, &given).map_err(CliError::input)?;
    Ok(workspace.report(&snapshot.settings))
}

fn screen_report(bundle: &Bundle, screen: Screen, data: Option<&Path>) -> Result<Report> {
    match screen {
        Screen::Meta => meta_report(bundle, data),
        Screen::Workbench => Ok(workbench_report::bundle_report(bundle)),
        Screen::Audit => Ok(workbench_report::bundle_audit(bundle)),
        Screen::Validity => Ok(concord_core::study::validity::bundle_report(bundle)),
        Screen::Coeval => {
            let snapshot = bundle.coeval.as_ref().ok_or_else(|| {
                CliError::input(
                    "this bundle has no CoEval study (it was exported before one was made)",
                )
            })?;
            let restored = snapshot.restore().map_err(CliError::input)?;
            // The screen's default α level.
            let results = restored.results(KrippendorffLevel::Interval).map_err(CliError::input)?;
            Ok(results.report())
        }
    }
}

/// Runs `concord report`.
pub fn run(args: Args) -> Result<()> {
    let bundle = read_bundle(&args.bundle)?;
    let report = screen_report(&bundle, args.screen, args.data.as_deref())?;
    write(&report, args.format.into(), args.out.as_deref())
}

/// Reads a bundle file, printing the notes of what was changed to open it.
pub fn read_bundle(path: &Path) -> Result<Bundle> {
    let text = std::fs::read_to_string(path).map_err(CliError::file(path))?;
    let bundle = Bundle::from_json(&text)
        .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
    for note in &bundle.changed_on_import {
        eprintln!("note: {note}");
    }
    Ok(bundle)
}

/// Prints `report` in `format`, or writes one file per table (or figure) into `out`, named
/// as the app names its exports.
pub fn write(report: &Report, format: Format, out: Option<&Path>) -> Result<()> {
    match out {
        None => print!("{}", report.to_text(format)),
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(CliError::file(dir))?;
            for file in report.files(format) {
                let path = dir.join(&file.name);
                std::fs::write(&path, &file.text).map_err(CliError::file(&path))?;
                println!("{}", path.display());
            }
        }
    }
    Ok(())
}
