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

use crate::args::{Labelled, OutputFormat, finite, labelled_pairs, tables_only};
use crate::error::{CliError, Result};

use concord_core::meta::{self, EloOptions, Input};
use concord_core::report::Format;
use concord_core::stats::EloParams;
use concord_core::study::meta::{Settings, Workspace};

/// Seed 003's meta-evaluation: accuracy, Pearson, JDEval-i / BSMEval, Elo.
///
/// Reads released evaluator and meta-evaluator files (or files of their shape). `--format json` (the default) prints the analysis; md, csv and latex print Table 1, Table 5,
/// Table 6 and the Elo table in the paper's layout, as the app's meta-evaluation screen exports
/// them. Files it cannot use are listed on stderr.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Released evaluator or meta-evaluator results files, or folders holding them (their
    /// `.json` / `.jsonl` files, recursively, in name order)
    #[arg(value_name = "FILE|DIR", required = true)]
    paths: Vec<PathBuf>,
    /// Elo: the K factor
    #[arg(long, value_name = "K", value_parser = finite, allow_negative_numbers = true, default_value_t = EloParams::default().k)]
    k: f64,
    /// Elo: every model's initial rating
    #[arg(long, value_name = "R", value_parser = finite, allow_negative_numbers = true, default_value_t = EloParams::default().init)]
    init: f64,
    /// Elo: the scale of the expected score
    #[arg(long, value_name = "S", value_parser = finite, allow_negative_numbers = true, default_value_t = EloParams::default().scale)]
    scale: f64,
    /// Elo: the base of the expected score
    #[arg(long, value_name = "B", value_parser = finite, allow_negative_numbers = true, default_value_t = EloParams::default().base)]
    base: f64,
    /// Elo: how many shuffled orders of the matches its ratings are averaged over (0: once, in
    /// file order)
    #[arg(long, value_name = "N", default_value_t = EloOptions::default().shuffles)]
    shuffles: usize,
    /// The seed of the shuffles (and of --labelled's choice of pairs)
    #[arg(long, value_name = "S", default_value_t = EloOptions::default().seed)]
    seed: u64,
    /// With json, also report each Elo rating's SD over the seeds S…S+N−1 (`seed_spread`; 0
    /// or 1: not)
    #[arg(long, value_name = "N", default_value_t = 10)]
    seeds: usize,
    /// With md, csv or latex: after the tables, the corrected win rate of output 1 per pairwise
    /// evaluator (judge only, humans only, PPI, PPI++ with 95 % intervals) from the human labels
    /// of N pairs (chosen with --seed, the same pairs for every evaluator; the rest unlabelled)
    /// or of every pair, as the screen's `corrected-win-rate`
    #[arg(long, visible_alias = "labeled", value_name = "N|all", value_parser = labelled_pairs)]
    labelled: Option<Labelled>,
    /// The output: json, or the paper's tables
    #[arg(long, value_parser = tables_only(), default_value = "json")]
    format: OutputFormat,
}

/// Runs `concord meta`.
pub fn run(args: Args) -> Result<()> {
    let options = EloOptions {
        params: EloParams { k: args.k, init: args.init, scale: args.scale, base: args.base },
        shuffles: args.shuffles,
        seed: args.seed,
        seeds: args.seeds,
    };
    let format: Format = args.format.into();
    let labelled = args.labelled.map(|l| l.0);
    if labelled.is_some() && format == Format::Json {
        return Err(CliError::usage(
            "--labelled adds the corrected win rate table: give --format md, csv or latex",
        ));
    }
    let paths = args.paths;
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
