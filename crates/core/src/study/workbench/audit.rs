//! The judge audit of a workbench study (STATS_SPEC §15.4, §15.6), from the runs already on
//! the Results table: how far the judges of one attribute agree with each other (α with a
//! bootstrap interval, κ, AC1) and whether their errors are correlated; juries (the mean and
//! the median of every judge of an attribute) tested against each member with Williams'
//! test; and, per system, the prediction-powered corrected mean (PPI and power-tuned PPI++)
//! from the items with human labels, next to the judge-only and the human-only means. Two
//! bias probes read the same runs: *length* (do the judge's errors grow with the output's
//! length?) and *self-preference* (are the judge's errors larger on the systems its own
//! model family wrote, when the settings say which those are?). When the length probe was
//! run ([`super::probe`]), the counterfactual table gives the paired shift of each method's
//! rating from the original outputs to their padded or truncated variants.
//!
//! [`Audit`] works a step at a time (the browser computes it between frames);
//! [`Audit::report`] is what the Results screen's "Judge audit" panel shows and what
//! `concord audit` prints, from the same bundle, byte for byte.

use crate::data::Dataset;
use crate::report::{Cell, Column, Report, Row, Table, count, format_value};
use crate::stats::{
    self, BootIndices, Estimate, JuryRule, KrippendorffLevel, ShuffledOrders, Undefined, Williams,
    quantile_sorted,
};

use super::probe::{Variant, variant_of};
use super::results::{ResultsTable, RunKind};
use super::settings::Settings;
use crate::study::corrected::{self, NoEstimate, percent, undefined_note};

/// The judge-vs-judge table's id.
pub const JUDGES_TABLE: &str = "audit-judges";
/// The table of agreement among all the judges of an attribute (three or more).
pub const PANEL_TABLE: &str = "audit-panel";
/// The juries table's id.
pub const JURIES_TABLE: &str = "audit-juries";
/// The corrected-estimates table's id.
pub const CORRECTED_TABLE: &str = "audit-corrected";
/// The length probe's table id.
pub const LENGTH_TABLE: &str = "audit-length";
/// The self-preference probe's table id.
pub const SELF_TABLE: &str = "audit-self-preference";
/// The counterfactual length probe's table id.
pub const VARIANTS_TABLE: &str = "audit-length-variants";

/// Bootstrap resamples of α computed in one step.
const RESAMPLES_PER_STEP: usize = 100;

/// One attribute's inputs: the human aggregate and every judge that rated it.
#[derive(Debug, Clone)]
struct AttributeInputs {
    name: String,
    /// Parallel to the dataset's items.
    human: Vec<Option<f64>>,
    /// The items whose human label the audit may use (all labelled items, or a seeded
    /// subset of them when the settings keep fewer).
    labelled: Vec<bool>,
    /// (judge name, per-item scores), in the table's method order.
    judges: Vec<(String, Vec<Option<f64>>)>,
}

/// Two judges of one attribute, compared.
#[derive(Debug, Clone)]
struct PairWork {
    attribute: usize,
    judges: (usize, usize),
    agreement: Option<stats::JudgePairAgreement>,
    /// Items both judges scored (the α bootstrap resamples these).
    both: Vec<(f64, f64)>,
    draws: BootIndices,
    alphas: Vec<f64>,
    /// κ of each resample, when κ is defined on the items (whole-number ratings).
    kappas: Vec<f64>,
}

/// A jury (or an ensemble) of an attribute against its members.
#[derive(Debug, Clone)]
struct JuryResult {
    attribute: usize,
    /// The row label: `mean of 3 judges`, or the ensemble's name.
    label: String,
    /// Its part of the cells' keys: `mean`, `median`, or the ensemble's name.
    key: String,
    r: stats::Correlation,
    members: Vec<(String, stats::Correlation, Williams)>,
}

/// A corrected mean of one judge on one system (or all systems).
#[derive(Debug, Clone)]
struct Corrected {
    attribute: usize,
    judge: usize,
    system: String,
    estimate: Result<stats::PpiMean, NoEstimate>,
    /// The mean of every human label of the system, when the settings hid some of them.
    all_humans: Option<(f64, usize)>,
    /// The row of the stratified PPI++ mean over the systems (Fisch et al.; STATS_SPEC §16.3).
    stratified: Option<stats::StratifiedPpi>,
}

/// The label of the stratified row of the corrected-means table.
pub const STRATIFIED_ROW: &str = "all systems, stratified by system";

/// One judge's errors (judge − human) against the output's length in words.
#[derive(Debug, Clone)]
struct LengthProbe {
    attribute: usize,
    judge: usize,
    r: stats::Correlation,
    /// Mean error on the longer and the shorter half of the items (split at the median
    /// length; items at the median go to neither half).
    longer: Option<f64>,
    shorter: Option<f64>,
}

/// One judge's errors on its own family's systems against the others.
#[derive(Debug, Clone)]
struct SelfProbe {
    attribute: usize,
    judge: usize,
    own: Vec<f64>,
    other: Vec<f64>,
}

/// A method's probe run on the variants of the outputs, against the method's own run.
#[derive(Debug, Clone)]
struct VariantWork {
    attribute: usize,
    /// The original method (an index into the attribute's judges).
    judge: usize,
    variant: Variant,
    scores: Vec<Option<f64>>,
    /// Samples the probe run read.
    samples: usize,
    shift: Option<stats::PairedShift>,
}

#[derive(Debug, Clone, Copy)]
enum Job {
    PairPoint(usize),
    PairBoot(usize),
    Jury(usize, JuryRule),
    /// An ensemble row of the table (its index in `ensembles`) on an attribute.
    Ensemble(usize, usize),
    Corrected(usize, usize),
    Probes(usize, usize),
    Shift(usize),
}

/// The audit of a Results table, computed a step at a time.
#[derive(Debug, Clone)]
pub struct Audit {
    attributes: Vec<AttributeInputs>,
    /// The dataset's system of each item, and the systems in order of first appearance.
    item_systems: Vec<usize>,
    systems: Vec<String>,
    settings: Settings,
    subsampled: bool,
    jobs: Vec<Job>,
    next: usize,
    pairs: Vec<PairWork>,
    juries: Vec<JuryResult>,
    /// The ensemble rows of the table: (name, members).
    ensembles: Vec<(String, Vec<String>)>,
    corrected: Vec<Corrected>,
    /// Each item's output length in words.
    words: Vec<f64>,
    /// Each item was written by a system of the judges' own family.
    own: Vec<bool>,
    length: Vec<LengthProbe>,
    self_preference: Vec<SelfProbe>,
    variants: Vec<VariantWork>,
}

impl Audit {
    /// Gathers what the audit needs from `table` (the runs read against `dataset`) under
    /// `settings` (resamples, seed, confidence, labelled items kept).
    pub fn new(dataset: &Dataset, table: &ResultsTable, settings: &Settings) -> Audit {
        let mut systems: Vec<String> = Vec::new();
        let item_systems = dataset
            .items
            .iter()
            .map(|item| match systems.iter().position(|s| *s == item.system_id) {
                Some(i) => i,
                None => {
                    systems.push(item.system_id.clone());
                    systems.len() - 1
                }
            })
            .collect();
        // One seeded order of the items: with `labelled: Some(k)`, each attribute keeps the
        // first k items of it that carry a human label (a human labels an item for every
        // attribute at once, so the attributes share the order).
        let order = ShuffledOrders::new(dataset.items.len(), 1, settings.seed).next();
        let mut subsampled = false;
        let mut attributes = Vec::new();
        let mut variants = Vec::new();
        for (a, name) in table.attributes.iter().enumerate() {
            let Some(index) = dataset.attribute_index(name) else { continue };
            // Labels have no mean, and their codes no agreement at the interval level.
            if dataset.attributes[index].scale.kind == crate::data::ScaleKind::Categorical {
                continue;
            }
            let human = dataset.human_scores(index);
            let mut labelled: Vec<bool> = human.iter().map(Option::is_some).collect();
            if let (Some(k), Some(order)) = (settings.audit_labelled, &order) {
                let mut kept = 0;
                for &i in order {
                    if labelled[i] {
                        if kept < k {
                            kept += 1;
                        } else {
                            labelled[i] = false;
                            subsampled = true;
                        }
                    }
                }
            }
            // Only judges: juries, ensembles, probe runs and human-corrected rows are not judges
            // of the dataset's outputs.
            let judges: Vec<(String, Vec<Option<f64>>)> = table
                .judges()
                .filter_map(|m| {
                    Some((table.methods[m].clone(), table.cell(m, a)?.scores.scores.clone()))
                })
                .collect();
            for (m, method) in table.methods.iter().enumerate() {
                let (RunKind::Probe { .. }, Some((base, variant)), Some(cell)) =
                    (table.kind(m), variant_of(method), table.cell(m, a))
                else {
                    continue;
                };
                if let Some(judge) = judges.iter().position(|(name, _)| name == base) {
                    variants.push(VariantWork {
                        attribute: attributes.len(),
                        judge,
                        variant,
                        scores: cell.scores.scores.clone(),
                        samples: cell.scores.samples,
                        shift: None,
                    });
                }
            }
            attributes.push(AttributeInputs { name: name.clone(), human, labelled, judges });
        }
        let words =
            dataset.items.iter().map(|i| i.output.split_whitespace().count() as f64).collect();
        let own = dataset
            .items
            .iter()
            .map(|i| settings.audit_own_systems.contains(&i.system_id))
            .collect();
        let mut audit = Audit {
            words,
            own,
            length: Vec::new(),
            self_preference: Vec::new(),
            variants,
            attributes,
            item_systems,
            systems,
            settings: settings.clone(),
            subsampled,
            jobs: Vec::new(),
            next: 0,
            pairs: Vec::new(),
            juries: Vec::new(),
            ensembles: table
                .methods
                .iter()
                .zip(&table.kinds)
                .filter_map(|(name, kind)| match kind {
                    RunKind::Ensemble { members } => Some((name.clone(), members.clone())),
                    _ => None,
                })
                .collect(),
            corrected: Vec::new(),
        };
        audit.plan();
        audit
    }

    fn plan(&mut self) {
        let resamples = self.settings.resamples;
        for (a, attribute) in self.attributes.iter().enumerate() {
            let k = attribute.judges.len();
            for i in 0..k {
                for j in i + 1..k {
                    let both: Vec<(f64, f64)> = attribute.judges[i]
                        .1
                        .iter()
                        .zip(&attribute.judges[j].1)
                        .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                        .collect();
                    let p = self.pairs.len();
                    self.pairs.push(PairWork {
                        attribute: a,
                        judges: (i, j),
                        agreement: None,
                        draws: BootIndices::new(both.len(), resamples, self.settings.seed),
                        both,
                        alphas: Vec::with_capacity(resamples),
                        kappas: Vec::new(),
                    });
                    self.jobs.push(Job::PairPoint(p));
                    for _ in 0..resamples.div_ceil(RESAMPLES_PER_STEP) {
                        self.jobs.push(Job::PairBoot(p));
                    }
                }
            }
            if k >= 2 {
                self.jobs.push(Job::Jury(a, JuryRule::Mean));
                self.jobs.push(Job::Jury(a, JuryRule::Median));
            }
            for e in 0..self.ensembles.len() {
                self.jobs.push(Job::Ensemble(a, e));
            }
            for m in 0..k {
                self.jobs.push(Job::Corrected(a, m));
                self.jobs.push(Job::Probes(a, m));
            }
        }
        for v in 0..self.variants.len() {
            self.jobs.push(Job::Shift(v));
        }
    }

    /// (steps done, steps in all).
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.jobs.len())
    }

    /// Does one step; `true` when the audit is complete.
    pub fn step(&mut self) -> bool {
        let Some(&job) = self.jobs.get(self.next) else { return true };
        self.next += 1;
        match job {
            Job::PairPoint(p) => self.pair_point(p),
            Job::PairBoot(p) => self.pair_boot(p),
            Job::Jury(a, rule) => self.jury(a, rule),
            Job::Ensemble(a, e) => self.ensemble(a, e),
            Job::Corrected(a, m) => self.correct(a, m),
            Job::Probes(a, m) => self.probes(a, m),
            Job::Shift(v) => self.shift(v),
        }
        self.next >= self.jobs.len()
    }

    /// Every step at once (the CLI).
    pub fn finish(mut self) -> Audit {
        while !self.step() {}
        self
    }

    fn pair_point(&mut self, p: usize) {
        let pair = &mut self.pairs[p];
        let attribute = &self.attributes[pair.attribute];
        let (i, j) = pair.judges;
        pair.agreement = Some(stats::judge_pair_agreement(
            &attribute.human,
            &attribute.judges[i].1,
            &attribute.judges[j].1,
            None,
        ));
    }

    fn pair_boot(&mut self, p: usize) {
        let pair = &mut self.pairs[p];
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for draw in pair.draws.by_ref().take(RESAMPLES_PER_STEP) {
            x.clear();
            y.clear();
            x.extend(draw.iter().map(|&i| Some(pair.both[i].0)));
            y.extend(draw.iter().map(|&i| Some(pair.both[i].1)));
            let two = [std::mem::take(&mut x), std::mem::take(&mut y)];
            if let Some(alpha) = stats::krippendorff_alpha(&two, KrippendorffLevel::Interval).value
            {
                pair.alphas.push(alpha);
            }
            if pair.agreement.is_some_and(|a| a.cohen_kappa.value.is_some())
                && let Some(kappa) =
                    stats::cohen_kappa(&two[0], &two[1], None, stats::CohenWeights::Unweighted)
                        .value
            {
                pair.kappas.push(kappa);
            }
            let [a, b] = two;
            (x, y) = (a, b);
        }
    }

    fn jury(&mut self, a: usize, rule: JuryRule) {
        let attribute = &self.attributes[a];
        let all: Vec<usize> = (0..attribute.judges.len()).collect();
        let key = match rule {
            JuryRule::Mean => "mean",
            JuryRule::Median => "median",
        };
        let label = format!("{key} of {}", count(all.len(), "judge", "judges"));
        self.push_jury(a, &all, rule, label, key.to_owned());
    }

    fn ensemble(&mut self, a: usize, e: usize) {
        let Some((name, names)) = self.ensembles.get(e).cloned() else { return };
        let judges = &self.attributes[a].judges;
        let members: Vec<usize> = judges
            .iter()
            .enumerate()
            .filter(|(_, (j, _))| names.contains(j))
            .map(|(m, _)| m)
            .collect();
        if members.len() >= 2 {
            self.push_jury(a, &members, JuryRule::Mean, name.clone(), name);
        }
    }

    /// The jury of the judges `members` of attribute `a` under `rule`, tested against each.
    fn push_jury(
        &mut self,
        a: usize,
        members: &[usize],
        rule: JuryRule,
        label: String,
        key: String,
    ) {
        let attribute = &self.attributes[a];
        let scores_of: Vec<&[Option<f64>]> =
            members.iter().map(|&m| attribute.judges[m].1.as_slice()).collect();
        let scores = stats::jury(&scores_of, rule);
        let r = stats::pearson(&attribute.human, &scores);
        let tests = stats::jury_against_members(&attribute.human, &scores, &scores_of);
        let members = members
            .iter()
            .zip(tests)
            .map(|(&m, w)| {
                let (name, s) = &attribute.judges[m];
                (name.clone(), stats::pearson(&attribute.human, s), w)
            })
            .collect();
        self.juries.push(JuryResult { attribute: a, label, key, r, members });
    }

    fn correct(&mut self, a: usize, m: usize) {
        let attribute = &self.attributes[a];
        let judge = &attribute.judges[m].1;
        let mut groups: Vec<(String, Vec<usize>)> =
            vec![("all systems".to_owned(), (0..judge.len()).collect())];
        if self.systems.len() > 1 {
            for (s, name) in self.systems.iter().enumerate() {
                let items = (0..judge.len()).filter(|&i| self.item_systems[i] == s).collect();
                groups.push((name.clone(), items));
            }
        }
        for (system, items) in groups {
            let (mut y, mut yhat, mut unlabeled) = (Vec::new(), Vec::new(), Vec::new());
            let mut all_humans = Vec::new();
            for &i in &items {
                if let Some(h) = attribute.human[i] {
                    all_humans.push(h);
                }
                if attribute.labelled[i] {
                    y.push(attribute.human[i]);
                    yhat.push(judge[i]);
                } else {
                    unlabeled.push(judge[i]);
                }
            }
            let estimate = stats::ppi_mean(&y, &yhat, &unlabeled, self.settings.confidence)
                .map_err(NoEstimate::Refused);
            let all_humans = (self.subsampled && !all_humans.is_empty()).then(|| {
                (all_humans.iter().sum::<f64>() / all_humans.len() as f64, all_humans.len())
            });
            self.corrected.push(Corrected {
                attribute: a,
                judge: m,
                system,
                estimate,
                all_humans,
                stratified: None,
            });
        }
        if self.systems.len() > 1 {
            let mut strata = vec![stats::StratumData::default(); self.systems.len()];
            for (i, j) in judge.iter().enumerate() {
                let s = &mut strata[self.item_systems[i]];
                if attribute.labelled[i] {
                    s.y.push(attribute.human[i]);
                    s.yhat.push(*j);
                } else {
                    s.yhat_unlabeled.push(*j);
                }
            }
            let all_humans = self.corrected.iter().rev().find(|c| c.system == "all systems");
            let all_humans = all_humans.and_then(|c| c.all_humans);
            self.corrected.push(Corrected {
                attribute: a,
                judge: m,
                system: STRATIFIED_ROW.to_owned(),
                estimate: Err(NoEstimate::Elsewhere),
                all_humans,
                stratified: stats::stratified_ppi(&strata, self.settings.confidence).ok(),
            });
        }
    }

    fn probes(&mut self, a: usize, m: usize) {
        let attribute = &self.attributes[a];
        let judge = &attribute.judges[m].1;
        let errors: Vec<Option<f64>> =
            judge.iter().zip(&attribute.human).map(|(j, h)| Some((*j)? - (*h)?)).collect();
        let r = stats::pearson(&errors, &self.words);
        let mut lengths: Vec<f64> =
            errors.iter().zip(&self.words).filter_map(|(e, w)| e.map(|_| *w)).collect();
        lengths.sort_unstable_by(f64::total_cmp);
        let (mut longer, mut shorter) = (Vec::new(), Vec::new());
        if !lengths.is_empty() {
            let median = quantile_sorted(&lengths, 0.5);
            for (e, w) in errors.iter().zip(&self.words) {
                match e {
                    Some(e) if *w > median => longer.push(*e),
                    Some(e) if *w < median => shorter.push(*e),
                    _ => {}
                }
            }
        }
        self.length.push(LengthProbe {
            attribute: a,
            judge: m,
            r,
            longer: mean_of(&longer),
            shorter: mean_of(&shorter),
        });
        if !self.settings.audit_own_systems.is_empty() {
            let (mut own, mut other) = (Vec::new(), Vec::new());
            for (e, is_own) in errors.iter().zip(&self.own) {
                if let Some(e) = e {
                    if *is_own { own.push(*e) } else { other.push(*e) }
                }
            }
            self.self_preference.push(SelfProbe { attribute: a, judge: m, own, other });
        }
    }

    fn shift(&mut self, v: usize) {
        let work = &self.variants[v];
        let original = &self.attributes[work.attribute].judges[work.judge].1;
        let pairs = stats::shift_differences(original, &work.scores).len();
        let draws: Vec<Vec<usize>> =
            BootIndices::new(pairs, self.settings.resamples, self.settings.seed).collect();
        let shift =
            stats::paired_shift(original, &work.scores, self.settings.confidence, &draws).ok();
        self.variants[v].shift = shift;
    }

    fn variants_table(&self) -> Table {
        let confidence = self.settings.confidence;
        let mut out = Table::new(
            VARIANTS_TABLE,
            "Length, counterfactual: the same outputs padded or truncated, judged again",
            "Method",
        );
        out.columns = vec![
            Column::text("Attribute"),
            Column::text("Variant"),
            Column::number("n"),
            Column::number("Samples judged"),
            Column::number("Shift").described(format!(
                "mean of (rating of the variant − rating of the original), with a {}% percentile bootstrap interval over items",
                percent(confidence)
            )),
            Column::text("Verdict"),
        ];
        for work in &self.variants {
            let attribute = &self.attributes[work.attribute];
            let judge = &attribute.judges[work.judge].0;
            let key = format!("{}/{judge}/{}", attribute.name, work.variant.name());
            let n = work.shift.as_ref().map_or(0, |s| s.n);
            let mut cell = Cell::number(work.shift.as_ref().and_then(|s| s.shift), 3)
                .with_n(n)
                .keyed(format!("{key}/shift"));
            let verdict = match work.shift.as_ref() {
                Some(stats::PairedShift { shift: Some(d), ci: Some([low, high]), .. }) => {
                    cell = cell.with_interval(*low, *high, confidence);
                    let what = format!("{} variants", work.variant.name());
                    let interval = format!(
                        "[{}, {}]",
                        format_value(Some(*low), 2),
                        format_value(Some(*high), 2)
                    );
                    if *low > 0.0 {
                        format!("{what} gain {:+.2} {interval} points", d)
                    } else if *high < 0.0 {
                        format!("{what} lose {:.2} {interval} points", -d)
                    } else {
                        format!(
                            "no detectable length bias at this n ({})",
                            count(n, "item", "items")
                        )
                    }
                }
                Some(s) => {
                    let why = undefined_note(s.undefined);
                    cell = cell.with_note(why.clone());
                    format!("undefined: {why}")
                }
                None => {
                    cell = cell.with_note("not computed");
                    "not computed".to_owned()
                }
            };
            out.rows.push(Row::new(
                judge.clone(),
                vec![
                    Cell::text(attribute.name.clone()),
                    Cell::text(work.variant.label()),
                    Cell::count(n),
                    Cell::count(work.samples),
                    cell,
                    Cell::text(verdict),
                ],
            ));
        }
        if out.rows.is_empty() {
            out.notes.push("Run the length probe on the Run screen (What to run → length probe) to judge padded or truncated outputs again; its runs are compared here with the methods' own.".to_owned());
        } else {
            out.notes.push(format!(
                "Padding appends neutral sentences ({}…) adding half the output's length; truncation keeps the first sentences, about half of it. n: items both runs rated. Intervals: {} bootstrap resamples, seed {}.",
                super::probe::FILLER[0],
                self.settings.resamples,
                self.settings.seed
            ));
        }
        out
    }

    /// The audit's tables (judges against each other, juries, corrected means, the length
    /// and self-preference probes), each with a note saying what it needs when it has no rows.
    pub fn report(&self) -> Report {
        let mut report = Report::default();
        report.tables.push(self.judges_table());
        report.tables.push(self.panel_table());
        report.tables.push(self.juries_table());
        report.tables.push(self.corrected_table());
        report.tables.push(self.length_table());
        report.tables.push(self.self_table());
        report.tables.push(self.variants_table());
        report
    }

    fn length_table(&self) -> Table {
        let mut out = Table::new(
            LENGTH_TABLE,
            "Length: do the judge's errors grow with the output's length?",
            "Judge",
        );
        out.columns = vec![
            Column::text("Attribute"),
            Column::number("n"),
            Column::number("r(error, words)").described(
                "Pearson r of the judge's error (judge − human) with the output's length in words, with its two-sided p",
            ),
            Column::number("p"),
            Column::number("Error, longer half"),
            Column::number("Error, shorter half"),
            Column::text("Verdict"),
        ];
        for probe in &self.length {
            let attribute = &self.attributes[probe.attribute];
            let judge = &attribute.judges[probe.judge].0;
            let key = format!("{}/{judge}", attribute.name);
            let verdict = match (probe.r.value, probe.r.p_value) {
                (Some(r), Some(p)) if p < 0.05 => format!(
                    "{} outputs get higher scores than the humans gave (r = {}, {})",
                    if r > 0.0 { "longer" } else { "shorter" },
                    format_value(Some(r), 2),
                    crate::words::p_value(p)
                ),
                (Some(_), _) => format!(
                    "no detectable length bias at this n ({})",
                    count(probe.r.n, "item", "items")
                ),
                (None, _) => format!("undefined: {}", undefined_note(probe.r.undefined)),
            };
            out.rows.push(Row::new(
                judge.clone(),
                vec![
                    Cell::text(attribute.name.clone()),
                    Cell::count(probe.r.n),
                    correlation_cell(&probe.r, &format!("{key}/r")),
                    match probe.r.p_value {
                        Some(p) => Cell::p_value(Some(p)).keyed(format!("{key}/p")),
                        None => Cell::blank("no r, no p").keyed(format!("{key}/p")),
                    },
                    Cell::number(probe.longer, 3).keyed(format!("{key}/longer")),
                    Cell::number(probe.shorter, 3).keyed(format!("{key}/shorter")),
                    Cell::text(verdict),
                ],
            ));
        }
        if out.rows.is_empty() {
            out.notes
                .push("No judge run on an attribute the dataset has human labels for.".to_owned());
        } else {
            out.notes.push("Observational: the judge's error is its score minus the human score, on the items both rated; the halves split the items at the median length. It says whether errors follow length in this data, not that length causes them.".to_owned());
        }
        out
    }

    fn self_table(&self) -> Table {
        let confidence = self.settings.confidence;
        let mut out = Table::new(
            SELF_TABLE,
            "Self-preference: are the judge's errors larger on its own family's outputs?",
            "Judge",
        );
        out.columns = vec![
            Column::text("Attribute"),
            Column::number("n own"),
            Column::number("n other"),
            Column::number("Error, own"),
            Column::number("Error, other"),
            Column::number("Own − other").described(format!(
                "difference of the mean errors (judge − human), with a {}% normal (Welch) interval",
                percent(confidence)
            )),
            Column::text("Verdict"),
        ];
        let z = stats::z_for(confidence).unwrap_or(1.959963984540054);
        for probe in &self.self_preference {
            let attribute = &self.attributes[probe.attribute];
            let judge = &attribute.judges[probe.judge].0;
            let key = format!("{}/{judge}", attribute.name);
            let (own, other) = (mean_of(&probe.own), mean_of(&probe.other));
            let mut diff = Cell::number(own.zip(other).map(|(a, b)| a - b), 3)
                .keyed(format!("{key}/difference"));
            let verdict = match (own, other, welch_se(&probe.own, &probe.other)) {
                (Some(a), Some(b), Some(se)) => {
                    let (low, high) = (a - b - z * se, a - b + z * se);
                    diff = diff.with_interval(low, high, confidence);
                    if low > 0.0 {
                        format!(
                            "its own family's outputs gain {} points",
                            format_value(Some(a - b), 2)
                        )
                    } else if high < 0.0 {
                        format!(
                            "its own family's outputs lose {} points",
                            format_value(Some(b - a), 2)
                        )
                    } else {
                        "no detectable self-preference at this n".to_owned()
                    }
                }
                _ => {
                    diff = diff.with_note("needs two items with errors on each side");
                    "too few items on one side".to_owned()
                }
            };
            out.rows.push(Row::new(
                judge.clone(),
                vec![
                    Cell::text(attribute.name.clone()),
                    Cell::count(probe.own.len()),
                    Cell::count(probe.other.len()),
                    Cell::number(own, 3).keyed(format!("{key}/own")),
                    Cell::number(other, 3).keyed(format!("{key}/other")),
                    diff,
                    Cell::text(verdict),
                ],
            ));
        }
        if self.settings.audit_own_systems.is_empty() {
            out.notes.push(
                "Say which systems the judges' own model family wrote to measure self-preference."
                    .to_owned(),
            );
        } else {
            out.notes.push(format!(
                "Own family: {}. The error is the judge's score minus the human score; a judge that prefers its own outputs has a larger error on them.",
                self.settings.audit_own_systems.join(", ")
            ));
        }
        out
    }

    fn judges_table(&self) -> Table {
        let confidence = self.settings.confidence;
        let mut out = Table::new(JUDGES_TABLE, "Judge against judge", "Judges");
        out.columns = vec![
            Column::text("Attribute"),
            Column::number("n"),
            Column::number("α (interval)").described(format!(
                "Krippendorff's α between the two judges at interval level, with a {}% percentile bootstrap interval over items",
                percent(confidence)
            )),
            Column::number("α (nominal)"),
            Column::number("Cohen's κ").described(format!(
                "unweighted, with a {}% percentile bootstrap interval over items",
                percent(confidence)
            )),
            Column::number("Gwet's AC1"),
            Column::number("r of errors").described(
                "Pearson r of the two judges' residuals against the human scores: correlated errors",
            ),
        ];
        for pair in &self.pairs {
            let attribute = &self.attributes[pair.attribute];
            let (i, j) = pair.judges;
            let (a, b) = (&attribute.judges[i].0, &attribute.judges[j].0);
            let key = format!("{}/{a}/{b}", attribute.name);
            let Some(agreement) = &pair.agreement else { continue };
            let alpha = with_percentile_interval(
                estimate_cell(&agreement.alpha_interval, &key, "alpha_interval"),
                &pair.alphas,
                confidence,
            );
            let kappa = with_percentile_interval(
                estimate_cell(&agreement.cohen_kappa, &key, "cohen_kappa"),
                &pair.kappas,
                confidence,
            );
            let ac1 = match agreement.gwet_ac1.undefined {
                Some(why) => Cell::blank(why.to_string()),
                None => Cell::number(agreement.gwet_ac1.ac1, 3),
            }
            .keyed(format!("{key}/gwet_ac1"));
            let residuals = &agreement.residuals;
            let mut errors = Cell::number(residuals.value, 3)
                .with_n(residuals.n)
                .with_p(residuals.p_value)
                .keyed(format!("{key}/residual_r"));
            if residuals.value.is_none() {
                errors = errors.with_note(
                    residuals
                        .undefined
                        .map_or_else(|| "undefined".to_owned(), |why| why.to_string()),
                );
            }
            out.rows.push(Row::new(
                format!("{a} vs {b}"),
                vec![
                    Cell::text(attribute.name.clone()),
                    Cell::count(pair.both.len()),
                    alpha,
                    estimate_cell(&agreement.alpha_nominal, &key, "alpha_nominal"),
                    kappa,
                    ac1,
                    errors,
                ],
            ));
        }
        if out.rows.is_empty() {
            out.notes.push("Judge against judge needs two judge runs on the same attribute: run two methods (or import two runs) on one attribute.".to_owned());
        } else {
            out.notes.push(format!(
                "α and κ treat the two judges as two raters of the items both scored. κ and AC1 need categories: a judge's mean over several samples is not one, so they are blank for such runs. Intervals: {} bootstrap resamples of the items, seed {}.",
                self.settings.resamples, self.settings.seed
            ));
        }
        out
    }

    /// Krippendorff's α and Fleiss' κ among every judge of an attribute, when it has three or
    /// more (two are the pairs above).
    fn panel_table(&self) -> Table {
        let mut out =
            Table::new(PANEL_TABLE, "Agreement among all the judges of an attribute", "Attribute");
        out.columns = vec![
            Column::number("Judges"),
            Column::number("α (interval)"),
            Column::number("α (nominal)"),
            Column::number("Fleiss' κ").described(
                "over the items every judge scored; needs categories (whole-number ratings)",
            ),
        ];
        for attribute in self.attributes.iter().filter(|a| a.judges.len() >= 3) {
            let ratings: Vec<Vec<Option<f64>>> =
                attribute.judges.iter().map(|(_, s)| s.clone()).collect();
            let key = attribute.name.clone();
            let categorical = ratings.iter().flatten().flatten().all(|v| v.fract() == 0.0);
            let fleiss = if categorical {
                let f = stats::fleiss_kappa(&ratings);
                let cell = Cell::number(f.kappa, 3).with_n(f.n_units_used);
                if f.kappa.is_none() { cell.with_note(undefined_note(f.undefined)) } else { cell }
            } else {
                Cell::blank(Undefined::ContinuousValues.to_string())
            };
            out.rows.push(Row::new(
                attribute.name.clone(),
                vec![
                    Cell::count(attribute.judges.len()),
                    estimate_cell(
                        &stats::krippendorff_alpha(&ratings, KrippendorffLevel::Interval),
                        &key,
                        "alpha_interval",
                    ),
                    estimate_cell(
                        &stats::krippendorff_alpha(&ratings, KrippendorffLevel::Nominal),
                        &key,
                        "alpha_nominal",
                    ),
                    fleiss.keyed(format!("{key}/fleiss_kappa")),
                ],
            ));
        }
        if out.rows.is_empty() {
            out.notes.push("Needs three or more judge runs on one attribute (two are compared in the table above).".to_owned());
        } else {
            out.notes.push("α uses every item two or more judges scored; Fleiss' κ only the items every judge scored.".to_owned());
        }
        out
    }

    fn juries_table(&self) -> Table {
        let mut out = Table::new(JURIES_TABLE, "Juries against their members", "Jury");
        out.columns = vec![
            Column::text("Attribute"),
            Column::text("Member"),
            Column::number("n"),
            Column::number("r jury").described("Pearson r of the jury's scores with the human scores, at dataset level"),
            Column::number("r member"),
            Column::number("Williams p").described(
                "one-sided p of Williams' test that the jury correlates better with the humans than the member",
            ),
        ];
        for jury in &self.juries {
            let attribute = &self.attributes[jury.attribute];
            for (member, r, w) in &jury.members {
                let key = format!("{}/{}/{member}", attribute.name, jury.key);
                out.rows.push(Row::new(
                    jury.label.clone(),
                    vec![
                        Cell::text(attribute.name.clone()),
                        Cell::text(member.clone()),
                        Cell::count(w.n),
                        correlation_cell(&jury.r, &format!("{key}/r_jury")),
                        correlation_cell(r, &format!("{key}/r_member")),
                        p_cell(w.p_greater, &format!("{key}/williams_p")),
                    ],
                ));
            }
        }
        if out.rows.is_empty() {
            out.notes.push("A jury needs two judge runs on the same attribute.".to_owned());
        } else {
            out.notes.push("A jury's score of an item is the mean (or median) of the judges that scored it; an ensemble's, the mean of its members that scored it. Williams' test uses the items the humans, the jury and the member all scored.".to_owned());
        }
        out
    }

    fn corrected_table(&self) -> Table {
        let confidence = self.settings.confidence;
        let mut out = Table::new(
            CORRECTED_TABLE,
            "Corrected means: the judge's scores corrected by the human labels (prediction-powered inference)",
            "System",
        );
        out.columns = vec![Column::text("Attribute"), Column::text("Judge")];
        out.columns.extend(corrected::columns(self.subsampled.then_some(
            "the mean of every human label of the system, the labels the audit was told to hide included: what the corrected means estimate",
        )));
        for c in &self.corrected {
            let attribute = &self.attributes[c.attribute];
            let judge = &attribute.judges[c.judge].0;
            let key = format!("{}/{judge}/{}", attribute.name, c.system);
            let mut cells = vec![Cell::text(attribute.name.clone()), Cell::text(judge.clone())];
            match (c.system == STRATIFIED_ROW, &c.stratified) {
                (true, s) => cells.extend(self.stratified_cells(s.as_ref(), &key)),
                (false, _) => {
                    cells.extend(corrected::estimate_cells(&c.estimate, confidence, &key))
                }
            }
            if self.subsampled {
                cells.push(corrected::all_labels_cell(c.all_humans, &key));
            }
            out.rows.push(Row::new(c.system.clone(), cells));
        }
        if out.rows.is_empty() {
            out.notes
                .push("No judge run on an attribute the dataset has human labels for.".to_owned());
            return out;
        }
        out.notes.push(corrected::method_note("items", "a judge score", confidence));
        if self.corrected.iter().any(|c| c.system == STRATIFIED_ROW) {
            out.notes.push(format!("“{STRATIFIED_ROW}”: each system's PPI++ mean weighed by its share of the unlabelled items (stratified PPI++, Fisch et al., NeurIPS 2024); the label planner of “Can the judge replace the annotators?” says how many labels an interval of a chosen width needs."));
        }
        match self.settings.audit_labelled {
            Some(k) if self.subsampled => out.notes.push(format!(
                "The audit kept the human labels of {} per attribute (seed {}) and treated the rest as unlabelled: compare the corrected means with the last column, the mean of every label.",
                count(k, "item", "items"),
                self.settings.seed
            )),
            _ if self.corrected.iter().filter(|c| c.system != STRATIFIED_ROW).all(|c| {
                c.estimate.as_ref().is_ok_and(|e| e.n_unlabeled == 0)
            }) => out.notes.push("Every judged item has a human label, so there is nothing to correct: keep the labels of fewer items to see what a correction from that many labels gives.".to_owned()),
            _ => {}
        }
        out
    }
}

impl Audit {
    /// The cells of a stratified row: the labelled and unlabelled counts and the PPI++ mean
    /// with its interval; the per-system figures are in the rows above.
    fn stratified_cells(&self, s: Option<&stats::StratifiedPpi>, key: &str) -> Vec<Cell> {
        let Some(s) = s else {
            return (0..corrected::ESTIMATE_CELLS).map(|_| Cell::blank("undefined")).collect();
        };
        let per_system = "stratified: see the rows per system";
        let mut estimate = Cell::number(s.estimate, 3).keyed(format!("{key}/ppipp"));
        if let Some([lo, hi]) = s.ci {
            estimate = estimate.with_interval(lo, hi, s.confidence);
        }
        if s.estimate.is_none() {
            let stratum = s.undefined_stratum.and_then(|k| self.systems.get(k));
            let why = undefined_note(s.undefined);
            estimate = estimate.with_note(match stratum {
                Some(name) => format!("system {name}: {why}"),
                None => why,
            });
        }
        vec![
            Cell::count(s.strata.iter().map(|x| x.n).sum()),
            Cell::count(s.strata.iter().map(|x| x.n_unlabeled).sum()),
            Cell::blank(per_system),
            Cell::blank(per_system),
            Cell::blank("stratified PPI++ only"),
            estimate,
            Cell::blank("one λ per system: see the rows above"),
        ]
    }
}

/// `cell` with the percentile interval of its bootstrap `values`, when it has a value.
fn with_percentile_interval(cell: Cell, values: &[f64], confidence: f64) -> Cell {
    if cell.value.is_none() || values.is_empty() {
        return cell;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    cell.with_interval(
        quantile_sorted(&sorted, tail),
        quantile_sorted(&sorted, 1.0 - tail),
        confidence,
    )
}

fn mean_of(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The standard error of a difference of two means with unequal variances; `None` below two
/// values on a side.
fn welch_se(a: &[f64], b: &[f64]) -> Option<f64> {
    let var1 = |v: &[f64]| {
        let m = mean_of(v)?;
        (v.len() >= 2)
            .then(|| v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64)
    };
    Some((var1(a)? / a.len() as f64 + var1(b)? / b.len() as f64).sqrt())
}

fn estimate_cell(e: &Estimate, key: &str, what: &str) -> Cell {
    let cell = Cell::number(e.value, 3).with_n(e.n).keyed(format!("{key}/{what}"));
    if e.value.is_none() { cell.with_note(undefined_note(e.undefined)) } else { cell }
}

fn correlation_cell(r: &stats::Correlation, key: &str) -> Cell {
    let cell = Cell::number(r.value, 3).with_n(r.n).keyed(key);
    if r.value.is_none() { cell.with_note(undefined_note(r.undefined)) } else { cell }
}

fn p_cell(p: Option<f64>, key: &str) -> Cell {
    match p {
        None => Cell::blank("Williams' test needs at least four items with all three scores and correlations below 1").keyed(key),
        p => Cell::p_value(p).keyed(key),
    }
}
