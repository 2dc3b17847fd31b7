//! Every table of the meta-evaluation report as a [`report::Table`](crate::report::Table):
//! seed 003's Table 1, 5, 6 and the Elo table (Table 2) in the paper's layout, and the tables
//! the screen adds (the live runs, the Elo seed spread, post accuracy, Bradley–Terry, ranking
//! agreement).
//!
//! Cells carry keys (`gpt-4-1106-preview/accuracy`, `g4/gpt4`) naming what they hold with the
//! files' own spellings; the headings use one spelling per model family ([`Labels`]), so the
//! release's `gpt4`, `g4` and `gpt-4-1106-preview` share one column, headed as the evaluator
//! files spell it.

use std::collections::{BTreeMap, HashMap};

use super::compute::SeedSpread;
use super::files::JdEvalFile;
use super::live::{PairwiseRun, ScoringRun};
use crate::meta::{
    self, BradleyTerryIntervals, EloResult, EvaluatorRow, MetaProtocol, MetaScore,
    RankingAgreement, names,
};
use crate::report::{Cell, Column, Row, Table};
use crate::stats::{position_bias_interval, rate_interval};

pub use super::settings::RATE_CONFIDENCE;

/// A rate's cell with its Wilson interval ([`rate_interval`]) when it has one.
fn rate_cell(rate: Option<f64>, n: usize) -> Cell {
    let cell = Cell::number(rate, 4);
    match rate_interval(rate, n, RATE_CONFIDENCE) {
        Some([low, high]) => cell.with_interval(low, high, RATE_CONFIDENCE),
        None => cell,
    }
}

/// A proportion's cell with its interval, and its n.
fn proportion_cell(p: &crate::stats::Proportion) -> Cell {
    let cell = Cell::number(p.p, 4).with_n(p.n);
    match p.ci {
        Some([low, high]) => cell.with_interval(low, high, p.confidence),
        None => cell,
    }
}

/// The ids of the tables `concord meta --format md|csv|latex` prints: seed 003's Table 1,
/// Table 5, Table 6 and the Elo table (its Table 2), in that order.
pub const PAPER_TABLES: [&str; 4] = ["table1", "table5", "table6", "elo"];

/// The corner of the paper's meta-evaluator × evaluator tables.
const META_CORNER: &str = "Meta-evaluator \\ Evaluator";

/// The paper's order of the evaluator families, then other names alphabetically.
pub fn family_rank(name: &str) -> (usize, String) {
    let canonical = names::canonical(name);
    let rank = ["gpt4", "gpt35", "mistral", "qwen7b", "qwen14b", "qwen72b"]
        .iter()
        .position(|f| *f == canonical)
        .unwrap_or(usize::MAX);
    (rank, canonical)
}

/// One heading per model family: the name of its evaluator-results file (Table 1's column),
/// the pairwise file's spelling first. Families Table 1 does not have keep their own names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    by_family: HashMap<String, String>,
}

impl Labels {
    /// From Table 1's rows (sorted pairwise first, as [`super::files::report_rows`] sorts them).
    pub fn from_rows(rows: &[EvaluatorRow]) -> Labels {
        let mut by_family = HashMap::new();
        for r in rows {
            by_family.entry(names::canonical(&r.name)).or_insert_with(|| r.name.clone());
        }
        Labels { by_family }
    }

    /// The heading of `name`'s family, or `name` when Table 1 has none.
    pub fn label(&self, name: &str) -> String {
        self.by_family.get(&names::canonical(name)).cloned().unwrap_or_else(|| name.to_owned())
    }

    /// Row labels for `names`: a family's heading where the name is the only one of its
    /// family among them, the name itself where two rows would otherwise read the same.
    fn rows(&self, names: &[&str]) -> Vec<String> {
        let mut count: HashMap<String, usize> = HashMap::new();
        for n in names {
            *count.entry(names::canonical(n)).or_default() += 1;
        }
        names
            .iter()
            .map(|n| {
                if count.get(&names::canonical(n)) == Some(&1) {
                    self.label(n)
                } else {
                    (*n).to_owned()
                }
            })
            .collect()
    }
}

/// Table 1 in the paper's layout: one column per evaluator (spellings joined by
/// [`names::canonical`], in the paper's order), the rows the paper prints — accuracy against
/// the human labels (pairwise) and Pearson with the human scores (pointwise) — then accuracy
/// without the pairs humans called a tie and how many pairs and items each value rests on.
/// Both accuracies carry their 95 % Wilson interval.
pub fn table1(rows: &[EvaluatorRow]) -> Table {
    let mut by_family: BTreeMap<(usize, String), Vec<&EvaluatorRow>> = BTreeMap::new();
    for r in rows {
        by_family.entry(family_rank(&r.name)).or_default().push(r);
    }
    let families: Vec<(Option<&EvaluatorRow>, Option<&EvaluatorRow>)> = by_family
        .values()
        .map(|g| {
            (
                g.iter().find(|r| r.kind == "pairwise").copied(),
                g.iter().find(|r| r.kind == "pointwise").copied(),
            )
        })
        .collect();
    let mut t = Table::new("table1", "Table 1: evaluators against humans", "Evaluator");
    t.columns = families
        .iter()
        .map(|(pw, pt)| Column::number(pw.or(*pt).map(|r| r.name.clone()).unwrap_or_default()))
        .collect();
    let value =
        |r: Option<&EvaluatorRow>, col: &str, pick: fn(&EvaluatorRow) -> Option<f64>| match r {
            Some(r) => Cell::number(pick(r), 4).keyed(format!("{}/{col}", r.name)),
            None => Cell::number(None, 4),
        };
    // Accuracies with their Wilson intervals over the pairs they rest on.
    let rate = |r: Option<&EvaluatorRow>,
                col: &str,
                pick: fn(&EvaluatorRow) -> (Option<f64>, usize)| match r {
        Some(r) => {
            let (value, n) = pick(r);
            rate_cell(value, n).keyed(format!("{}/{col}", r.name))
        }
        None => Cell::number(None, 4),
    };
    let count = |r: Option<&EvaluatorRow>, col: &str| match r {
        Some(r) => Cell::count(r.n).keyed(format!("{}/{col}", r.name)),
        None => Cell::empty(),
    };
    let row = |label: &str, cell: &dyn Fn(Option<&EvaluatorRow>, Option<&EvaluatorRow>) -> Cell| {
        Row::new(label, families.iter().map(|&(pw, pt)| cell(pw, pt)).collect())
    };
    t.rows = vec![
        row("Accuracy", &|pw, _| rate(pw, "accuracy", |r| (r.accuracy, r.n))),
        row("Pearson corr.", &|_, pt| value(pt, "pearson", |r| r.pearson)),
        row("Accuracy (no ties)", &|pw, _| {
            rate(pw, "accuracy_no_ties", |r| (r.accuracy_no_ties, r.n_no_ties))
        }),
        row("n pairs", &|pw, _| count(pw, "n_pairwise")),
        row("n items", &|_, pt| count(pt, "n_pointwise")),
    ];
    t
}

/// Table 5 (JDEval-i) or 6 (BSMEval) in the paper's layout: meta-evaluators × evaluators, the
/// mean meta score.
pub fn meta_table(scores: &[MetaScore], protocol: MetaProtocol, labels: &Labels) -> Table {
    let scores: Vec<&MetaScore> = scores.iter().filter(|s| s.protocol == protocol).collect();
    let mut columns: Vec<((usize, String), &str)> =
        scores.iter().map(|s| (family_rank(&s.evaluator), s.evaluator.as_str())).collect();
    columns.sort();
    columns.dedup_by(|a, b| a.0 == b.0);
    let mut metas: Vec<((usize, String), &str)> = scores
        .iter()
        .map(|s| (family_rank(&s.meta_evaluator), s.meta_evaluator.as_str()))
        .collect();
    metas.sort();
    metas.dedup();
    let meta_names: Vec<&str> = metas.iter().map(|(_, m)| *m).collect();
    let (id, title) = match protocol {
        MetaProtocol::JdEvalI => ("table5", "Table 5: JDEval-i average meta scores"),
        MetaProtocol::BsmEval => ("table6", "Table 6: BSMEval average meta scores"),
    };
    let mut t = Table::new(id, title, META_CORNER);
    t.columns = columns.iter().map(|(_, name)| Column::number(labels.label(name))).collect();
    t.rows = labels
        .rows(&meta_names)
        .into_iter()
        .zip(&meta_names)
        .map(|(label, meta)| {
            let cells = columns
                .iter()
                .map(|((_, family), _)| {
                    scores
                        .iter()
                        .find(|s| {
                            s.meta_evaluator == *meta && &names::canonical(&s.evaluator) == family
                        })
                        .map_or_else(
                            || Cell::number(None, 4),
                            |s| {
                                Cell::number(s.mean, 4)
                                    .keyed(format!("{}/{}", s.meta_evaluator, s.evaluator))
                            },
                        )
                })
                .collect();
            Row::new(label, cells)
        })
        .collect();
    t
}

/// The Elo table (the paper's Table 2 layout): meta-evaluators × evaluators, the mean rating
/// over the shuffled orders with its SD over them beside it.
pub fn elo_table(results: &[&EloResult], labels: &Labels) -> Table {
    let mut columns: Vec<((usize, String), &str)> = results
        .iter()
        .flat_map(|r| r.ratings.keys().map(|k| (family_rank(k), k.as_str())))
        .collect();
    columns.sort();
    columns.dedup_by(|a, b| a.0 == b.0);
    let mut ordered: Vec<&EloResult> = results.to_vec();
    ordered.sort_by_cached_key(|r| (family_rank(&r.meta_evaluator), r.meta_evaluator.clone()));
    let meta_names: Vec<&str> = ordered.iter().map(|r| r.meta_evaluator.as_str()).collect();
    let mut t = Table::new("elo", "Elo over shuffled orders: mean (SD)", META_CORNER);
    t.columns = columns.iter().map(|(_, name)| Column::number(labels.label(name))).collect();
    t.rows = labels
        .rows(&meta_names)
        .into_iter()
        .zip(&ordered)
        .map(|(label, r)| {
            let cells = columns
                .iter()
                .map(|((_, family), _)| {
                    match r.ratings.keys().find(|k| &names::canonical(k) == family) {
                        Some(name) => Cell::number(r.ratings.get(name).copied(), 1)
                            .with_spread(r.spread.get(name).copied())
                            .keyed(format!("{}/{name}", r.meta_evaluator)),
                        None => Cell::number(None, 1),
                    }
                })
                .collect();
            Row::new(label, cells)
        })
        .collect();
    t
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The Elo seed spread: per meta-evaluator and evaluator, the mean rating over seeds, its SD
/// across seeds, and the mean SD over shuffles within a seed.
pub fn seed_spread_table(spreads: &[SeedSpread], labels: &Labels) -> Table {
    let mut t = Table::new(
        "elo-seeds",
        format!(
            "Elo across seeds ({} seeds): the shuffle-averaged rating's spread",
            spreads.first().map_or(0, |s| s.seeds)
        ),
        "Meta-evaluator · evaluator",
    );
    t.columns = vec![
        Column::number("Mean over seeds"),
        Column::number("SD across seeds"),
        Column::number("Mean SD over shuffles"),
    ];
    t.rows = spreads
        .iter()
        .flat_map(|s| {
            s.across_seeds.iter().map(move |(name, &(mean, sd))| {
                let key = format!("{}/{name}", s.meta_evaluator);
                Row::new(
                    format!("{} · {}", labels.label(&s.meta_evaluator), labels.label(name)),
                    vec![
                        Cell::number(finite(mean), 1).keyed(format!("{key}/mean")),
                        Cell::number(finite(sd), 2).keyed(format!("{key}/seed_sd")),
                        Cell::number(s.within_seed_sd.get(name).copied().and_then(finite), 2)
                            .keyed(format!("{key}/shuffle_sd")),
                    ],
                )
            })
        })
        .collect();
    t
}

/// Bradley–Terry ratings of one meta-evaluator's matches, each with its bootstrap interval.
pub fn bradley_terry_table(meta: &str, bt: &BradleyTerryIntervals, labels: &Labels) -> Table {
    let mut t = Table::new(
        format!("bradley-terry-{meta}"),
        format!(
            "Bradley–Terry ({}): {:.0} % bootstrap intervals, {} of {} resamples usable",
            labels.label(meta),
            bt.level * 100.0,
            crate::words::int(bt.valid_resamples),
            crate::words::int(bt.resamples)
        ),
        "Evaluator",
    );
    t.columns = vec![Column::number("Rating").described(format!(
        "Maximum-likelihood rating on the Elo scale, with its {:.0} % percentile bootstrap interval",
        bt.level * 100.0
    ))];
    t.rows = bt
        .evaluators
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let rating = bt.ratings.as_ref().and_then(|r| r.get(i).copied());
            let mut cell = Cell::number(rating, 1).keyed(format!("{meta}/{name}/rating"));
            if let Some([low, high]) = bt.intervals.get(i).copied().flatten() {
                cell = cell.with_interval(low, high, bt.level);
            }
            Row::new(labels.label(name), vec![cell])
        })
        .collect();
    if let Some(why) = &bt.undefined {
        t.notes.push(format!("Bradley–Terry on all matches: {why}"));
    }
    t
}

/// The meta-evaluators' own answer choices against the gold labels.
pub fn post_accuracy_table(files: &[&JdEvalFile], labels: &Labels) -> Table {
    let mut t = Table::new(
        "post-accuracy",
        "Post accuracy: the meta-evaluator's own answer choice",
        "Meta-evaluator",
    );
    t.columns = vec![
        Column::number("n"),
        Column::number("Correct"),
        Column::number("Accuracy"),
        Column::number("Unreadable"),
    ];
    t.rows = files
        .iter()
        .map(|f| {
            let (p, m) = (&f.post, &f.meta_evaluator);
            Row::new(
                labels.label(m),
                vec![
                    Cell::count(p.n).keyed(format!("{m}/n")),
                    Cell::count(p.correct).keyed(format!("{m}/correct")),
                    Cell::number(p.accuracy, 4).keyed(format!("{m}/accuracy")),
                    Cell::count(p.unreadable).keyed(format!("{m}/unreadable")),
                ],
            )
        })
        .collect();
    t
}

/// One ranking comparison: a meta-evaluator's scores of the evaluators against a baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingComparison {
    pub meta_evaluator: String,
    /// What ranks the evaluators (`Elo (JDEval)`, `JDEval-i mean`…).
    pub ranking: String,
    pub baseline: String,
    pub result: RankingAgreement,
}

/// Kendall τ-b between each meta-evaluator's ranking and the human baseline: Elo (JDEval) vs
/// Table 1 accuracy, JDEval-i / BSMEval means vs Table 1 Pearson.
pub fn ranking_agreements(
    rows: &[EvaluatorRow],
    scores: &[MetaScore],
    elo: &[&EloResult],
) -> Vec<RankingComparison> {
    let baseline = |pick: fn(&EvaluatorRow) -> Option<f64>| -> BTreeMap<String, f64> {
        rows.iter().filter_map(|r| Some((r.name.clone(), pick(r)?))).collect()
    };
    let accuracy = baseline(|r| r.accuracy);
    let pearson = baseline(|r| r.pearson);
    let mut out = Vec::new();
    if !accuracy.is_empty() {
        for e in elo {
            out.push(RankingComparison {
                meta_evaluator: e.meta_evaluator.clone(),
                ranking: "Elo (JDEval)".to_owned(),
                baseline: "accuracy".to_owned(),
                result: meta::ranking_agreement(&e.ratings, &accuracy),
            });
        }
    }
    if !pearson.is_empty() {
        for protocol in [MetaProtocol::JdEvalI, MetaProtocol::BsmEval] {
            let mut per_meta: BTreeMap<&str, BTreeMap<String, f64>> = BTreeMap::new();
            for s in scores.iter().filter(|s| s.protocol == protocol) {
                if let Some(mean) = s.mean {
                    per_meta
                        .entry(&s.meta_evaluator)
                        .or_default()
                        .insert(s.evaluator.clone(), mean);
                }
            }
            for (meta, ranking) in per_meta {
                out.push(RankingComparison {
                    meta_evaluator: meta.to_owned(),
                    ranking: format!("{} mean", protocol.name()),
                    baseline: "Pearson".to_owned(),
                    result: meta::ranking_agreement(&ranking, &pearson),
                });
            }
        }
    }
    out
}

/// The ranking agreements as a table.
pub fn agreement_table(agreements: &[RankingComparison], labels: &Labels) -> Table {
    let mut t = Table::new(
        "ranking-agreement",
        "Ranking agreement with the human baseline (Kendall τ-b)",
        "Meta-evaluator · ranking",
    );
    t.columns = vec![
        Column::text("Baseline"),
        Column::number("Evaluators"),
        Column::number("τ-b").with_latex("Kendall $\\tau_b$"),
        Column::number("p").with_latex("$p$"),
        Column::text("Note"),
    ];
    t.rows = agreements
        .iter()
        .map(|a| {
            let key = format!("{}/{}", a.meta_evaluator, a.ranking);
            Row::new(
                format!("{} · {}", labels.label(&a.meta_evaluator), a.ranking),
                vec![
                    Cell::text(a.baseline.clone()).keyed(format!("{key}/baseline")),
                    Cell::count(a.result.evaluators.len()).keyed(format!("{key}/n")),
                    Cell::number(a.result.tau_b, 3).keyed(format!("{key}/tau_b")),
                    Cell::p_value(a.result.p_value).keyed(format!("{key}/p")),
                    Cell::text(a.result.undefined.clone().unwrap_or_default())
                        .keyed(format!("{key}/note")),
                ],
            )
        })
        .collect();
    t
}

/// The last pairwise run (`data-table="pairwise-run"`): per evaluator the verdicts' accuracy,
/// and with the position swap their consistency, position bias and how often the answer shown
/// first wins (§15.2), each with its 95 % interval (Wilson's for the rates, Tango's for the bias).
pub fn pairwise_run_table(run: &PairwiseRun) -> Table {
    let mut t = Table::new(
        "pairwise-run",
        format!(
            "Pairwise run: {} pairs{}",
            run.pairs.len(),
            if run.swap { ", both orders" } else { "" }
        ),
        "Evaluator",
    );
    t.columns = vec![
        Column::number("n"),
        Column::number("Accuracy"),
        Column::number("Accuracy (no ties)"),
        Column::number("Swap consistency")
            .described("share of pairs whose verdict survives the swap: 1 − the flip rate"),
        Column::number("Position bias"),
        Column::number("First shown wins").described(
            "of the verdicts in both orders that name a winner, the share naming the answer shown first (0.5 is unbiased)",
        ),
        Column::number("Unreadable"),
    ];
    t.rows = run
        .figures()
        .into_iter()
        .map(|f| {
            let e = &f.evaluator;
            let (a, p) = (&f.accuracy, f.position.as_ref());
            Row::new(
                e.clone(),
                vec![
                    Cell::count(a.n).keyed(format!("{e}/n")),
                    rate_cell(a.accuracy, a.n).keyed(format!("{e}/accuracy")),
                    rate_cell(a.accuracy_no_ties, a.n_no_ties)
                        .keyed(format!("{e}/accuracy_no_ties")),
                    match p {
                        Some(p) => rate_cell(p.consistency, p.n),
                        None => Cell::number(None, 4),
                    }
                    .keyed(format!("{e}/consistency")),
                    position_bias_cell(p).keyed(format!("{e}/position_bias")),
                    match &f.order {
                        Some(o) => proportion_cell(&o.first_wins),
                        None => Cell::number(None, 4),
                    }
                    .keyed(format!("{e}/first_wins")),
                    Cell::count(a.unparsed).keyed(format!("{e}/unreadable")),
                ],
            )
        })
        .collect();
    t
}

/// Position bias, `(prefers first − prefers second)/n`, with Tango's score interval (the
/// paired-difference analogue of Wilson's; [`position_bias_interval`]).
fn position_bias_cell(p: Option<&meta::PositionConsistency>) -> Cell {
    let Some(p) = p else { return Cell::number(None, 4) };
    let cell = Cell::number(p.position_bias, 4);
    match position_bias_interval(p.prefers_first, p.prefers_second, p.n, RATE_CONFIDENCE) {
        Some([low, high]) => cell.with_interval(low, high, RATE_CONFIDENCE),
        None => cell,
    }
}

/// The last individual-scoring run (`data-table="scoring-run"`): per evaluator how many texts
/// it scored, Pearson with the human scores, and its unreadable answers.
pub fn scoring_run_table(run: &ScoringRun) -> Table {
    let mut t = Table::new(
        "scoring-run",
        format!(
            "Individual scoring run: {} texts, {} prompt",
            run.texts.len(),
            if run.openmeva { "OpenMEVA" } else { "SummEval coherence" }
        ),
        "Evaluator",
    );
    t.columns =
        vec![Column::number("n"), Column::number("Pearson r"), Column::number("Unreadable")];
    t.rows = run
        .figures()
        .into_iter()
        .map(|f| {
            let e = &f.evaluator;
            Row::new(
                e.clone(),
                vec![
                    Cell::count(f.n).keyed(format!("{e}/n")),
                    Cell::number(f.pearson, 4).keyed(format!("{e}/pearson")),
                    Cell::count(f.unreadable).keyed(format!("{e}/unreadable")),
                ],
            )
        })
        .collect();
    t
}
