//! From responses to seed 002's table: judge runs per (method, attribute), the methods ×
//! attributes table with Williams' test against a baseline method, bootstrap intervals on
//! demand, and agreement between raters (humans, students, judges). [`super::report`] turns
//! them into the report's tables.

use serde::{Deserialize, Serialize};

use super::scores::{self as table, JudgeScores, Row, TableError};
use crate::data::{Dataset, JudgeRecord, JudgeRun, RecordKey};
use crate::judge::aggregate::WeightFallback;
use crate::judge::parse::Policy;
use crate::stats::{self, KrippendorffLevel, Level, ResampleInput, ResampleStat};

use super::plan::Plan;
use super::study::Study;

/// The judgments of one method on one attribute, ready for the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedRun {
    pub method: String,
    pub attribute: String,
    /// How its samples are read.
    pub policy: Policy,
    /// Probability-weighted (G-Eval): each sample scored at its rating's token by its
    /// log-probabilities, and what is done with a sample that cannot be weighted; `None`: the
    /// parsed rating.
    #[serde(default)]
    pub weighting: Option<WeightFallback>,
    pub run: JudgeRun,
    /// Where it came from: `study` for runs made here, else the imported file's name.
    pub origin: String,
}

/// The prompt a study's method sent for `attribute` on dataset item `item`: the method's
/// template rendered on the item, as planned (records collected from a run do not keep it).
/// A length-probe method (`score-only [padded]`) sent its method's template on the item's
/// changed output.
pub fn study_prompt(
    dataset: &Dataset,
    study: &Study,
    method: &str,
    attribute: &str,
    item: usize,
) -> Option<String> {
    let item = dataset.items.get(item)?;
    if let Some(m) = study.methods.iter().find(|m| m.name == method) {
        return m.template(attribute)?.render(item).ok();
    }
    let (base, variant) = super::probe::variant_of(method)?;
    let m = study.methods.iter().find(|m| m.name == base)?;
    let mut changed = item.clone();
    changed.output = variant.apply(&item.output);
    m.template(attribute)?.render(&changed).ok()
}

/// Whether a run was made here (by the study or its length probe), so its records' prompts
/// can be rendered again from the study.
pub fn made_here(run: &JudgedRun) -> bool {
    run.origin == "study" || run.origin.starts_with("probe:")
}

/// Gives every record of a run made here ([`made_here`]) that has no prompt the prompt its
/// method sent ([`study_prompt`]), e.g. before the run is exported.
pub fn fill_study_prompts(dataset: &Dataset, study: &Study, run: &mut JudgedRun) {
    if !made_here(run) || run.run.records.iter().all(|r| r.prompt.is_some()) {
        return;
    }
    let joined = crate::data::join(dataset, &run.run);
    for (record, target) in joined.matched {
        let crate::data::Target::Item(item) = target else { continue };
        if let Some(rec) = run.run.records.get_mut(record)
            && rec.prompt.is_none()
        {
            rec.prompt = study_prompt(dataset, study, &run.method, &run.attribute, item);
        }
    }
}

/// Gathers the responses a run has so far into one [`JudgedRun`] per (method, attribute).
/// Records carry no prompt text ([`study_prompt`] renders it). `lookup` returns the stored text of a sample by its cache key; samples not stored yet are
/// left out, so a partial run gives a partial (but correct) table.
pub fn collect(
    dataset: &Dataset,
    study: &Study,
    plan: &Plan,
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<JudgedRun> {
    let mut runs = empty_runs(study);
    collect_into(&mut runs, dataset, study, plan, 0..plan.prompts.len(), lookup, |_| {
        SampleInfo::default()
    });
    runs
}

/// What a stored sample carries beside its text, for [`collect_into`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleInfo {
    /// The provider cut it off at the token limit.
    pub cut_off: bool,
    /// Its digit-bearing tokens with their log-probabilities (empty when it has none).
    pub tokens: Vec<crate::judge::aggregate::ScoreToken>,
    /// The reasoning tokens it cost, when the provider reported some.
    pub reasoning_tokens: Option<u64>,
    /// On the first sample of each call: the call (how many samples it answered, the tokens the
    /// provider reported, whether through a batch), kept in [`JudgeRecord::calls`].
    pub call: Option<crate::data::CallUsage>,
}

/// The call that answered `samples` samples, as [`SampleInfo::call`] keeps it on the first:
/// the tokens the provider reported (`None` when it reported none), and whether it went
/// through a provider's batch API.
pub fn call_usage(
    samples: usize,
    usage: Option<crate::run::Usage>,
    batch: bool,
) -> crate::data::CallUsage {
    crate::data::CallUsage {
        samples: u32::try_from(samples).unwrap_or(u32::MAX),
        tokens: usage.map(|u| crate::data::ReportedTokens {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            reasoning_tokens: u.reasoning_tokens,
        }),
        batch,
    }
}

/// One empty [`JudgedRun`] per (method, attribute) of `study`, methods first: what
/// [`collect_into`] fills.
pub fn empty_runs(study: &Study) -> Vec<JudgedRun> {
    let mut runs: Vec<JudgedRun> = Vec::new();
    for method in &study.methods {
        for attribute in &study.attributes {
            runs.push(JudgedRun {
                method: method.name.clone(),
                attribute: attribute.clone(),
                policy: method.policy,
                weighting: method.weighting,
                run: JudgeRun {
                    name: format!("{} / {attribute}", method.name),
                    attribute: Some(attribute.clone()),
                    records: Vec::new(),
                },
                origin: "study".into(),
            });
        }
    }
    runs
}

/// [`collect`] for the plan's prompts in `prompts` only, appended to `runs` (from
/// [`empty_runs`]): a large run is collected a slice at a time, in prompt order, giving the
/// same runs as one [`collect`]. `info` gives what a stored sample carries beside its text:
/// whether the provider cut it off at the token limit (kept in each record's
/// [`JudgeRecord::cut_off`]), its digit-bearing tokens with their log-probabilities (kept in
/// [`JudgeRecord::logprobs`] when any sample of the record has some), its reasoning tokens
/// (kept in [`JudgeRecord::reasoning_tokens`] when any sample of the record reported some) and,
/// on a call's first sample, the call (kept in [`JudgeRecord::calls`]).
#[allow(clippy::too_many_arguments)]
pub fn collect_into(
    runs: &mut [JudgedRun],
    dataset: &Dataset,
    study: &Study,
    plan: &Plan,
    prompts: std::ops::Range<usize>,
    lookup: impl Fn(&str) -> Option<String>,
    info: impl Fn(&str) -> SampleInfo,
) {
    let slot = |method: usize, attribute: &str| {
        study
            .attributes
            .iter()
            .position(|a| a == attribute)
            .map(|a| method * study.attributes.len() + a)
    };
    let first = prompts.start;
    for (at, prompt) in plan.prompts.get(prompts).unwrap_or_default().iter().enumerate() {
        // A weighted prompt that fell back to its plain twin reads its samples, not its calls
        // (paid once, by the twin).
        let shared = plan.shared.contains(&(first + at));
        let (Some(i), Some(item)) =
            (slot(prompt.method, &prompt.attribute), dataset.items.get(prompt.item))
        else {
            continue;
        };
        let mut responses: Vec<String> = Vec::new();
        let mut cut = Vec::new();
        let mut tokens = Vec::new();
        let mut reasoning = Vec::new();
        let mut calls = Vec::new();
        for key in prompt.keys() {
            if let Some(text) = lookup(&key) {
                let info = info(&key);
                if info.cut_off {
                    cut.push(responses.len());
                }
                if !shared {
                    calls.extend(info.call);
                }
                responses.push(text);
                tokens.push(info.tokens);
                reasoning.push(info.reasoning_tokens.unwrap_or(0));
            }
        }
        // A record of samples without log-probabilities or reasoning keeps none (the common
        // case).
        if tokens.iter().all(Vec::is_empty) {
            tokens.clear();
        }
        if reasoning.iter().all(|&r| r == 0) {
            reasoning.clear();
        }
        if responses.is_empty() {
            continue;
        }
        if let Some(run) = runs.get_mut(i) {
            run.run.records.push(JudgeRecord {
                // By id, which is unique in a dataset: a generic table may have several rows
                // with the same document and system.
                key: RecordKey::Id(item.id.clone()),
                // Rendered again when shown or exported ([`study_prompt`]): 40,000 prompts of a
                // large run are not kept twice.
                prompt: None,
                prompt_chars: Some(prompt.chars),
                responses,
                cut_off: cut,
                logprobs: tokens,
                reasoning_tokens: reasoning,
                parsed: Vec::new(),
                line: 0,
                meta: None,
                calls,
            });
        }
    }
}

/// Which correlation a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Statistic {
    Pearson,
    Spearman,
    KendallB,
}

impl Statistic {
    pub const ALL: [Statistic; 3] = [Statistic::Pearson, Statistic::Spearman, Statistic::KendallB];

    pub fn label(self) -> &'static str {
        match self {
            Statistic::Pearson => "Pearson r",
            Statistic::Spearman => "Spearman ρ",
            Statistic::KendallB => "Kendall τ-b",
        }
    }

    /// The symbol of a column heading: r, ρ, τ.
    pub fn symbol(self) -> &'static str {
        match self {
            Statistic::Pearson => "r",
            Statistic::Spearman => "ρ",
            Statistic::KendallB => "τ",
        }
    }

    /// The same symbol in LaTeX.
    pub fn latex_symbol(self) -> &'static str {
        match self {
            Statistic::Pearson => "$r$",
            Statistic::Spearman => "$\\rho$",
            Statistic::KendallB => "$\\tau$",
        }
    }

    /// The name in CSV exports and settings: `pearson`, `spearman`, `kendall_b`.
    pub fn name(self) -> &'static str {
        match self {
            Statistic::Pearson => "pearson",
            Statistic::Spearman => "spearman",
            Statistic::KendallB => "kendall_b",
        }
    }

    fn resample(self) -> ResampleStat {
        match self {
            Statistic::Pearson => ResampleStat::Pearson,
            Statistic::Spearman => ResampleStat::Spearman,
            Statistic::KendallB => ResampleStat::KendallB,
        }
    }
}

/// Dataset level (all items) or document level (per document, averaged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Dataset,
    Document,
}

impl Granularity {
    pub fn label(self) -> &'static str {
        match self {
            Granularity::Dataset => "dataset level",
            Granularity::Document => "document level",
        }
    }

    /// The name in CSV exports and settings: `dataset`, `document`.
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Dataset => "dataset",
            Granularity::Document => "document",
        }
    }
}

/// The value of one statistic at one level in a row.
pub fn value(row: &Row, stat: Statistic, level: Granularity) -> Option<f64> {
    let levels = match stat {
        Statistic::Pearson => &row.pearson,
        Statistic::Spearman => &row.spearman,
        Statistic::KendallB => &row.kendall_b,
    };
    match level {
        Granularity::Dataset => levels.dataset,
        Granularity::Document => levels.document,
    }
}

/// One cell of the methods × attributes table.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub row: Row,
    pub scores: JudgeScores,
}

impl Cell {
    /// Williams' test says this method's dataset-level Pearson r beats the baseline's
    /// (one-sided p < 0.05).
    pub fn beats_baseline(&self) -> bool {
        self.row.williams.p.is_some_and(|p| p < 0.05)
    }

    /// Whether this cell is bold in `column`: Williams' test compares dataset-level Pearson r,
    /// so only that column is marked, as seed 002 boldfaces "the Pearson's r statistically
    /// significantly higher than the baseline" and never a τ.
    pub fn bold_in(&self, column: Column) -> bool {
        column == (Statistic::Pearson, Granularity::Dataset) && self.beats_baseline()
    }
}

/// What a row of the results table is. Every consumer that wants judges (juries, ensembles,
/// the judge audit, agreement lists, exercises) asks the row's kind, never its name: a method
/// may be called anything, `jury (mean)` or `x + review` included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunKind {
    /// A judge's own ratings of the dataset's outputs: a run made here or imported.
    Judge,
    /// A length-probe variant of judge `judge`: it rated changed outputs, not the dataset's.
    Probe { judge: String },
    /// The mean or median of the judges that scored each item.
    Jury { median: bool },
    /// The mean of the named judges that scored each item.
    Ensemble { members: Vec<String> },
    /// Judge `judge`'s ratings with a human review's changes applied.
    HumanCorrected { judge: String },
}

impl RunKind {
    /// A judge's own ratings: what juries, ensembles, the audit's judges and "judge" lists take.
    pub fn is_judge(&self) -> bool {
        *self == RunKind::Judge
    }

    /// A combination of judges (a jury or an ensemble).
    pub fn is_combination(&self) -> bool {
        matches!(self, RunKind::Jury { .. } | RunKind::Ensemble { .. })
    }

    /// What a table says the row is: `judge`, `probe`, `jury`, `ensemble`, `human-corrected`.
    pub fn label(&self) -> &'static str {
        match self {
            RunKind::Judge => "judge",
            RunKind::Probe { .. } => "probe",
            RunKind::Jury { .. } => "jury",
            RunKind::Ensemble { .. } => "ensemble",
            RunKind::HumanCorrected { .. } => "human-corrected",
        }
    }
}

/// The kind of a run read from a file or made here: a judge, or a length-probe variant of one
/// (its method `<judge> [<variant>]`, as the length probe names the runs it makes — also
/// when they come back in a bundle or a file).
pub fn run_kind(run: &JudgedRun) -> RunKind {
    match super::probe::variant_of(&run.method) {
        Some((judge, _)) => RunKind::Probe { judge: judge.to_owned() },
        None => RunKind::Judge,
    }
}

/// Methods × attributes. `cells[m][a]` is `None` when that method has no run for the
/// attribute, or the run could not be scored (see `errors`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsTable {
    pub methods: Vec<String>,
    /// What each method's row is, parallel to `methods`.
    pub kinds: Vec<RunKind>,
    pub attributes: Vec<String>,
    pub baseline: Option<String>,
    pub cells: Vec<Vec<Option<Cell>>>,
    pub errors: Vec<String>,
}

impl ResultsTable {
    pub fn cell(&self, method: usize, attribute: usize) -> Option<&Cell> {
        self.cells.get(method)?.get(attribute)?.as_ref()
    }

    /// What row `method` is (a judge when not said).
    pub fn kind(&self, method: usize) -> &RunKind {
        self.kinds.get(method).unwrap_or(&RunKind::Judge)
    }

    /// The indices of the judges' own rows.
    pub fn judges(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.methods.len()).filter(|&m| self.kind(m).is_judge())
    }
}

/// Every run read into per-item scores: the expensive half of [`compute`] (every sample
/// parsed), which depends only on the dataset and the runs. The table for another baseline,
/// statistic or level is then [`tabulate`] over the same `Scored`, without parsing again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scored {
    pub methods: Vec<String>,
    /// What each method's row is, parallel to `methods`.
    pub kinds: Vec<RunKind>,
    pub attributes: Vec<String>,
    /// `scores[m][a]`: the run of method `m` on attribute `a`, read.
    pub scores: Vec<Vec<Option<JudgeScores>>>,
    /// Runs that could not be read (unknown attribute, nothing joined).
    pub errors: Vec<String>,
}

/// Reads one run into per-item scores (every sample parsed under the run's policy); `None`
/// for a run without records (a run that has not started), `Err` when it cannot be read.
pub fn score_run(dataset: &Dataset, r: &JudgedRun) -> Option<Result<JudgeScores, TableError>> {
    if r.run.records.is_empty() {
        return None;
    }
    let reader = match table::ScoreReader::new(dataset, &r.method, &r.attribute, &r.run, r.policy) {
        Ok(reader) => reader.with_weighting(r.weighting),
        Err(e) => return Some(Err(e)),
    };
    let mut reader = reader;
    while !reader.step(&r.run, usize::MAX) {}
    Some(Ok(reader.finish()))
}

/// Arranges read runs into methods × attributes (in order of first appearance; a later run
/// of the same method and attribute replaces an earlier one). `read(i)` is [`score_run`] of
/// `runs[i]`, or a copy of it kept from before.
pub fn assemble(
    runs: &[JudgedRun],
    mut read: impl FnMut(usize) -> Option<Result<JudgeScores, TableError>>,
) -> Scored {
    let mut methods: Vec<String> = Vec::new();
    let mut kinds: Vec<RunKind> = Vec::new();
    let mut attributes: Vec<String> = Vec::new();
    for r in runs {
        if !methods.contains(&r.method) {
            methods.push(r.method.clone());
            kinds.push(run_kind(r));
        }
        if !attributes.contains(&r.attribute) {
            attributes.push(r.attribute.clone());
        }
    }
    let mut errors = Vec::new();
    let mut scores: Vec<Vec<Option<JudgeScores>>> =
        vec![vec![None; attributes.len()]; methods.len()];
    for (i, r) in runs.iter().enumerate() {
        let (Some(m), Some(a)) = (
            methods.iter().position(|x| *x == r.method),
            attributes.iter().position(|x| *x == r.attribute),
        ) else {
            continue;
        };
        match read(i) {
            None => {}
            Some(Ok(s)) => scores[m][a] = Some(s),
            Some(Err(e)) => errors.push(e.to_string()),
        }
    }
    Scored { methods, kinds, attributes, scores, errors }
}

impl Scored {
    /// What row `method` is (a judge when not said).
    pub fn kind(&self, method: usize) -> &RunKind {
        self.kinds.get(method).unwrap_or(&RunKind::Judge)
    }

    /// Adds a row.
    pub fn push(&mut self, name: String, kind: RunKind, row: Vec<Option<JudgeScores>>) {
        self.methods.push(name);
        self.kinds.push(kind);
        self.scores.push(row);
    }
}

/// Reads every run of `runs` into per-item scores: [`assemble`] of [`score_run`].
pub fn score(dataset: &Dataset, runs: &[JudgedRun]) -> Scored {
    assemble(runs, |i| score_run(dataset, &runs[i]))
}

/// The methods × attributes table from read scores: every correlation at both levels, and
/// Williams' test of each method against `baseline` (a method name; no marks when `None`).
pub fn tabulate(dataset: &Dataset, scored: &Scored, baseline: Option<&str>) -> ResultsTable {
    let Scored { methods, kinds, attributes, scores, errors } = scored;
    let mut errors = errors.clone();
    let base = baseline.and_then(|b| methods.iter().position(|m| m == b));
    let mut cells = vec![vec![None; attributes.len()]; methods.len()];
    for (m, method) in methods.iter().enumerate() {
        for (a, attribute) in attributes.iter().enumerate() {
            let Some(judge) = &scores[m][a] else { continue };
            let baseline_scores = base
                .filter(|&b| b != m)
                .and_then(|b| scores[b][a].as_ref())
                .map(|s| s.scores.as_slice());
            match table::row(dataset, method, attribute, judge, baseline_scores) {
                Ok(row) => cells[m][a] = Some(Cell { row, scores: judge.clone() }),
                Err(e) => errors.push(e.to_string()),
            }
        }
    }
    let baseline = base.map(|b| methods[b].clone());
    ResultsTable {
        methods: methods.clone(),
        kinds: (0..methods.len())
            .map(|m| kinds.get(m).cloned().unwrap_or(RunKind::Judge))
            .collect(),
        attributes: attributes.clone(),
        baseline,
        cells,
        errors,
    }
}

/// The row name of the mean jury ([`with_juries`]).
pub const JURY_MEAN: &str = "jury (mean)";
/// The row name of the median jury.
pub const JURY_MEDIAN: &str = "jury (median)";

/// What an ensemble's row is called: `ensemble: rate-explain + analyze-rate`.
const ENSEMBLE_PREFIX: &str = "ensemble: ";
const ENSEMBLE_JOIN: &str = " + ";

/// The row name of the ensemble of `members`.
pub fn ensemble_name<S: AsRef<str>>(members: &[S]) -> String {
    let names: Vec<&str> = members.iter().map(AsRef::as_ref).collect();
    format!("{ENSEMBLE_PREFIX}{}", names.join(ENSEMBLE_JOIN))
}

/// `scored` with one more method per ensemble in `ensembles` (each a list of two or more
/// method names, seed 002's suggestion of combining e.g. rate-explain and analyze-rate): on
/// each attribute where at least two of its members scored items, an item's ensemble score is
/// the mean of the members that scored it. They are rows like any other (correlations,
/// Williams' test against the baseline, intervals, plots); the judge audit tests each against
/// its members. An ensemble naming a method the table lacks, or already present, is left out.
pub fn with_ensembles(scored: &Scored, ensembles: &[Vec<String>]) -> Scored {
    let mut out = scored.clone();
    for members in ensembles {
        let name = ensemble_name(members);
        // Only judges are members: a jury, an ensemble or a corrected row is not.
        let Some(found) = members
            .iter()
            .map(|m| {
                scored.methods.iter().position(|x| x == m).filter(|&i| scored.kind(i).is_judge())
            })
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        if found.len() < 2 || out.methods.contains(&name) {
            continue;
        }
        let kind = RunKind::Ensemble { members: members.clone() };
        push_combination(&mut out, scored, name, kind, &found, crate::stats::JuryRule::Mean);
    }
    out
}

/// Adds to `out` the row `name`: on each attribute where two or more of `members` (methods of
/// `scored`) scored items, an item's score is the mean (median) of the members that scored it.
/// No row when no attribute has two.
fn push_combination(
    out: &mut Scored,
    scored: &Scored,
    name: String,
    kind: RunKind,
    members: &[usize],
    rule: crate::stats::JuryRule,
) {
    let row: Vec<Option<JudgeScores>> = (0..scored.attributes.len())
        .map(|a| {
            let judges: Vec<&[Option<f64>]> = members
                .iter()
                .filter_map(|&m| scored.scores[m][a].as_ref().map(|s| s.scores.as_slice()))
                .collect();
            (judges.len() >= 2).then(|| JudgeScores {
                scores: crate::stats::jury(&judges, rule),
                parse_failures: 0,
                samples: 0,
                cut_off: 0,
                cut_off_failures: 0,
                weighted: 0,
                fell_back: 0,
                weighting: None,
            })
        })
        .collect();
    if row.iter().any(Option::is_some) {
        out.push(name, kind, row);
    }
}

/// `scored` with two more methods, the mean and the median jury (STATS_SPEC §15.6): on each
/// attribute two or more methods scored, an item's jury score is the mean (median) of the
/// methods that scored it. They are then rows like any other: correlations, Williams' test
/// against the baseline, intervals, plots. Runs named like a jury are left as they are.
pub fn with_juries(scored: &Scored) -> Scored {
    let mut out = scored.clone();
    // Only judges are members: probe runs judged other texts, and combinations and corrected
    // rows are not judges of their own.
    let members: Vec<usize> =
        (0..scored.methods.len()).filter(|&m| scored.kind(m).is_judge()).collect();
    for (name, rule) in
        [(JURY_MEAN, crate::stats::JuryRule::Mean), (JURY_MEDIAN, crate::stats::JuryRule::Median)]
    {
        if scored.methods.iter().any(|m| m == name) {
            continue;
        }
        let kind = RunKind::Jury { median: rule == crate::stats::JuryRule::Median };
        push_combination(&mut out, scored, name.to_owned(), kind, &members, rule);
    }
    out
}

/// Computes the table for `runs`: [`score`] then [`tabulate`]. Williams' test compares each
/// method with `baseline` (a method name) on the same attribute; no marks when `None`.
pub fn compute(dataset: &Dataset, runs: &[JudgedRun], baseline: Option<&str>) -> ResultsTable {
    tabulate(dataset, &score(dataset, runs), baseline)
}

/// What the table shows under each attribute: one (statistic, level) column, or several.
pub type Column = (Statistic, Granularity);

/// Seed 002's layout: Pearson r at dataset level and Kendall τ at document level, side by side.
pub const PAPER_COLUMNS: [Column; 2] =
    [(Statistic::Pearson, Granularity::Dataset), (Statistic::KendallB, Granularity::Document)];

/// A column's heading under its attribute: "r (dataset)".
pub fn column_heading((stat, level): Column) -> String {
    format!("{} ({})", stat.symbol(), level.name())
}

/// A percentile bootstrap interval of one cell's statistic (STATS_SPEC §8): items resampled
/// at dataset level, documents at document level; ChaCha-seeded by `seed`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
}

/// What to bootstrap, how often, with which seed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSpec {
    pub statistic: Statistic,
    pub level: Granularity,
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
}

/// Bootstraps `scores` (a judge's item-aligned scores) against the human scores of
/// `attribute`. `None` when the statistic is undefined on too many resamples.
pub fn bootstrap_interval(
    dataset: &Dataset,
    attribute: &str,
    scores: &[Option<f64>],
    spec: BootstrapSpec,
) -> Option<Interval> {
    let BootstrapSpec { statistic: stat, level, resamples, seed, confidence } = spec;
    let index = dataset.attribute_index(attribute)?;
    let human = dataset.human_scores(index);
    let mut doc_ids: Vec<&str> = Vec::new();
    let groups: Vec<usize> = dataset
        .items
        .iter()
        .map(|item| match doc_ids.iter().position(|d| *d == item.document_id) {
            Some(i) => i,
            None => {
                doc_ids.push(&item.document_id);
                doc_ids.len() - 1
            }
        })
        .collect();
    let input =
        ResampleInput { human: &human, metric_a: scores, metric_b: scores, groups: Some(&groups) };
    let (level, len) = match level {
        Granularity::Dataset => (
            Level::Dataset,
            (0..human.len()).filter(|&i| human[i].is_some() && scores[i].is_some()).count(),
        ),
        Granularity::Document => {
            let mut used: Vec<usize> = (0..human.len())
                .filter(|&i| human[i].is_some() && scores.get(i).is_some_and(Option::is_some))
                .map(|i| groups[i])
                .collect();
            used.sort_unstable();
            used.dedup();
            (Level::Group, used.len())
        }
    };
    if len < 3 {
        return None;
    }
    let indices = stats::draw_boot_indices(len, resamples, seed);
    let result = stats::bootstrap(&input, stat.resample(), level, confidence, &indices).ok()?;
    let [low, high] = result.ci_a?;
    Some(Interval { low, high, resamples, seed, confidence })
}

/// Who a rater in an agreement table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaterKind {
    Human,
    /// Someone who rated in Concord ("Rate it yourself").
    Student,
    /// A judge's own ratings ([`RunKind::Judge`]).
    Judge,
    /// A length-probe variant of a judge.
    Probe,
    /// A jury of judges.
    Jury,
    /// An ensemble of judges.
    Ensemble,
    /// A judge's ratings corrected by human review.
    HumanCorrected,
}

impl RaterKind {
    /// The rater kind of a results-table row of `kind`.
    pub fn of(kind: &RunKind) -> RaterKind {
        match kind {
            RunKind::Judge => RaterKind::Judge,
            RunKind::Probe { .. } => RaterKind::Probe,
            RunKind::Jury { .. } => RaterKind::Jury,
            RunKind::Ensemble { .. } => RaterKind::Ensemble,
            RunKind::HumanCorrected { .. } => RaterKind::HumanCorrected,
        }
    }

    /// What the agreement table's Kind column says.
    pub fn label(self) -> &'static str {
        match self {
            RaterKind::Human => "human",
            RaterKind::Student => "student",
            RaterKind::Judge => "judge",
            RaterKind::Probe => "probe",
            RaterKind::Jury => "jury",
            RaterKind::Ensemble => "ensemble",
            RaterKind::HumanCorrected => "human-corrected",
        }
    }
}

/// One rater's agreement with the human aggregate and with the human raters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementRow {
    pub name: String,
    pub kind: RaterKind,
    /// Items this rater scored that also have a human aggregate.
    pub n: usize,
    pub pearson: Option<f64>,
    pub spearman: Option<f64>,
    pub kendall_b: Option<f64>,
    /// Krippendorff's α (interval) among the dataset's human raters plus this one.
    pub alpha_with_humans: Option<f64>,
}

/// Every rater's agreement on one attribute: the rows of the Results screen's agreement
/// table. (A rating vector's agreement with a reference, with intervals, is
/// [`super::agreement::Agreement`].)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeAgreement {
    pub attribute: String,
    /// α (interval) among the dataset's own human raters.
    pub alpha_humans: Option<f64>,
    pub rows: Vec<AgreementRow>,
}

/// Per-rater score vectors of the dataset's human raters for attribute `index`.
pub fn human_raters(dataset: &Dataset, index: usize) -> Vec<(String, Vec<Option<f64>>)> {
    let mut out: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for (i, item) in dataset.items.iter().enumerate() {
        let Some(Some(rating)) = item.ratings.get(index) else { continue };
        for r in &rating.raters {
            let slot = match out.iter().position(|(n, _)| *n == r.rater) {
                Some(p) => p,
                None => {
                    out.push((r.rater.clone(), vec![None; dataset.items.len()]));
                    out.len() - 1
                }
            };
            out[slot].1[i] = Some(r.score);
        }
    }
    out
}

/// Compares every rater — the dataset's humans, `others` (students, judges) — with the human
/// aggregate and with the human raters (α). Students and judges are item-aligned vectors.
pub fn agreement(
    dataset: &Dataset,
    attribute: &str,
    others: &[(String, RaterKind, Vec<Option<f64>>)],
) -> Option<AttributeAgreement> {
    let index = dataset.attribute_index(attribute)?;
    let aggregate = dataset.human_scores(index);
    let humans = human_raters(dataset, index);
    let level = KrippendorffLevel::Interval;
    let human_matrix: Vec<Vec<Option<f64>>> = humans.iter().map(|(_, v)| v.clone()).collect();
    let alpha_humans = (human_matrix.len() >= 2)
        .then(|| stats::krippendorff_alpha(&human_matrix, level).value)
        .flatten();
    let mut rows = Vec::new();
    let all = humans
        .iter()
        .map(|(n, v)| (n.clone(), RaterKind::Human, v.clone()))
        .chain(others.iter().cloned());
    for (name, kind, scores) in all {
        let pearson = stats::pearson(&aggregate, &scores);
        let alpha_with_humans = if kind == RaterKind::Human {
            None
        } else {
            let mut matrix = human_matrix.clone();
            matrix.push(scores.clone());
            (matrix.len() >= 2).then(|| stats::krippendorff_alpha(&matrix, level).value).flatten()
        };
        rows.push(AgreementRow {
            name,
            kind,
            n: pearson.n,
            pearson: pearson.value,
            spearman: stats::spearman(&aggregate, &scores).value,
            kendall_b: stats::kendall(&aggregate, &scores).tau_b.value,
            alpha_with_humans,
        });
    }
    Some(AttributeAgreement { attribute: attribute.to_owned(), alpha_humans, rows })
}

/// Estimated tokens a run consumed, from its prompts and responses (`chars / 4`, the same
/// rule as the pre-run estimate): the prompt is paid once per call of `samples_per_call`
/// samples, every response once, and each response's reported reasoning tokens as output (a
/// reasoning model's thinking shows in no response). Used by the cost–quality view when the
/// provider's reported usage is not kept per method.
pub fn estimated_tokens(run: &JudgedRun, samples_per_call: u32) -> (u64, u64) {
    let per_call = u64::from(samples_per_call.max(1));
    let mut input = 0;
    let mut output = 0;
    for record in &run.run.records {
        let calls = (record.responses.len() as u64).div_ceil(per_call);
        let prompt = record.prompt.as_deref().map_or(record.prompt_chars.unwrap_or(0), str::len);
        let prompt = prompt as u64;
        input += calls * crate::run::estimate_tokens(prompt);
        output += record
            .responses
            .iter()
            .map(|r| crate::run::estimate_tokens(r.len() as u64))
            .sum::<u64>();
        output += record.reasoning_tokens.iter().sum::<u64>();
    }
    (input, output)
}

/// The tokens a run's calls used — as the providers reported them where its records keep
/// that ([`JudgeRecord::calls`]), estimated as [`estimated_tokens`] does for the rest — split
/// by how they are billed: interactively at the list price, through a provider's batch API at
/// the batch discount.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunUsage {
    /// Calls answered interactively.
    pub interactive: crate::run::Usage,
    /// Calls answered through a provider's batch API.
    pub batch: crate::run::Usage,
    /// Calls whose tokens the provider reported.
    pub reported_calls: u64,
    /// Calls whose tokens are estimated: imports, older bundles, providers that report none.
    pub estimated_calls: u64,
    /// Calls answered through a batch (reported or estimated).
    pub batch_calls: u64,
}

impl RunUsage {
    pub fn add(&mut self, other: RunUsage) {
        self.interactive.add(other.interactive);
        self.batch.add(other.batch);
        self.reported_calls += other.reported_calls;
        self.estimated_calls += other.estimated_calls;
        self.batch_calls += other.batch_calls;
    }

    pub fn calls(&self) -> u64 {
        self.reported_calls + self.estimated_calls
    }

    pub fn input_tokens(&self) -> u64 {
        self.interactive.prompt_tokens + self.batch.prompt_tokens
    }

    /// Output tokens, reasoning included.
    pub fn output_tokens(&self) -> u64 {
        self.interactive.completion_tokens + self.batch.completion_tokens
    }

    /// What the calls cost at `price`: interactive calls at it, batch calls at
    /// [`crate::run::batch::batch_price`] of it (the batch card's rule, on the same reported
    /// tokens, so a batch's runs cost here what its card says it spent).
    pub fn cost_usd(&self, price: crate::run::Price) -> f64 {
        price.cost_usd(self.interactive)
            + crate::run::batch::batch_price(price).cost_usd(self.batch)
    }
}

/// What `run` used ([`RunUsage`]): each call a record keeps counts the tokens its provider
/// reported (the prompt once, every completion token — reasoning included — as output), and
/// is estimated like [`estimated_tokens`] when it reported none; responses no kept call covers
/// (imports, older bundles) are estimated in calls of `samples_per_call`, as interactive
/// calls.
pub fn run_usage(run: &JudgedRun, samples_per_call: u32) -> RunUsage {
    let per_call = u64::from(samples_per_call.max(1));
    let mut out = RunUsage::default();
    for record in &run.run.records {
        let prompt = record.prompt.as_deref().map_or(record.prompt_chars.unwrap_or(0), str::len);
        let prompt = crate::run::estimate_tokens(prompt as u64);
        // The estimated output of responses `from..to`: their text and reported reasoning.
        let estimated_output = |from: usize, to: usize| -> u64 {
            let to = to.min(record.responses.len());
            let from = from.min(to);
            record.responses[from..to]
                .iter()
                .map(|r| crate::run::estimate_tokens(r.len() as u64))
                .sum::<u64>()
                + record
                    .reasoning_tokens
                    .get(from..to.min(record.reasoning_tokens.len()))
                    .map_or(0, |r| r.iter().sum::<u64>())
        };
        let mut covered = 0;
        for call in &record.calls {
            let (from, to) = (covered, covered + call.samples as usize);
            covered = to;
            let usage = match call.tokens {
                Some(t) => {
                    out.reported_calls += 1;
                    crate::run::Usage {
                        prompt_tokens: t.prompt_tokens,
                        completion_tokens: t.completion_tokens,
                        reasoning_tokens: t.reasoning_tokens,
                    }
                }
                None => {
                    out.estimated_calls += 1;
                    crate::run::Usage {
                        prompt_tokens: prompt,
                        completion_tokens: estimated_output(from, to),
                        reasoning_tokens: 0,
                    }
                }
            };
            if call.batch {
                out.batch_calls += 1;
                out.batch.add(usage);
            } else {
                out.interactive.add(usage);
            }
        }
        let rest = record.responses.len().saturating_sub(covered) as u64;
        if rest > 0 {
            let calls = rest.div_ceil(per_call);
            out.estimated_calls += calls;
            out.interactive.add(crate::run::Usage {
                prompt_tokens: calls * prompt,
                completion_tokens: estimated_output(covered, record.responses.len()),
                reasoning_tokens: 0,
            });
        }
    }
    out
}

/// One method in the cost–quality view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostQuality {
    pub method: String,
    /// Mean over attributes of the chosen statistic.
    pub quality: Option<f64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the price is unknown.
    pub cost_usd: Option<f64>,
    /// Quality per dollar; `None` when free, unknown or undefined.
    pub quality_per_usd: Option<f64>,
    /// Calls whose tokens the provider reported, of `calls`; the rest are estimated.
    #[serde(default)]
    pub reported_calls: u64,
    #[serde(default)]
    pub calls: u64,
    /// Calls answered through a provider's batch API, priced at the batch discount.
    #[serde(default)]
    pub batch_calls: u64,
}

/// Whether `run` is one of the calls of the table's method `m`: a jury's calls are its
/// members' (every judge's run of the attributes it covers); an ensemble's, its members' runs;
/// a corrected row's, its judge's.
pub fn is_cost_of(table: &ResultsTable, m: usize, run: &JudgedRun) -> bool {
    match table.kind(m) {
        RunKind::Ensemble { members } => {
            members.contains(&run.method) && table.attributes.contains(&run.attribute)
        }
        RunKind::Jury { .. } => {
            run_kind(run).is_judge() && table.attributes.contains(&run.attribute)
        }
        RunKind::HumanCorrected { judge } => run.method == *judge,
        RunKind::Judge | RunKind::Probe { .. } => {
            table.methods.get(m).is_some_and(|method| run.method == *method)
        }
    }
}

/// Quality (mean over attributes of `stat` at `level`) against cost, per method: the tokens
/// the providers reported where the runs keep them, estimated elsewhere ([`run_usage`]), batch
/// calls at the batch discount.
pub fn cost_quality(
    table: &ResultsTable,
    runs: &[JudgedRun],
    stat: Statistic,
    level: Granularity,
    samples_per_call: u32,
    price: Option<crate::run::Price>,
) -> Vec<CostQuality> {
    table
        .methods
        .iter()
        .enumerate()
        .map(|(m, method)| {
            let values: Vec<f64> = (0..table.attributes.len())
                .filter_map(|a| table.cell(m, a).and_then(|c| value(&c.row, stat, level)))
                .collect();
            let quality =
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
            let mut usage = RunUsage::default();
            for r in runs.iter().filter(|r| is_cost_of(table, m, r)) {
                usage.add(run_usage(r, samples_per_call));
            }
            let cost_usd = price.map(|p| usage.cost_usd(p));
            // Per dollar only where it means something: a positive quality at a positive cost.
            let quality_per_usd = match (quality, cost_usd) {
                (Some(q), Some(c)) if c > 0.0 && q > 0.0 => Some(q / c),
                _ => None,
            };
            CostQuality {
                method: method.clone(),
                quality,
                input_tokens: usage.input_tokens(),
                output_tokens: usage.output_tokens(),
                cost_usd,
                quality_per_usd,
                reported_calls: usage.reported_calls,
                calls: usage.calls(),
                batch_calls: usage.batch_calls,
            }
        })
        .collect()
}
