//! `concord alt-test` and `concord trust`: may a judge replace the annotators (the alternative
//! annotator test, STATS_SPEC §16.1), and on which items can it be trusted (selective trust and
//! the cascade, §16.2) — the tables of the Results screen's validity panel, written by the
//! core's exporters.
//!
//! Both read an AltTest folder (`human_annotations.json` + `llm_annotations.json`) or a bundle.
//! The command line is read in one place ([`parse`]), so a move to another argument parser
//! touches nothing else.

use std::path::{Path, PathBuf};

use concord_core::data::{self, annotations};
use concord_core::judge::parse::Policy;
use concord_core::report::{Format, Report};
use concord_core::stats::Scoring;
use concord_core::study::validity::{self, Settings};
use concord_core::study::workbench::{JudgedRun, import::imported_runs};

use crate::error::{CliError, Result};
use crate::report::{read_bundle, write};

const ALT_TEST_HELP: &str = "\
concord alt-test DIR|BUNDLE [--scoring accuracy|neg_rmse] [--epsilon E] [--q Q]
                            [--min-humans K] [--min-instances N] [--format md|csv|latex|json]
                            [--out DIR]

  DIR             an AltTest folder: human_annotations.json ({annotator: {instance: value}})
                  and llm_annotations.json ({LLM: {instance: value}}), e.g.
                  ../shared/data/AltTest/data/wax
  BUNDLE          a bundle exported by the app: every judge run against the dataset's raters
  --scoring S     accuracy (labels; default for labels) or neg_rmse (scores; default for numbers)
  --epsilon E     the cost-benefit margin ε in [0, 1); the paper's presets: 0.2 experts,
                  0.15 skilled annotators, 0.1 crowd workers (default 0.2, or the bundle's)
  --q Q           the false discovery rate over the annotators (default 0.05)
  --min-humans K  an instance counts when K annotators rated it (default 2)
  --min-instances N
                  an annotator is tested with N such instances (default 30)
  --format F      md (default), csv, latex or json
  --out DIR       write one file per table into DIR instead of printing

The tables: per judge, the instances kept, annotators tested and skipped, the winning rate ω
(the share of annotators it beats), passed (ω ≥ 0.5) and the advantage probability ρ; then
per judge, each annotator's n, ρ_j, mean advantage d, p-value and whether the judge wins.
";

const TRUST_HELP: &str = "\
concord trust BUNDLE|DIR [--alpha A] [--delta D] [--tolerance T] [--confidence-source auto|samples|logprobs]
                         [--format md|csv|latex|json|svg] [--out DIR]

  BUNDLE          a bundle exported by the app (its review's split, when it has one, is the
                  held-out half; else a seeded half of the rated items)
  --alpha A       tolerated disagreement: agreement ≥ 1 − A on the trusted items (default 0.1)
  --delta D       risk: the guarantee holds with probability ≥ 1 − D (default 0.1)
  --tolerance T   a score agrees when within T of the humans' mean (default 0.5; labels: equal)
  --confidence-source S
                  samples (the share giving the majority rating), logprobs (the probability
                  of the chosen rating token) or auto (default: samples when there are two
                  or more per item, else logprobs)
  --format F      md (default), csv, latex, json, or svg (the coverage–agreement curves)
  --out DIR       write one file per table (or figure) into DIR instead of printing

The tables: per judge the threshold, coverage and agreement on the calibration half and on
the held-out half; the cascade of each attribute's judges (in the bundle's order of cost) and
the share of items decided without a person.
";

/// What the command line says.
struct Args {
    input: PathBuf,
    settings_changes: Vec<Change>,
    format: Format,
    out: Option<PathBuf>,
}

/// One setting given on the command line.
enum Change {
    Scoring(Scoring),
    Epsilon(f64),
    Q(f64),
    MinHumans(usize),
    MinInstances(usize),
    Alpha(f64),
    Delta(f64),
    Tolerance(f64),
    Source(validity::ConfidenceSource),
}

impl Change {
    fn apply(&self, s: &mut Settings) {
        match *self {
            Change::Scoring(v) => s.scoring = Some(v),
            Change::Epsilon(v) => s.epsilon = v,
            Change::Q(v) => s.q = v,
            Change::MinHumans(v) => s.min_humans = v,
            Change::MinInstances(v) => s.min_instances = v,
            Change::Alpha(v) => s.alpha = v,
            Change::Delta(v) => s.delta = v,
            Change::Tolerance(v) => s.tolerance = Some(v),
            Change::Source(v) => s.confidence_source = v,
        }
    }
}

/// Reads the arguments of either command (`help` is its usage); `None` asks for the help.
fn parse(args: &[String], help: &str, figures: bool) -> Result<Option<Args>> {
    let usage = |m: String| CliError::Usage(format!("{m}\n\n{help}"));
    let number = |flag: &str, v: &str| -> Result<f64> {
        v.parse::<f64>().map_err(|_| usage(format!("{flag} takes a number, not `{v}`")))
    };
    let count = |flag: &str, v: &str| -> Result<usize> {
        v.parse::<usize>().map_err(|_| usage(format!("{flag} takes a whole number, not `{v}`")))
    };
    let mut input = None;
    let mut changes = Vec::new();
    let mut format = Format::Markdown;
    let mut out = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| usage(format!("{arg} needs a value")));
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--scoring" => {
                let v = value()?;
                changes.push(Change::Scoring(Scoring::from_name(v).ok_or_else(|| {
                    usage(format!("--scoring takes accuracy or neg_rmse, not `{v}`"))
                })?));
            }
            "--epsilon" => changes.push(Change::Epsilon(number(arg, value()?)?)),
            "--q" => changes.push(Change::Q(number(arg, value()?)?)),
            "--min-humans" => changes.push(Change::MinHumans(count(arg, value()?)?)),
            "--min-instances" => changes.push(Change::MinInstances(count(arg, value()?)?)),
            "--alpha" => changes.push(Change::Alpha(number(arg, value()?)?)),
            "--delta" => changes.push(Change::Delta(number(arg, value()?)?)),
            "--tolerance" => changes.push(Change::Tolerance(number(arg, value()?)?)),
            "--confidence-source" => {
                let v = value()?;
                changes.push(Change::Source(validity::ConfidenceSource::from_name(v).ok_or_else(
                    || {
                        usage(format!(
                            "--confidence-source takes auto, samples or logprobs, not `{v}`"
                        ))
                    },
                )?));
            }
            "--format" => {
                let name = value()?;
                format = Format::from_name(name)
                    .filter(|f| figures || f.for_tables())
                    .ok_or_else(|| usage(format!("unknown format `{name}`")))?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            other if other.starts_with("--") => {
                return Err(usage(format!("unexpected argument `{other}`")));
            }
            path if input.is_none() => input = Some(PathBuf::from(path)),
            other => {
                return Err(usage(format!("unexpected argument `{other}` (one input at a time)")));
            }
        }
    }
    let input = input.ok_or_else(|| usage("a folder or a bundle is required".into()))?;
    Ok(Some(Args { input, settings_changes: changes, format, out }))
}

/// The dataset, its judge runs, the settings and the review's split of a folder or bundle.
struct Input {
    dataset: data::Dataset,
    runs: Vec<JudgedRun>,
    settings: Settings,
    split: Option<concord_core::study::workbench::revise::Split>,
    /// The runs' estimated costs (a bundle's, at the price of the model it names).
    costs: Vec<validity::JudgeCost>,
}

fn read_folder(dir: &Path) -> Result<Input> {
    let human = dir.join("human_annotations.json");
    let llm = dir.join("llm_annotations.json");
    let hbytes = std::fs::read(&human).map_err(CliError::file(&human))?;
    let lbytes = std::fs::read(&llm).map_err(CliError::file(&llm))?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .map_or_else(|| dir.display().to_string(), str::to_owned);
    let loaded = annotations::load_folder(
        &name,
        ("human_annotations.json", &hbytes),
        Some(("llm_annotations.json", &lbytes)),
    )
    .map_err(CliError::input)?;
    for d in loaded.diagnostics.iter().filter(|d| d.severity == data::Severity::Warning) {
        eprintln!("warning: {d}");
    }
    let (runs, problems) =
        imported_runs(&loaded.dataset, &loaded, "llm_annotations.json", Policy::Concord);
    for p in problems {
        eprintln!("warning: {p}");
    }
    Ok(Input {
        dataset: loaded.dataset,
        runs,
        settings: Settings::default(),
        split: None,
        costs: Vec::new(),
    })
}

fn read_input(path: &Path) -> Result<Input> {
    if path.is_dir() {
        return read_folder(path);
    }
    let bundle = read_bundle(path)?;
    Ok(Input {
        settings: bundle.settings.validity.clone().unwrap_or_default(),
        split: bundle.review.as_ref().and_then(|r| r.split.clone()),
        dataset: validity::with_added_raters(&bundle.dataset.embedded, &bundle.raters),
        costs: validity::bundle_costs(&bundle),
        runs: bundle.runs,
    })
}

fn prepare(
    args: &[String],
    help: &str,
    figures: bool,
) -> Result<Option<(Input, Format, Option<PathBuf>)>> {
    let Some(args) = parse(args, help, figures)? else { return Ok(None) };
    let mut input = read_input(&args.input)?;
    for c in &args.settings_changes {
        c.apply(&mut input.settings);
    }
    if input.runs.is_empty() {
        return Err(CliError::input(format!(
            "{}: no judge runs to test against the annotators",
            args.input.display()
        )));
    }
    Ok(Some((input, args.format, args.out)))
}

/// Runs `concord alt-test` with the arguments after `alt-test`.
pub fn alt_test(args: &[String]) -> Result<()> {
    let Some((input, format, out)) = prepare(args, ALT_TEST_HELP, false)? else {
        print!("{ALT_TEST_HELP}");
        return Ok(());
    };
    let report = validity::alt_test_report(&input.dataset, &input.runs, &input.settings);
    write(&report, format, out.as_deref())
}

/// Runs `concord trust` with the arguments after `trust`.
pub fn trust(args: &[String]) -> Result<()> {
    let Some((input, format, out)) = prepare(args, TRUST_HELP, true)? else {
        print!("{TRUST_HELP}");
        return Ok(());
    };
    let split = input.split.as_ref();
    let mut report: Report =
        validity::trust_report(&input.dataset, &input.runs, &input.settings, split);
    let cascade =
        validity::cascade_report(&input.dataset, &input.runs, &input.settings, split, input.costs);
    report.tables.extend(cascade.tables);
    write(&report, format, out.as_deref())
}
