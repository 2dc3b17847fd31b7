//! The data model every loader produces: rating items, pairwise items, open-ended tasks and
//! imported judge runs.
//!
//! One model serves every dataset Concord evaluates, so its shapes are the union of what the
//! papers release: pointwise ratings (SummEval, Topical-Chat, CoEval), pairwise preferences
//! (MT-bench, LLMBar) and released judge outputs (Chiang & Lee, UniEval, meta-evaluation).
//! Items are joined to each other by key ([`ItemKey`]: document + system), never by position.

use serde::{Deserialize, Serialize};

/// Everything one file (or the built-in example) contributes to an evaluation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// The file name the dataset was loaded from; diagnostics name it too.
    pub name: String,
    /// Rated attributes, in the order they appear in the file.
    /// `RatingItem::ratings[i]` belongs to `attributes[i]`.
    pub attributes: Vec<Attribute>,
    /// Pointwise items: one output of one system for one document.
    pub items: Vec<RatingItem>,
    /// Pairwise items: two outputs for one input, with a gold preference.
    pub pairs: Vec<PairwiseItem>,
    /// Open-ended generation tasks (CoEval); items point at them by name.
    pub tasks: Vec<OpenEndedTask>,
    /// Human reviews of machine evaluations (CoEval action files), by item id.
    pub actions: Vec<ReviewAction>,
}

impl Dataset {
    /// A copy of everything but the items (every field named, so a new one is not forgotten):
    /// what goes ahead of the items when they are written a page or a chunk at a time.
    pub fn without_items(&self) -> Dataset {
        Dataset {
            name: self.name.clone(),
            attributes: self.attributes.clone(),
            items: Vec::new(),
            pairs: self.pairs.clone(),
            tasks: self.tasks.clone(),
            actions: self.actions.clone(),
        }
    }

    /// Index of the attribute called `name`, if the dataset rates it.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }

    /// The aggregate human score of every item for attribute `index`, in item order;
    /// `None` where an item has no rating. This is the vector the statistics consume.
    pub fn human_scores(&self, index: usize) -> Vec<Option<f64>> {
        self.items
            .iter()
            .map(|item| item.ratings.get(index).and_then(|r| r.as_ref()).map(|r| r.aggregate))
            .collect()
    }

    /// The position of the item with this key, if any. Linear: callers joining many keys
    /// build a map once (see [`crate::data::join`]).
    pub fn find(&self, key: &ItemKey) -> Option<usize> {
        self.items.iter().position(|item| item.key() == *key)
    }
}

/// What an attribute measures on, as declared by the dataset (or observed, for generic files).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Attribute {
    pub name: String,
    pub scale: Scale,
    /// The labels of a [`ScaleKind::Categorical`] scale, in code order: a rating `c` means
    /// `categories[c]`. Empty for numeric scales. JSON leaves it out when empty (a bundle's
    /// dataset hash covers its JSON, so bundles written before it existed keep their hash);
    /// binary formats (the worker's postcard frames) always carry it.
    #[serde(default)]
    pub categories: Vec<String>,
}

impl Attribute {
    /// A numeric attribute (no category labels).
    pub fn new(name: impl Into<String>, scale: Scale) -> Attribute {
        Attribute { name: name.into(), scale, categories: Vec::new() }
    }

    /// The label a categorical rating codes, if this attribute has labels.
    pub fn label(&self, code: f64) -> Option<&str> {
        if code.fract() != 0.0 || code < 0.0 {
            return None;
        }
        self.categories.get(code as usize).map(String::as_str)
    }
}

impl Serialize for Attribute {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let skip = s.is_human_readable() && self.categories.is_empty();
        let mut st = s.serialize_struct("Attribute", if skip { 2 } else { 3 })?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("scale", &self.scale)?;
        if skip {
            st.skip_field("categories")?;
        } else {
            st.serialize_field("categories", &self.categories)?;
        }
        st.end()
    }
}

/// The range and kind of a rating scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scale {
    pub min: f64,
    pub max: f64,
    pub kind: ScaleKind,
}

impl Scale {
    /// An integer Likert scale such as SummEval's 1–5 or Topical-Chat's 1–3.
    pub const fn likert(min: f64, max: f64) -> Scale {
        Scale { min, max, kind: ScaleKind::Likert }
    }

    /// A yes/no scale stored as 0/1 (Topical-Chat groundedness).
    pub const BINARY: Scale = Scale { min: 0.0, max: 1.0, kind: ScaleKind::Binary };

    /// Whether `value` lies on the scale (inclusive bounds).
    pub fn contains(&self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }
}

/// How the points of a scale are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ScaleKind {
    /// Integer points between `min` and `max`.
    Likert,
    /// Two points, 0 and 1.
    Binary,
    /// Any real value in the range (e.g. observed bounds of a generic numeric column).
    Continuous,
    /// Unordered labels: a rating is the index of its label in [`Attribute::categories`]
    /// (`min` 0, `max` the last index). Only equality between ratings means anything.
    Categorical,
}

/// An ordered list of named text fields, kept under their original names so prompt templates
/// can look up `{{Document}}`, `{{Fact}}` or `{{source}}` exactly as the paper's files call them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    /// The value of the field called `name` (exact, case-sensitive match first, then
    /// ASCII-case-insensitive, because templates are written by hand).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .or_else(|| self.0.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.as_str())
    }

    /// Appends a field, keeping file order.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.push((name.into(), value.into()));
    }

    /// Field names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The identity of a pointwise item across files: which document, which system.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ItemKey {
    pub document: String,
    pub system: String,
}

/// One system output for one document, with its human ratings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingItem {
    /// Unique within the dataset; the file's own id when it has one.
    pub id: String,
    /// Groups the outputs of different systems for the same input (document-level statistics).
    /// Files without a document id get a content hash of the input ([`content_id`]), so
    /// two files that share the input text agree on it.
    pub document_id: String,
    pub system_id: String,
    /// The open-ended task (by name) this item belongs to, for CoEval-style data.
    pub task: Option<String>,
    /// Input fields (article, dialogue history, fact, question…) under their original names.
    pub inputs: Fields,
    /// The name of the output field in the file (`system_output`, `summary`, `output`…).
    pub output_name: String,
    /// The text being rated.
    pub output: String,
    /// Parallel to [`Dataset::attributes`]; `None` where the file has no rating.
    pub ratings: Vec<Option<HumanRating>>,
    /// 1-based line (JSON/JSONL) or row (CSV) the item came from; 0 for built-in data.
    pub line: usize,
}

impl RatingItem {
    pub fn key(&self) -> ItemKey {
        ItemKey { document: self.document_id.clone(), system: self.system_id.clone() }
    }

    /// A field by its original name: an input, or the output under [`RatingItem::output_name`].
    /// This is what prompt templates look up.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.inputs.get(name).or_else(|| (self.output_name == name).then_some(self.output.as_str()))
    }
}

/// The human judgement of one item on one attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanRating {
    /// Individual raters' scores in file order; empty when the file only releases the aggregate.
    pub raters: Vec<RaterScore>,
    /// The score the statistics use; see [`Aggregate`] for how it was obtained.
    pub aggregate: f64,
    pub how: Aggregate,
}

impl HumanRating {
    /// Aggregates per-rater scores by [`mean_in_order`]. `None` when `raters` is empty.
    pub fn from_raters(raters: Vec<RaterScore>) -> Option<HumanRating> {
        let scores: Vec<f64> = raters.iter().map(|r| r.score).collect();
        let aggregate = mean_in_order(&scores)?;
        Some(HumanRating { raters, aggregate, how: Aggregate::MeanOfRaters })
    }

    /// A rating of which only the released aggregate is known.
    pub fn released(aggregate: f64) -> HumanRating {
        HumanRating { raters: Vec::new(), aggregate, how: Aggregate::Released }
    }

    /// The rating in words, with where it comes from: `3.667 (mean of r1 4, r2 3, r3 4)`;
    /// with one value per item, `4 (the file's value)` for a table of the user's own
    /// (`own_table`) and `4.333 (the released aggregate)` for a paper's file.
    pub fn describe(&self, own_table: bool) -> String {
        let value = crate::words::short(self.aggregate);
        if self.raters.is_empty() {
            let whose = if own_table { "the file's value" } else { "the released aggregate" };
            format!("{value} ({whose})")
        } else {
            let raters: Vec<String> = self
                .raters
                .iter()
                .map(|r| format!("{} {}", r.rater, crate::words::short(r.score)))
                .collect();
            format!("{value} (mean of {})", raters.join(", "))
        }
    }
}

/// One rater's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaterScore {
    pub rater: String,
    pub score: f64,
}

/// Where an item's aggregate score comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Aggregate {
    /// The file ships the aggregate (SummEval and Topical-Chat publish the mean of 3 raters
    /// rounded to 10 decimals); we keep the published number so ties match the papers.
    Released,
    /// Computed here by [`mean_in_order`].
    MeanOfRaters,
    /// Categorical ratings: the most frequent label (a tie goes to the one given first).
    Majority,
}

/// The one way Concord averages raters: sum in input order, then divide by the count.
///
/// STATS_SPEC §0: ties are detected by exact `f64` equality, so the summation order must be
/// the same everywhere or two items with the same ratings could get different means.
pub fn mean_in_order(scores: &[f64]) -> Option<f64> {
    if scores.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for &s in scores {
        sum += s;
    }
    Some(sum / scores.len() as f64)
}

/// Two outputs for the same input, with the gold preference when known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairwiseItem {
    pub id: String,
    pub inputs: Fields,
    pub output_a: String,
    pub output_b: String,
    pub model_a: Option<String>,
    pub model_b: Option<String>,
    /// The gold label; for per-rater data the majority of `votes` (a split vote is a tie).
    pub label: Option<PairLabel>,
    /// Individual human votes, when the file has them (MT-bench human judgments).
    pub votes: Vec<PairVote>,
    pub line: usize,
}

/// A pairwise preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairLabel {
    /// Neither is better (meta-evaluation label 0).
    Tie,
    /// Output A / output_1 is better (label 1).
    A,
    /// Output B / output_2 is better (label 2).
    B,
}

impl PairLabel {
    /// Reads the meta-evaluation encoding 0 = tie, 1 = first, 2 = second.
    pub fn from_code(code: i64) -> Option<PairLabel> {
        match code {
            0 => Some(PairLabel::Tie),
            1 => Some(PairLabel::A),
            2 => Some(PairLabel::B),
            _ => None,
        }
    }
}

/// One rater's pairwise vote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairVote {
    pub rater: String,
    pub label: PairLabel,
}

/// An open-ended generation task (CoEval): what is asked, how the fields are called, and the
/// task-specific criteria.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenEndedTask {
    pub name: String,
    pub description: String,
    /// The name of the input field (`reddit question`, `story requirement`…).
    pub input_name: String,
    /// The name of the output field (`answer`, `story`…).
    pub output_name: String,
    pub criteria: Vec<String>,
}

/// What a human did with a machine evaluation of one item on one criterion.
///
/// Two CoEval releases fill it: the action files (`*_action.json`) give `actions`, one word
/// (`pass`, `revise`, `delete`, `add`) per point of ChatGPT's evaluation, in order; the
/// annotators' session logs (`A01.json`…) give `lines` verbatim and the start and end times,
/// and leave `actions` empty — the released action files were not derived from the lines by
/// any rule we could find (under the obvious one, 532 of A01's 1,000 reviews differ).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewAction {
    pub item_id: String,
    pub criterion: String,
    pub rater: String,
    pub actions: Vec<String>,
    /// Session logs: every line of the machine evaluation with what the rater did to it.
    #[serde(default)]
    pub lines: Vec<ReviewedLine>,
    /// Session logs: when the rater opened and closed this criterion, as released
    /// (`YYYY-MM-DD HH:MM:SS`); `None` where the log has no time (some hold `0`).
    #[serde(default)]
    pub start_time: Option<String>,
    #[serde(default)]
    pub end_time: Option<String>,
}

/// One line of a machine evaluation as a rater reviewed it in a CoEval session log, released
/// as `[text, pass, delete_reason, revise_reason, revised_text]`. A line the rater added has
/// empty `text`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewedLine {
    pub text: String,
    /// Non-empty when the rater approved the line (usually `"1"`; a few lines hold other text,
    /// which seed 004's own counts also treat as approval).
    pub pass: String,
    pub delete_reason: String,
    pub revise_reason: String,
    pub revised: String,
}

/// Outputs of one judge configuration over a dataset, as released by a paper or produced by a
/// run: per item the prompt sent and every raw response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeRun {
    /// Usually the file name (`gpt3.5_coh_geval.json`).
    pub name: String,
    /// The attribute judged, when the file says (Chiang & Lee file names do: `coh`, `nat`…).
    pub attribute: Option<String>,
    pub records: Vec<JudgeRecord>,
}

/// One item's judging: the prompt and the raw responses (Chiang & Lee sample 20 per item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    pub key: RecordKey,
    pub prompt: Option<String>,
    /// The prompt's length in characters when the text itself is not kept: a run collected in
    /// the browser renders its prompts again when shown or exported (40,000 prompts of a large
    /// run are not held twice), and cost estimates read this. Always written (the worker's
    /// postcard frames have no field names, so no field may be skipped); absent in older files.
    #[serde(default)]
    pub prompt_chars: Option<usize>,
    pub responses: Vec<String>,
    /// Indices of `responses` the provider cut off at the token limit (`finish_reason:
    /// length`): a rating missing from one of them says "raise the limit", not "the judge did
    /// not rate". Always written (see `prompt_chars`); absent in older files and in released
    /// outputs, which do not say.
    #[serde(default)]
    pub cut_off: Vec<usize>,
    /// The log-probabilities of each response's digit-bearing tokens, parallel to `responses`
    /// (empty when the run asked for none, or the provider returned none): what a
    /// probability-weighted method weighs the rating by. Always written (see `prompt_chars`).
    #[serde(default)]
    pub logprobs: Vec<Vec<crate::judge::aggregate::ScoreToken>>,
    /// The reasoning tokens each response cost, parallel to `responses` (a call's reported
    /// count shared among its samples), empty when the provider reported none: a reasoning
    /// model's thinking is billed as output though no response shows it. Always written (see
    /// `prompt_chars`).
    #[serde(default)]
    pub reasoning_tokens: Vec<u64>,
    /// Scores already parsed by the file's authors (UniEval `predict_scores`, meta-evaluation
    /// `score`), by attribute name; the response parser fills this for raw runs.
    pub parsed: Vec<(String, f64)>,
    pub line: usize,
    /// What a meta-evaluator record says beyond its texts (seed 003's JDEval, JDEval-i and
    /// BSMEval files); `None` for every other run.
    #[serde(default)]
    pub meta: Option<MetaAssessment>,
    /// The provider calls that answered `responses`, in order, as they were made: how many
    /// responses each answered, the tokens the provider reported for it and whether it went
    /// through a provider's batch API. What the cost–quality view prices (reported tokens beat
    /// the estimate; batch calls at the batch discount). Empty for released outputs, imports
    /// and records made before Concord kept it; responses no call covers are estimated. Always
    /// written, and last (see `prompt_chars`).
    #[serde(default)]
    pub calls: Vec<CallUsage>,
}

/// One provider call behind some of a record's responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallUsage {
    /// How many of the record's responses it answered: the next ones, in order.
    pub samples: u32,
    /// The tokens the provider reported for the whole call; `None` when it reported none.
    pub tokens: Option<ReportedTokens>,
    /// Answered through a provider's batch API, which bills at the batch discount
    /// (`run::batch::BATCH_DISCOUNT`).
    pub batch: bool,
}

/// Token counts a provider reported for one call (`usage`), as it reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedTokens {
    pub prompt_tokens: u64,
    /// Every generated token billed as output, reasoning included.
    pub completion_tokens: u64,
    /// Of the completion tokens, those spent reasoning.
    pub reasoning_tokens: u64,
}

/// The fields of a meta-evaluator record (seed 003) that are not raw responses: who was
/// assessed, and the release's own cleaned verdicts and branch scores, kept verbatim.
///
/// The record's `responses` keep every text in file order:
/// * JDEval (pairwise): `result_evaluator_1`, `result_evaluator_2`, then `meta_eval_result`;
///   `evaluators` is `[evaluator_1, evaluator_2]` (Assistant 1 and 2 of the meta prompt), and
///   `winner` / `better_response` are the release's cleaned verdicts. They are not always what
///   the tags of `meta_eval_result` say: the cleaned field always has a verdict, while e.g. 95 of
///   qwen7b's 300 meta responses have no readable `<Better_assistant>` tag.
/// * JDEval-i (pointwise): `result_evaluator`, then `meta_eval_result`; `evaluators` is
///   `[evaluator]`; the scores are in `parsed` (`score_for_text`, `score_for_evaluator`).
/// * BSMEval (pointwise, branch–solve–merge): `result_evaluator`, then one response per branch
///   (each branch is a criterion the meta-evaluator generated and judged on its own); `branches`
///   pairs each branch response with its released score (`scores`), and `parsed` holds their
///   merged mean (`score_for_evaluator`). The generated criteria themselves are only named inside
///   the branch texts: the release has no separate field for them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaAssessment {
    /// `meta_evaluator` when the record names it (JDEval records do not; their file names do).
    pub meta_evaluator: Option<String>,
    /// The assessed evaluators, in prompt order.
    pub evaluators: Vec<String>,
    /// JDEval's cleaned verdict on the better assessor (`winner`: `Assistant1`, `Assistant 2`,
    /// `equally good`, …), as released.
    pub winner: Option<String>,
    /// JDEval's cleaned choice between the two answers (`better_response`: `AnswerA`,
    /// `Answer2`, `equally good`, …), as released.
    pub better_response: Option<String>,
    /// BSMEval's branches in order; empty for the other protocols.
    pub branches: Vec<MetaBranch>,
}

/// One branch of a BSMEval meta-evaluation: the meta-evaluator's response for one generated
/// criterion and the score read from it by the release (`None` where the release has none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetaBranch {
    pub response: String,
    pub score: Option<f64>,
}

/// How a judge record names the item it judged.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKey {
    /// A pointwise item by document + system.
    Item(ItemKey),
    /// A pairwise or scoring item by its id in the dataset.
    Id(String),
}

/// A short, stable identifier for a text: 16 hex digits of its 64-bit FNV-1a hash.
///
/// Used as the document id of files that have none (Topical-Chat, CoEval), so the dataset and
/// each released result file — which carry the same dialogue text — agree on the key.
pub fn content_id(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn mean_sums_in_input_order() {
        // 0.1 + 0.2 + 0.3 in this order is 0.6000000000000001 / 3; another order differs in
        // the last bit, which is exactly what would break tie detection.
        let m = mean_in_order(&[0.1, 0.2, 0.3]).unwrap();
        assert_eq!(m, (0.1 + 0.2 + 0.3) / 3.0);
        assert_eq!(mean_in_order(&[]), None);
        assert_eq!(mean_in_order(&[4.0, 5.0]), Some(4.5));
    }

    #[test]
    fn content_id_is_fnv1a() {
        // Reference values of 64-bit FNV-1a.
        assert_eq!(content_id(""), "cbf29ce484222325");
        assert_eq!(content_id("a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn fields_lookup_prefers_exact_case() {
        let mut f = Fields::default();
        f.push("document", "lower");
        f.push("Document", "upper");
        assert_eq!(f.get("Document"), Some("upper"));
        assert_eq!(f.get("DOCUMENT"), Some("lower"));
        assert_eq!(f.get("fact"), None);
    }
}
