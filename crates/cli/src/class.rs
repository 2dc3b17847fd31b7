//! `concord class`: the class view of an exercise's submissions — the same tables (and with
//! `--format svg`, figures) as the app's class view, through the core's exporters, so each
//! file is byte-identical to the app's export button of the same table.

use std::path::{Path, PathBuf};

use concord_core::study::exercise::class::{RESAMPLING, class_report};
use concord_core::study::exercise::{Exercise, Submission};

use crate::args::OutputFormat;
use crate::error::{CliError, Result};

/// The class view of students' submissions to an exercise.
///
/// The submissions (duplicates, conflicts, other exercises named), each student against the
/// reference and the judges, agreement among the students, the histograms (svg) — the same
/// bytes as the view's exports. Submissions are named by their file name, as the app names dropped files. Intervals are a
/// 95 % percentile bootstrap over items (1,000 resamples, seed 26), as in the app. An exercise
/// with a correct-judge task adds class-corrections (each student's corrections of the judge:
/// shares accepted / changed / flagged, mean |change|, minutes, r, τ-b and α of the judge alone
/// and with the student's changes against the reference) and class-changed-items.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// An exercise file saved by the app (Class → Make an exercise)
    exercise: PathBuf,
    /// Students' submission files, in the order they are merged (a later file of the same
    /// student with other ratings replaces an earlier one)
    #[arg(value_name = "SUBMISSION", required = true)]
    submissions: Vec<PathBuf>,
    /// The output: tables, or svg for the distribution figures
    #[arg(long, value_enum, default_value_t = OutputFormat::Md)]
    format: OutputFormat,
    /// Write one file per table (or figure) into DIR, named as the app names its exports
    /// (class-students.csv, …), instead of printing them
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
}

/// Runs `concord class`.
pub fn run(args: Args) -> Result<()> {
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
    crate::report::write(&class.report, args.format.into(), args.out.as_deref())
}
