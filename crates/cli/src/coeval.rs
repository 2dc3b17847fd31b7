//! `concord coeval PATH… [--format json|md|csv|latex] [--level interval]`: seed 004 from
//! CoEval's released files. JSON is the reproduction report (Table 6 action rates, pairwise
//! Krippendorff's α, key checks, notes); `md`, `csv` and `latex` print the tables of the
//! CoEval screen's Released panel in the paper's layout (Table 6, Figure 3's block, the α
//! matrices, score distributions, every pairwise α, Table 7), written by the core's exporters.
//!
//! The CLI only reads files (directories are walked for `*.json`); everything else is
//! `concord_core::coeval::Reproduction` and `concord_core::study::coeval::ReleasedView`, the
//! code the web app runs on the same files.

use std::path::{Path, PathBuf};

use concord_core::coeval::{ReleasedError, Report, Reproduction};
use concord_core::report::Format;
use concord_core::stats::KrippendorffLevel;
use concord_core::study::coeval::ReleasedView;

use crate::args::{Level, OutputFormat, tables_only};

/// Seed 004's CoEval from its released files.
///
/// json (the default) is the reproduction report: action rates per component, pairwise
/// Krippendorff's α, key checks, notes. md, csv and latex print Table 6 per task and component, Figure 3's block, each task's α
/// matrix and score distribution, every pairwise α and Table 7's CoEval column, in the paper's
/// layout; the notes then go to stderr.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct Args {
    /// CoEval's released files (<task>_action.json, *annotator_scores.json,
    /// A01.json…A15.json, *_criteria_to_action.json, *_score_change.json) or folders holding
    /// them (walked for `*.json`; files there that are not CoEval's are skipped with a notice)
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
    /// The output: json, the reproduction report, or the tables
    #[arg(long, value_parser = tables_only(), default_value = "json")]
    format: OutputFormat,
    /// Krippendorff's α level of measurement
    #[arg(long, value_enum, ignore_case = true, default_value_t = Level::Interval)]
    level: Level,
}

/// What went wrong with the files.
#[derive(Debug, thiserror::Error)]
pub enum CoevalError {
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Released(#[from] ReleasedError),
    #[error("the report could not be written as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Runs `concord coeval`.
pub fn run(args: Args) -> crate::error::Result<()> {
    run_typed(&args).map_err(|e| crate::error::CliError::Command(Box::new(e)))
}

fn run_typed(args: &Args) -> Result<(), CoevalError> {
    let format: Format = args.format.into();
    let level: KrippendorffLevel = args.level.into();
    let reproduction = reproduction(&args.paths)?;
    print!("{}", output(&reproduction, format, level)?);
    if format != Format::Json {
        // JSON carries the notes; a table on stdout stays a table, so they go to stderr.
        for note in &reproduction.report(level).notes {
            eprintln!("concord coeval: note: {note}");
        }
    }
    Ok(())
}

/// Every file named or found under a named folder, read into one reproduction.
fn reproduction(paths: &[PathBuf]) -> Result<Reproduction, CoevalError> {
    let mut reproduction = Reproduction::new();
    for path in paths {
        if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)
                .map_err(|source| CoevalError::Read { path: path.clone(), source })?;
            for file in files {
                // In a folder, files that are not CoEval's are skipped with a notice; a file
                // named on the command line must be one.
                if let Err(e) = add(&mut reproduction, &file) {
                    eprintln!("concord coeval: skipped {e}");
                }
            }
        } else {
            add(&mut reproduction, path)?;
        }
    }
    for d in &reproduction.diagnostics {
        eprintln!("concord coeval: {d}");
    }
    Ok(reproduction)
}

/// What is printed: the JSON report, or every table of the Released panel in `format`.
fn output(
    reproduction: &Reproduction,
    format: Format,
    level: KrippendorffLevel,
) -> Result<String, CoevalError> {
    if format == Format::Json {
        let report: Report = reproduction.report(level);
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        return Ok(text);
    }
    Ok(ReleasedView::new(reproduction, level).report().to_text(format))
}

fn add(reproduction: &mut Reproduction, path: &Path) -> Result<(), CoevalError> {
    let bytes = std::fs::read(path)
        .map_err(|source| CoevalError::Read { path: path.to_owned(), source })?;
    reproduction.add(&path.to_string_lossy(), &bytes)?;
    Ok(())
}

/// `*.json` files under `dir`, sorted so the output does not depend on directory order.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/coeval");

    fn parse_args(list: &[&str]) -> Result<Args, clap::Error> {
        crate::args::parse("coeval", list)
    }

    fn printed(list: &[&str]) -> String {
        let a = parse_args(list).unwrap();
        output(&reproduction(&a.paths).unwrap(), a.format.into(), a.level.into()).unwrap()
    }

    #[test]
    fn folder_of_fixtures_gives_the_issue_shape() {
        let json: serde_json::Value =
            serde_json::from_str(&printed(&[FIXTURES, "--format", "json"])).unwrap();
        let task = &json["tasks"][0];
        assert_eq!(task["task"], "eli5");
        // 9 approvals of 14 actions in the fixture's action file.
        assert_eq!(task["action_rates"]["all"]["approve"], 100.0 * 9.0 / 14.0);
        for component in ["conclusion", "score", "evidence"] {
            for action in ["approve", "revise", "delete", "add"] {
                assert!(task["action_rates"][component][action].is_f64(), "{component}.{action}");
            }
        }
        let alpha = &json["alpha"][0];
        assert_eq!(
            (&alpha["task"], &alpha["a"], &alpha["b"], &alpha["level"], &alpha["n_units"]),
            (&"eli5".into(), &"chatgpt".into(), &"A01".into(), &"interval".into(), &12.into())
        );
        assert!((alpha["alpha"].as_f64().unwrap() - 0.9037656903765691).abs() < 1e-12);
        // Without --format the JSON is the same text.
        assert_eq!(printed(&[FIXTURES]), printed(&[FIXTURES, "--format", "json"]));
    }

    /// Table 6 in the paper's layout: a row per task, then its components, as printed.
    #[test]
    fn markdown_prints_table6_in_the_papers_layout() {
        let md = printed(&[FIXTURES, "--format", "md"]);
        let table6 = md.split("\n\n**").next().unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&printed(&[FIXTURES, "--format", "json"])).unwrap();
        let pct = |component: &str, action: &str| {
            format!("{:.2}", json["tasks"][0]["action_rates"][component][action].as_f64().unwrap())
        };
        let row = |label: &str, component: &str| {
            format!(
                "| {label} | {} | {} | {} | {} |",
                pct(component, "approve"),
                pct(component, "revise"),
                pct(component, "delete"),
                pct(component, "add")
            )
        };
        let want = format!(
            "**Table 6: correction rates of annotators on the LLM's evaluations**\n\n\
             | Task | approve % | revise % | delete % | add % |\n|---|---:|---:|---:|---:|\n\
             {}\n{}\n{}\n{}",
            row("ELI5", "all"),
            row("-conc.", "conclusion"),
            row("-scr.", "score"),
            row("-evd.", "evidence"),
        );
        assert!(table6.starts_with(&want), "{table6}");
        assert!(table6.contains("| ELI5 | 64.29 |"), "9 of 14 approvals: {table6}");
        // Then the α matrix, the score distribution, every pair and Table 7, in that order.
        let titles: Vec<&str> =
            md.lines().filter(|l| l.starts_with("**") && l.ends_with("**")).collect();
        assert_eq!(
            titles,
            [
                "**Table 6: correction rates of annotators on the LLM's evaluations**",
                "**Krippendorff's α (interval) among ChatGPT and the annotators, ELI5**",
                "**Score distribution by generating model and rater, ELI5**",
                "**Pairwise α (all tasks)**",
                "**Table 7: minutes per sample**",
            ]
        );
        assert!(md.contains("| chatgpt | 1.000 | 0.904 |"), "{md}");
        assert!(md.contains("| eli5 | chatgpt | A01 | interval | 0.9038 | 12 |"), "{md}");
        let ordinal = printed(&[FIXTURES, "--format", "md", "--level", "ordinal"]);
        assert!(ordinal.contains("**Krippendorff's α (ordinal) among ChatGPT"), "{ordinal}");
    }

    #[test]
    fn csv_and_latex_come_from_the_core_exporters() {
        let csv = printed(&[FIXTURES, "--format", "csv"]);
        assert!(
            csv.starts_with("Task,approve %,revise %,delete %,add %\r\nELI5,64.28571428571,"),
            "{csv}"
        );
        let tex = printed(&[FIXTURES, "--format", "latex"]);
        assert!(tex.starts_with("\\begin{table}[t]\n\\centering\n\\caption{Table 6: correction rates of annotators on the LLM's evaluations}\n\\label{tab:coeval-released-table6}\n"), "{tex}");
        assert!(tex.contains("\n-conc. & "), "{tex}");
        assert_eq!(tex.matches("\\begin{table}").count(), 5);
    }

    #[test]
    fn bad_arguments() {
        let cases: [(&[&str], &str); 5] = [
            (&[], "the following required arguments were not provided:\n  <PATH>..."),
            (&[FIXTURES, "--format", "xml"], "invalid value 'xml' for '--format <FORMAT>'"),
            (&[FIXTURES, "--format", "svg"], "[possible values: md, csv, latex, json]"),
            (&[FIXTURES, "--level", "fuzzy"], "invalid value 'fuzzy' for '--level <LEVEL>'"),
            (&[FIXTURES, "--format"], "a value is required for '--format <FORMAT>'"),
        ];
        for (list, want) in cases {
            let err = parse_args(list).unwrap_err().render().to_string();
            assert!(err.contains(want), "{err}");
        }
        let a = parse_args(&["/nonexistent/eli5_action.json"]).unwrap();
        let err = run_typed(&a).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/eli5_action.json"), "{err}");
        // The level is read in any case, as the core's `parse_level` reads it.
        assert_eq!(parse_args(&[FIXTURES, "--level", "Ordinal"]).unwrap().level, Level::Ordinal);
    }
}
