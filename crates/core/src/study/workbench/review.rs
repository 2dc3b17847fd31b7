//! Humans correct the judge: a reviewer walks through a judge run's items and accepts the
//! judge's rating, changes it, or flags the item with a note. Every action is a
//! [`ReviewEvent`] in an append-only [`ReviewLog`] (the one annotation log,
//! [`crate::annotation::Log`], as CoEval's), so the browser stores each event the moment it is
//! made and a reload replays the same state. Reviewers' work travels as [`ReviewerFile`]s
//! ([`crate::annotation::PersonFile`]); [`merge`] unites them ([`crate::annotation::merge`])
//! and reports every item two files decided differently as a [`ReviewConflict`].
//!
//! [`review_items`] lists what a reviewer sees (text, judge rating, spread of the samples,
//! rationale, human rating) and [`order`] arranges it (largest judge−human gap, judge
//! uncertainty, or a seeded shuffle). [`measure`] is the correction's effect on one run: shares
//! accepted / changed / flagged, mean absolute change, minutes of review, and agreement with
//! the human aggregate before and after (Pearson r, Kendall τ-b, Krippendorff's interval α, each
//! with a percentile bootstrap interval); [`review_table`] is the Results screen's "Review"
//! table and `concord report`'s `concord-review`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::annotation::{
    self, Decisions, Entry, FileError, Format, Kind, Log, PersonFile, Stretch, Together,
};
use crate::data::{Attribute, Dataset, Scale, ScaleKind, join};
use crate::report::{Cell, Column, Row as TableRow, Table};
use crate::stats;

pub use super::agreement::{Agreement, Resampling, agreement};
use super::results::JudgedRun;

/// The `format` tag of one reviewer's file.
pub const REVIEWER_FORMAT: &str = "concord-review";
/// The newest file version this build reads and the one it writes.
pub const VERSION: u32 = 1;
/// The review table's id: its export is `concord-review.<ext>`.
pub const REVIEW_TABLE: &str = "concord-review";
/// The conflicts table's id.
pub const CONFLICTS_TABLE: &str = "concord-review-conflicts";

/// What names a judge run in a review: `method / attribute`, as the Results table does (a later
/// run of the same method and attribute replaces an earlier one there, and here).
pub fn run_key(run: &JudgedRun) -> String {
    run_key_of(&run.method, &run.attribute)
}

/// [`run_key`] from its parts.
pub fn run_key_of(method: &str, attribute: &str) -> String {
    format!("{method} / {attribute}")
}

/// One thing a reviewer did. Events are what is stored, exported and merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReviewEvent {
    /// The judge's rating of `item` in `run` stands.
    Accept { run: String, item: String },
    /// The judge's rating is replaced by `rating`.
    Change { run: String, item: String, rating: f64 },
    /// The item needs another look; `note` says why (the judge's rating is kept).
    Flag { run: String, item: String, note: String },
    /// Time spent on the item, in milliseconds, as measured by the app (the core has no clock);
    /// successive timer events add up and are never undone.
    Timer { run: String, item: String, ms: u64 },
    /// Undoes the latest decision not yet undone.
    Undo,
}

/// A decision on one item, as the latest event left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Accept,
    Change { rating: f64 },
    Flag { note: String },
}

impl Verdict {
    /// What a reviewer reads: `accepted`, `changed to 4`, `flagged: too long`.
    pub fn describe(&self) -> String {
        match self {
            Verdict::Accept => "accepted".to_owned(),
            Verdict::Change { rating } => format!("changed to {}", format_rating(*rating)),
            Verdict::Flag { note } => format!("flagged: {note}"),
        }
    }
}

/// A rating as shown: at most two decimals, no trailing zeros (`4`, `3.5`, `3.67`).
pub fn format_rating(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What the review panel says of its saving: the reviewer's actions — decisions and undos,
/// not the timer's entries, which no one made — and how many of them are saved, given the first
/// `saved` events are: `No decisions yet.`, `All 3 actions saved in this browser.`,
/// `Saving… 1 of 2 actions saved.` (also while only the timer's entries are being saved).
pub fn saved_line(events: &[ReviewEvent], saved: usize) -> String {
    let is_action = |e: &&ReviewEvent| !matches!(e, ReviewEvent::Timer { .. });
    let made = events.iter().filter(is_action).count();
    let stored = events.iter().take(saved).filter(is_action).count();
    let all = saved >= events.len();
    if made == 0 && all {
        "No decisions yet.".to_owned()
    } else if all {
        format!("All {} saved in this browser.", crate::words::count(made, "action", "actions"))
    } else {
        format!(
            "Saving… {} of {} saved.",
            crate::words::int(stored),
            crate::words::count(made, "action", "actions")
        )
    }
}

/// Why an event or a file was refused. Nothing is appended when an event is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// A run or item name is empty.
    #[error("the {field} is empty; name the run and item reviewed")]
    EmptyName { field: &'static str },
    /// A changed rating that is not a number.
    #[error("the new rating {rating} is not a number; type a rating on the attribute's scale")]
    NotFinite { rating: f64 },
    /// A changed rating outside the attribute's scale (a key like 0 or 9 on a 1–5 scale).
    #[error(
        "{} is not on {attribute}'s scale ({}–{}); type a rating from {} to {}",
        format_rating(*rating), format_rating(*min), format_rating(*max), format_rating(*min), format_rating(*max)
    )]
    OutOfScale { rating: f64, attribute: String, min: f64, max: f64 },
    /// A flag without a note.
    #[error("a flag needs a note saying what is wrong; type one")]
    EmptyNote,
    /// Undo with nothing left to undo.
    #[error("nothing to undo")]
    NothingToUndo,
    /// Not JSON, or JSON of another shape (serde's message, with line and column).
    #[error("not a Concord review file: {0}")]
    Json(String),
    /// A JSON file of another tool or kind.
    #[error(
        "format is `{found}`, expected `{REVIEWER_FORMAT}`; export the review from Concord's Results screen"
    )]
    WrongFormat { found: String },
    /// Written by a newer Concord.
    #[error("file version {found} is newer than this Concord reads ({VERSION}); update Concord")]
    UnsupportedVersion { found: u32 },
    /// The file names no reviewer, so their work could not be told apart from others'.
    #[error("the file names no reviewer; set the reviewer's name and export again")]
    NoReviewer,
    /// An event that does not replay, by position in the file's event list.
    #[error("event {index}: {error}")]
    BadEvent { index: usize, error: Box<ReviewError> },
}

/// Checks an event on its own (names, rating, note).
pub fn validate(event: &ReviewEvent) -> Result<(), ReviewError> {
    let named = |run: &str, item: &str| {
        if run.trim().is_empty() {
            Err(ReviewError::EmptyName { field: "run" })
        } else if item.trim().is_empty() {
            Err(ReviewError::EmptyName { field: "item" })
        } else {
            Ok(())
        }
    };
    match event {
        ReviewEvent::Accept { run, item } | ReviewEvent::Timer { run, item, .. } => {
            named(run, item)
        }
        ReviewEvent::Change { run, item, rating } => {
            named(run, item)?;
            if rating.is_finite() {
                Ok(())
            } else {
                Err(ReviewError::NotFinite { rating: *rating })
            }
        }
        ReviewEvent::Flag { run, item, note } => {
            named(run, item)?;
            if note.trim().is_empty() { Err(ReviewError::EmptyNote) } else { Ok(()) }
        }
        ReviewEvent::Undo => Ok(()),
    }
}

/// Whether `rating` is a rating on `scale`: within its bounds and, on a Likert or binary
/// scale, a whole number.
pub fn on_scale(scale: &Scale, rating: f64) -> bool {
    let whole = match scale.kind {
        // A label is one of its codes: a whole number too.
        ScaleKind::Likert | ScaleKind::Binary | ScaleKind::Categorical => rating.fract() == 0.0,
        ScaleKind::Continuous => true,
    };
    rating.is_finite() && rating >= scale.min && rating <= scale.max && whole
}

/// The attribute a run key (`method / attribute`, [`run_key_of`]) rates in `dataset`: the
/// longest attribute name the key ends with.
pub fn run_attribute<'a>(dataset: &'a Dataset, run: &str) -> Option<&'a Attribute> {
    dataset
        .attributes
        .iter()
        .filter(|a| run.strip_suffix(a.name.as_str()).is_some_and(|m| m.ends_with(" / ")))
        .max_by_key(|a| a.name.len())
}

/// Checks a new rating for `run`'s attribute before it is recorded: refused when it is off
/// the attribute's scale ([`on_scale`]), said with the scale. A run of an attribute the
/// dataset lacks is checked for a finite number only.
pub fn check_change(dataset: &Dataset, run: &str, rating: f64) -> Result<(), ReviewError> {
    if !rating.is_finite() {
        return Err(ReviewError::NotFinite { rating });
    }
    match run_attribute(dataset, run) {
        Some(a) if !on_scale(&a.scale, rating) => Err(ReviewError::OutOfScale {
            rating,
            attribute: a.name.clone(),
            min: a.scale.min,
            max: a.scale.max,
        }),
        _ => Ok(()),
    }
}

/// The decision on `item` of `run` that counts in numbers: a change off the attribute's scale
/// (from a log written before ratings were checked, or a file made by hand) counts as no
/// decision, so it can never enter a correlation or a mean.
pub fn counted_verdict<'a>(
    reviews: &'a Reviews,
    scale: Option<&Scale>,
    run: &str,
    item: &str,
) -> Option<&'a Verdict> {
    match reviews.verdict(run, item) {
        Some(Verdict::Change { rating }) if scale.is_some_and(|s| !on_scale(s, *rating)) => None,
        v => v,
    }
}

/// What a log replays to: the decision on each (run, item) and the time spent on it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reviews {
    /// Keyed by (run, item).
    pub verdicts: BTreeMap<(String, String), Verdict>,
    /// Milliseconds per (run, item).
    pub time_ms: BTreeMap<(String, String), u64>,
}

impl Reviews {
    /// The decision on `item` of `run`.
    pub fn verdict(&self, run: &str, item: &str) -> Option<&Verdict> {
        self.verdicts.get(&(run.to_owned(), item.to_owned()))
    }

    /// Milliseconds spent on `item` of `run`.
    pub fn ms_on(&self, run: &str, item: &str) -> u64 {
        self.time_ms.get(&(run.to_owned(), item.to_owned())).copied().unwrap_or(0)
    }

    /// Runs with at least one decision (accept, change, flag), in key order. Time spent is
    /// not a decision: a run someone only looked at is not reviewed.
    pub fn runs(&self) -> Vec<String> {
        let mut out: Vec<String> = self.verdicts.keys().map(|(r, _)| r.clone()).collect();
        out.dedup();
        out
    }
}

/// A reviewer's append-only event log ([`crate::annotation::Log`]); timer events are never
/// undone.
pub type ReviewLog = Log<ReviewEvent>;

impl Entry for ReviewEvent {
    type State = Reviews;
    type Error = ReviewError;
    const UNDO: ReviewEvent = ReviewEvent::Undo;

    fn kind(&self) -> Kind {
        match self {
            ReviewEvent::Undo => Kind::Undo,
            ReviewEvent::Timer { .. } => Kind::Timer,
            _ => Kind::Decision,
        }
    }

    fn validate(&self) -> Result<(), ReviewError> {
        validate(self)
    }

    fn nothing_to_undo() -> ReviewError {
        ReviewError::NothingToUndo
    }

    fn apply(&self, state: &mut Reviews) {
        let key = |run: &str, item: &str| (run.to_owned(), item.to_owned());
        match self {
            ReviewEvent::Accept { run, item } => {
                state.verdicts.insert(key(run, item), Verdict::Accept);
            }
            ReviewEvent::Change { run, item, rating } => {
                state.verdicts.insert(key(run, item), Verdict::Change { rating: *rating });
            }
            ReviewEvent::Flag { run, item, note } => {
                state.verdicts.insert(key(run, item), Verdict::Flag { note: note.clone() });
            }
            ReviewEvent::Timer { run, item, ms } => {
                let t = state.time_ms.entry(key(run, item)).or_default();
                *t = t.saturating_add(*ms);
            }
            ReviewEvent::Undo => {}
        }
    }
}

/// The item timer's item for `item` of `run` (the timer counts per item, a review per run and
/// item).
pub fn timer_item(run: &str, item: &str) -> String {
    format!("{run}\u{1f}{item}")
}

/// The review's timer event of a [`timer_item`]'s stretch; `None` for an item no
/// [`timer_item`] made.
pub fn timer_event(stretch: Stretch) -> Option<ReviewEvent> {
    let (run, item) = stretch.item.split_once('\u{1f}')?;
    Some(ReviewEvent::Timer { run: run.to_owned(), item: item.to_owned(), ms: stretch.ms })
}

/// One reviewer's work, as exported: the whole event log, so an import replays exactly what
/// the reviewer did (undos included). `person` is the file's `reviewer`.
pub type ReviewerFile = PersonFile<ReviewEvent>;

impl Format for ReviewEvent {
    const FORMAT: &'static str = REVIEWER_FORMAT;
    const VERSION: u32 = VERSION;
    const PERSON: &'static str = "reviewer";
    const SCOPE: Option<&'static str> = None;
}

impl From<FileError<ReviewError>> for ReviewError {
    fn from(e: FileError<ReviewError>) -> ReviewError {
        match e {
            FileError::Truncated(m) | FileError::Json(m) => ReviewError::Json(m),
            FileError::Foreign { found, .. } => ReviewError::WrongFormat { found },
            FileError::Newer { found, .. } => ReviewError::UnsupportedVersion { found },
            FileError::NoPerson { .. } => ReviewError::NoReviewer,
            FileError::BadEvent { index, error } => {
                ReviewError::BadEvent { index, error: Box::new(error) }
            }
        }
    }
}

/// Reads a reviewer's file and checks that it replays.
pub fn import(bytes: &[u8]) -> Result<ReviewerFile, ReviewError> {
    Ok(ReviewerFile::read(bytes)?)
}

/// Two files decided the same item of the same run differently. The later file (in the order
/// given to [`merge`]) wins; both decisions are kept here so they can be seen and settled.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewConflict {
    pub run: String,
    pub item: String,
    /// The reviewer and decision kept.
    pub kept: (String, Verdict),
    /// The reviewer and decision overridden.
    pub overridden: (String, Verdict),
}

/// Several reviewers' work united: one decision per item (the later file's), the time of
/// every file added up, and the conflicts met on the way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    pub reviews: Reviews,
    /// Who made each kept decision.
    pub by: BTreeMap<(String, String), String>,
    pub conflicts: Vec<ReviewConflict>,
    /// The reviewers, in file order, each once.
    pub reviewers: Vec<String>,
}

impl Decisions for Reviews {
    type Key = (String, String);
    type Value = Verdict;

    fn decisions(&self) -> Vec<((String, String), Verdict)> {
        self.verdicts.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn decide(&mut self, key: (String, String), value: Verdict) -> Option<Verdict> {
        self.verdicts.insert(key, value)
    }

    /// Time spent by every reviewer adds up.
    fn absorb(&mut self, later: Reviews) {
        for (key, ms) in later.time_ms {
            let t = self.time_ms.entry(key).or_default();
            *t = t.saturating_add(ms);
        }
    }
}

/// Merges reviewers' files in order ([`annotation::merge`], everyone together). Files that
/// fail to replay are refused by index.
pub fn merge(files: &[ReviewerFile]) -> Result<Merged, (usize, ReviewError)> {
    let merged =
        annotation::merge(files, Together::Everyone).map_err(|(f, e)| (f, ReviewError::from(e)))?;
    let who = |f: usize| files.get(f).map(|file| file.person.clone()).unwrap_or_default();
    let mut out = Merged::default();
    for file in files {
        if !out.reviewers.contains(&file.person) {
            out.reviewers.push(file.person.clone());
        }
    }
    out.conflicts = merged
        .conflicts
        .into_iter()
        .filter_map(|(_, c)| {
            Some(ReviewConflict {
                run: c.key.0,
                item: c.key.1,
                kept: (who(c.kept_from), c.kept?),
                overridden: (who(c.overridden_from), c.overridden),
            })
        })
        .collect();
    if let Some(group) = merged.groups.into_iter().next() {
        out.by = group.origin.into_iter().map(|(k, f)| (k, who(f))).collect();
        out.reviews = group.state;
    }
    Ok(out)
}

/// What a reviewer sees of one item of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewItem {
    /// The item's position in the dataset.
    pub index: usize,
    pub id: String,
    /// The judge's rating: the mean of its parsed samples.
    pub judge: Option<f64>,
    /// Every parsed sample.
    pub samples: Vec<f64>,
    /// The samples' standard deviation (n − 1); `None` below two parsed samples.
    pub spread: Option<f64>,
    /// The human aggregate, when the dataset has one.
    pub human: Option<f64>,
    /// The judge's first answer as it came (its rationale), shown as text.
    pub rationale: String,
}

impl ReviewItem {
    /// |judge − human| when both exist.
    pub fn gap(&self) -> Option<f64> {
        Some((self.judge? - self.human?).abs())
    }
}

/// The items `run` rated, in dataset order, with what a reviewer needs to see. Items without a
/// record are left out.
pub fn review_items(dataset: &Dataset, run: &JudgedRun) -> Vec<ReviewItem> {
    let Some(attribute) = dataset.attribute_index(&run.attribute) else { return Vec::new() };
    let scale = dataset.attributes.get(attribute).map(|a| (a.scale.min, a.scale.max));
    let human = dataset.human_scores(attribute);
    let per_item = join(dataset, &run.run).record_per_item(dataset.items.len());
    let mut out = Vec::new();
    for (index, record) in per_item.into_iter().enumerate() {
        let (Some(record), Some(item)) =
            (record.and_then(|r| run.run.records.get(r)), dataset.items.get(index))
        else {
            continue;
        };
        let samples: Vec<f64> = if record.responses.is_empty() {
            record.parsed.iter().filter(|(a, _)| *a == run.attribute).map(|(_, v)| *v).collect()
        } else {
            record.responses.iter().filter_map(|r| run.policy.parse(r, scale).ok()).collect()
        };
        out.push(ReviewItem {
            index,
            id: item.id.clone(),
            judge: mean(&samples),
            spread: sd(&samples),
            samples,
            human: human.get(index).copied().flatten(),
            rationale: record.responses.first().cloned().unwrap_or_default(),
        });
    }
    out
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn sd(v: &[f64]) -> Option<f64> {
    let m = mean(v)?;
    (v.len() >= 2)
        .then(|| (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt())
}

/// How the items are ordered for review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Largest |judge − human| first; items without both last.
    #[default]
    Gap,
    /// Largest spread of the judge's samples first; items with fewer than two samples last.
    Uncertainty,
    /// A shuffle seeded by the review's seed (ChaCha8), the same on every device.
    Random,
}

impl Order {
    pub const ALL: [Order; 3] = [Order::Gap, Order::Uncertainty, Order::Random];

    pub fn label(self) -> &'static str {
        match self {
            Order::Gap => "largest judge−human gap",
            Order::Uncertainty => "judge uncertainty (spread of samples)",
            Order::Random => "random (seeded)",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Order::Gap => "gap",
            Order::Uncertainty => "uncertainty",
            Order::Random => "random",
        }
    }

    pub fn from_name(name: &str) -> Option<Order> {
        Order::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// Positions into `items` in review order. Ties keep dataset order.
pub fn order(items: &[ReviewItem], by: Order, seed: u64) -> Vec<usize> {
    let descending = |key: &dyn Fn(&ReviewItem) -> Option<f64>| {
        let mut out: Vec<usize> = (0..items.len()).collect();
        out.sort_by(|&a, &b| match (key(&items[a]), key(&items[b])) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        out
    };
    match by {
        Order::Gap => descending(&ReviewItem::gap),
        Order::Uncertainty => descending(&|i: &ReviewItem| i.spread),
        Order::Random => stats::shuffled_orders(items.len(), 1, seed).pop().unwrap_or_default(),
    }
}

/// A correction's effect on one judge run.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    /// The run's key ([`run_key`]).
    pub run: String,
    /// Items the judge rated.
    pub items: usize,
    pub accepted: usize,
    pub changed: usize,
    pub flagged: usize,
    /// Mean |new − judge| over the reviewed items (accepted and flagged count as 0); `None`
    /// when nothing was reviewed.
    pub mean_abs_change: Option<f64>,
    /// Changes off the attribute's scale, left out of every number ([`counted_verdict`]).
    pub off_scale: usize,
    /// Minutes of review on this run's items.
    pub minutes: f64,
    /// The judge's ratings against the humans.
    pub before: Agreement,
    /// The judge's ratings with every change applied against the humans.
    pub after: Agreement,
}

impl Correction {
    pub fn reviewed(&self) -> usize {
        self.accepted + self.changed + self.flagged
    }
}

/// The judge's ratings with the reviewers' changes applied: parallel to `judge` (the run's
/// item-aligned scores over `dataset`); a changed item takes the reviewer's rating.
/// A change off the attribute's scale is not applied ([`counted_verdict`]).
pub fn corrected(
    dataset: &Dataset,
    run: &str,
    judge: &[Option<f64>],
    reviews: &Reviews,
) -> Vec<Option<f64>> {
    let scale = run_attribute(dataset, run).map(|a| a.scale);
    dataset
        .items
        .iter()
        .zip(judge)
        .map(|(item, j)| match counted_verdict(reviews, scale.as_ref(), run, &item.id) {
            Some(Verdict::Change { rating }) if j.is_some() => Some(*rating),
            _ => *j,
        })
        .collect()
}

/// Measures the correction of run `run` (key) rating `attribute`, whose item-aligned scores
/// are `judge`. `None` when the dataset has no such attribute.
pub fn measure(
    dataset: &Dataset,
    run: &str,
    attribute: &str,
    judge: &[Option<f64>],
    reviews: &Reviews,
    resampling: Resampling,
) -> Option<Correction> {
    let human = dataset.human_scores(dataset.attribute_index(attribute)?);
    Some(measure_against(dataset, &human, run, judge, reviews, resampling))
}

/// [`measure`] against item-aligned `human` ratings given apart from the dataset (an
/// exercise's reference, which its items do not carry).
pub fn measure_against(
    dataset: &Dataset,
    human: &[Option<f64>],
    run: &str,
    judge: &[Option<f64>],
    reviews: &Reviews,
    resampling: Resampling,
) -> Correction {
    let after = corrected(dataset, run, judge, reviews);
    let scale = run_attribute(dataset, run).map(|a| a.scale);
    let (mut accepted, mut changed, mut flagged, mut off_scale) = (0, 0, 0, 0);
    let mut change_sum = 0.0;
    let mut ms: u64 = 0;
    let mut items = 0;
    for ((item, j), a) in dataset.items.iter().zip(judge).zip(&after) {
        let Some(j) = j else { continue };
        items += 1;
        ms = ms.saturating_add(reviews.ms_on(run, &item.id));
        let counted = counted_verdict(reviews, scale.as_ref(), run, &item.id);
        if counted.is_none() && reviews.verdict(run, &item.id).is_some() {
            off_scale += 1;
        }
        match counted {
            Some(Verdict::Accept) => accepted += 1,
            Some(Verdict::Change { .. }) => {
                changed += 1;
                change_sum += (a.unwrap_or(*j) - j).abs();
            }
            Some(Verdict::Flag { .. }) => flagged += 1,
            None => {}
        }
    }
    let reviewed = accepted + changed + flagged;
    Correction {
        run: run.to_owned(),
        items,
        accepted,
        changed,
        flagged,
        mean_abs_change: (reviewed > 0).then(|| change_sum / reviewed as f64),
        off_scale,
        minutes: ms as f64 / 60_000.0,
        before: agreement(human, judge, resampling),
        after: agreement(human, &after, resampling),
    }
}

/// The judge-vs-humans row and the judge + review row of each correction.
pub fn review_table(corrections: &[Correction], resampling: Resampling) -> Table {
    let confidence = resampling.confidence;
    let mut out = Table::new(
        REVIEW_TABLE,
        "Judges corrected by human review: agreement with the human ratings before and after",
        "Run",
    );
    out.columns = vec![
        Column::text("Ratings"),
        Column::number("n"),
        Column::number("Reviewed"),
        Column::number("Accepted").described("share of the reviewed items accepted"),
        Column::number("Changed").described("share of the reviewed items whose rating changed"),
        Column::number("Flagged").described("share of the reviewed items flagged with a note"),
        Column::number("Mean |change|")
            .described("mean absolute change of the rating over the reviewed items"),
        Column::number("r").described("Pearson r with the human aggregate"),
        Column::number("τ-b").described("Kendall τ-b with the human aggregate"),
        Column::number("α").described("Krippendorff's α (interval) with the human aggregate"),
        Column::number("Minutes").described("minutes of review"),
    ];
    let stat = |value: Option<f64>, ci: Option<[f64; 2]>, n: usize, key: String| {
        let mut cell = Cell::number(value, 3).with_n(n).keyed(key);
        if let Some([lo, hi]) = ci {
            cell = cell.with_interval(lo, hi, confidence);
        }
        if value.is_none() {
            cell = cell.with_note("undefined: constant ratings or fewer than two items");
        }
        cell
    };
    let share = |k: usize, of: usize| {
        if of == 0 {
            Cell::blank("nothing reviewed")
        } else {
            Cell::number(Some(k as f64 / of as f64), 3)
        }
    };
    for c in corrections {
        let reviewed = c.reviewed();
        let not_here = || Cell::blank("the judge's own ratings");
        for (label, a, review) in [("judge", &c.before, false), ("judge + review", &c.after, true)]
        {
            let key = format!("{}/{}", c.run, if review { "review" } else { "judge" });
            let mut cells = vec![Cell::text(label), Cell::count(a.n)];
            if review {
                cells.push(Cell::count(reviewed));
                cells.push(share(c.accepted, reviewed));
                cells.push(share(c.changed, reviewed));
                cells.push(share(c.flagged, reviewed));
                cells.push(match c.mean_abs_change {
                    Some(m) => Cell::number(Some(m), 3),
                    None => Cell::blank("nothing reviewed"),
                });
            } else {
                cells.extend((0..5).map(|_| not_here()));
            }
            cells.push(stat(a.pearson, a.pearson_ci, a.n, format!("{key}/pearson")));
            cells.push(stat(a.kendall_b, a.kendall_ci, a.n, format!("{key}/kendall_b")));
            cells.push(stat(a.alpha, a.alpha_ci, a.n, format!("{key}/alpha")));
            cells.push(if review { Cell::number(Some(c.minutes), 1) } else { not_here() });
            out.rows.push(TableRow::new(c.run.clone(), cells));
        }
    }
    for c in corrections.iter().filter(|c| c.off_scale > 0) {
        let (what, verb) = if c.off_scale == 1 {
            ("1 change".to_owned(), "That item is")
        } else {
            (format!("{} changes", c.off_scale), "Those items are")
        };
        out.notes.push(format!(
            "{}: {what} left out of every number: off the attribute's scale (typed before ratings were checked, or in a file made by hand). {verb} counted as not reviewed; decide again on the scale.",
            c.run,
        ));
    }
    out.notes.push(format!(
        "\"judge + review\" replaces each changed rating by the reviewer's; accepted and flagged items keep the judge's. Counts are of the items the judge rated (a decision on an item without a judge rating is kept but not counted); shares are of the reviewed items. {}",
        if resampling.resamples == 0 {
            "No intervals: they are drawn (a percentile bootstrap over items) when the Results table's intervals are shown.".to_owned()
        } else {
            format!("Intervals: {:.0} % percentile bootstrap over items ({} resamples, seed {}).", confidence * 100.0, resampling.resamples, resampling.seed)
        }
    ));
    out
}

/// The conflicts of a merge, one row each.
pub fn conflicts_table(merged: &Merged) -> Table {
    let mut out = Table::new(CONFLICTS_TABLE, "Reviewers who decided an item differently", "Item");
    out.columns = vec![
        Column::text("Run"),
        Column::text("Kept"),
        Column::text("Kept from"),
        Column::text("Overridden"),
        Column::text("Overridden from"),
    ];
    for c in &merged.conflicts {
        out.rows.push(TableRow::new(
            c.item.clone(),
            vec![
                Cell::text(c.run.clone()),
                Cell::text(c.kept.1.describe()),
                Cell::text(c.kept.0.clone()),
                Cell::text(c.overridden.1.describe()),
                Cell::text(c.overridden.0.clone()),
            ],
        ));
    }
    out.notes.push(
        "The later file wins; import the files in another order to keep the other decision."
            .to_owned(),
    );
    out
}

/// The review's tables over the runs on a results table: one correction per reviewed run that
/// is on it (in the table's order), and the conflicts when there are any.
pub fn review_tables(
    dataset: &Dataset,
    table: &super::ResultsTable,
    merged: &Merged,
    resampling: Resampling,
) -> Vec<Table> {
    let reviewed = merged.reviews.runs();
    let mut corrections = Vec::new();
    for (m, method) in table.methods.iter().enumerate() {
        for (a, attribute) in table.attributes.iter().enumerate() {
            let key = run_key_of(method, attribute);
            let Some(cell) = table.cell(m, a).filter(|_| reviewed.contains(&key)) else {
                continue;
            };
            corrections.extend(measure(
                dataset,
                &key,
                attribute,
                &cell.scores.scores,
                &merged.reviews,
                resampling,
            ));
        }
    }
    let mut out = Vec::new();
    if !corrections.is_empty() {
        out.push(review_table(&corrections, resampling));
    }
    if !merged.conflicts.is_empty() {
        out.push(conflicts_table(merged));
    }
    out
}

/// What a reviewer's key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Next,
    Previous,
    /// Accept the judge's rating and move on.
    Accept,
    /// Change the rating to this digit and move on.
    Rate(u8),
    /// Open the note of a flag.
    Flag,
    Undo,
}

/// The command of a key (`KeyboardEvent.key`), with Ctrl or ⌘ held or not.
pub fn key_command(key: &str, ctrl: bool) -> Option<Command> {
    if ctrl {
        return (key == "z" || key == "Z").then_some(Command::Undo);
    }
    Some(match key {
        "j" | "ArrowDown" | "n" => Command::Next,
        "k" | "ArrowUp" | "p" => Command::Previous,
        "a" | "Enter" => Command::Accept,
        "f" => Command::Flag,
        "u" => Command::Undo,
        _ => {
            let mut chars = key.chars();
            let digit = chars.next().and_then(|c| c.to_digit(10));
            match (digit, chars.next()) {
                (Some(d), None) => Command::Rate(d as u8),
                _ => return None,
            }
        }
    })
}

/// The keys, as the help lists them.
pub const KEY_HELP: [(&str, &str); 6] = [
    ("j / ↓ / n", "next item"),
    ("k / ↑ / p", "previous item"),
    ("a / Enter", "accept the judge's rating, then the next item"),
    ("0–9", "change the rating to that number (on the attribute's scale), then the next item"),
    ("f", "flag the item with a note (Enter saves, Escape cancels)"),
    ("u / Ctrl+Z", "undo the last decision (also after a reload)"),
];

/// What a reviewed run's row on the Results table is called: `<method> + review`.
pub const REVIEW_SUFFIX: &str = " + review";

/// `scored` with one more row per reviewed judge, `<method> + review`
/// ([`RunKind::HumanCorrected`](super::results::RunKind)): on each attribute where the judge's
/// run has a decision (time spent is not one), the judge's scores with every change applied
/// ([`corrected`]); the other attributes are empty. Rows like any other (correlations at both
/// levels, Williams' test against the baseline, intervals), but not judges: they join no jury
/// or ensemble. Only judges are reviewed (not juries, ensembles, probes or corrected rows).
pub fn with_reviews(dataset: &Dataset, scored: &super::Scored, reviews: &Reviews) -> super::Scored {
    let mut out = scored.clone();
    let runs = reviews.runs();
    for (m, method) in scored.methods.iter().enumerate() {
        if !scored.kind(m).is_judge() {
            continue;
        }
        let name = format!("{method}{REVIEW_SUFFIX}");
        if scored.methods.contains(&name) {
            continue;
        }
        let row: Vec<Option<super::scores::JudgeScores>> = scored
            .attributes
            .iter()
            .enumerate()
            .map(|(a, attribute)| {
                let key = run_key_of(method, attribute);
                if !runs.contains(&key) {
                    return None;
                }
                let judge = scored.scores.get(m)?.get(a)?.as_ref()?;
                Some(super::scores::JudgeScores {
                    scores: corrected(dataset, &key, &judge.scores, reviews),
                    ..judge.clone()
                })
            })
            .collect();
        if row.iter().any(Option::is_some) {
            let kind = super::results::RunKind::HumanCorrected { judge: method.clone() };
            out.push(name, kind, row);
        }
    }
    out
}

/// What a review belongs to: a short name of `dataset` (FNV-1a of its name and every item id,
/// in hex). A browser keeps one review per dataset under it, so a review is never applied to
/// another dataset's items that happen to share ids and a run name; it is cheap enough to
/// compute whenever the dataset changes.
pub fn dataset_scope(dataset: &Dataset) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // A separator no id contains, so `ab`,`c` and `a`,`bc` differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    eat(dataset.name.as_bytes());
    for item in &dataset.items {
        eat(item.id.as_bytes());
    }
    format!("{h:016x}")
}
