//! `concord alt-test` and `concord trust`: may a judge replace the annotators (the alternative
//! annotator test, STATS_SPEC §16.1), and on which items can it be trusted (selective trust and
//! the cascade, §16.2) — the tables of the Results screen's validity panel, written by the
//! core's exporters.
//!
//! Both read an AltTest folder (`human_annotations.json` + `llm_annotations.json`) or a bundle;
//! each setting on the command line replaces the bundle's.

use std::path::{Path, PathBuf};

use concord_core::data::{self, annotations};
use concord_core::judge::parse::Policy;
use concord_core::report::Report;
use concord_core::study::validity::{self, Settings};
use concord_core::study::workbench::{JudgedRun, import::imported_runs};

use crate::args::{Confidence, OutputFormat, ScoringArg, finite, tables_only};
use crate::error::{CliError, Result};
use crate::report::{read_bundle, write};

/// May the judge replace the annotators? The alternative annotator test.
///
/// Tests every judge run against the raters (STATS_SPEC §16.1), as the Results screen's
/// validity panel shows it. The tables: per judge, the instances kept, annotators tested and skipped, the winning rate ω
/// (the share of annotators it beats), passed (ω ≥ 0.5) and the advantage probability ρ; then
/// per judge, each annotator's n, ρ_j, mean advantage d, p-value and whether the judge wins.
#[derive(Debug, clap::Args)]
pub struct AltTestArgs {
    /// An AltTest folder — human_annotations.json ({annotator: {instance: value}}) and
    /// llm_annotations.json ({LLM: {instance: value}}, the LLMs as judges), e.g.
    /// ../shared/data/AltTest/data/wax — or a bundle exported by the app (every judge run
    /// against the dataset's raters, under the bundle's settings unless options say otherwise)
    #[arg(value_name = "DIR|BUNDLE")]
    input: PathBuf,
    #[command(flatten)]
    settings: AltTestSettings,
    /// The output
    #[arg(long, value_parser = tables_only(), default_value = "md")]
    format: OutputFormat,
    /// Write one file per table into DIR instead of printing them
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Where can the judge be trusted? Selective trust and the cascade.
///
/// Selective trust with a guaranteed agreement (STATS_SPEC §16.2), checked on a held-out half,
/// and the cascade of each attribute's judges. The tables: per judge the threshold, coverage and agreement on the calibration half and on
/// the held-out half; the cascade of each attribute's judges (in the bundle's order of cost)
/// and the share of items decided without a person. svg: the coverage–agreement curves.
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// A bundle exported by the app (its settings unless options say otherwise; its review's
    /// split, when it has one, is the held-out half, else a seeded half of the rated items),
    /// or an AltTest folder
    #[arg(value_name = "BUNDLE|DIR")]
    input: PathBuf,
    #[command(flatten)]
    settings: TrustSettings,
    /// The output: tables, or svg for the coverage–agreement curves
    #[arg(long, value_enum, default_value_t = OutputFormat::Md)]
    format: OutputFormat,
    /// Write one file per table (or figure) into DIR instead of printing them
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The alt-test's settings; each given one replaces the bundle's (for a folder: the default).
#[derive(Debug, clap::Args)]
struct AltTestSettings {
    /// How a value is scored against the other annotators'; default: accuracy for labels,
    /// neg_rmse for numbers
    #[arg(long, value_enum)]
    scoring: Option<ScoringArg>,
    /// The cost-benefit margin ε in [0, 1); the paper's presets: 0.2 experts, 0.15 skilled
    /// annotators, 0.1 crowd workers (default 0.2)
    #[arg(long, value_name = "E", value_parser = finite, allow_negative_numbers = true)]
    epsilon: Option<f64>,
    /// The false discovery rate over the annotators (default 0.05)
    #[arg(long, value_name = "Q", value_parser = finite, allow_negative_numbers = true)]
    q: Option<f64>,
    /// An instance counts when K annotators rated it (default 2)
    #[arg(long, value_name = "K")]
    min_humans: Option<usize>,
    /// An annotator is tested with N such instances (default 30)
    #[arg(long, value_name = "N")]
    min_instances: Option<usize>,
    /// The agreement column: a score agrees when within T of the annotators' mean (default
    /// 0.5; labels: equal)
    #[arg(long, value_name = "T", value_parser = finite, allow_negative_numbers = true)]
    tolerance: Option<f64>,
}

impl AltTestSettings {
    fn apply(&self, s: &mut Settings) {
        if let Some(v) = self.scoring {
            s.scoring = Some(v.into());
        }
        set(&mut s.epsilon, self.epsilon);
        set(&mut s.q, self.q);
        set(&mut s.min_humans, self.min_humans);
        set(&mut s.min_instances, self.min_instances);
        if self.tolerance.is_some() {
            s.tolerance = self.tolerance;
        }
    }
}

/// Selective trust's settings; each given one replaces the bundle's (for a folder: the
/// default).
#[derive(Debug, clap::Args)]
struct TrustSettings {
    /// Tolerated disagreement: agreement ≥ 1 − A on the trusted items (default 0.1)
    #[arg(long, value_name = "A", value_parser = finite, allow_negative_numbers = true)]
    alpha: Option<f64>,
    /// Risk: the guarantee holds with probability ≥ 1 − D (default 0.1)
    #[arg(long, value_name = "D", value_parser = finite, allow_negative_numbers = true)]
    delta: Option<f64>,
    /// A score agrees when within T of the humans' mean (default 0.5; labels: equal)
    #[arg(long, value_name = "T", value_parser = finite, allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// Where the judge's confidence comes from (default auto)
    #[arg(long, value_name = "SOURCE", value_enum)]
    confidence_source: Option<Confidence>,
}

impl TrustSettings {
    fn apply(&self, s: &mut Settings) {
        set(&mut s.alpha, self.alpha);
        set(&mut s.delta, self.delta);
        if self.tolerance.is_some() {
            s.tolerance = self.tolerance;
        }
        if let Some(v) = self.confidence_source {
            s.confidence_source = v.into();
        }
    }
}

/// `value`, when the command line gives one, replaces `setting`.
fn set<T>(setting: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *setting = v;
    }
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

/// The input with the command line's settings in place; it must have judge runs.
fn prepare(path: &Path, settings: impl FnOnce(&mut Settings)) -> Result<Input> {
    let mut input = read_input(path)?;
    settings(&mut input.settings);
    if input.runs.is_empty() {
        return Err(CliError::input(format!(
            "{}: no judge runs to test against the annotators",
            path.display()
        )));
    }
    Ok(input)
}

/// Runs `concord alt-test`.
pub fn alt_test(args: AltTestArgs) -> Result<()> {
    let input = prepare(&args.input, |s| args.settings.apply(s))?;
    let report = validity::alt_test_report(&input.dataset, &input.runs, &input.settings);
    write(&report, args.format.into(), args.out.as_deref())
}

/// Runs `concord trust`.
pub fn trust(args: TrustArgs) -> Result<()> {
    let input = prepare(&args.input, |s| args.settings.apply(s))?;
    let split = input.split.as_ref();
    let mut report: Report =
        validity::trust_report(&input.dataset, &input.runs, &input.settings, split);
    let cascade =
        validity::cascade_report(&input.dataset, &input.runs, &input.settings, split, input.costs);
    report.tables.extend(cascade.tables);
    write(&report, args.format.into(), args.out.as_deref())
}
