//! Loaders for CoEval's releases: `combine_data.json` (three open-ended tasks with instances
//! and ChatGPT's criterion-wise evaluations), `*_annotator_scores.json` (per-rater 1–5 scores),
//! `*_action.json` (what each rater did with ChatGPT's evaluation) and the annotators' session
//! logs `A01.json` … `A15.json` (each line of ChatGPT's evaluation as reviewed, with times).
//!
//! CoEval has no document ids; items are keyed by a content hash of the task input, so the
//! three files agree on keys (see [`content_id`]).

use serde_json::value::RawValue;

use super::diag::Diagnostic;
use super::model::{
    Dataset, Fields, HumanRating, ItemKey, JudgeRecord, JudgeRun, OpenEndedTask, RaterScore,
    RatingItem, RecordKey, ReviewAction, ReviewedLine, content_id,
};
use super::papers::{Attributes, Family};
use super::text::{Fielder, LineCounter, Obj, Scalar, clip, scalar};

/// The rater id CoEval uses for ChatGPT's own score inside the annotator files; it is a judge,
/// not a human, so it becomes a judge run.
const CHATGPT: &str = "chatgpt";

fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// Which shape a top-level JSON object has, if it is one of CoEval's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Combined,
    AnnotatorScores,
    Actions,
    /// Per-annotator session logs (`A01.json`).
    Session,
}

/// Recognises CoEval's shapes from the first entries of a top-level object.
pub(crate) fn detect(top: &Obj<'_>) -> Option<Shape> {
    let (_, first) = top.0.first()?;
    let first = Obj::parse(first)?;
    if first.has("task_info") && first.has("criteria") {
        return Some(Shape::Combined);
    }
    // Session files: {"A01": {"1": {…, "criteria": {…}, "model": …}}}.
    let inner = first.0.first().and_then(|(_, inner)| Obj::parse(inner))?;
    if inner.has("criteria") && inner.has("model") {
        return Some(Shape::Session);
    }
    if inner.has("prediction") {
        let criterion = inner.0.iter().find(|(k, _)| k != "prediction")?;
        let per_rater = Obj::parse(criterion.1)?;
        let (_, v) = per_rater.0.first()?;
        return match v.get().as_bytes().first() {
            Some(b'[') => Some(Shape::Actions),
            _ => Some(Shape::AnnotatorScores),
        };
    }
    None
}

/// `combine_data.json`: per task, parallel arrays of instances plus criteria and ChatGPT's
/// evaluation text per criterion (one judge run per task and criterion).
pub(crate) fn combined(
    file: &str,
    text: &str,
    top: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, Vec<JudgeRun>) {
    let mut lines = LineCounter::new(text);
    let mut attrs = Attributes::new(Family::CoEval);
    let mut dataset = Dataset { name: file.to_owned(), ..Dataset::default() };
    let mut runs = Vec::new();
    for (task, raw) in &top.0 {
        let at = Fielder { file, line: lines.line_at(offset(text, raw)) };
        let Some(obj) = Obj::parse(raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(at.line),
                Some(task),
                format!("task `{task}` is not an object; skipped"),
            ));
            continue;
        };
        let list = |field: &str, diags: &mut Vec<Diagnostic>| -> Vec<String> {
            if !obj.has(field) {
                diags.push(Diagnostic::warning(
                    file,
                    Some(at.line),
                    Some(&format!("{task}.{field}")),
                    format!("task `{task}` has no `{field}`"),
                ));
                return Vec::new();
            }
            at.strings(&obj, field, diags).unwrap_or_default()
        };
        let (info, source_name, target_name) =
            (list("task_info", diags), list("source_name", diags), list("target_name", diags));
        let (source, target, model) =
            (list("source", diags), list("target", diags), list("model_name", diags));
        let criteria = list("criteria", diags);
        let n = source.len();
        if target.len() != n || model.len() != n {
            diags.push(Diagnostic::warning(
                file,
                Some(at.line),
                Some(task),
                format!(
                    "task `{task}`: source, target and model_name have {n}, {} and {} entries; only the first {} are used",
                    target.len(),
                    model.len(),
                    n.min(target.len()).min(model.len())
                ),
            ));
        }
        let n = n.min(target.len()).min(model.len());
        let pick = |v: &[String], i: usize, default: &str| {
            v.get(i).or(v.first()).cloned().unwrap_or_else(|| default.to_owned())
        };
        dataset.tasks.push(OpenEndedTask {
            name: task.to_string(),
            description: pick(&info, 0, ""),
            input_name: pick(&source_name, 0, "source"),
            output_name: pick(&target_name, 0, "target"),
            criteria: criteria.clone(),
        });
        for c in &criteria {
            attrs.index(c);
        }
        let first_item = dataset.items.len();
        for i in 0..n {
            let mut inputs = Fields::default();
            inputs.push(pick(&source_name, i, "source"), source[i].clone());
            let document_id = content_id(&source[i]);
            dataset.items.push(RatingItem {
                id: format!("{task}/{}/{}", &document_id[..8], model[i]),
                document_id,
                system_id: model[i].clone(),
                task: Some(task.to_string()),
                inputs,
                output_name: pick(&target_name, i, "target"),
                output: target[i].clone(),
                ratings: Vec::new(),
                line: at.line,
            });
        }
        if let Some(kv) = obj.get("criteria_kv").and_then(Obj::parse) {
            for (criterion, raw) in &kv.0 {
                let line = lines.line_at(offset(text, raw));
                let at = Fielder { file, line };
                let evaluations = at.strings(&kv, criterion, diags).unwrap_or_default();
                if evaluations.len() != n {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        Some(&clip(criterion)),
                        format!(
                            "{} evaluations for {n} instances; extra or missing ones ignored",
                            evaluations.len()
                        ),
                    ));
                }
                let records = evaluations
                    .into_iter()
                    .zip(&dataset.items[first_item..])
                    .map(|(e, item)| JudgeRecord {
                        key: RecordKey::Item(item.key()),
                        prompt: None,
                        prompt_chars: None,
                        responses: vec![e],
                        cut_off: Vec::new(),
                        logprobs: Vec::new(),
                        reasoning_tokens: Vec::new(),
                        parsed: Vec::new(),
                        line,
                        meta: None,
                        calls: Vec::new(),
                    })
                    .collect();
                runs.push(JudgeRun {
                    name: format!("{file}: {task}: ChatGPT"),
                    attribute: Some(criterion.to_string()),
                    records,
                });
            }
        }
    }
    let n = attrs.len();
    for item in &mut dataset.items {
        item.ratings = vec![None; n];
    }
    dataset.attributes = attrs.finish();
    (dataset, runs)
}

/// Walks `{question: {system: {prediction, criterion: {rater: value}}}}`, calling `per_rater`
/// for each (item index, criterion, rater, raw value).
fn walk<'a>(
    file: &str,
    text: &str,
    top: &Obj<'a>,
    dataset: &mut Dataset,
    diags: &mut Vec<Diagnostic>,
    mut per_rater: impl FnMut(usize, &str, &str, &'a RawValue, &Fielder<'_>, &mut Vec<Diagnostic>),
) {
    let mut lines = LineCounter::new(text);
    let task = task_of(file, None).map(str::to_owned);
    for (question, raw) in &top.0 {
        let at = Fielder { file, line: lines.line_at(offset(text, raw)) };
        let Some(systems) = Obj::parse(raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(at.line),
                None,
                "entry is not an object of systems; skipped".to_owned(),
            ));
            continue;
        };
        let document_id = content_id(question);
        for (system, raw) in &systems.0 {
            let at = Fielder { file, line: lines.line_at(offset(text, raw)) };
            let Some(entry) = Obj::parse(raw) else {
                diags.push(Diagnostic::warning(
                    file,
                    Some(at.line),
                    Some(system),
                    "system entry is not an object; skipped".to_owned(),
                ));
                continue;
            };
            let Some(prediction) = at.text(&entry, "prediction", diags) else { continue };
            let mut inputs = Fields::default();
            inputs.push("source", question.clone());
            let index = dataset.items.len();
            dataset.items.push(RatingItem {
                id: format!("{}/{system}", &document_id[..8]),
                document_id: document_id.clone(),
                system_id: system.to_string(),
                task: task.clone(),
                inputs,
                output_name: "prediction".to_owned(),
                output: prediction,
                ratings: Vec::new(),
                line: at.line,
            });
            for (criterion, raw) in &entry.0 {
                if criterion == "prediction" {
                    continue;
                }
                let Some(raters) = Obj::parse(raw) else {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(at.line),
                        Some(&clip(criterion)),
                        "criterion entry is not an object of raters; skipped".to_owned(),
                    ));
                    continue;
                };
                for (rater, value) in &raters.0 {
                    per_rater(index, criterion, rater, value, &at, diags);
                }
            }
        }
    }
}

/// `*_annotator_scores.json`: human raters' 1–5 scores per item and criterion (averaged by
/// [`HumanRating::from_raters`]), plus ChatGPT's scores as a judge run.
pub(crate) fn annotator_scores(
    file: &str,
    text: &str,
    top: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, Vec<JudgeRun>) {
    let mut dataset = Dataset { name: file.to_owned(), ..Dataset::default() };
    let mut attrs = Attributes::new(Family::CoEval);
    // (item, attribute, rater, score) in file order; grouped after the walk.
    let mut scores: Vec<(usize, usize, String, f64)> = Vec::new();
    let mut chatgpt: Vec<(usize, String, f64)> = Vec::new();
    walk(file, text, top, &mut dataset, diags, |item, criterion, rater, raw, at, diags| {
        let field = format!("{} [{rater}]", clip(criterion));
        let Some(x) = at.number(Some(raw), &field, diags) else { return };
        let a = attrs.index(criterion);
        if !attrs.accept(a, x, at, &field, diags) {
            return;
        }
        if rater == CHATGPT {
            chatgpt.push((item, criterion.to_owned(), x));
        } else {
            scores.push((item, a, rater.to_owned(), x));
        }
    });
    let n = attrs.len();
    let mut per_item: Vec<Vec<Vec<RaterScore>>> = vec![vec![Vec::new(); n]; dataset.items.len()];
    for (item, a, rater, score) in scores {
        per_item[item][a].push(RaterScore { rater, score });
    }
    for (item, raters) in dataset.items.iter_mut().zip(per_item) {
        item.ratings = raters.into_iter().map(HumanRating::from_raters).collect();
    }
    dataset.attributes = attrs.finish();
    let mut runs = Vec::new();
    if !chatgpt.is_empty() {
        let mut records: Vec<JudgeRecord> = Vec::new();
        for (item, criterion, x) in chatgpt {
            let key = RecordKey::Item(ItemKey {
                document: dataset.items[item].document_id.clone(),
                system: dataset.items[item].system_id.clone(),
            });
            match records.last_mut() {
                Some(r) if r.key == key => r.parsed.push((criterion, x)),
                _ => records.push(JudgeRecord {
                    key,
                    prompt: None,
                    prompt_chars: None,
                    responses: Vec::new(),
                    cut_off: Vec::new(),
                    logprobs: Vec::new(),
                    reasoning_tokens: Vec::new(),
                    parsed: vec![(criterion, x)],
                    line: dataset.items[item].line,
                    meta: None,
                    calls: Vec::new(),
                }),
            }
        }
        runs.push(JudgeRun { name: format!("{file}: {CHATGPT}"), attribute: None, records });
    }
    (dataset, runs)
}

/// `*_action.json`: per item, criterion and rater, `[value, action]`.
pub(crate) fn actions(
    file: &str,
    text: &str,
    top: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Dataset {
    let mut dataset = Dataset { name: file.to_owned(), ..Dataset::default() };
    let mut found: Vec<(usize, ReviewAction)> = Vec::new();
    walk(file, text, top, &mut dataset, diags, |item, criterion, rater, raw, at, diags| {
        let field = format!("{} [{rater}]", clip(criterion));
        let before = diags.len();
        let Some(actions) = at.strings_of(raw, &field, diags) else { return };
        if diags.len() == before {
            let (criterion, rater) = (criterion.to_owned(), rater.to_owned());
            found.push((
                item,
                ReviewAction {
                    item_id: String::new(),
                    criterion,
                    rater,
                    actions,
                    lines: Vec::new(),
                    start_time: None,
                    end_time: None,
                },
            ));
        }
    });
    dataset.actions = found
        .into_iter()
        .map(|(item, mut a)| {
            a.item_id = dataset.items[item].id.clone();
            a
        })
        .collect();
    dataset
}

/// The input and output field names of the three tasks in the session logs, in the order the
/// released files use them (ELI5, Self-Instruct, ROCStories).
const SESSION_INPUTS: [&str; 3] = ["reddit question", "instruction", "story requirement"];
const SESSION_OUTPUTS: [&str; 3] = ["answer", "response", "story"];

/// The CoEval task of a released file: from its prefix (`eli5_action.json`), else its folder
/// (`ROCStories/…`), else, for session logs, the annotator number in the file name or in
/// `annotator` (A01–A05 ELI5, A06–A10 ROCStories, A11–A15 Self-Instruct).
pub(crate) fn task_of(path: &str, annotator: Option<&str>) -> Option<&'static str> {
    const TASKS: [&str; 3] = ["eli5", "roc", "self_instruct"];
    let mut parts = path.rsplit(['/', '\\']);
    let base = parts.next().unwrap_or(path).to_ascii_lowercase();
    if let Some(t) = TASKS.iter().find(|t| base.starts_with(*t)) {
        return Some(t);
    }
    match parts.next().unwrap_or("").to_ascii_lowercase().as_str() {
        "eli5" => return Some("eli5"),
        "rocstories" | "roc" => return Some("roc"),
        "self-instruct" | "self_instruct" => return Some("self_instruct"),
        _ => {}
    }
    let number = session_number(base.strip_suffix(".json").unwrap_or(&base))
        .or_else(|| session_number(&annotator?.to_ascii_lowercase()))?;
    match number {
        1..=5 => Some("eli5"),
        6..=10 => Some("roc"),
        11..=15 => Some("self_instruct"),
        _ => None,
    }
}

/// `a07` → 7.
pub(crate) fn session_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('a')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// An annotator's session log (`A01.json`: `{"A01": {"1": {question, answer, model,
/// criteria: {criterion: {final_score, start_time, end_time, eval_result}}}}}`).
///
/// Each entry becomes a rating item (id `A01/1`: annotator and the entry's key; keyed by the
/// content hash of its input like the other CoEval files) whose ratings are the annotator's
/// final scores, and one [`ReviewAction`] per criterion with the reviewed lines and times.
/// Entries are ordered by their numeric keys ("1" … "200"), whatever the file's order.
pub(crate) fn session(
    file: &str,
    text: &str,
    top: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Dataset {
    let mut lines = LineCounter::new(text);
    let mut attrs = Attributes::new(Family::CoEval);
    let mut dataset = Dataset { name: file.to_owned(), ..Dataset::default() };
    // (item, attribute, rater, score), grouped after the walk.
    let mut scores: Vec<(usize, usize, String, f64)> = Vec::new();
    for (annotator, raw) in &top.0 {
        let Some(entries) = Obj::parse(raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(lines.line_at(offset(text, raw))),
                Some(annotator),
                format!("`{}` is not an object of entries; skipped", clip(annotator)),
            ));
            continue;
        };
        let task = task_of(file, Some(annotator)).map(str::to_owned);
        let mut ordered: Vec<(usize, &str, &RawValue)> = entries
            .0
            .iter()
            .map(|(key, raw)| (lines.line_at(offset(text, raw)), key.as_ref(), *raw))
            .collect();
        ordered.sort_by_key(|(_, key, _)| key.parse::<u64>().unwrap_or(u64::MAX));
        for (line, key, raw) in ordered {
            let at = Fielder { file, line };
            let field = format!("{annotator}.{key}");
            let skip = |message: String, diags: &mut Vec<Diagnostic>| {
                diags.push(Diagnostic::warning(file, Some(line), Some(&field), message));
            };
            let Some(entry) = Obj::parse(raw) else {
                skip("entry skipped: not an object".to_owned(), diags);
                continue;
            };
            let named = |names: &[&'static str]| {
                names.iter().find_map(|&n| match entry.get(n).map(scalar) {
                    Some(Scalar::Text(t)) => Some((n, t)),
                    _ => None,
                })
            };
            let Some((input_name, input)) = named(&SESSION_INPUTS) else {
                skip(format!("entry skipped: no input field (one of {SESSION_INPUTS:?})"), diags);
                continue;
            };
            let Some(system) = at.text(&entry, "model", diags) else { continue };
            let Some(criteria) = entry.get("criteria").and_then(Obj::parse) else {
                skip("entry skipped: `criteria` should be an object".to_owned(), diags);
                continue;
            };
            let (output_name, output) =
                named(&SESSION_OUTPUTS).unwrap_or(("output", String::new()));
            let document_id = content_id(&input);
            let mut inputs = Fields::default();
            inputs.push(input_name, input);
            let index = dataset.items.len();
            let id = format!("{annotator}/{key}");
            for (criterion, raw) in &criteria.0 {
                let cfield = format!("{field}.{}", clip(criterion));
                let Some(c) = Obj::parse(raw) else {
                    skip(
                        format!("criterion {:?} is not an object; skipped", clip(criterion)),
                        diags,
                    );
                    continue;
                };
                let a = attrs.index(criterion);
                if let Some(x) = at.number(c.get("final_score"), &cfield, diags)
                    && attrs.accept(a, x, &at, &cfield, diags)
                {
                    scores.push((index, a, annotator.to_string(), x));
                }
                // Some released criteria hold `0` instead of a timestamp (never timed).
                let time = |name: &str| match c.get(name).map(scalar) {
                    Some(Scalar::Text(t)) => Some(t),
                    _ => None,
                };
                dataset.actions.push(ReviewAction {
                    item_id: id.clone(),
                    criterion: criterion.to_string(),
                    rater: annotator.to_string(),
                    actions: Vec::new(),
                    lines: reviewed_lines(&at, c.get("eval_result"), &cfield, diags),
                    start_time: time("start_time"),
                    end_time: time("end_time"),
                });
            }
            dataset.items.push(RatingItem {
                id,
                document_id,
                system_id: system,
                task: task.clone(),
                inputs,
                output_name: output_name.to_owned(),
                output,
                ratings: Vec::new(),
                line,
            });
        }
    }
    let n = attrs.len();
    let mut per_item: Vec<Vec<Vec<RaterScore>>> = vec![vec![Vec::new(); n]; dataset.items.len()];
    for (item, a, rater, score) in scores {
        per_item[item][a].push(RaterScore { rater, score });
    }
    for (item, raters) in dataset.items.iter_mut().zip(per_item) {
        item.ratings = raters.into_iter().map(HumanRating::from_raters).collect();
    }
    dataset.attributes = attrs.finish();
    dataset
}

/// `eval_result`: `[[text, pass, delete_reason, revise_reason, revised], …]`. Short rows are
/// padded with empty cells; non-string cells (none in the release) are kept as JSON text.
fn reviewed_lines(
    at: &Fielder<'_>,
    raw: Option<&RawValue>,
    field: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ReviewedLine> {
    let Some(raw) = raw else { return Vec::new() };
    let Ok(rows) = serde_json::from_str::<Vec<Vec<&RawValue>>>(raw.get()) else {
        diags.push(Diagnostic::warning(
            at.file,
            Some(at.line),
            Some(field),
            "`eval_result` should be an array of arrays; ignored".to_owned(),
        ));
        return Vec::new();
    };
    rows.into_iter()
        .map(|row| {
            let mut cells = row.into_iter().map(|v| match scalar(v) {
                Scalar::Text(t) => t,
                _ => v.get().to_owned(),
            });
            let mut next = || cells.next().unwrap_or_default();
            ReviewedLine {
                text: next(),
                pass: next(),
                delete_reason: next(),
                revise_reason: next(),
                revised: next(),
            }
        })
        .collect()
}
