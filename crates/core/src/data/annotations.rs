//! Several annotators per item as a file format: the alternative annotator test's folders
//! (nitaytech/AltTest, `../shared/data/AltTest/`), `human_annotations.json` = {annotator:
//! {instance: annotation}} and `llm_annotations.json` = {LLM: {instance: annotation}}.
//!
//! The humans become a [`Dataset`] with one attribute, `annotation`, and one item per instance
//! whose [`HumanRating`] keeps every annotator's value under their id, in file order; each
//! LLM becomes an imported [`JudgeRun`] named after it, its value in the record's `parsed`.
//!
//! Annotations are numbers (scores: the attribute's scale is the observed range, Likert when
//! every value is an integer) or labels (categories: the attribute's [`ScaleKind::Categorical`]
//! scale lists them in [`Attribute::categories`], sorted, and a value is its label's index).
//! When any value is not a number, every value is read as a label (a number by its text, so a
//! file that mixes `3` and `"3"` treats them as one label, which the notebook would not —
//! said in a diagnostic); a list or object value is a label spelled as its JSON text;
//! `null` is no annotation. A categorical item's aggregate is its most frequent label
//! ([`Aggregate::Majority`]), a numeric one the mean in rater order.
//!
//! Instances are items in the order the human file first names them, then those only the
//! LLMs rated (unlabelled items: a judge value with no human one).

use std::collections::{BTreeSet, HashMap};

use super::diag::{Diagnostic, LoadError};
use super::format::{Format, Loaded};
use super::model::{
    Aggregate, Attribute, Dataset, Fields, HumanRating, JudgeRecord, JudgeRun, RaterScore,
    RatingItem, RecordKey, Scale, ScaleKind,
};
use super::text::{self, Obj, Scalar};

/// The attribute every annotations dataset rates.
pub const ATTRIBUTE: &str = "annotation";

/// Whether a top-level object has the annotations shape: at least one key, each value an
/// object of scalar or list values (`{who: {instance: annotation}}`).
pub(crate) fn is_annotations(top: &Obj<'_>) -> bool {
    !top.0.is_empty()
        && top.0.iter().all(|(_, v)| {
            Obj::parse(v).is_some_and(|o| {
                !o.0.is_empty() && o.0.iter().all(|(_, x)| !x.get().trim_start().starts_with('{'))
            })
        })
}

/// A value as read: a number, a label, or nothing.
enum Read {
    Number(f64),
    Label(String),
}

/// One annotation: the instance, the value (`None`: null), the line.
type Entry = (String, Option<Read>, usize);

/// One file's annotations: who (in file order), and per who the entries in file order.
struct Table {
    who: Vec<(String, Vec<Entry>)>,
    nested: usize,
}

fn read_table(text: &str, top: &Obj<'_>) -> Table {
    let mut lines = text::LineCounter::new(text);
    let mut nested = 0;
    let mut who = Vec::with_capacity(top.0.len());
    for (name, raw) in &top.0 {
        let inner = Obj::parse(raw).map(|o| o.0).unwrap_or_default();
        let mut values = Vec::with_capacity(inner.len());
        for (instance, v) in inner {
            let start = (v.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            let line = lines.line_at(start.min(text.len()));
            let value = match text::scalar(v) {
                Scalar::Null => None,
                Scalar::Number(x) if x.is_finite() => Some(Read::Number(x)),
                Scalar::Number(x) => Some(Read::Label(x.to_string())),
                Scalar::Text(t) => Some(Read::Label(t)),
                Scalar::Bool(b) => Some(Read::Label(b.to_string())),
                Scalar::Nested(json) => {
                    nested += 1;
                    Some(Read::Label(compact(&json)))
                }
            };
            values.push((instance.into_owned(), value, line));
        }
        who.push((name.to_string(), values));
    }
    Table { who, nested }
}

/// A nested value's JSON text without insignificant spaces, so `[1, 2]` and `[1,2]` are one
/// label.
fn compact(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| json.to_owned())
}

/// How the values of both files are coded.
enum Coding {
    Numbers,
    Labels(HashMap<String, usize>),
}

impl Coding {
    fn code(&self, v: &Read) -> f64 {
        match (self, v) {
            (Coding::Numbers, Read::Number(x)) => *x,
            (Coding::Labels(map), v) => map.get(&label_of(v)).map_or(f64::NAN, |&i| i as f64),
            (Coding::Numbers, Read::Label(_)) => f64::NAN,
        }
    }
}

fn label_of(v: &Read) -> String {
    match v {
        Read::Number(x) => text::number_text(*x),
        Read::Label(s) => s.clone(),
    }
}

fn parse_object<'a>(name: &str, text: &'a str) -> Result<Obj<'a>, LoadError> {
    serde_json::from_str::<Obj<'_>>(text).map_err(|e| LoadError::Malformed {
        file: name.to_owned(),
        line: e.line(),
        message: format!("invalid JSON: {}", text::strip_position(&e)),
    })
}

/// The folder format: the annotators' file and, optionally, the LLMs' file. `human` and
/// `llm` are (file name, bytes); the dataset is named `dataset_name` (the folder's name).
pub fn load_folder(
    dataset_name: &str,
    human: (&str, &[u8]),
    llm: Option<(&str, &[u8])>,
) -> Result<Loaded, LoadError> {
    let mut diags = Vec::new();
    let (hname, hbytes) = human;
    if let Some(what) = text::binary_kind(hbytes) {
        return Err(LoadError::Binary { file: hname.to_owned(), what });
    }
    let htext = text::decode(hname, hbytes, &mut diags);
    let htop = parse_object(hname, &htext)?;
    if !is_annotations(&htop) {
        return Err(not_annotations(hname));
    }
    let humans = read_table(&htext, &htop);
    let llm_text;
    let judges = match llm {
        None => None,
        Some((lname, lbytes)) => {
            if let Some(what) = text::binary_kind(lbytes) {
                return Err(LoadError::Binary { file: lname.to_owned(), what });
            }
            llm_text = text::decode(lname, lbytes, &mut diags);
            let ltop = parse_object(lname, &llm_text)?;
            if !is_annotations(&ltop) {
                return Err(not_annotations(lname));
            }
            Some((lname, read_table(&llm_text, &ltop)))
        }
    };
    let (dataset, runs) =
        build(dataset_name, hname, &humans, judges.as_ref().map(|(n, t)| (*n, t)), &mut diags);
    super::format::finish(dataset_name, Format::Annotations, dataset, runs, None, diags)
}

fn not_annotations(file: &str) -> LoadError {
    LoadError::UnknownFormat {
        file: file.to_owned(),
        detail: "expected {annotator: {instance: annotation}} (an AltTest annotations file)".into(),
    }
}

/// [`super::load`] of a lone annotations file: the annotators' file becomes a dataset; the
/// LLMs' file alone is refused with what to do (it needs the annotators' file beside it).
pub(crate) fn single(
    name: &str,
    text: &str,
    top: &Obj<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Result<(Dataset, Vec<JudgeRun>), LoadError> {
    let stem = name.rsplit(['/', '\\']).next().unwrap_or(name).to_ascii_lowercase();
    if stem.starts_with("llm") {
        return Err(LoadError::UnknownFormat {
            file: name.to_owned(),
            detail: "the LLMs' annotations of an AltTest folder: open it together with the \
                     annotators' human_annotations.json (the folder), so the LLMs become judge \
                     runs over the annotators' items"
                .into(),
        });
    }
    let table = read_table(text, top);
    // `{"a": {"b": 1}}` has the shape but nothing to evaluate: one annotation of one instance
    // is neither an agreement nor a rating to compare a judge with.
    let instances: std::collections::HashSet<&str> =
        table.who.iter().flat_map(|(_, e)| e.iter().map(|(i, _, _)| i.as_str())).collect();
    if instances.len() < 2 {
        return Err(LoadError::UnknownFormat {
            file: name.to_owned(),
            detail: "an {annotator: {instance: annotation}} object with a single instance: \
                     nothing to evaluate (an AltTest annotations file has many)"
                .into(),
        });
    }
    Ok(build(name, name, &table, None, diags))
}

fn build(
    dataset_name: &str,
    hname: &str,
    humans: &Table,
    llms: Option<(&str, &Table)>,
    diags: &mut Vec<Diagnostic>,
) -> (Dataset, Vec<JudgeRun>) {
    let all = humans.who.iter().chain(llms.iter().flat_map(|(_, t)| t.who.iter()));
    let values = || all.clone().flat_map(|(_, v)| v.iter().filter_map(|(_, r, _)| r.as_ref()));
    let numeric = values().all(|v| matches!(v, Read::Number(_)));
    let any_number = values().any(|v| matches!(v, Read::Number(_)));
    let (coding, scale, categories) = if numeric {
        let (mut lo, mut hi, mut integer) = (f64::INFINITY, f64::NEG_INFINITY, true);
        for v in values() {
            if let Read::Number(x) = v {
                lo = lo.min(*x);
                hi = hi.max(*x);
                integer &= x.fract() == 0.0;
            }
        }
        if lo > hi {
            (lo, hi) = (0.0, 0.0);
        }
        let kind = if integer { ScaleKind::Likert } else { ScaleKind::Continuous };
        (Coding::Numbers, Scale { min: lo, max: hi, kind }, Vec::new())
    } else {
        let labels: BTreeSet<String> = values().map(label_of).collect();
        let categories: Vec<String> = labels.into_iter().collect();
        if any_number {
            diags.push(Diagnostic::warning(
                hname,
                None,
                None,
                "the annotations mix numbers and labels: every value is read as a label, a \
                 number by its text (so 3 and \"3\" are the same label)"
                    .into(),
            ));
        }
        let map = categories.iter().enumerate().map(|(i, c)| (c.clone(), i)).collect();
        let max = categories.len().saturating_sub(1) as f64;
        (Coding::Labels(map), Scale { min: 0.0, max, kind: ScaleKind::Categorical }, categories)
    };
    let nested = humans.nested + llms.map_or(0, |(_, t)| t.nested);
    if nested > 0 {
        diags.push(Diagnostic::info(
            hname,
            None,
            None,
            format!("{nested} annotation(s) are lists or objects: each is a label spelled as its JSON text"),
        ));
    }
    // Items: instances in the order the annotators' file first names them, then the LLMs'.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<(&str, usize)> = Vec::new();
    for (_, values) in all.clone() {
        for (instance, _, line) in values {
            index.entry(instance.as_str()).or_insert_with(|| {
                order.push((instance.as_str(), *line));
                order.len() - 1
            });
        }
    }
    let mut raters: Vec<Vec<RaterScore>> = vec![Vec::new(); order.len()];
    let mut seen = vec![false; order.len()];
    for (who, values) in &humans.who {
        for (instance, v, _) in values {
            let Some(v) = v else { continue };
            let i = index[instance.as_str()];
            seen[i] = true;
            raters[i].push(RaterScore { rater: who.clone(), score: coding.code(v) });
        }
    }
    let items = order
        .iter()
        .zip(raters)
        .map(|(&(id, line), raters)| RatingItem {
            id: id.to_owned(),
            document_id: id.to_owned(),
            system_id: String::new(),
            task: None,
            inputs: Fields::default(),
            output_name: "output".to_owned(),
            output: String::new(),
            ratings: vec![aggregate(raters, &coding)],
            line,
        })
        .collect();
    let runs = llms
        .map(|(_, t)| {
            t.who
                .iter()
                .map(|(who, values)| JudgeRun {
                    name: who.clone(),
                    attribute: Some(ATTRIBUTE.to_owned()),
                    records: values
                        .iter()
                        .filter_map(|(instance, v, line)| {
                            Some(JudgeRecord {
                                key: RecordKey::Id(instance.clone()),
                                prompt: None,
                                prompt_chars: None,
                                responses: Vec::new(),
                                cut_off: Vec::new(),
                                logprobs: Vec::new(),
                                reasoning_tokens: Vec::new(),
                                parsed: vec![(ATTRIBUTE.to_owned(), coding.code(v.as_ref()?))],
                                line: *line,
                                meta: None,
                                calls: Vec::new(),
                            })
                        })
                        .collect(),
                })
                .collect()
        })
        .unwrap_or_default();
    let unrated = seen.iter().filter(|s| !**s).count();
    diags.push(Diagnostic::info(
        hname,
        None,
        None,
        format!(
            "read as annotations: {} annotator(s), {} instance(s) with an annotation{}, {}{}",
            humans.who.len(),
            order.len() - unrated,
            if unrated > 0 {
                format!(" and {unrated} rated by the LLMs only")
            } else {
                String::new()
            },
            if numeric { "scores" } else { "labels" },
            llms.map(|(n, t)| format!("; {} LLM(s) from {n} as judge runs", t.who.len()))
                .unwrap_or_default()
        ),
    ));
    let dataset = Dataset {
        name: dataset_name.to_owned(),
        attributes: vec![Attribute { name: ATTRIBUTE.to_owned(), scale, categories }],
        items,
        pairs: Vec::new(),
        tasks: Vec::new(),
        actions: Vec::new(),
    };
    (dataset, runs)
}

/// An item's rating from its annotators: `None` when nobody annotated it.
fn aggregate(raters: Vec<RaterScore>, coding: &Coding) -> Option<HumanRating> {
    match coding {
        Coding::Numbers => HumanRating::from_raters(raters),
        Coding::Labels(_) => {
            let codes: Vec<f64> = raters.iter().map(|r| r.score).collect();
            let majority = majority(&codes)?;
            Some(HumanRating { raters, aggregate: majority, how: Aggregate::Majority })
        }
    }
}

/// The most frequent value; a tie goes to the one given first.
pub fn majority(values: &[f64]) -> Option<f64> {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for &v in values {
        match counts.iter_mut().find(|(x, _)| *x == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == best).map(|(v, _)| v)
}
