//! `concord class`: the class view of an exercise's submissions — the same tables (and with
//! `--format svg`, figures) as the app's class view, through the core's exporters, so each
//! file is byte-identical to the app's export button of the same table.

use std::path::{Path, PathBuf};

use concord_core::report::Format;
use concord_core::study::exercise::class::{RESAMPLING, class_report};
use concord_core::study::exercise::{Exercise, Submission};

use crate::error::{CliError, Result};

const HELP: &str = "\
concord class EXERCISE SUBMISSION... [--format md|csv|latex|json|svg] [--out DIR]

  EXERCISE        an exercise file saved by the app (Class → Make an exercise)
  SUBMISSION...   students' submission files, in the order they are merged (a later file of
                  the same student with other ratings replaces an earlier one)
  --format F      md (default), csv, latex, json, or svg (the distribution figures)
  --out DIR       write one file per table (or figure) into DIR, named as the app names its
                  exports (class-students.csv, …), instead of printing them

Submissions are named by their file name, as the app names dropped files. Intervals are a
95 % percentile bootstrap over items (1,000 resamples, seed 26), as in the app. An exercise
with a correct-judge task adds class-corrections (each student's corrections of the judge:
shares accepted / changed / flagged, mean |change|, minutes, r, τ-b and α of the judge alone
and with the student's changes against the reference) and class-changed-items.
";

struct Args {
    exercise: PathBuf,
    submissions: Vec<PathBuf>,
    format: Format,
    out: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Option<Args>> {
    let mut paths = Vec::new();
    let mut format = Format::Markdown;
    let mut out = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value =
            || it.next().ok_or_else(|| CliError::Usage(format!("{arg} needs a value\n\n{HELP}")));
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--format" => {
                let name = value()?;
                format = Format::from_name(name).ok_or_else(|| {
                    CliError::Usage(format!(
                        "unknown format `{name}` (known: md, csv, latex, json, svg)"
                    ))
                })?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            other if other.starts_with("--") => {
                return Err(CliError::Usage(format!("unexpected argument `{other}`\n\n{HELP}")));
            }
            path => paths.push(PathBuf::from(path)),
        }
    }
    let mut paths = paths.into_iter();
    let exercise = paths
        .next()
        .ok_or_else(|| CliError::Usage(format!("an exercise file is required\n\n{HELP}")))?;
    let submissions: Vec<PathBuf> = paths.collect();
    if submissions.is_empty() {
        return Err(CliError::Usage(format!("give at least one submission file\n\n{HELP}")));
    }
    Ok(Some(Args { exercise, submissions, format, out }))
}

fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
}

/// Runs `concord class` with the arguments after `class`.
pub fn run(args: &[String]) -> Result<()> {
    let Some(args) = parse_args(args)? else {
        print!("{HELP}");
        return Ok(());
    };
    let text = std::fs::read_to_string(&args.exercise).map_err(CliError::file(&args.exercise))?;
    let exercise = Exercise::from_json(&text)
        .map_err(|e| CliError::Input(format!("{}: {e}", args.exercise.display())))?;
    let mut files = Vec::new();
    for path in &args.submissions {
        let text = std::fs::read_to_string(path).map_err(CliError::file(path))?;
        let submission = Submission::from_json(&text)
            .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
        files.push((name_of(path), submission));
    }
    let class = class_report(&exercise, &files, RESAMPLING);
    crate::report::write(&class.report, args.format, args.out.as_deref())
}
