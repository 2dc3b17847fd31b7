//! `concord meta FILE|DIR… [--k 4 --init 1000 --scale 400 --base 10 --shuffles 200 --seed S
//! --seeds 10] [--labelled N|all] [--format json|md|csv|latex]`: seed 003's meta-evaluation
//! figures from released evaluator and meta-evaluator files (evaluator accuracy / Pearson,
//! JDEval-i and BSMEval averages, Elo).
//!
//! Formats are detected by the core's loaders. `json` prints `concord_core::meta::analyze`'s
//! report; `md`, `csv` and `latex` print seed 003's Table 1, Table 5, Table 6 and the Elo table
//! in the paper's layout, built by `concord_core::study::meta` — the tables the app's
//! meta-evaluation screen shows and exports, written by the same exporters — and with
//! `--labelled` the screen's corrected win rate of output 1 after them. Files it cannot use
//! are listed on stderr.

use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};

use concord_core::meta::{self, EloOptions, Input};
use concord_core::report::Format;
use concord_core::study::meta::settings::parse_labelled;
use concord_core::study::meta::{Settings, Workspace};

const USAGE: &str = "usage: concord meta FILE|DIR... [--k 4] [--init 1000] [--scale 400] \
[--base 10] [--shuffles 200] [--seed 0] [--seeds 10] [--labelled N|all] [--format json|md|csv|latex]
  --seeds N: with json, also report each Elo rating's SD over the seeds S..S+N-1
             (`seed_spread`; 0 or 1: not)
  --format md|csv|latex: seed 003's Table 1, Table 5, Table 6 and the Elo table in the paper's
             layout, as the app's meta-evaluation screen exports them
  --labelled N|all: after them (md|csv|latex), the corrected win rate of output 1 per pairwise
             evaluator (judge only, humans only, PPI, PPI++ with 95 % intervals) from the human
             labels of N pairs (a choice seeded by --seed, the same pairs for every evaluator;
             the rest unlabelled) or of every pair, as the screen's `corrected-win-rate`";

/// Runs `concord meta` with the arguments after `meta`.
pub fn run(args: &[String]) -> Result<()> {
    // The paper's Elo, and how much its 200-shuffle mean moves with the seed.
    let mut options = EloOptions { seeds: 10, ..EloOptions::default() };
    let mut format = Format::Json;
    let mut labelled: Option<Option<usize>> = None;
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| -> Result<&String> {
            it.next().ok_or_else(|| CliError::Usage(format!("{name} needs a value\n{USAGE}")))
        };
        match arg.as_str() {
            "--k" => options.params.k = number(value("--k")?, "--k")?,
            "--init" => options.params.init = number(value("--init")?, "--init")?,
            "--scale" => options.params.scale = number(value("--scale")?, "--scale")?,
            "--base" => options.params.base = number(value("--base")?, "--base")?,
            "--shuffles" => {
                let v = value("--shuffles")?;
                options.shuffles = v
                    .parse()
                    .map_err(|_| CliError::Usage(format!("--shuffles: `{v}` is not a count")))?;
            }
            "--seed" => {
                let v = value("--seed")?;
                options.seed = v
                    .parse()
                    .map_err(|_| CliError::Usage(format!("--seed: `{v}` is not a seed")))?;
            }
            "--seeds" => {
                let v = value("--seeds")?;
                options.seeds = v
                    .parse()
                    .map_err(|_| CliError::Usage(format!("--seeds: `{v}` is not a count")))?;
            }
            "--labelled" | "--labeled" => {
                let v = value("--labelled")?;
                labelled = Some(parse_labelled(v).map_err(|_| {
                    CliError::Usage(format!(
                        "--labelled takes a number of pairs or `all`, not `{v}`"
                    ))
                })?);
            }
            "--format" => {
                let v = value("--format")?;
                format = Format::from_name(v).filter(|f| f.for_tables()).ok_or_else(|| {
                    CliError::Usage(format!(
                        "--format: `{v}` is not supported (json, md, csv, latex)"
                    ))
                })?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with("--") => {
                return Err(CliError::Usage(format!("unknown option `{flag}`\n{USAGE}")));
            }
            path => paths.push(PathBuf::from(path)),
        }
    }
    if paths.is_empty() {
        return Err(CliError::usage(USAGE));
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files)?;
    }
    let mut contents = Vec::with_capacity(files.len());
    for f in &files {
        let bytes = std::fs::read(f).map_err(CliError::file(f))?;
        contents.push((f.display().to_string(), bytes));
    }
    if format != Format::Json {
        return paper_tables(&contents, &options, labelled, format);
    }
    if labelled.is_some() {
        return Err(CliError::Usage(format!(
            "--labelled adds the corrected win rate table: give --format md, csv or latex\n{USAGE}"
        )));
    }
    let inputs: Vec<Input<'_>> =
        contents.iter().map(|(name, bytes)| Input { name, bytes }).collect();
    let analysis = meta::analyze(&inputs, &options);
    for p in &analysis.problems {
        eprintln!("concord meta: skipped {}: {}", p.file, p.message);
    }
    let r = &analysis.report;
    if r.evaluators.is_empty() && r.meta_scores.is_empty() && r.elo.is_empty() {
        return Err(CliError::input(NO_RESULTS));
    }
    let json = serde_json::to_string_pretty(r).map_err(|e| CliError::Output(e.to_string()))?;
    println!("{json}");
    Ok(())
}

/// Seed 003's tables in the paper's layout, through the workspace the app's screen uses; with
/// `labelled`, the corrected win rate table after them.
fn paper_tables(
    contents: &[(String, Vec<u8>)],
    options: &EloOptions,
    labelled: Option<Option<usize>>,
    format: Format,
) -> Result<()> {
    let mut workspace = Workspace::new();
    for (name, bytes) in contents {
        workspace.add_bytes(name, bytes);
    }
    for (_, f) in workspace.files() {
        if let Some(problem) = &f.problem {
            eprintln!("concord meta: skipped {}: {problem}", f.name);
        }
    }
    let p = options.params;
    let settings = Settings {
        k: p.k,
        init: p.init,
        scale: p.scale,
        base: p.base,
        shuffles: options.shuffles,
        seed: options.seed,
        labelled: labelled.flatten(),
        ..Settings::default()
    };
    let mut report = workspace.paper_report(&settings);
    if report.tables.is_empty() {
        return Err(CliError::input(NO_RESULTS));
    }
    if labelled.is_some() {
        let table = workspace.win_rate_table(&settings).ok_or_else(|| {
            CliError::input(
                "--labelled: none of the files is a pairwise evaluator results file (the corrected win rate reads their verdicts and human labels)",
            )
        })?;
        report.tables.push(table);
    }
    print!("{}", report.to_text(format));
    Ok(())
}

/// What `concord meta` says when no file is one it reads.
const NO_RESULTS: &str = "none of the files is an evaluator or meta-evaluator results file; give the released files of the meta-evaluation paper (or files of their shape)";

fn number(v: &str, name: &str) -> Result<f64> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| CliError::Usage(format!("{name}: `{v}` is not a number")))
}

/// A file as is; a directory's `.json` / `.jsonl` files, recursively, in name order.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !path.is_dir() {
        out.push(path.to_owned());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(CliError::file(path))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        let is_json = e.extension().is_some_and(|x| x == "json" || x == "jsonl");
        if e.is_dir() || is_json {
            collect(&e, out)?;
        }
    }
    Ok(())
}
