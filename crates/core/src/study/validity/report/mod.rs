//! The validity panel's tables and figures: what the app's Results panel "Can the judge replace
//! the annotators?" shows and `concord alt-test` / `concord trust` / `concord report --screen
//! validity` print, through the one report model and its exporters.
//!
//! | id | what |
//! |---|---|
//! | [`ALT_TEST_TABLE`] | per judge run: instances kept, annotators tested and skipped, ω, passed, ρ and the judges' rank by ρ |
//! | [`annotator_table_id`] | per judge run, per annotator: n, ρ_j, mean d, p, rejected |
//! | [`TRUST_TABLE`] | per judge run: the confidence source, α, δ, threshold, coverage and agreement on the calibration half and on the held-out half |
//! | [`curve_figure_id`] | per judge run: coverage against agreement at every candidate threshold |
//! | [`CASCADE_TABLE`] | per attribute: each judge in order of cost, and the items decided without a person |
//! | [`PLANNER_TABLE`] | per judge run: the strata, the labels needed with and without the judge, the saving |
//! | [`STABILITY_TABLE`] | per judge run: α among its samples, the flip rate, the annotators' α beside |
//!
//! Juries and the length probe's variants are not judges of the dataset's outputs and are left
//! out. A run that cannot be measured gets a row of dashes saying why.
//!
//! Every part is built a judge at a time ([`PanelBuilder`]: the app computes the panel between
//! frames, the CLI runs it to the end), and every run is read once per scoring (the raters of
//! an attribute once), whichever parts read it: `alt` (the alt-test), `trust` (selective
//! trust and the cascade), `planner`, `stability`.

mod alt;
mod common;
mod planner;
mod stability;
mod trust;

use super::settings::Settings;
use crate::data::Dataset;
use crate::report::Report;
use crate::study::workbench::JudgedRun;
use crate::study::workbench::revise::Split;

pub use alt::{MEANINGFUL_ANNOTATORS, MEANINGFUL_INSTANCES, SUFFICIENT_INSTANCES, run_alt_test};
pub use common::{
    ALT_TEST_TABLE, CASCADE_TABLE, JudgeCost, PLANNER_TABLE, STABILITY_TABLE, TRUST_TABLE,
    annotator_table_id, curve_figure_id, is_judge,
};
use common::{Reads, judges};

/// The cost of every judge run under `pricing`, as the cost–quality table prices it
/// ([`crate::study::workbench::results::run_usage`]: the providers' reported tokens where the
/// records keep them, else prompts and responses at four characters a token; batch calls at the
/// batch discount). A run with neither prompts nor responses (an imported run) costs nothing
/// known: `None`.
pub fn judge_costs(
    runs: &[JudgedRun],
    pricing: &crate::study::workbench::report::Pricing,
) -> Vec<JudgeCost> {
    runs.iter()
        .filter(|r| is_judge(r))
        .map(|r| {
            let usage = crate::study::workbench::results::run_usage(r, pricing.samples_per_call);
            let usd = pricing
                .price
                .filter(|_| usage.input_tokens() + usage.output_tokens() > 0)
                .map(|p| usage.cost_usd(p));
            JudgeCost { method: r.method.clone(), attribute: r.attribute.clone(), usd }
        })
        .collect()
}

/// The cascade's order as the panel computes it: the judges (method, attribute, estimated cost
/// when known) in order, and how they were ordered — `settings` (the order set in the panel),
/// `cost` (cheapest first) or `given` (the runs' order: not every judge's cost is known).
pub fn cascade_plan(
    runs: &[JudgedRun],
    settings: &Settings,
    costs: &[JudgeCost],
) -> (Vec<JudgeCost>, &'static str) {
    let judges = judges(runs);
    let (ordered, by) = trust::cascade_order(&judges, settings, costs);
    let how = match by {
        trust::OrderedBy::Settings => "settings",
        trust::OrderedBy::Cost => "cost",
        trust::OrderedBy::Given => "given",
    };
    let list = ordered
        .into_iter()
        .map(|(_, r, usd)| JudgeCost {
            method: r.method.clone(),
            attribute: r.attribute.clone(),
            usd,
        })
        .collect();
    (list, how)
}

/// One step of the panel.
#[derive(Debug, Clone)]
enum Job {
    /// The k-th judge's alt-test, trust, planner and stability rows.
    Alt(usize),
    Trust(usize),
    Planner(usize),
    Stability(usize),
    /// The cascade of one attribute's judges.
    Cascade(String),
}

/// Which parts a [`PanelBuilder`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
    pub alt_test: bool,
    pub trust: bool,
    pub cascade: bool,
    pub planner: bool,
    pub stability: bool,
}

impl Parts {
    pub const ALL: Parts =
        Parts { alt_test: true, trust: true, cascade: true, planner: true, stability: true };
    const NONE: Parts =
        Parts { alt_test: false, trust: false, cascade: false, planner: false, stability: false };
}

/// The validity panel built a step at a time: a part of one judge run per step (reading the
/// run the first time a part needs it), the cascades last. The caller hands the same dataset
/// and runs to every step.
pub struct PanelBuilder {
    settings: Settings,
    split: Option<Split>,
    costs: Vec<JudgeCost>,
    jobs: Vec<Job>,
    next: usize,
    reads: Reads,
    parts: Parts,
    alt: alt::AltPart,
    trust: trust::TrustPart,
    cascade: trust::CascadePart,
    planner: planner::PlannerPart,
    stability: stability::StabilityPart,
}

impl PanelBuilder {
    /// The steps of `parts` over the judges among `runs`, under `settings`; `split` is the
    /// review's split when one exists; `costs` order the cascade when the settings do not.
    pub fn new(
        runs: &[JudgedRun],
        settings: &Settings,
        split: Option<&Split>,
        costs: Vec<JudgeCost>,
        parts: Parts,
    ) -> PanelBuilder {
        let judges = judges(runs);
        let mut jobs = Vec::new();
        for k in 0..judges.len() {
            if parts.alt_test {
                jobs.push(Job::Alt(k));
            }
            if parts.trust {
                jobs.push(Job::Trust(k));
            }
            if parts.planner {
                jobs.push(Job::Planner(k));
            }
            if parts.stability {
                jobs.push(Job::Stability(k));
            }
        }
        if parts.cascade {
            let mut attributes: Vec<&str> = Vec::new();
            for r in trust::cascade_order(&judges, settings, &costs).0 {
                if !attributes.contains(&r.1.attribute.as_str()) {
                    attributes.push(&r.1.attribute);
                }
            }
            jobs.extend(attributes.into_iter().map(|a| Job::Cascade(a.to_owned())));
        }
        PanelBuilder {
            settings: settings.clone(),
            split: split.cloned(),
            jobs,
            next: 0,
            reads: Reads::default(),
            parts,
            alt: alt::AltPart::new(),
            trust: trust::TrustPart::new(),
            cascade: trust::CascadePart::new(trust::cascade_order(&judges, settings, &costs).1),
            planner: planner::PlannerPart::new(),
            stability: stability::StabilityPart::new(),
            costs,
        }
    }

    /// (steps done, steps in all).
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.jobs.len())
    }

    /// Does one step over `dataset` and `runs` (the same as at [`PanelBuilder::new`]); `true`
    /// when every step is done.
    pub fn step(&mut self, dataset: &Dataset, runs: &[JudgedRun]) -> bool {
        let Some(job) = self.jobs.get(self.next).cloned() else { return true };
        self.next += 1;
        let judges = judges(runs);
        let s = &self.settings;
        let split = self.split.as_ref();
        match job {
            Job::Alt(k) => {
                if let Some(run) = judges.get(k) {
                    self.alt.add(&mut self.reads, dataset, k, run, s);
                }
            }
            Job::Trust(k) => {
                if let Some(run) = judges.get(k) {
                    self.trust.add(&mut self.reads, dataset, k, run, s, split);
                }
            }
            Job::Planner(k) => {
                if let Some(run) = judges.get(k) {
                    self.planner.add(&mut self.reads, dataset, k, run, s);
                }
            }
            Job::Stability(k) => {
                if let Some(run) = judges.get(k) {
                    self.stability.add(&mut self.reads, dataset, k, run, s);
                }
            }
            Job::Cascade(attribute) => {
                let (ordered, _) = trust::cascade_order(&judges, s, &self.costs);
                self.cascade.add(&mut self.reads, dataset, &attribute, &ordered, s, split);
            }
        }
        self.next >= self.jobs.len()
    }

    /// Every step at once.
    pub fn run(mut self, dataset: &Dataset, runs: &[JudgedRun]) -> Report {
        while !self.step(dataset, runs) {}
        self.finish()
    }

    /// The tables and figures of the steps done, in the order the panel shows them.
    pub fn finish(self) -> Report {
        let s = &self.settings;
        let mut out = Report::default();
        let parts = [
            (self.parts.alt_test, self.alt.finish(s)),
            (self.parts.trust, self.trust.finish(s)),
            (self.parts.cascade, self.cascade.finish(s)),
            (self.parts.planner, self.planner.finish(s)),
            (self.parts.stability, self.stability.finish(s)),
        ];
        for (wanted, part) in parts {
            if wanted {
                out.tables.extend(part.tables);
                out.figures.extend(part.figures);
            }
        }
        out
    }
}

fn only(part: impl FnOnce(&mut Parts)) -> Parts {
    let mut p = Parts::NONE;
    part(&mut p);
    p
}

/// The alt-test of every judge run: the summary table, then one per-annotator table per run.
pub fn alt_test_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    PanelBuilder::new(runs, settings, None, Vec::new(), only(|p| p.alt_test = true))
        .run(dataset, runs)
}

/// Selective trust of every judge run: the table and one coverage–agreement figure per run.
/// `split` is the review's split, when one exists (else a seeded half is held out).
pub fn trust_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
) -> Report {
    PanelBuilder::new(runs, settings, given, Vec::new(), only(|p| p.trust = true))
        .run(dataset, runs)
}

/// The cascade of each attribute's judges that state a confidence, in the order of
/// `settings.cascade`, else of `costs` when every judge's is known, else the runs' order: per
/// judge the items it decides on the calibration half and on the held-out half, and the items
/// decided without a person.
pub fn cascade_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
    costs: Vec<JudgeCost>,
) -> Report {
    PanelBuilder::new(runs, settings, given, costs, only(|p| p.cascade = true)).run(dataset, runs)
}

/// The label planner of every judge run on a numeric (or two-label) attribute.
pub fn planner_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    PanelBuilder::new(runs, settings, None, Vec::new(), only(|p| p.planner = true))
        .run(dataset, runs)
}

/// α among each run's samples and its flip rate, beside the annotators' α.
pub fn stability_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    PanelBuilder::new(runs, settings, None, Vec::new(), only(|p| p.stability = true))
        .run(dataset, runs)
}

/// The cost of a bundle's judge runs at the price of the model its endpoint names (the model
/// the runs were made with): the one typed for it when the bundle carries one, else the list
/// price; none without an endpoint.
pub fn bundle_costs(bundle: &crate::bundle::Bundle) -> Vec<JudgeCost> {
    match bundle.endpoint.as_ref().and_then(|e| Some((e.to_endpoint()?, e.price))) {
        Some((e, typed)) => judge_costs(
            &bundle.runs,
            &crate::study::workbench::report::pricing_typed(
                Some(&e),
                true,
                typed.map(crate::run::Price::from),
            ),
        ),
        None => Vec::new(),
    }
}

/// The validity panel of a bundle, as the app shows it right after opening it: its runs, its
/// settings (the defaults when the panel was never used), its review's split, the raters
/// added in Concord among the annotators ([`super::with_added_raters`]), the cascade ordered by
/// the runs' cost at the price of the model they were made with.
pub fn bundle_report(bundle: &crate::bundle::Bundle) -> Report {
    let settings = bundle.settings.validity.clone().unwrap_or_default();
    let split = bundle.review.as_ref().and_then(|r| r.split.as_ref());
    let dataset = super::inputs::with_added_raters(&bundle.dataset.embedded, &bundle.raters);
    validity_report(&dataset, &bundle.runs, &settings, split, bundle_costs(bundle))
}

/// Every table and figure of the validity panel, in the order it shows them.
pub fn validity_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
    costs: Vec<JudgeCost>,
) -> Report {
    PanelBuilder::new(runs, settings, given, costs, Parts::ALL).run(dataset, runs)
}
