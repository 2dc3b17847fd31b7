//! The judge learns from the reviewers, proven on items it did not learn from. The items are
//! [`split`] once (stratified by the human rating, seeded) into a revision set and a held-out
//! set; [`meta_prompt`] asks an LLM to revise the judge's criteria and steps from the revision
//! set's largest disagreements and the reviewers' notes on those items only (never a held-out
//! item: `tests/workbench_revise.rs` checks it); the revised prompt ([`proposal`], editable by
//! hand) is run on the held-out items only, and [`compare`] sets its correlation with the
//! humans against the old judge's there: Williams' test (one-sided, new > old) and a paired
//! bootstrap interval of the difference. A revision is called better only when p < 0.05.
//! [`Revision`]s keep the prompts, the meta-prompt and every raw answer (the numbers are
//! recomputed from them); [`history_table`] is their history, `concord-revisions`.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::judge::aggregate::ItemScore;
use crate::judge::parse::Policy;
use crate::judge::template::{Part, PartKind, PromptTemplate};
use crate::report::{Cell, Column, Row as TableRow, Table};
use crate::stats;

use super::results::ResultsTable;
use super::review::{
    Merged, Order, Resampling, ReviewError, ReviewItem, ReviewerFile, Reviews, Verdict,
    format_rating,
};

/// The history table's id: its export is `concord-revisions.<ext>`.
pub const HISTORY_TABLE: &str = "concord-revisions";
/// The one-sided level under which a revision is called better.
pub const ALPHA: f64 = 0.05;

/// The items split once into a revision set and a held-out set, by id in dataset order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Split {
    pub attribute: String,
    pub seed: u64,
    /// The share of each stratum in the revision set (0.5 by default).
    pub revision_share: f64,
    pub revision: Vec<String>,
    pub held_out: Vec<String>,
}

impl Split {
    pub fn is_held_out(&self, id: &str) -> bool {
        self.held_out.iter().any(|h| h == id)
    }

    pub fn is_revision(&self, id: &str) -> bool {
        self.revision.iter().any(|h| h == id)
    }
}

/// Why items could not be split or a revision could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReviseError {
    #[error("the dataset has no attribute `{0}`; choose a judge run of one of its attributes")]
    NoAttribute(String),
    #[error("the revision share {0} is not between 0 and 1 (exclusive); type e.g. 0.5")]
    BadShare(f64),
    #[error(
        "only {0} items have a human rating; a split needs at least 8 (4 on each side for Williams' test)"
    )]
    TooFewItems(usize),
    #[error("the proposal is empty; type the revised prompt or ask the LLM again")]
    EmptyProposal,
    #[error(
        "the revised prompt does not render on item {item}: {error}; keep the placeholders of the old prompt"
    )]
    DoesNotRender { item: String, error: String },
}

/// Splits the items with a human rating on `attribute`: within each stratum (the rating
/// rounded to a whole number) a ChaCha8 shuffle seeded by `seed` and the stratum's position,
/// and the revision set takes the first of each, so many that the running total is
/// `round(share × items so far)` (every stratum within one item of its share, the whole exact).
pub fn split(
    dataset: &Dataset,
    attribute: &str,
    seed: u64,
    share: f64,
) -> Result<Split, ReviseError> {
    if !(share > 0.0 && share < 1.0) {
        return Err(ReviseError::BadShare(share));
    }
    let index = dataset
        .attribute_index(attribute)
        .ok_or_else(|| ReviseError::NoAttribute(attribute.to_owned()))?;
    let human = dataset.human_scores(index);
    let mut strata: std::collections::BTreeMap<i64, Vec<usize>> = Default::default();
    for (i, h) in human.iter().enumerate() {
        if let Some(h) = h {
            strata.entry(h.round() as i64).or_default().push(i);
        }
    }
    let total: usize = strata.values().map(Vec::len).sum();
    if total < 8 {
        return Err(ReviseError::TooFewItems(total));
    }
    let mut in_revision = vec![false; dataset.items.len()];
    let (mut seen, mut taken) = (0usize, 0usize);
    for (k, items) in strata.values().enumerate() {
        seen += items.len();
        let target = (share * seen as f64).round() as usize;
        let take = target.saturating_sub(taken).min(items.len());
        taken += take;
        let order = stats::shuffled_orders(items.len(), 1, seed.wrapping_add(k as u64))
            .pop()
            .unwrap_or_default();
        for &o in order.iter().take(take) {
            if let Some(&i) = items.get(o) {
                in_revision[i] = true;
            }
        }
    }
    let mut out = Split {
        attribute: attribute.to_owned(),
        seed,
        revision_share: share,
        revision: Vec::new(),
        held_out: Vec::new(),
    };
    for (i, item) in dataset.items.iter().enumerate() {
        if human[i].is_none() {
            continue;
        }
        if in_revision[i] { &mut out.revision } else { &mut out.held_out }.push(item.id.clone());
    }
    Ok(out)
}

/// The meta-prompt a user starts from: `{{prompt}}`, `{{disagreements}}` and `{{notes}}` are
/// filled by [`meta_prompt`].
pub const DEFAULT_META_PROMPT: &str = "You improve the instructions of an LLM judge that rates texts. Its ratings disagreed with people's on the items below. Revise its criteria and evaluation steps so that it rates as the people do. Keep every {{placeholder}} of the prompt as it is, and keep the sentence that asks for the rating.

The judge's current prompt:
<prompt>
{{prompt}}
</prompt>

Items where the judge disagreed most (the judge's rating, then the people's):
{{disagreements}}

The reviewers' notes:
{{notes}}

Answer with the complete revised prompt between <prompt> and </prompt>.";

/// One revision-set item where the judge and people disagreed.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    pub id: String,
    /// The item's fields and output, as `name: text` lines.
    pub text: String,
    pub judge: f64,
    /// The people's rating: the reviewer's correction, else the human aggregate.
    pub people: f64,
}

/// The revision set's `max` largest disagreements, largest first (ties in dataset order).
/// Held-out items are never considered.
pub fn disagreements(
    dataset: &Dataset,
    items: &[ReviewItem],
    run: &str,
    reviews: &Reviews,
    split: &Split,
    max: usize,
) -> Vec<Disagreement> {
    let scale = super::review::run_attribute(dataset, run).map(|a| a.scale);
    let mut out: Vec<Disagreement> = items
        .iter()
        .filter(|i| split.is_revision(&i.id))
        .filter_map(|i| {
            let judge = i.judge?;
            let people = match super::review::counted_verdict(reviews, scale.as_ref(), run, &i.id) {
                Some(Verdict::Change { rating }) => *rating,
                _ => i.human?,
            };
            let item = dataset.items.get(i.index)?;
            let mut text: Vec<String> =
                item.inputs.0.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            text.push(format!("{}: {}", item.output_name, item.output));
            Some(Disagreement { id: i.id.clone(), text: text.join("\n"), judge, people })
        })
        .collect();
    out.sort_by(|a, b| (b.judge - b.people).abs().total_cmp(&(a.judge - a.people).abs()));
    out.truncate(max);
    out
}

/// The reviewers' notes on revision-set items of `run` (flags), in item order.
pub fn notes(run: &str, reviews: &Reviews, split: &Split) -> Vec<(String, String)> {
    reviews
        .verdicts
        .iter()
        .filter(|((r, item), _)| r == run && split.is_revision(item))
        .filter_map(|((_, item), v)| match v {
            Verdict::Flag { note } => Some((item.clone(), note.clone())),
            _ => None,
        })
        .collect()
}

/// A template's text as one prompt, its parts in order (placeholders kept).
pub fn template_text(template: &PromptTemplate) -> String {
    template.parts.iter().map(|p| p.text.as_str()).collect()
}

/// Fills `template` (e.g. [`DEFAULT_META_PROMPT`]): `{{prompt}}` the judge's current prompt,
/// `{{disagreements}}` one block per disagreement, `{{notes}}` one line per note. The other
/// placeholders are left as they are (they belong to the judge's prompt).
pub fn meta_prompt(
    template: &str,
    prompt: &str,
    disagreements: &[Disagreement],
    notes: &[(String, String)],
) -> String {
    let blocks: Vec<String> = disagreements
        .iter()
        .enumerate()
        .map(|(k, d)| {
            format!(
                "{}. {}\nJudge: {}; people: {}",
                k + 1,
                d.text,
                format_rating(d.judge),
                format_rating(d.people)
            )
        })
        .collect();
    let notes: Vec<String> = notes.iter().map(|(item, note)| format!("- {item}: {note}")).collect();
    template
        .replace(
            "{{disagreements}}",
            &if blocks.is_empty() { "(none)".to_owned() } else { blocks.join("\n\n") },
        )
        .replace(
            "{{notes}}",
            &if notes.is_empty() { "(none)".to_owned() } else { notes.join("\n") },
        )
        // Last: the judge's prompt carries placeholders of its own that must stay as written.
        .replace("{{prompt}}", prompt)
}

/// The revised prompt in an LLM's answer: the text between the last `<prompt>` and the
/// following `</prompt>`, else the whole answer, trimmed.
pub fn proposal(answer: &str) -> String {
    let inner = answer
        .rfind("<prompt>")
        .map(|start| {
            let rest = &answer[start + "<prompt>".len()..];
            rest.find("</prompt>").map_or(rest, |end| &rest[..end])
        })
        .unwrap_or(answer);
    inner.trim().to_owned()
}

/// A proposal not yet run (or run and kept in the editor): what the panel shows, kept in the
/// browser as it is typed so a reload loses nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// The judge run it revises (its key).
    pub run: String,
    /// The proposed prompt as edited.
    pub text: String,
    /// The LLM's raw answer it came from (empty when typed by hand).
    #[serde(default)]
    pub answer: String,
    /// What the call that proposed it cost, when priced.
    #[serde(default)]
    pub cost_usd: Option<f64>,
}

/// What a proposed prompt leaves out of what the judge's prompt shows it: the placeholders of
/// `old` that `text` does not use. Sent as it is, the revised judge would never see those
/// texts of an item (or none at all, when `text` has no placeholder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingTexts {
    /// The old prompt's placeholders the proposal lacks, in the old prompt's order.
    pub missing: Vec<String>,
    /// The proposal has no placeholder at all.
    pub none_at_all: bool,
}

impl std::fmt::Display for MissingTexts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.missing.iter().map(|m| format!("{{{{{m}}}}}")).collect();
        if self.none_at_all {
            write!(
                f,
                "The revised prompt has no {{{{placeholders}}}}: the judge would see none of the item's texts"
            )?;
            if !names.is_empty() {
                write!(f, " (the current prompt shows it {})", names.join(", "))?;
            }
        } else {
            let which = if names.len() == 1 { "that text" } else { "those texts" };
            write!(
                f,
                "The revised prompt leaves out {}: the judge would not see {which}",
                names.join(", ")
            )?;
        }
        write!(f, ". Add them to the prompt, or send it as it is if that is what you mean.")
    }
}

/// [`MissingTexts`] of the proposal `text` against the judge's prompt `old`; `None` when it
/// keeps every placeholder.
pub fn missing_texts(old: &PromptTemplate, text: &str) -> Option<MissingTexts> {
    let new = PromptTemplate::new(vec![Part::new(PartKind::Other, text)]).placeholders();
    let missing: Vec<String> =
        old.placeholders().into_iter().filter(|p| !new.contains(p)).collect();
    let none_at_all = new.is_empty();
    (none_at_all || !missing.is_empty()).then_some(MissingTexts { missing, none_at_all })
}

/// The revised template: `text` as one part, with the old template's bindings, checked to
/// render on every held-out item.
pub fn revised_template(
    dataset: &Dataset,
    old: &PromptTemplate,
    text: &str,
    split: &Split,
) -> Result<PromptTemplate, ReviseError> {
    if text.trim().is_empty() {
        return Err(ReviseError::EmptyProposal);
    }
    let template = PromptTemplate {
        parts: vec![Part::new(PartKind::Other, text)],
        bindings: old.bindings.clone(),
    };
    for item in dataset.items.iter().filter(|i| split.is_held_out(&i.id)) {
        template.render(item).map_err(|e| ReviseError::DoesNotRender {
            item: item.id.clone(),
            error: e.to_string(),
        })?;
    }
    Ok(template)
}

/// One line of a prompt diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    Same(String),
    Removed(String),
    Added(String),
}

/// The line diff of two prompts (longest common subsequence of lines).
pub fn diff(before: &str, after: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] =
                if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(DiffLine::Same(a[i].to_owned()));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removed lines before the lines that replace them, as `diff -u` shows them.
            out.push(DiffLine::Removed(a[i].to_owned()));
            i += 1;
        } else {
            out.push(DiffLine::Added(b[j].to_owned()));
            j += 1;
        }
    }
    out
}

/// The diff as text: `  `, `- ` or `+ ` before each line.
pub fn diff_text(lines: &[DiffLine]) -> String {
    lines
        .iter()
        .map(|l| match l {
            DiffLine::Same(s) => format!("  {s}"),
            DiffLine::Removed(s) => format!("- {s}"),
            DiffLine::Added(s) => format!("+ {s}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The old and the revised judge on the held-out items.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOut {
    /// Held-out items with a human rating and both judges' ratings.
    pub n: usize,
    pub r_old: Option<f64>,
    pub r_new: Option<f64>,
    /// Williams' one-sided p that the revised judge's r is greater.
    pub p: Option<f64>,
    /// Percentile bootstrap interval of r_new − r_old (paired, over the items).
    pub diff_ci: Option<[f64; 2]>,
}

impl HeldOut {
    /// Better only when Williams' test says so at [`ALPHA`].
    pub fn better(&self) -> bool {
        self.p.is_some_and(|p| p < ALPHA)
    }
}

/// Compares `new` with `old` (item-aligned judge scores) against `human` on the held-out
/// items of `split` only.
pub fn compare(
    dataset: &Dataset,
    human: &[Option<f64>],
    old: &[Option<f64>],
    new: &[Option<f64>],
    split: &Split,
    resampling: Resampling,
) -> HeldOut {
    let mut triples: Vec<(f64, f64, f64)> = Vec::new();
    for (i, item) in dataset.items.iter().enumerate() {
        if !split.is_held_out(&item.id) {
            continue;
        }
        if let (Some(Some(h)), Some(Some(o)), Some(Some(n))) =
            (human.get(i), old.get(i), new.get(i))
        {
            triples.push((*h, *o, *n));
        }
    }
    let h: Vec<f64> = triples.iter().map(|t| t.0).collect();
    let o: Vec<f64> = triples.iter().map(|t| t.1).collect();
    let n: Vec<f64> = triples.iter().map(|t| t.2).collect();
    let williams = stats::williams_vectors(&h, &n, &o);
    let mut diffs = Vec::new();
    if triples.len() >= 4 {
        for idx in stats::BootIndices::new(triples.len(), resampling.resamples, resampling.seed) {
            let pick = |v: &[f64]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
            let hb = pick(&h);
            if let (Some(a), Some(b)) =
                (stats::pearson(&hb, &pick(&n)).value, stats::pearson(&hb, &pick(&o)).value)
            {
                diffs.push(a - b);
            }
        }
    }
    let diff_ci = (diffs.len() * 2 >= resampling.resamples.max(1)).then(|| {
        diffs.sort_unstable_by(f64::total_cmp);
        let tail = (1.0 - resampling.confidence) / 2.0;
        [stats::quantile_sorted(&diffs, tail), stats::quantile_sorted(&diffs, 1.0 - tail)]
    });
    HeldOut {
        n: triples.len(),
        r_old: stats::pearson(&h, &o).value,
        r_new: stats::pearson(&h, &n).value,
        p: williams.p_greater,
        diff_ci,
    }
}

/// One revision of a judge: what was asked, what came back, what was run, by raw text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// 1, 2, … in the order made.
    pub number: usize,
    /// The judge run revised ([`super::review::run_key`]).
    pub run: String,
    pub attribute: String,
    pub policy: Policy,
    pub meta_prompt: String,
    /// The LLM's answer to the meta-prompt, as it came.
    pub answer: String,
    pub prompt_before: String,
    /// The revised prompt as run (the proposal after any edit by hand).
    pub prompt_after: String,
    /// The revised judge's raw answers on the held-out items, by item id.
    pub answers: Vec<(String, Vec<String>)>,
    /// What the revision's calls cost, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The split it was written and tested under (a later split, e.g. of another attribute,
    /// does not change its test); `None` in files that did not record it: the current split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
}

impl Revision {
    /// The revised judge's item-aligned scores over `dataset` (held-out items only), read from
    /// its raw answers under its policy.
    pub fn scores(&self, dataset: &Dataset) -> Vec<Option<f64>> {
        let scale = dataset
            .attribute_index(&self.attribute)
            .and_then(|i| dataset.attributes.get(i))
            .map(|a| (a.scale.min, a.scale.max));
        dataset
            .items
            .iter()
            .map(|item| {
                let (_, answers) = self.answers.iter().find(|(id, _)| *id == item.id)?;
                ItemScore::parse(answers, self.policy, scale).mean
            })
            .collect()
    }

    /// Lines added and removed by the revision.
    pub fn changed_lines(&self) -> (usize, usize) {
        let d = diff(&self.prompt_before, &self.prompt_after);
        let added = d.iter().filter(|l| matches!(l, DiffLine::Added(_))).count();
        let removed = d.iter().filter(|l| matches!(l, DiffLine::Removed(_))).count();
        (added, removed)
    }
}

/// One row per revision: held-out n, r before and after, the difference with its interval,
/// Williams' p, whether it is better, the cost and the lines changed. `outcomes` is
/// [`compare`] of each revision, in order.
pub fn history_table(revisions: &[(Revision, HeldOut)], confidence: f64) -> Table {
    let mut out = Table::new(
        HISTORY_TABLE,
        "Revisions of the judge, tested on the held-out items",
        "Revision",
    );
    out.columns = vec![
        Column::text("Run"),
        Column::number("Held-out n"),
        Column::number("r before")
            .described("the old judge's Pearson r with the humans on the held-out items"),
        Column::number("r after").described("the revised judge's Pearson r on the same items"),
        Column::number("Δr")
            .described("r after − r before, with a paired percentile bootstrap interval"),
        Column::number("Williams p").described("one-sided p that the revised judge's r is greater"),
        Column::text("Better"),
        Column::number("Cost (USD)"),
        Column::text("Prompt lines"),
    ];
    for (rev, held) in revisions {
        let key = format!("revision-{}", rev.number);
        let mut delta = Cell::number(held.r_new.zip(held.r_old).map(|(a, b)| a - b), 3)
            .with_n(held.n)
            .keyed(format!("{key}/delta"));
        if let Some([lo, hi]) = held.diff_ci {
            delta = delta.with_interval(lo, hi, confidence);
        }
        let (added, removed) = rev.changed_lines();
        out.rows.push(TableRow::new(
            rev.number.to_string(),
            vec![
                Cell::text(rev.run.clone()),
                Cell::count(held.n),
                Cell::number(held.r_old, 3).keyed(format!("{key}/r_before")),
                Cell::number(held.r_new, 3).keyed(format!("{key}/r_after")),
                delta,
                Cell::p_value(held.p).keyed(format!("{key}/p")),
                Cell::text(if held.better() { "yes" } else { "no" }).keyed(format!("{key}/better")),
                match rev.cost_usd {
                    Some(c) => Cell::number(Some(c), 4),
                    None => Cell::blank("not priced"),
                },
                Cell::text(format!("+{added} −{removed}")),
            ],
        ));
    }
    out.notes.push(format!(
        "Each revision was written from the revision set only and run on the held-out items only; it is called better only when Williams' one-sided p < {ALPHA}."
    ));
    out
}

/// Each revision with its held-out comparison against the run it revised, as it is on
/// `table`, under the split it recorded (else `split`). A revision whose run is not on the
/// table, or without a split, is left out.
pub fn outcomes(
    dataset: &Dataset,
    table: &super::ResultsTable,
    split: Option<&Split>,
    revisions: &[Revision],
    resampling: Resampling,
) -> Vec<(Revision, HeldOut)> {
    revisions
        .iter()
        .filter_map(|rev| {
            let split = rev.split.as_ref().or(split)?;
            let a = table.attributes.iter().position(|x| *x == rev.attribute)?;
            let m = table.methods.iter().enumerate().position(|(m, method)| {
                super::review::run_key_of(method, &rev.attribute) == rev.run
                    && table.cell(m, a).is_some()
            })?;
            let old = &table.cell(m, a)?.scores.scores;
            let human = dataset.human_scores(dataset.attribute_index(&rev.attribute)?);
            let held = compare(dataset, &human, old, &rev.scores(dataset), split, resampling);
            Some((rev.clone(), held))
        })
        .collect()
}

/// One revision's history entry as exported: its prompts and their diff, its held-out test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    pub number: usize,
    pub run: String,
    pub prompt_before: String,
    pub prompt_after: String,
    /// [`diff_text`] of the two.
    pub diff: String,
    pub held_out_n: usize,
    pub r_before: Option<f64>,
    pub r_after: Option<f64>,
    pub delta_interval: Option<[f64; 2]>,
    pub williams_p: Option<f64>,
    pub better: bool,
    pub cost_usd: Option<f64>,
}

/// The history with every revision's prompts and diff, as pretty JSON (the panel's "Export the
/// history" file; the table's exports carry the numbers only).
pub fn history_json(revisions: &[(Revision, HeldOut)]) -> String {
    let entries: Vec<HistoryEntry> = revisions
        .iter()
        .map(|(r, h)| HistoryEntry {
            number: r.number,
            run: r.run.clone(),
            prompt_before: r.prompt_before.clone(),
            prompt_after: r.prompt_after.clone(),
            diff: diff_text(&diff(&r.prompt_before, &r.prompt_after)),
            held_out_n: h.n,
            r_before: h.r_old,
            r_after: h.r_new,
            delta_interval: h.diff_ci,
            williams_p: h.p,
            better: h.better(),
            cost_usd: r.cost_usd,
        })
        .collect();
    serde_json::to_string_pretty(&entries).unwrap_or_default()
}

/// What a bundle carries of the review: every reviewer's file (the reviewer working in the
/// browser that wrote it last, so their decisions win the merge) and the walk's order and
/// seed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewSnapshot {
    /// The reviewer working in the browser that wrote the bundle.
    #[serde(default)]
    pub reviewer: String,
    #[serde(default)]
    pub order: Order,
    #[serde(default)]
    pub seed: u64,
    pub files: Vec<ReviewerFile>,
    /// The revision / held-out split, drawn once ([`split`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
    /// The meta-prompt's template as the user left it, when edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta_template: Option<String>,
    /// Every revision made, in order, with its prompts and raw answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<Revision>,
}

impl ReviewSnapshot {
    /// The files merged, in order.
    pub fn merged(&self) -> Result<Merged, (usize, ReviewError)> {
        super::review::merge(&self.files)
    }

    pub fn is_empty(&self) -> bool {
        self.files.iter().all(|f| f.events.is_empty())
            && self.split.is_none()
            && self.revisions.is_empty()
    }

    /// Every table the review panel shows for this snapshot over `table`: the corrections
    /// (intervals drawn with `review`), the conflicts, the history of revisions (with
    /// `history`). A snapshot whose files do not merge shows only its revisions.
    pub fn tables(
        &self,
        dataset: &Dataset,
        table: &ResultsTable,
        review: Resampling,
        history: Resampling,
    ) -> Vec<Table> {
        let mut out = match self.merged() {
            Ok(merged) => super::review::review_tables(dataset, table, &merged, review),
            Err(_) => Vec::new(),
        };
        let done = outcomes(dataset, table, self.split.as_ref(), &self.revisions, history);
        if !done.is_empty() {
            out.push(history_table(&done, history.confidence));
        }
        out
    }
}
