//! `concord coeval PATH… [--format json] [--level interval]`: seed 004's Table 6 action rates
//! and pairwise Krippendorff's α from CoEval's released files, as JSON.
//!
//! The CLI only reads files (directories are walked for `*.json`); everything else is
//! `concord_core::coeval::Reproduction`, the same code the web app runs on dropped files.

use std::path::{Path, PathBuf};

use concord_core::coeval::{Report, Reproduction, parse_level};
use concord_core::stats::KrippendorffLevel;

const USAGE: &str =
    "usage: concord coeval PATH... [--format json] [--level nominal|ordinal|interval|ratio]
  PATH: CoEval's released files (<task>_action.json, *annotator_scores.json, A01.json…A15.json,
        *_criteria_to_action.json, *_score_change.json) or folders holding them";

/// Runs `concord coeval` with the arguments after `coeval`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(report) = report(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

/// The report for the arguments; `None` when help was asked for.
fn report(args: &[String]) -> Result<Option<Report>, String> {
    let mut paths: Vec<&str> = Vec::new();
    let mut level = KrippendorffLevel::Interval;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--format" => match it.next().map(String::as_str) {
                Some("json") => {}
                Some(other) => return Err(format!("unknown format `{other}` (only json)")),
                None => return Err("--format needs a value".to_owned()),
            },
            "--level" => {
                let name = it.next().ok_or("--level needs a value")?;
                level = parse_level(name).ok_or_else(|| {
                    format!("unknown level `{name}` (nominal, ordinal, interval or ratio)")
                })?;
            }
            "-h" | "--help" => return Ok(None),
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            path => paths.push(path),
        }
    }
    if paths.is_empty() {
        return Err(USAGE.to_owned());
    }
    let mut reproduction = Reproduction::new();
    for path in paths {
        let path = Path::new(path);
        if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files).map_err(|e| format!("{}: {e}", path.display()))?;
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
    Ok(Some(reproduction.report(level)))
}

fn add(reproduction: &mut Reproduction, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    reproduction.add(&path.to_string_lossy(), &bytes).map(|_| ()).map_err(|e| e.to_string())
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

    #[test]
    fn folder_of_fixtures_gives_the_issue_shape() {
        let report = report(&args(&[FIXTURES, "--format", "json"])).unwrap().unwrap();
        let json = serde_json::to_value(&report).unwrap();
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
    }

    #[test]
    fn bad_arguments() {
        let cases: [(&[&str], &str); 4] = [
            (&[], "usage"),
            (&[FIXTURES, "--format", "csv"], "unknown format `csv`"),
            (&[FIXTURES, "--level", "fuzzy"], "unknown level `fuzzy`"),
            (&["/nonexistent/eli5_action.json"], "/nonexistent/eli5_action.json"),
        ];
        for (list, want) in cases {
            let err = report(&args(list)).unwrap_err();
            assert!(err.contains(want), "{err}");
        }
        assert_eq!(report(&args(&["--help"])).unwrap(), None);
    }
}
