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
    Attribute, Dataset, Fields, HumanRating, ItemKey, JudgeRecord, JudgeRun, PairLabel, PairVote,
    PairwiseItem, RatingItem, RecordKey, Scale, ScaleKind, content_id,
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
                Attribute { name, scale }
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
    let family = records.first().and_then(|r| Obj::parse(r.raw)).map_or(Family::Other, |o| {
        if o.has("doc_id") { Family::SummEval } else { Family::TopicalChat }
    });
    let mut attrs = Attributes::new(family);
    let mut items = Vec::with_capacity(records.len());
    let mut run: Option<JudgeRun> = None;
    let mut keys = Keys(HashSet::new());
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = Obj::parse(rec.raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(rec.line),
                None,
                "record is not a JSON object; skipped".to_owned(),
            ));
            continue;
        };
        let (Some(system_id), Some(output)) =
            (at.text(&obj, "system_id", diags), at.text(&obj, "system_output", diags))
        else {
            continue;
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
            Some(_) => match at.text(&obj, "doc_id", diags) {
                Some(d) => d,
                None => continue,
            },
            None => match inputs.get("source") {
                Some(source) => content_id(source),
                None => {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(rec.line),
                        Some("source"),
                        "missing field `source`; record skipped".to_owned(),
                    ));
                    continue;
                }
            },
        };
        let key = ItemKey { document: document_id.clone(), system: system_id.clone() };
        if !keys.fresh(key.clone(), &at, diags) {
            continue;
        }
        let mut ratings = vec![None; attrs.len()];
        if let Some(scores) = obj.get("scores") {
            read_scores(&at, scores, "scores", &mut attrs, &mut ratings, diags);
        }
        if obj.has("all_responses") || obj.has("predict_scores") {
            let run = run.get_or_insert_with(|| JudgeRun {
                name: file.to_owned(),
                attribute: attribute_from_file_name(file),
                records: Vec::new(),
            });
            let responses = if obj.has("all_responses") {
                at.strings(&obj, "all_responses", diags).unwrap_or_default()
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
                prompt: at.opt_text(&obj, "prompt", diags),
                responses,
                parsed,
                line: rec.line,
            });
        }
        items.push(RatingItem {
            id: format!("{}/{}", short(&document_id), system_id),
            document_id,
            system_id,
            task: None,
            inputs,
            output_name: "system_output".to_owned(),
            output,
            ratings,
            line: rec.line,
        });
    }
    pad(&mut items, attrs.len());
    let dataset =
        Dataset { name: file.to_owned(), attributes: attrs.finish(), items, ..Dataset::default() };
    (dataset, run)
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
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
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = Obj::parse(rec.raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(rec.line),
                None,
                "record is not a JSON object; skipped".to_owned(),
            ));
            continue;
        };
        let (Some(doc), Some(sys), Some(article), Some(summary)) = (
            at.text(&obj, "article_id", diags),
            at.text(&obj, "summary_id", diags),
            at.text(&obj, "article", diags),
            at.text(&obj, "summary", diags),
        ) else {
            continue;
        };
        if !keys.fresh(ItemKey { document: doc.clone(), system: sys.clone() }, &at, diags) {
            continue;
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
            if attrs.accept(i, x, &at, k, diags) {
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
            line: rec.line,
        });
    }
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

/// Keeps the first pair per id (the same pair twice in one file would double-count it).
fn push_pair(
    pairs: &mut Vec<PairwiseItem>,
    seen: &mut HashSet<String>,
    pair: PairwiseItem,
    at: &Fielder<'_>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if seen.insert(pair.id.clone()) {
        pairs.push(pair);
        true
    } else {
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            None,
            "the same pair (input and both outputs) appears again; the first is kept".to_owned(),
        ));
        false
    }
}

/// meta-evaluation pairwise datasets (MT-bench, LLMBar): `input`, `output_1`, `output_2`,
/// `label` (0 = tie, 1, 2).
pub(crate) fn pairwise(file: &str, records: &[Record<'_>], diags: &mut Vec<Diagnostic>) -> Dataset {
    let mut pairs = Vec::new();
    let mut seen = HashSet::new();
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        if let Some(p) = pair_from(&at, &obj, ["input", "output_1", "output_2"], diags) {
            push_pair(&mut pairs, &mut seen, p, &at, diags);
        }
    }
    Dataset { name: file.to_owned(), pairs, ..Dataset::default() }
}

fn object<'a>(rec: &Record<'a>, file: &str, diags: &mut Vec<Diagnostic>) -> Option<Obj<'a>> {
    let o = Obj::parse(rec.raw);
    if o.is_none() {
        diags.push(Diagnostic::warning(
            file,
            Some(rec.line),
            None,
            "record is not a JSON object; skipped".to_owned(),
        ));
    }
    o
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

    fn push(
        &mut self,
        at: &Fielder<'_>,
        text: String,
        gold: Option<f64>,
        gold_field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> ItemKey {
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
        key
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

/// meta-evaluation scoring datasets (OpenMEVA, SummEval coherence): `text`, `score`.
pub(crate) fn scoring(file: &str, records: &[Record<'_>], diags: &mut Vec<Diagnostic>) -> Dataset {
    let mut out = ScoringItems::new();
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let Some(text) = at.text(&obj, "text", diags) else { continue };
        let score = at.number(obj.get("score"), "score", diags);
        out.push(&at, text, score, "score", diags);
    }
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
    let mut run = JudgeRun { name: file.to_owned(), attribute: None, records: Vec::new() };
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let Some(text) = at.text(&obj, "text", diags) else { continue };
        let gold = at.number(obj.get("label"), "label", diags);
        let key = out.push(&at, text, gold, "label", diags);
        let parsed = at
            .number(obj.get("score"), "score", diags)
            .map(|x| vec![("score".to_owned(), x)])
            .unwrap_or_default();
        run.records.push(JudgeRecord {
            key: RecordKey::Item(key),
            prompt: at.opt_text(&obj, "prompt", diags),
            responses: at.opt_text(&obj, "response", diags).into_iter().collect(),
            parsed,
            line: rec.line,
        });
    }
    (out.finish(file), run)
}

/// meta-evaluation evaluator results, pairwise: `question`, `answer1`, `answer2`, gold `label`,
/// the judge's `prompt`, `response` and parsed `winner`.
pub(crate) fn evaluator_pairwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut pairs = Vec::new();
    let mut seen = HashSet::new();
    let mut run = JudgeRun { name: file.to_owned(), attribute: None, records: Vec::new() };
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let Some(pair) = pair_from(&at, &obj, ["question", "answer1", "answer2"], diags) else {
            continue;
        };
        let id = pair.id.clone();
        if !push_pair(&mut pairs, &mut seen, pair, &at, diags) {
            continue;
        }
        let parsed = at
            .number(obj.get("winner"), "winner", diags)
            .map(|x| vec![("winner".to_owned(), x)])
            .unwrap_or_default();
        run.records.push(JudgeRecord {
            key: RecordKey::Id(id),
            prompt: at.opt_text(&obj, "prompt", diags),
            responses: at.opt_text(&obj, "response", diags).into_iter().collect(),
            parsed,
            line: rec.line,
        });
    }
    (Dataset { name: file.to_owned(), pairs, ..Dataset::default() }, run)
}

/// Reads `meta_eval_result`, which is one string (JDEval) or an array of strings (BSMEval).
fn meta_responses(at: &Fielder<'_>, obj: &Obj<'_>, diags: &mut Vec<Diagnostic>) -> Vec<String> {
    match obj.get("meta_eval_result").map(scalar) {
        Some(Scalar::Text(t)) => vec![t],
        Some(Scalar::Nested(_)) => at.strings(obj, "meta_eval_result", diags).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// meta-evaluator results, pairwise (JDEval over LLMBar): the pair, two evaluators' verdicts and
/// the meta-evaluator's judgement of them.
pub(crate) fn meta_pairwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut pairs = Vec::new();
    let mut seen = HashSet::new();
    let mut run = JudgeRun { name: file.to_owned(), attribute: None, records: Vec::new() };
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let Some(pair) = pair_from(&at, &obj, ["question", "answer1", "answer2"], diags) else {
            continue;
        };
        let id = pair.id.clone();
        if seen.insert(id.clone()) {
            pairs.push(pair);
        }
        // The same pair is meta-evaluated for several evaluator couples, so records repeat ids.
        let mut responses = Vec::new();
        for f in ["result_evaluator_1", "result_evaluator_2"] {
            responses.extend(at.opt_text(&obj, f, diags));
        }
        responses.extend(meta_responses(&at, &obj, diags));
        run.records.push(JudgeRecord {
            key: RecordKey::Id(id),
            prompt: None,
            responses,
            parsed: Vec::new(),
            line: rec.line,
        });
    }
    (Dataset { name: file.to_owned(), pairs, ..Dataset::default() }, run)
}

/// meta-evaluator results, pointwise (JDEval-i, BSMEval): a scored text, the evaluator's
/// verdict and the meta-evaluator's judgement of it.
pub(crate) fn meta_pointwise(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, JudgeRun) {
    let mut out = ScoringItems::new();
    let mut run = JudgeRun { name: file.to_owned(), attribute: None, records: Vec::new() };
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let Some(text) = at.text(&obj, "text", diags) else { continue };
        let gold = at.number(obj.get("label"), "label", diags);
        let key = out.push(&at, text, gold, "label", diags);
        let mut parsed = Vec::new();
        for f in ["score_for_text", "score_for_evaluator", "score_meta_eval"] {
            if let Some(x) = at.number(obj.get(f), f, diags) {
                parsed.push((f.to_owned(), x));
            }
        }
        let mut responses: Vec<String> =
            at.opt_text(&obj, "result_evaluator", diags).into_iter().collect();
        responses.extend(meta_responses(&at, &obj, diags));
        run.records.push(JudgeRecord {
            key: RecordKey::Item(key),
            prompt: None,
            responses,
            parsed,
            line: rec.line,
        });
    }
    (out.finish(file), run)
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
    for rec in records {
        let at = Fielder { file, line: rec.line };
        let Some(obj) = object(rec, file, diags) else { continue };
        let (Some(q), Some(ma), Some(mb), Some(winner)) = (
            at.text(&obj, "question_id", diags),
            at.text(&obj, "model_a", diags),
            at.text(&obj, "model_b", diags),
            at.text(&obj, "winner", diags),
        ) else {
            continue;
        };
        let turn = at.opt_text(&obj, "turn", diags).unwrap_or_else(|| "1".to_owned());
        let label = match winner.as_str() {
            "model_a" => PairLabel::A,
            "model_b" => PairLabel::B,
            w if w.starts_with("tie") => PairLabel::Tie,
            w => {
                diags.push(Diagnostic::warning(
                    file,
                    Some(rec.line),
                    Some("winner"),
                    format!("unknown winner {:?}; vote skipped", clip(w)),
                ));
                continue;
            }
        };
        // Human judges are named ("author_0"); the GPT-4 split names its judge as
        // ["gpt-4", "pair-v2"], which becomes "gpt-4/pair-v2".
        let judge = match obj.get("judge") {
            Some(raw) if raw.get().starts_with('[') => {
                at.strings_of(raw, "judge", diags).map(|parts| parts.join("/"))
            }
            _ => at.opt_text(&obj, "judge", diags),
        };
        let rater = judge.unwrap_or_else(|| format!("line{}", rec.line));
        let id = format!("{q}/{ma}/{mb}/turn{turn}");
        let i = match index.get(&id) {
            Some(&i) => i,
            None => {
                let mut inputs = Fields::default();
                inputs.push(
                    "question",
                    turns(&at, &obj, "conversation_a", "user", diags).unwrap_or_default(),
                );
                pairs.push(PairwiseItem {
                    id: id.clone(),
                    inputs,
                    output_a: turns(&at, &obj, "conversation_a", "assistant", diags)
                        .unwrap_or_default(),
                    output_b: turns(&at, &obj, "conversation_b", "assistant", diags)
                        .unwrap_or_default(),
                    model_a: Some(ma),
                    model_b: Some(mb),
                    label: None,
                    votes: Vec::new(),
                    line: rec.line,
                });
                index.insert(id, pairs.len() - 1);
                pairs.len() - 1
            }
        };
        pairs[i].votes.push(PairVote { rater, label });
    }
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
