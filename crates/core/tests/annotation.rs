//! The one annotation model (`concord_core::annotation`): a person's log, the file they
//! export, and the merge of several files — on a toy kind of event, so the module is checked
//! on its own — and the files written before it existed (by CoEval's scrutiny and the review
//! as they were on `main` at e9d5817, `tests/fixtures/annotation/`), which must still load,
//! replay, merge and write back byte for byte.
#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

use std::collections::BTreeMap;

use concord_core::annotation::{
    self, Decisions, Entry, FileError, Format, ItemTimer, Kind, Log, PersonFile, Together,
};
use concord_core::coeval::{self, AnnotatorFile, Event};
use concord_core::report::export;
use concord_core::study::workbench::review::{self, ReviewEvent, ReviewLog, ReviewerFile};
use serde::{Deserialize, Serialize};

/// A toy annotation: set a key to a value, spend time on an item, undo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Toy {
    Set { key: String, value: i32 },
    Tick { item: String, ms: u64 },
    Undo,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ToyError {
    #[error("empty key")]
    EmptyKey,
    #[error("nothing to undo")]
    NothingToUndo,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct ToyState {
    values: BTreeMap<String, i32>,
    ms: BTreeMap<String, u64>,
}

impl Entry for Toy {
    type State = ToyState;
    type Error = ToyError;
    const UNDO: Toy = Toy::Undo;

    fn kind(&self) -> Kind {
        match self {
            Toy::Set { .. } => Kind::Decision,
            Toy::Tick { .. } => Kind::Timer,
            Toy::Undo => Kind::Undo,
        }
    }

    fn validate(&self) -> Result<(), ToyError> {
        match self {
            Toy::Set { key, .. } if key.is_empty() => Err(ToyError::EmptyKey),
            _ => Ok(()),
        }
    }

    fn nothing_to_undo() -> ToyError {
        ToyError::NothingToUndo
    }

    fn apply(&self, state: &mut ToyState) {
        match self {
            Toy::Set { key, value } => {
                state.values.insert(key.clone(), *value);
            }
            Toy::Tick { item, ms } => *state.ms.entry(item.clone()).or_default() += ms,
            Toy::Undo => {}
        }
    }
}

impl Format for Toy {
    const FORMAT: &'static str = "toy-annotations";
    const VERSION: u32 = 2;
    const PERSON: &'static str = "rater";
    const SCOPE: Option<&'static str> = Some("batch");
}

impl Decisions for ToyState {
    type Key = String;
    type Value = i32;

    fn decisions(&self) -> Vec<(String, i32)> {
        self.values.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    fn decide(&mut self, key: String, value: i32) -> Option<i32> {
        self.values.insert(key, value)
    }

    fn absorb(&mut self, later: ToyState) {
        for (item, ms) in later.ms {
            *self.ms.entry(item).or_default() += ms;
        }
    }
}

fn set(key: &str, value: i32) -> Toy {
    Toy::Set { key: key.into(), value }
}

fn tick(item: &str, ms: u64) -> Toy {
    Toy::Tick { item: item.into(), ms }
}

fn log(events: Vec<Toy>) -> Log<Toy> {
    Log::from_events(events).unwrap()
}

fn file(person: &str, scope: &str, events: Vec<Toy>) -> PersonFile<Toy> {
    PersonFile::new(person, scope, &log(events))
}

#[test]
fn undo_takes_back_the_latest_decision_and_never_time() {
    let mut l = log(vec![set("a", 1), set("b", 2), tick("x", 700)]);
    assert_eq!(l.last_decision(), Some(&set("b", 2)), "a timer event is no decision");
    l.undo().unwrap();
    let state = l.replay();
    assert_eq!(state.values, BTreeMap::from([("a".to_owned(), 1)]));
    assert_eq!(state.ms["x"], 700, "time spent stays spent");
    l.push(set("a", 5)).unwrap();
    l.undo().unwrap();
    l.undo().unwrap();
    assert!(l.replay().values.is_empty());
    assert_eq!(l.undo(), Err(ToyError::NothingToUndo));
    assert_eq!(l.push(set("", 1)), Err(ToyError::EmptyKey));
    // Nothing refused was appended; undos are events, so the log only grew.
    assert_eq!(l.events().len(), 7);
    assert_eq!(
        Log::from_events(vec![set("a", 1), Toy::Undo, Toy::Undo]),
        Err((2, ToyError::NothingToUndo))
    );
    assert_eq!(Log::from_events(vec![tick("x", 1), Toy::Undo]), Err((1, ToyError::NothingToUndo)));
}

#[test]
fn the_item_timer_feeds_the_log() {
    let mut timer = ItemTimer::new();
    let mut l: Log<Toy> = Log::new();
    timer.focus(Some("x"), 0.0, true);
    let stretch = timer.focus(Some("y"), 2_000.0, true).unwrap();
    l.push(tick(&stretch.item, stretch.ms)).unwrap();
    let stretch = timer.hide(2_400.0);
    assert_eq!(stretch, None, "below the minimum: a glance");
    assert_eq!(l.replay().ms, BTreeMap::from([("x".to_owned(), 2_000)]));
}

#[test]
fn a_person_file_names_its_fields_by_its_format_and_reads_back() {
    let f = file("Ann", "b1", vec![set("a", 1), tick("x", 600)]);
    let json = f.to_json();
    assert!(
        json.starts_with(
            "{\n  \"format\": \"toy-annotations\",\n  \"version\": 2,\n  \"rater\": \"Ann\",\n  \"batch\": \"b1\",\n  \"events\": ["
        ),
        "{json}"
    );
    assert_eq!(PersonFile::<Toy>::read(json.as_bytes()).unwrap(), f);
    // A format without a scope writes none and reads none.
    let r = ReviewerFile::by("ann", &ReviewLog::new());
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        r#"{"format":"concord-review","version":1,"reviewer":"ann","events":[]}"#
    );
    // Unknown fields are ignored, as before.
    let extra = json.replacen("\"rater\"", "\"note\": 1, \"rater\"", 1);
    assert_eq!(PersonFile::<Toy>::read(extra.as_bytes()).unwrap(), f);
}

#[test]
fn a_wrong_file_is_refused_with_what_is_wrong() {
    let good = file("Ann", "b1", vec![set("a", 1)]).to_json();
    let read = |s: &str| PersonFile::<Toy>::read(s.as_bytes()).unwrap_err();
    assert!(matches!(read(&good[..good.len() / 2]), FileError::Truncated(_)), "cut short");
    assert!(matches!(read("not json"), FileError::Json(_)));
    assert_eq!(
        read(&good.replace("toy-annotations", "concord-review")),
        FileError::Foreign { found: "concord-review".into(), expected: "toy-annotations" }
    );
    assert_eq!(
        read(&good.replace("\"version\": 2", "\"version\": 3")),
        FileError::Newer { found: 3, reads: 2 }
    );
    assert_eq!(read(&good.replace("\"Ann\"", "\" \"")), FileError::NoPerson { field: "rater" });
    let missing = read(&good.replace("\"batch\"", "\"lot\""));
    assert!(
        matches!(&missing, FileError::Json(m) if m.contains("missing field `batch`")),
        "{missing:?}"
    );
    let bad = file("Ann", "b1", vec![]);
    let bad = PersonFile { events: vec![set("a", 1), Toy::Undo, Toy::Undo], ..bad };
    assert_eq!(
        read(&bad.to_json()),
        FileError::BadEvent { index: 2, error: ToyError::NothingToUndo }
    );
    // The reviewer's and annotator's files keep their own words for the same refusals.
    let review =
        review::import(b"{\"format\": \"concord-review\", \"version\": 1, \"reviewer\": \"a\"")
            .unwrap_err();
    assert!(review.to_string().starts_with("not a Concord review file: EOF"), "{review}");
    let coeval = coeval::import(b"{\"format\": \"other\", \"version\": 1}").unwrap_err();
    assert_eq!(
        coeval.to_string(),
        "format is `other`, expected `concord-coeval-annotations` or `concord-coeval-classroom`"
    );
}

#[test]
fn merge_per_person_keeps_the_later_decision_and_reports_each_difference() {
    let files = [
        file("Ann", "b1", vec![set("b", 2), set("a", 1), tick("x", 1_000)]),
        file("Bob", "b1", vec![set("a", 9)]),
        file("Ann", "b1", vec![set("a", 3), set("b", 2), set("c", 4), tick("x", 500)]),
        file("Ann", "b2", vec![set("a", 7)]),
        file("Ann", "b1", vec![set("b", 5), set("a", 1)]),
    ];
    let m = annotation::merge(&files, Together::PerPerson).unwrap();
    let groups: Vec<(&str, &str, &[usize])> = m
        .groups
        .iter()
        .map(|g| (g.person.as_str(), g.scope.as_str(), g.sources.as_slice()))
        .collect();
    assert_eq!(groups, [("Ann", "b1", &[0, 2, 4][..]), ("Bob", "b1", &[1]), ("Ann", "b2", &[3])]);
    let ann = &m.groups[0];
    assert_eq!(
        ann.state.values,
        BTreeMap::from([("a".into(), 1), ("b".into(), 5), ("c".into(), 4)])
    );
    assert_eq!(ann.state.ms["x"], 1_500, "time absorbed");
    assert_eq!(ann.origin, BTreeMap::from([("a".into(), 4), ("b".into(), 4), ("c".into(), 2)]));
    // In file order, then key order; the same value again is no conflict; different persons and
    // scopes never conflict.
    type Row<'a> = (usize, &'a str, Option<i32>, usize, i32, usize);
    let conflicts: Vec<Row> = m
        .conflicts
        .iter()
        .map(|(g, c)| (*g, c.key.as_str(), c.kept, c.kept_from, c.overridden, c.overridden_from))
        .collect();
    assert_eq!(
        conflicts,
        [(0, "a", Some(3), 2, 1, 0), (0, "a", Some(1), 4, 3, 2), (0, "b", Some(5), 4, 2, 2)]
    );
    // Deterministic: the same files give the same merge.
    assert_eq!(annotation::merge(&files, Together::PerPerson).unwrap(), m);
}

#[test]
fn merge_everyone_makes_one_state_and_refuses_a_file_that_does_not_replay() {
    let files =
        [file("Ann", "", vec![set("a", 1)]), file("Bob", "", vec![set("a", 2), tick("x", 600)])];
    let m = annotation::merge(&files, Together::Everyone).unwrap();
    assert_eq!(m.groups.len(), 1);
    assert_eq!(m.groups[0].sources, [0, 1]);
    assert_eq!(m.conflicts.len(), 1, "different persons conflict when merged together");
    assert_eq!(m.groups[0].origin["a"], 1);
    let mut broken = files.to_vec();
    broken.push(PersonFile { events: vec![Toy::Undo], ..files[0].clone() });
    assert_eq!(
        annotation::merge(&broken, Together::Everyone).unwrap_err(),
        (2, FileError::BadEvent { index: 0, error: ToyError::NothingToUndo })
    );
}

#[test]
fn a_later_file_that_replaces_an_earlier_reports_what_it_changes_or_drops() {
    let earlier = BTreeMap::from([(1, "x"), (2, "y"), (3, "z")]);
    let later = BTreeMap::from([(1, "x"), (3, "w"), (4, "v")]);
    let c = annotation::replaced(&earlier, 5, &later, 7);
    let got: Vec<(i32, Option<&str>, &str)> =
        c.iter().map(|c| (c.key, c.kept, c.overridden)).collect();
    assert_eq!(got, [(2, None, "y"), (3, Some("w"), "z")]);
    assert!(c.iter().all(|c| c.kept_from == 7 && c.overridden_from == 5));
}

// ---- Files written before the annotation module (main at e9d5817) -------------------------

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/annotation");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

fn coeval_log(name: &str) -> coeval::Log {
    coeval::Log::from_events(serde_json::from_str::<Vec<Event>>(&fixture(name)).unwrap()).unwrap()
}

fn review_log(name: &str) -> ReviewLog {
    ReviewLog::from_events(serde_json::from_str::<Vec<ReviewEvent>>(&fixture(name)).unwrap())
        .unwrap()
}

#[test]
fn old_coeval_files_load_and_write_back_byte_for_byte() {
    let old = fixture("coeval-annotator.json");
    let read = coeval::import(old.as_bytes()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!((read[0].person.as_str(), read[0].scope.as_str()), ("Ann", "eli5"));
    assert_eq!(serde_json::to_string_pretty(&read[0]).unwrap(), old);
    let state = read[0].log().unwrap().replay();
    assert_eq!(state.criteria.len(), 2, "the undone deletion of Clarity is not in effect");
    assert_eq!(state.time_ms["q1"], 61_000);
    // The same work written today is the same file.
    let today = AnnotatorFile::new("Ann", "eli5", &coeval_log("events/coeval_ann_1.json"));
    assert_eq!(serde_json::to_string_pretty(&today).unwrap(), old);

    // The classroom file the old merge wrote: read back whole, and written again by today's
    // merge of the same annotators' files, conflicts and all.
    let classroom = fixture("coeval-classroom.json");
    let files = [
        AnnotatorFile::new("Ann", "eli5", &coeval_log("events/coeval_ann_1.json")),
        AnnotatorFile::new("Bob", "eli5", &coeval_log("events/coeval_bob.json")),
        AnnotatorFile::new("Ann", "eli5", &coeval_log("events/coeval_ann_2.json")),
    ];
    let merged = coeval::merge(&files).unwrap();
    assert!(merged.conflicts.len() >= 4, "{:?}", merged.conflicts);
    assert_eq!(serde_json::to_string_pretty(&merged.export()).unwrap(), classroom);
    let back = coeval::import(classroom.as_bytes()).unwrap();
    assert_eq!(back.len(), 2);
}

#[test]
fn old_review_files_load_merge_and_write_back_byte_for_byte() {
    let (ann, bob) = (fixture("reviewer-ann.json"), fixture("reviewer-bob.json"));
    let files = [review::import(ann.as_bytes()).unwrap(), review::import(bob.as_bytes()).unwrap()];
    assert_eq!(files[0].to_json(), ann);
    assert_eq!(files[1].to_json(), bob);
    assert_eq!(ReviewerFile::by("ann", &review_log("events/review_ann.json")).to_json(), ann);
    let m = review::merge(&files).unwrap();
    assert_eq!(export::csv(&review::conflicts_table(&m)), fixture("review-conflicts.csv"));
    let mut summary = String::new();
    for ((run, item), v) in &m.reviews.verdicts {
        let by = &m.by[&(run.clone(), item.clone())];
        summary.push_str(&format!("{run}|{item}|{}|{by}\n", v.describe()));
    }
    for ((run, item), ms) in &m.reviews.time_ms {
        summary.push_str(&format!("{run}|{item}|{ms} ms\n"));
    }
    summary.push_str(&format!("reviewers: {:?}\n", m.reviewers));
    assert_eq!(summary, fixture("review-merged.txt"));
}
