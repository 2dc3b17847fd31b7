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

use concord_core::coeval::{ReleasedError, Report, Reproduction, parse_level};
use concord_core::report::Format;
use concord_core::stats::KrippendorffLevel;
use concord_core::study::coeval::ReleasedView;

const USAGE: &str = "usage: concord coeval PATH... [--format json|md|csv|latex] \
[--level nominal|ordinal|interval|ratio]
  PATH: CoEval's released files (<task>_action.json, *annotator_scores.json, A01.json…A15.json,
        *_criteria_to_action.json, *_score_change.json) or folders holding them
  --format json (default): the reproduction report; md, csv, latex: seed 004's tables as the
        CoEval screen shows them (Table 6, Figure 3, α matrices, score distributions, Table 7)";

/// What went wrong with the command line or the files.
#[derive(Debug, thiserror::Error)]
pub enum CoevalError {
    #[error("{0}")]
    Usage(&'static str),
    #[error("{option} needs a value\n{USAGE}")]
    MissingValue { option: &'static str },
    #[error("unknown format `{0}` (json, md, csv or latex)")]
    UnknownFormat(String),
    #[error("unknown level `{0}` (nominal, ordinal, interval or ratio)")]
    UnknownLevel(String),
    #[error("unknown option `{0}`\n{USAGE}")]
    UnknownOption(String),
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Released(#[from] ReleasedError),
    #[error("the report could not be written as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq)]
struct Args {
    paths: Vec<PathBuf>,
    format: Format,
    level: KrippendorffLevel,
}

/// Runs `concord coeval` with the arguments after `coeval`.
pub fn run(args: &[String]) -> crate::error::Result<()> {
    run_typed(args).map_err(|e| crate::error::CliError::Command(Box::new(e)))
}

fn run_typed(args: &[String]) -> Result<(), CoevalError> {
    let Some(args) = parse_args(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let reproduction = reproduction(&args.paths)?;
    print!("{}", output(&reproduction, args.format, args.level)?);
    if args.format != Format::Json {
        // JSON carries the notes; a table on stdout stays a table, so they go to stderr.
        for note in &reproduction.report(args.level).notes {
            eprintln!("concord coeval: note: {note}");
        }
    }
    Ok(())
}

/// The command line; `None` when help was asked for.
fn parse_args(args: &[String]) -> Result<Option<Args>, CoevalError> {
    let mut paths = Vec::new();
    let mut format = Format::Json;
    let mut level = KrippendorffLevel::Interval;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--format" => {
                let name = it.next().ok_or(CoevalError::MissingValue { option: "--format" })?;
                format = Format::from_name(name)
                    .filter(|f| f.for_tables())
                    .ok_or_else(|| CoevalError::UnknownFormat(name.clone()))?;
            }
            "--level" => {
                let name = it.next().ok_or(CoevalError::MissingValue { option: "--level" })?;
                level = parse_level(name).ok_or_else(|| CoevalError::UnknownLevel(name.clone()))?;
            }
            "-h" | "--help" => return Ok(None),
            flag if flag.starts_with("--") => {
                return Err(CoevalError::UnknownOption(flag.to_owned()));
            }
            path => paths.push(PathBuf::from(path)),
        }
    }
    if paths.is_empty() {
        return Err(CoevalError::Usage(USAGE));
    }
    Ok(Some(Args { paths, format, level }))
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

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn printed(list: &[&str]) -> String {
        let a = parse_args(&args(list)).unwrap().unwrap();
        output(&reproduction(&a.paths).unwrap(), a.format, a.level).unwrap()
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
            (&[], "usage"),
            (&[FIXTURES, "--format", "xml"], "unknown format `xml`"),
            (&[FIXTURES, "--format", "svg"], "unknown format `svg`"),
            (&[FIXTURES, "--level", "fuzzy"], "unknown level `fuzzy`"),
            (&[FIXTURES, "--format"], "--format needs a value"),
        ];
        for (list, want) in cases {
            let err = parse_args(&args(list)).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
        let err = run_typed(&args(&["/nonexistent/eli5_action.json"])).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/eli5_action.json"), "{err}");
        assert_eq!(parse_args(&args(&["--help"])).unwrap(), None);
    }
}
