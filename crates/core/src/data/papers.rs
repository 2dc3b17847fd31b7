//! Loaders for the record shapes the papers release: SummEval (G-Eval and PPairS shapes),
//! Topical-Chat, Chiang & Lee result files, UniEval predictions, meta-evaluation datasets and
//! evaluator / meta-evaluator results, and the lmsys MT-bench human judgments.
//!
//! Every loader takes already-split JSON records (see [`super::text`]) and returns what it could
//! read; each skipped record or dropped value leaves a diagnostic with its line and field.

use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;

use super::diag::Diagnostic;
use super::model::{
    Attribute, Dataset, Fields, HumanRating, ItemKey, JudgeRecord, JudgeRun, MetaAssessment,
    MetaBranch, PairLabel, PairVote, PairwiseItem, RatingItem, RecordKey, Scale, ScaleKind,
    content_id,
};
use super::text::{Fielder, Obj, Record, Scalar, clip, scalar};

/// The declared scale of a known attribute, by dataset family.
pub(crate) fn known_scale(family: Family, attribute: &str) -> Option<Scale> {
    match (family, attribute) {
        (Family::SummEval, "coherence" | "consistency" | "fluency" | "relevance") => {
            Some(Scale::likert(1.0, 5.0))
        }
        (Family::TopicalChat, "naturalness" | "coherence" | "engagingness") => {
            Some(Scale::likert(1.0, 3.0))
        }
        (Family::TopicalChat, "groundedness" | "understandability") => Some(Scale::BINARY),
        (Family::TopicalChat, "overall") => Some(Scale::likert(1.0, 5.0)),
        (Family::CoEval, _) => Some(Scale::likert(1.0, 5.0)),
        _ => None,
    }
}

/// Which paper's conventions (attribute scales) apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    SummEval,
    TopicalChat,
    CoEval,
    Other,
}

/// Collects attributes as they are first seen, checks values against declared scales and
/// derives the scale of undeclared attributes from the observed values.
pub(crate) struct Attributes {
    family: Family,
    list: Vec<(String, Option<Scale>, f64, f64, bool)>,
}

impl Attributes {
    pub(crate) fn new(family: Family) -> Self {
        Attributes { family, list: Vec::new() }
    }

    pub(crate) fn index(&mut self, name: &str) -> usize {
        if let Some(i) = self.list.iter().position(|a| a.0 == name) {
            return i;
        }
        let scale = known_scale(self.family, name);
        self.list.push((name.to_owned(), scale, f64::INFINITY, f64::NEG_INFINITY, true));
        self.list.len() - 1
    }

    /// Records `value` for attribute `i`; `false` (and a diagnostic) when it is off-scale.
    pub(crate) fn accept(
        &mut self,
        i: usize,
        value: f64,
        at: &Fielder<'_>,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> bool {
        let a = &mut self.list[i];
        if let Some(s) = a.1
            && !s.contains(value)
        {
            diags.push(Diagnostic::warning(
                at.file,
                Some(at.line),
                Some(field),
                format!("{value} is outside the {} scale {}–{}; dropped", a.0, s.min, s.max),
            ));
            return false;
        }
        a.2 = a.2.min(value);
        a.3 = a.3.max(value);
        a.4 &= value.fract() == 0.0;
        true
    }

    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn finish(self) -> Vec<Attribute> {
        self.list
            .into_iter()
            .map(|(name, scale, lo, hi, integral)| {
                let scale = scale.unwrap_or(if lo > hi {
                    Scale { min: 0.0, max: 0.0, kind: ScaleKind::Continuous }
                } else if integral {
                    Scale::likert(lo, hi)
                } else {
                    Scale { min: lo, max: hi, kind: ScaleKind::Continuous }
                });
                Attribute::new(name, scale)
            })
            .collect()
    }
}

/// Pads every item's ratings to the final attribute count (attributes first seen late).
fn pad(items: &mut [RatingItem], n: usize) {
    for item in items {
        item.ratings.resize(n, None);
    }
}

/// Rejects a second item with the same (document, system): joins are by key, so a duplicate
/// key would make every join ambiguous.
struct Keys(HashSet<ItemKey>);

impl Keys {
    fn fresh(&mut self, key: ItemKey, at: &Fielder<'_>, diags: &mut Vec<Diagnostic>) -> bool {
        if self.0.insert(key.clone()) {
            return true;
        }
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            None,
            format!(
                "duplicate item (document {}, system {}); the first one is kept",
                clip(&key.document),
                key.system
            ),
        ));
        false
    }
}

/// Fields that are metadata, not inputs, in the pointwise shapes.
const NOT_INPUT: &[&str] = &[
    "doc_id",
    "system_id",
    "system_output",
    "scores",
    "prompt",
    "all_responses",
    "predict_scores",
];

/// The attribute a Chiang & Lee result file judges, from its name (`gpt3.5_coh_geval.json`).
pub(crate) fn attribute_from_file_name(file: &str) -> Option<String> {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.split(['_', '.', '-']).find_map(|part| {
        let full = match part {
            "coh" => "coherence",
            "con" => "consistency",
            "flu" => "fluency",
            "rel" => "relevance",
            "nat" => "naturalness",
            "eng" => "engagingness",
            "gro" => "groundedness",
            "und" => "understandability",
            _ => return None,
        };
        Some(full.to_owned())
    })
}

/// SummEval (G-Eval shape), Topical-Chat, Chiang & Lee results and UniEval predictions: one
/// object per item with `system_id`, `system_output`, `scores{…}`, input text fields, and
/// optionally `prompt` + `all_responses` (a judge run) or `predict_scores` (parsed predictions).
pub(crate) fn pointwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, Option<JudgeRun>) {
    // From the first item record (one with `system_output`): a stray record first, object or
    // not, must not decide the scales.
    let family = records
        .iter()
        .filter_map(|r| Obj::parse(r.raw))
        .find(|o| o.has("system_output"))
        .map_or(Family::Other, |o| {
            if o.has("doc_id") { Family::SummEval } else { Family::TopicalChat }
        });
    let mut attrs = Attributes::new(family);
    let mut items = Vec::with_capacity(records.len());
    let mut run: Option<JudgeRun> = None;
    let mut keys = Keys(HashSet::new());
    each_object(file, records, diags, |at, obj, diags| {
        let (Some(system_id), Some(output)) =
            (at.text(obj, "system_id", diags), at.text(obj, "system_output", diags))
        else {
            return;
        };
        let mut inputs = Fields::default();
        for (k, raw) in &obj.0 {
            if NOT_INPUT.contains(&k.as_ref()) {
                continue;
            }
            if let Scalar::Text(t) = scalar(raw) {
                inputs.push(k.clone(), t);
            }
        }
        let document_id = match obj.get("doc_id") {
            Some(_) => match at.text(obj, "doc_id", diags) {
                Some(d) => d,
                None => return,
            },
            None => match inputs.get("source") {
                Some(source) => content_id(source),
                None => {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(at.line),
                        Some("source"),
                        "missing field `source`; record skipped".to_owned(),
                    ));
                    return;
                }
            },
        };
        let key = ItemKey { document: document_id.clone(), system: system_id.clone() };
        if !keys.fresh(key.clone(), at, diags) {
            return;
        }
        let mut ratings = vec![None; attrs.len()];
        if let Some(scores) = obj.get("scores") {
            read_scores(at, scores, "scores", &mut attrs, &mut ratings, diags);
        }
        if obj.has("all_responses") || obj.has("predict_scores") {
            let run = run.get_or_insert_with(|| JudgeRun {
                name: file.to_owned(),
                attribute: attribute_from_file_name(file),
                records: Vec::new(),
            });
            let responses = if obj.has("all_responses") {
                at.strings(obj, "all_responses", diags).unwrap_or_default()
            } else {
                Vec::new()
            };
            let mut parsed = Vec::new();
            if let Some(Ok(pred)) =
                obj.get("predict_scores").map(|r| serde_json::from_str::<Obj<'_>>(r.get()))
            {
                for (k, raw) in &pred.0 {
                    if let Some(x) = at.number(Some(raw), &format!("predict_scores.{k}"), diags) {
                        parsed.push((k.to_string(), x));
                    }
                }
            }
            run.records.push(JudgeRecord {
                key: RecordKey::Item(key),
                prompt: at.opt_text(obj, "prompt", diags),
                prompt_chars: None,
                responses,
                cut_off: Vec::new(),
                logprobs: Vec::new(),
                reasoning_tokens: Vec::new(),
                parsed,
                line: at.line,
                meta: None,
                calls: Vec::new(),
            });
        }
        items.push(RatingItem {
            id: format!("{document_id}/{system_id}"),
            document_id,
            system_id,
            task: None,
            inputs,
            output_name: "system_output".to_owned(),
            output,
            ratings,
            line: at.line,
        });
    });
    pad(&mut items, attrs.len());
    let dataset =
        Dataset { name: file.to_owned(), attributes: attrs.finish(), items, ..Dataset::default() };
    (dataset, run)
}

/// Reads a `{attribute: number}` object into `ratings` (released aggregates).
fn read_scores(
    at: &Fielder<'_>,
    raw: &RawValue,
    field: &str,
    attrs: &mut Attributes,
    ratings: &mut Vec<Option<HumanRating>>,
    diags: &mut Vec<Diagnostic>,
) {
    let Ok(scores) = serde_json::from_str::<Obj<'_>>(raw.get()) else {
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            Some(field),
            format!("`{field}` should be an object of numbers"),
        ));
        return;
    };
    for (k, v) in &scores.0 {
        let name = format!("{field}.{k}");
        let Some(x) = at.number(Some(v), &name, diags) else { continue };
        let i = attrs.index(k);
        if ratings.len() <= i {
            ratings.resize(i + 1, None);
        }
        if attrs.accept(i, x, at, &name, diags) {
            ratings[i] = Some(HumanRating::released(x));
        }
    }
}

/// SummEval in PPairS' shape: `article_id`, `summary_id`, `article`, `summary`, then one
/// numeric field per attribute (already the mean of 3 experts).
pub(crate) fn ppairs(file: &str, records: &[Record<'_>], diags: &mut Vec<Diagnostic>) -> Dataset {
    let mut attrs = Attributes::new(Family::SummEval);
    let mut items = Vec::with_capacity(records.len());
    let mut keys = Keys(HashSet::new());
    each_object(file, records, diags, |at, obj, diags| {
        let (Some(doc), Some(sys), Some(article), Some(summary)) = (
            at.text(obj, "article_id", diags),
            at.text(obj, "summary_id", diags),
            at.text(obj, "article", diags),
            at.text(obj, "summary", diags),
        ) else {
            return;
        };
        if !keys.fresh(ItemKey { document: doc.clone(), system: sys.clone() }, at, diags) {
            return;
        }
        let mut ratings = vec![None; attrs.len()];
        for (k, raw) in &obj.0 {
            if matches!(k.as_ref(), "article_id" | "summary_id" | "article" | "summary") {
                continue;
            }
            let Some(x) = at.number(Some(raw), k, diags) else { continue };
            let i = attrs.index(k);
            if ratings.len() <= i {
                ratings.resize(i + 1, None);
            }
            if attrs.accept(i, x, at, k, diags) {
                ratings[i] = Some(HumanRating::released(x));
            }
        }
        let mut inputs = Fields::default();
        inputs.push("article", article);
        items.push(RatingItem {
            id: format!("{doc}/{sys}"),
            document_id: doc,
            system_id: sys,
            task: None,
            inputs,
            output_name: "summary".to_owned(),
            output: summary,
            ratings,
            line: at.line,
        });
    });
    pad(&mut items, attrs.len());
    Dataset { name: file.to_owned(), attributes: attrs.finish(), items, ..Dataset::default() }
}

/// The id of a pair: a content hash of input and both outputs, so a dataset and an evaluator's
/// result file over the same pairs agree without sharing row numbers.
pub(crate) fn pair_id(input: &str, a: &str, b: &str) -> String {
    content_id(&format!("{input}\u{1f}{a}\u{1f}{b}"))
}

fn label_of(
    at: &Fielder<'_>,
    obj: &Obj<'_>,
    field: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<PairLabel> {
    let code = at.number(obj.get(field), field, diags)?;
    let label = if code.fract() == 0.0 { PairLabel::from_code(code as i64) } else { None };
    if label.is_none() {
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            Some(field),
            format!("label {code} is not 0 (tie), 1 or 2; left unknown"),
        ));
    }
    label
}

/// Pairwise items under the given field names; shared by the datasets (`input`, `output_1`,
/// `output_2`) and the evaluator results (`question`, `answer1`, `answer2`).
fn pair_from(
    at: &Fielder<'_>,
    obj: &Obj<'_>,
    names: [&str; 3],
    diags: &mut Vec<Diagnostic>,
) -> Option<PairwiseItem> {
    let (Some(input), Some(a), Some(b)) = (
        at.text(obj, names[0], diags),
        at.text(obj, names[1], diags),
        at.text(obj, names[2], diags),
    ) else {
        return None;
    };
    let label = label_of(at, obj, "label", diags);
    let mut inputs = Fields::default();
    let id = pair_id(&input, &a, &b);
    inputs.push(names[0], input);
    Some(PairwiseItem {
        id,
        inputs,
        output_a: a,
        output_b: b,
        model_a: None,
        model_b: None,
        label,
        votes: Vec::new(),
        line: at.line,
    })
}

/// Every record that is a JSON object, with a field reader naming its line; the others are
/// skipped with a diagnostic. The one loop every record loader runs.
fn each_object<'a>(
    file: &str,
    records: &[Record<'a>],
    diags: &mut Vec<Diagnostic>,
    mut read: impl FnMut(&Fielder<'_>, &Obj<'a>, &mut Vec<Diagnostic>),
) {
    for rec in records {
        let at = Fielder { file, line: rec.line };
        match Obj::parse(rec.raw) {
            Some(obj) => read(&at, &obj, diags),
            None => diags.push(Diagnostic::warning(
                file,
                Some(rec.line),
                None,
                "record is not a JSON object; skipped".to_owned(),
            )),
        }
    }
}

/// The pairs of a file, each kept once (the same pair twice would double-count it).
#[derive(Default)]
struct Pairs {
    list: Vec<PairwiseItem>,
    seen: HashSet<String>,
}

impl Pairs {
    /// Reads the pair under `names` ([`pair_from`]); returns its id and whether it was new. A
    /// repeat is reported when `repeats_are_odd` (in a meta-evaluator file the same pair is
    /// judged once per evaluator couple, so repeats are expected there).
    fn read(
        &mut self,
        at: &Fielder<'_>,
        obj: &Obj<'_>,
        names: [&str; 3],
        repeats_are_odd: bool,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<(String, bool)> {
        let pair = pair_from(at, obj, names, diags)?;
        let id = pair.id.clone();
        let fresh = self.seen.insert(id.clone());
        if fresh {
            self.list.push(pair);
        } else if repeats_are_odd {
            diags.push(Diagnostic::warning(
                at.file,
                Some(at.line),
                None,
                "the same pair (input and both outputs) appears again; the first is kept"
                    .to_owned(),
            ));
        }
        Some((id, fresh))
    }

    fn finish(self, file: &str) -> Dataset {
        Dataset { name: file.to_owned(), pairs: self.list, ..Dataset::default() }
    }
}

/// meta-evaluation pairwise datasets (MT-bench, LLMBar): `input`, `output_1`, `output_2`,
/// `label` (0 = tie, 1, 2).
pub(crate) fn pairwise(file: &str, records: &[Record<'_>], diags: &mut Vec<Diagnostic>) -> Dataset {
    let mut pairs = Pairs::default();
    each_object(file, records, diags, |at, obj, diags| {
        pairs.read(at, obj, ["input", "output_1", "output_2"], true, diags);
    });
    pairs.finish(file)
}

/// Builds scoring items (one text, one gold score); the document id is the text's content hash,
/// with `#2`, `#3`… for repeats of the same text, so results files in the same order join.
struct ScoringItems {
    attrs: Attributes,
    items: Vec<RatingItem>,
    seen: HashMap<String, usize>,
}

impl ScoringItems {
    fn new() -> Self {
        ScoringItems {
            attrs: Attributes::new(Family::Other),
            items: Vec::new(),
            seen: HashMap::new(),
        }
    }

    /// Reads a record's `text` and its gold score under `gold_field`; the item's key, or
    /// `None` (and a diagnostic) when the record has no text.
    fn read(
        &mut self,
        at: &Fielder<'_>,
        obj: &Obj<'_>,
        gold_field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<ItemKey> {
        let text = at.text(obj, "text", diags)?;
        let gold = at.number(obj.get(gold_field), gold_field, diags);
        let base = content_id(&text);
        let n = self.seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let document_id = if *n == 1 { base } else { format!("{base}#{n}") };
        let i = self.attrs.index("score");
        let rating = gold
            .filter(|&x| self.attrs.accept(i, x, at, gold_field, diags))
            .map(HumanRating::released);
        let key = ItemKey { document: document_id.clone(), system: "text".to_owned() };
        self.items.push(RatingItem {
            id: document_id.clone(),
            document_id,
            system_id: "text".to_owned(),
            task: None,
            inputs: Fields::default(),
            output_name: "text".to_owned(),
            output: text,
            ratings: vec![rating],
            line: at.line,
        });
        Some(key)
    }

    fn finish(self, file: &str) -> Dataset {
        Dataset {
            name: file.to_owned(),
            attributes: self.attrs.finish(),
            items: self.items,
            ..Dataset::default()
        }
    }
}

/// The judge run of a results file, one record per judged item or pair.
struct RunRecords(JudgeRun);

impl RunRecords {
    fn new(file: &str) -> Self {
        RunRecords(JudgeRun { name: file.to_owned(), attribute: None, records: Vec::new() })
    }

    /// One record: the file's `prompt` when it has one, the given responses and the numbers of
    /// the `parsed` fields that are present. Returns it, for the caller to add meta fields.
    fn push(
        &mut self,
        at: &Fielder<'_>,
        obj: &Obj<'_>,
        key: RecordKey,
        responses: Vec<String>,
        parsed: &[&str],
        diags: &mut Vec<Diagnostic>,
    ) -> &mut JudgeRecord {
        let parsed = parsed
            .iter()
            .filter_map(|&f| at.number(obj.get(f), f, diags).map(|x| (f.to_owned(), x)))
            .collect();
        let records = &mut self.0.records;
        records.push(JudgeRecord {
            key,
            prompt: at.opt_text(obj, "prompt", diags),
            prompt_chars: None,
            responses,
            cut_off: Vec::new(),
            logprobs: Vec::new(),
            reasoning_tokens: Vec::new(),
            parsed,
            line: at.line,
            meta: None,
            calls: Vec::new(),
        });
        let last = records.len() - 1;
        &mut records[last]
    }
}

/// The optional text fields present, in the given order.
fn texts(
    at: &Fielder<'_>,
    obj: &Obj<'_>,
    fields: &[&str],
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    fields.iter().filter_map(|f| at.opt_text(obj, f, diags)).collect()
}

/// meta-evaluation scoring datasets (OpenMEVA, SummEval coherence): `text`, `score`.
pub(crate) fn scoring(file: &str, records: &[Record<'_>], diags: &mut Vec<Diagnostic>) -> Dataset {
    let mut out = ScoringItems::new();
    each_object(file, records, diags, |at, obj, diags| {
        out.read(at, obj, "score", diags);
    });
    out.finish(file)
}

/// meta-evaluation evaluator results, pointwise: `text`, gold `label`, the judge's `prompt`,
/// `response` and parsed `score`.
pub(crate) fn evaluator_pointwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut out = ScoringItems::new();
    let mut run = RunRecords::new(file);
    each_object(file, records, diags, |at, obj, diags| {
        let Some(key) = out.read(at, obj, "label", diags) else { return };
        let responses = texts(at, obj, &["response"], diags);
        run.push(at, obj, RecordKey::Item(key), responses, &["score"], diags);
    });
    (out.finish(file), run.0)
}

/// meta-evaluation evaluator results, pairwise: `question`, `answer1`, `answer2`, gold `label`,
/// the judge's `prompt`, `response` and parsed `winner`.
pub(crate) fn evaluator_pairwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut pairs = Pairs::default();
    let mut run = RunRecords::new(file);
    each_object(file, records, diags, |at, obj, diags| {
        let Some((id, true)) = pairs.read(at, obj, ["question", "answer1", "answer2"], true, diags)
        else {
            return;
        };
        let responses = texts(at, obj, &["response"], diags);
        run.push(at, obj, RecordKey::Id(id), responses, &["winner"], diags);
    });
    (pairs.finish(file), run.0)
}

/// `meta_eval_result`: one string (JDEval, JDEval-i) or an array of branch responses (BSMEval),
/// with the branch scores (`scores`) when it is an array.
fn meta_result(
    at: &Fielder<'_>,
    obj: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<String>, Vec<MetaBranch>) {
    match obj.get("meta_eval_result").map(scalar) {
        Some(Scalar::Text(t)) => (vec![t], Vec::new()),
        Some(Scalar::Nested(_)) => {
            let responses = at.strings(obj, "meta_eval_result", diags).unwrap_or_default();
            let scores = branch_scores(at, obj, diags);
            // A merge response after the branches has no score of its own: worth saying, not
            // a fault.
            if !scores.is_empty() && scores.len() != responses.len() {
                diags.push(Diagnostic::info(
                    at.file,
                    Some(at.line),
                    Some("scores"),
                    format!(
                        "{} branch scores for {} branch responses; unmatched ones are left without a score",
                        scores.len(),
                        responses.len()
                    ),
                ));
            }
            let branches = responses
                .iter()
                .enumerate()
                .map(|(i, r)| MetaBranch {
                    response: r.clone(),
                    score: scores.get(i).copied().flatten(),
                })
                .collect();
            (responses, branches)
        }
        _ => (Vec::new(), Vec::new()),
    }
}

/// BSMEval's per-branch `scores` (numbers or numeric strings; `""` is no score).
fn branch_scores(at: &Fielder<'_>, obj: &Obj<'_>, diags: &mut Vec<Diagnostic>) -> Vec<Option<f64>> {
    let Some(raw) = obj.get("scores") else { return Vec::new() };
    match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
        Ok(elems) => elems
            .into_iter()
            .enumerate()
            .map(|(i, e)| at.number(Some(e), &format!("scores[{i}]"), diags))
            .collect(),
        Err(_) => {
            diags.push(Diagnostic::warning(
                at.file,
                Some(at.line),
                Some("scores"),
                "`scores` should be an array of numbers; ignored".to_owned(),
            ));
            Vec::new()
        }
    }
}

/// meta-evaluator results, pairwise (JDEval over LLMBar): the pair, two evaluators' verdicts,
/// the meta-evaluator's judgement of them, who the two evaluators were and the release's
/// cleaned verdicts ([`MetaAssessment`]).
pub(crate) fn meta_pairwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut pairs = Pairs::default();
    let mut run = RunRecords::new(file);
    each_object(file, records, diags, |at, obj, diags| {
        // The same pair is meta-evaluated for several evaluator couples, so records repeat ids.
        let Some((id, _)) = pairs.read(at, obj, ["question", "answer1", "answer2"], false, diags)
        else {
            return;
        };
        let mut responses = texts(at, obj, &["result_evaluator_1", "result_evaluator_2"], diags);
        responses.extend(meta_result(at, obj, diags).0);
        let meta = MetaAssessment {
            meta_evaluator: at.opt_text(obj, "meta_evaluator", diags),
            evaluators: texts(at, obj, &["evaluator_1", "evaluator_2"], diags),
            winner: at.opt_text(obj, "winner", diags),
            better_response: at.opt_text(obj, "better_response", diags),
            branches: Vec::new(),
        };
        run.push(at, obj, RecordKey::Id(id), responses, &[], diags).meta = Some(meta);
    });
    (pairs.finish(file), run.0)
}

/// meta-evaluator results, pointwise (JDEval-i, BSMEval): a scored text, the evaluator's
/// verdict and the meta-evaluator's judgement of it (one response, or one per BSMEval branch
/// with its score).
pub(crate) fn meta_pointwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut out = ScoringItems::new();
    let mut run = RunRecords::new(file);
    each_object(file, records, diags, |at, obj, diags| {
        let Some(key) = out.read(at, obj, "label", diags) else { return };
        let mut responses = texts(at, obj, &["result_evaluator"], diags);
        let (meta_responses, branches) = meta_result(at, obj, diags);
        responses.extend(meta_responses);
        let meta = MetaAssessment {
            meta_evaluator: at.opt_text(obj, "meta_evaluator", diags),
            evaluators: texts(at, obj, &["evaluator"], diags),
            winner: None,
            better_response: None,
            branches,
        };
        let parsed = ["score_for_text", "score_for_evaluator", "score_meta_eval"];
        run.push(at, obj, RecordKey::Item(key), responses, &parsed, diags).meta = Some(meta);
    });
    (out.finish(file), run.0)
}

/// The text of a conversation's turns by role, joined by blank lines (lmsys `conversation_a`).
fn turns(
    at: &Fielder<'_>,
    obj: &Obj<'_>,
    field: &str,
    role: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let raw = obj.get(field)?;
    let Ok(messages) = serde_json::from_str::<Vec<Obj<'_>>>(raw.get()) else {
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            Some(field),
            format!("`{field}` should be a list of {{role, content}} messages"),
        ));
        return None;
    };
    let parts: Vec<String> = messages
        .iter()
        .filter(|m| matches!(m.get("role").map(scalar), Some(Scalar::Text(r)) if r == role))
        .filter_map(|m| match m.get("content").map(scalar) {
            Some(Scalar::Text(t)) => Some(t),
            _ => None,
        })
        .collect();
    Some(parts.join("\n\n"))
}

/// MT-bench human judgments in the lmsys shape: one record per (question, model pair, turn,
/// judge) with `winner` = `model_a` / `model_b` / `tie` / `tie (bothbad)`. Records of the same
/// comparison become one pair; its label is the majority vote, a split vote being a tie.
pub(crate) fn mt_bench_human(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> Dataset {
    let mut pairs: Vec<PairwiseItem> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    each_object(file, records, diags, |at, obj, diags| {
        let (Some(q), Some(ma), Some(mb), Some(winner)) = (
            at.text(obj, "question_id", diags),
            at.text(obj, "model_a", diags),
            at.text(obj, "model_b", diags),
            at.text(obj, "winner", diags),
        ) else {
            return;
        };
        let turn = at.opt_text(obj, "turn", diags).unwrap_or_else(|| "1".to_owned());
        let label = match winner.as_str() {
            "model_a" => PairLabel::A,
            "model_b" => PairLabel::B,
            w if w.starts_with("tie") => PairLabel::Tie,
            w => {
                diags.push(Diagnostic::warning(
                    file,
                    Some(at.line),
                    Some("winner"),
                    format!("unknown winner {:?}; vote skipped", clip(w)),
                ));
                return;
            }
        };
        // Human judges are named ("author_0"); the GPT-4 split names its judge as
        // ["gpt-4", "pair-v2"], which becomes "gpt-4/pair-v2".
        let judge = match obj.get("judge") {
            Some(raw) if raw.get().starts_with('[') => {
                at.strings_of(raw, "judge", diags).map(|parts| parts.join("/"))
            }
            _ => at.opt_text(obj, "judge", diags),
        };
        let rater = judge.unwrap_or_else(|| format!("line{}", at.line));
        let id = format!("{q}/{ma}/{mb}/turn{turn}");
        let i = match index.get(&id) {
            Some(&i) => i,
            None => {
                let mut inputs = Fields::default();
                inputs.push(
                    "question",
                    turns(at, obj, "conversation_a", "user", diags).unwrap_or_default(),
                );
                pairs.push(PairwiseItem {
                    id: id.clone(),
                    inputs,
                    output_a: turns(at, obj, "conversation_a", "assistant", diags)
                        .unwrap_or_default(),
                    output_b: turns(at, obj, "conversation_b", "assistant", diags)
                        .unwrap_or_default(),
                    model_a: Some(ma),
                    model_b: Some(mb),
                    label: None,
                    votes: Vec::new(),
                    line: at.line,
                });
                index.insert(id, pairs.len() - 1);
                pairs.len() - 1
            }
        };
        pairs[i].votes.push(PairVote { rater, label });
    });
    for p in &mut pairs {
        p.label = majority(&p.votes);
    }
    Dataset { name: file.to_owned(), pairs, ..Dataset::default() }
}

fn majority(votes: &[PairVote]) -> Option<PairLabel> {
    let count = |l| votes.iter().filter(|v| v.label == l).count();
    let (a, b, t) = (count(PairLabel::A), count(PairLabel::B), count(PairLabel::Tie));
    if votes.is_empty() {
        None
    } else if a > b && a > t {
        Some(PairLabel::A)
    } else if b > a && b > t {
        Some(PairLabel::B)
    } else {
        Some(PairLabel::Tie)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn attribute_from_chiang_lee_file_names() {
        let check = |file: &str, want: Option<&str>| {
            assert_eq!(attribute_from_file_name(file).as_deref(), want, "{file}");
        };
        check("results/topical_chat/gpt3.5_coh_geval.json", Some("coherence"));
        check("gpt3.5_gro_rate_explain_auto_cot.json", Some("groundedness"));
        check("gpt3.5_nat_llm_eval_no_cot.json", Some("naturalness"));
        check("gpt4_rel_detailed.json", Some("relevance"));
        check("topical_chat.json", None);
    }

    #[test]
    fn majority_vote_ties_on_split() {
        let v = |l| PairVote { rater: String::new(), label: l };
        assert_eq!(
            majority(&[v(PairLabel::A), v(PairLabel::A), v(PairLabel::B)]),
            Some(PairLabel::A)
        );
        assert_eq!(majority(&[v(PairLabel::A), v(PairLabel::B)]), Some(PairLabel::Tie));
        assert_eq!(majority(&[]), None);
    }
}
