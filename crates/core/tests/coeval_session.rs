//! The annotation model: event log with undo and replay, export/import, merging classrooms
//! with conflicts, and results over annotations made in Concord.

#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

use concord_core::coeval::{
    Action, AnnotatorFile, CLASSROOM_FORMAT, Event, EventError, ImportError, Log, Part, import,
    majority_criteria, merge, minutes_per_sample, part_actions, recurrence, share_scores_revised,
};
use concord_core::coeval::{Merge, ScoreTable, Unit, criterion_actions, results::ActionCounts};
use concord_core::stats::KrippendorffLevel;

fn criterion(c: &str, action: Action, text: Option<&str>) -> Event {
    Event::Criterion {
        criterion: c.to_owned(),
        action,
        text: text.map(str::to_owned),
        reason: format!("{} because", action.name()),
    }
}

fn part(instance: &str, c: &str, part: Part, action: Action, text: Option<&str>) -> Event {
    Event::Part {
        instance: instance.to_owned(),
        criterion: c.to_owned(),
        part,
        action,
        text: text.map(str::to_owned),
        reason: String::new(),
    }
}

fn score(instance: &str, c: &str, s: f64) -> Event {
    Event::Score { instance: instance.to_owned(), criterion: c.to_owned(), score: s }
}

fn timer(instance: &str, ms: u64) -> Event {
    Event::Timer { instance: instance.to_owned(), ms }
}

fn log(events: Vec<Event>) -> Log {
    Log::from_events(events).unwrap()
}

/// A session of one annotator: two criteria decisions, one instance reviewed, a timer.
fn session(name_suffix: &str) -> Log {
    log(vec![
        criterion("Fluency", Action::Approve, None),
        criterion("Originality", Action::Delete, None),
        criterion(&format!("Factuality{name_suffix}"), Action::Add, None),
        part("q1", "Fluency", Part::Conclusion, Action::Approve, None),
        part("q1", "Fluency", Part::Score, Action::Revise, Some("Score: 3")),
        part("q1", "Fluency", Part::Evidence(0), Action::Delete, None),
        part("q1", "Fluency", Part::Evidence(1), Action::Add, Some("\"a new quote\"")),
        score("q1", "Fluency", 3.0),
        timer("q1", 90_000),
    ])
}

#[test]
fn replay_and_undo() {
    let mut log = session("");
    let state = log.replay();
    assert_eq!(state.criteria.len(), 3);
    let review = &state.reviews[&("q1".to_owned(), "Fluency".to_owned())];
    assert_eq!(review.parts.len(), 4);
    assert_eq!(review.score, Some(3.0));
    assert_eq!(state.time_ms["q1"], 90_000);

    // Undo skips the timer (time spent stays spent) and removes the own score.
    log.undo().unwrap();
    log.push(timer("q1", 10_000)).unwrap();
    // A second undo removes the added evidence quote.
    log.undo().unwrap();
    let state = log.replay();
    let review = &state.reviews[&("q1".to_owned(), "Fluency".to_owned())];
    assert_eq!(review.score, None);
    assert_eq!(
        review.parts.keys().copied().collect::<Vec<_>>(),
        [Part::Conclusion, Part::Score, Part::Evidence(0)]
    );
    assert_eq!(state.time_ms["q1"], 100_000);
    // The log only grows: 9 events + undo + timer + undo.
    assert_eq!(log.events().len(), 12);

    // A reload replays the stored events to the same state.
    let stored = serde_json::to_string(&log).unwrap();
    let reloaded: Vec<Event> = serde_json::from_str(&stored).unwrap();
    assert_eq!(Log::from_events(reloaded).unwrap().replay(), state);
}

#[test]
fn a_batch_is_applied_and_undone_as_one_and_holds_decisions_only() {
    let mut log = log(vec![part("q1", "Fluency", Part::Conclusion, Action::Delete, None)]);
    let batch = Event::Batch {
        events: vec![
            part("q1", "Fluency", Part::Conclusion, Action::Approve, None),
            part("q1", "Fluency", Part::Score, Action::Approve, None),
            score("q1", "Fluency", 4.0),
        ],
    };
    log.push(batch).unwrap();
    let review = &log.replay().reviews[&("q1".to_owned(), "Fluency".to_owned())];
    assert_eq!(review.parts.len(), 2);
    assert_eq!(review.score, Some(4.0));
    // One undo takes the whole batch back, to the decision before it.
    log.undo().unwrap();
    let review = &log.replay().reviews[&("q1".to_owned(), "Fluency".to_owned())];
    assert_eq!(review.parts[&Part::Conclusion].action, Action::Delete);
    assert_eq!(review.parts.len(), 1);
    assert_eq!(review.score, None);
    // Written as `{"kind": "batch", "events": [...]}` and read back the same.
    let json = serde_json::to_string(&log).unwrap();
    assert!(json.contains(r#""kind":"batch""#), "{json}");
    let back = Log::from_events(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(back.replay(), log.replay());
    // Empty, or holding an undo, a timer or another batch: refused, nothing appended.
    let len = log.events().len();
    for events in [
        vec![],
        vec![Event::Undo],
        vec![timer("q1", 5)],
        vec![Event::Batch { events: vec![score("q1", "Fluency", 2.0)] }],
        vec![score("q1", "Fluency", 9.0)],
    ] {
        assert!(log.push(Event::Batch { events }).is_err());
    }
    assert_eq!(log.events().len(), len);
}

#[test]
fn later_decisions_override_earlier_ones_and_undo_restores_them() {
    let mut log = log(vec![
        criterion("Fluency", Action::Approve, None),
        criterion("Fluency", Action::Revise, Some("Fluent, natural English")),
    ]);
    assert_eq!(log.replay().criteria["Fluency"].action, Action::Revise);
    log.undo().unwrap();
    assert_eq!(log.replay().criteria["Fluency"].action, Action::Approve);
    log.undo().unwrap();
    assert!(log.replay().criteria.is_empty());
    assert_eq!(log.undo(), Err(EventError::NothingToUndo));
}

#[test]
fn invalid_events_are_refused() {
    let cases: Vec<(Event, EventError)> = vec![
        (score("q1", "Fluency", 6.0), EventError::ScoreOutOfRange { score: 6.0 }),
        (score("q1", "Fluency", f64::NAN), EventError::ScoreOutOfRange { score: f64::NAN }),
        (score("", "Fluency", 3.0), EventError::EmptyName { field: "instance" }),
        (criterion(" ", Action::Approve, None), EventError::EmptyName { field: "criterion" }),
        (
            criterion("Fluency", Action::Revise, None),
            EventError::MissingText { action: Action::Revise },
        ),
        (
            part("q1", "Fluency", Part::Evidence(3), Action::Add, Some("  ")),
            EventError::MissingText { action: Action::Add },
        ),
        (Event::Undo, EventError::NothingToUndo),
    ];
    for (event, want) in cases {
        let mut log = Log::new();
        let got = log.push(event.clone()).unwrap_err();
        // NaN ≠ NaN: compare the messages, which name the problem.
        assert_eq!(got.to_string(), want.to_string(), "{event:?}");
        assert!(log.events().is_empty());
    }
}

#[test]
fn export_import_round_trip() {
    let log = session("");
    let file = AnnotatorFile::new("alice", "eli5", &log);
    let bytes = serde_json::to_vec(&file).unwrap();
    let back = import(&bytes).unwrap();
    assert_eq!(back, std::slice::from_ref(&file));
    assert_eq!(back[0].log().unwrap().replay(), log.replay());
}

#[test]
fn import_errors() {
    let good = serde_json::to_value(AnnotatorFile::new("alice", "eli5", &session(""))).unwrap();
    let with = |key: &str, value: serde_json::Value| {
        let mut v = good.clone();
        v[key] = value;
        serde_json::to_vec(&v).unwrap()
    };
    let mut bad_event = good.clone();
    bad_event["events"][7]["score"] = serde_json::json!(9.0);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"not json".to_vec(), "not a CoEval annotation file"),
        (with("format", "something-else".into()), "format is `something-else`"),
        (with("version", 2.into()), "file version 2 is newer"),
        (with("annotator", "".into()), "names no annotator"),
        (serde_json::to_vec(&bad_event).unwrap(), "event 7: score 9 is outside the 1–5 scale"),
    ];
    for (bytes, want) in cases {
        let err = import(&bytes).unwrap_err();
        assert!(err.to_string().contains(want), "{err} should contain {want}");
    }
    assert!(matches!(
        import(&with("version", 2.into())),
        Err(ImportError::UnsupportedVersion { found: 2 })
    ));
}

#[test]
fn merge_reports_conflicts_and_keeps_everything() {
    let alice = AnnotatorFile::new("alice", "eli5", &session(""));
    let bob = AnnotatorFile::new("bob", "eli5", &session(" (bob)"));
    // Alice again from another machine: one criterion and the score changed, one instance added.
    let mut later = session("");
    later.push(criterion("Fluency", Action::Delete, None)).unwrap();
    later.push(score("q1", "Fluency", 4.0)).unwrap();
    later.push(score("q2", "Fluency", 5.0)).unwrap();
    let alice2 = AnnotatorFile::new("alice", "eli5", &later);

    let merged = merge(&[alice.clone(), bob.clone(), alice2]).unwrap();
    assert_eq!(merged.annotators.len(), 2, "alice and bob");
    assert_eq!(merged.annotators[0].sources, [0, 2]);
    let conflicts: Vec<(&str, &str, &str, usize, &str, usize)> = merged
        .conflicts
        .iter()
        .map(|c| {
            (
                c.annotator.as_str(),
                c.key.as_str(),
                c.kept.as_str(),
                c.kept_from,
                c.overridden.as_str(),
                c.overridden_from,
            )
        })
        .collect();
    assert_eq!(
        conflicts,
        [
            (
                "alice",
                "criterion \"Fluency\"",
                r#"{"action":"delete","reason":"delete because"}"#,
                2,
                r#"{"action":"approve","reason":"approve because"}"#,
                0
            ),
            ("alice", "instance \"q1\" / criterion \"Fluency\" / score", "4.0", 2, "3.0", 0),
        ]
    );
    let alice_state = &merged.annotators[0].state;
    assert_eq!(alice_state.reviews.len(), 2, "q2 from the later file is kept");
    assert_eq!(alice_state.time_ms["q1"], 90_000, "equal timers are not a conflict");

    // The merge itself (states keyed by tuples and parts) survives JSON, e.g. in IndexedDB.
    let stored = serde_json::to_string(&merged).unwrap();
    assert_eq!(serde_json::from_str::<Merge>(&stored).unwrap(), merged);

    // The merged state exports and imports again to the same state and conflicts.
    let classroom = merged.export();
    assert_eq!(classroom.format, CLASSROOM_FORMAT);
    let files = import(&serde_json::to_vec(&classroom).unwrap()).unwrap();
    assert_eq!(files.len(), 2);
    let again = merge(&files).unwrap();
    assert_eq!(again.annotators[0].state, merged.annotators[0].state);
    assert_eq!(again.annotators[1].state, merged.annotators[1].state);
    assert!(again.conflicts.is_empty());
    // Re-importing the same file twice is not a conflict.
    assert!(merge(&[bob.clone(), bob]).unwrap().conflicts.is_empty());
}

#[test]
fn results_over_annotations() {
    let a = session("").replay();
    let b = session(" (bob)").replay();
    let c = log(vec![
        criterion("Fluency", Action::Revise, Some("Natural English")),
        criterion("Originality", Action::Approve, None),
        part("q1", "Fluency", Part::Conclusion, Action::Revise, Some("Fluent")),
        part("q1", "Fluency", Part::Score, Action::Approve, None),
        score("q1", "Fluency", 5.0),
        timer("q1", 30_000),
    ])
    .replay();
    let all = [&a, &b, &c];

    let parts = part_actions(all);
    let counts = |c: &ActionCounts| (c.approve, c.revise, c.delete, c.add);
    assert_eq!(counts(&parts.all), (3, 3, 2, 2));
    assert_eq!(counts(&parts.conclusion), (2, 1, 0, 0));
    assert_eq!(counts(&parts.score), (1, 2, 0, 0));
    assert_eq!(counts(&parts.evidence), (0, 0, 2, 2));
    let rates = parts.score.percentages().unwrap();
    assert_eq!((rates.approve, rates.revise), (100.0 / 3.0, 200.0 / 3.0));
    assert_eq!(counts(&criterion_actions(all)), (3, 1, 2, 2));

    // The LLM said 5: a and b revised (own 3), c approved and kept 5.
    let share = share_scores_revised(all, |_, _| Some(5.0)).unwrap();
    assert_eq!(share, 2.0 / 3.0);

    // Fluency: approve, approve, revise → kept with the LLM wording (2 approvals > 1 revision);
    // Originality: delete, delete, approve → dropped; the added criteria differ → dropped.
    let finals = majority_criteria(&["Fluency".to_owned(), "Originality".to_owned()], &all);
    assert_eq!(finals.len(), 1);
    assert_eq!((finals[0].criterion.as_str(), finals[0].keep, finals[0].voters), ("Fluency", 3, 3));

    // Seed 004 §3.1: the action with the highest rate wins (a plurality, not "keep > half").
    let vote =
        |action: Action, text: Option<&str>| log(vec![criterion("Clarity", action, text)]).replay();
    let clarity = ["Clarity".to_owned()];
    // approve 2, revise 2, delete 3: delete is the most frequent action → dropped, although
    // 4 of 7 kept it in some form.
    let seven = [
        vote(Action::Approve, None),
        vote(Action::Approve, None),
        vote(Action::Revise, Some("Clear wording")),
        vote(Action::Revise, Some("Clear wording")),
        vote(Action::Delete, None),
        vote(Action::Delete, None),
        vote(Action::Delete, None),
    ];
    assert!(majority_criteria(&clarity, &seven.iter().collect::<Vec<_>>()).is_empty());
    // approve 2, delete 2: a tie with delete keeps it.
    let four = [&seven[0], &seven[1], &seven[4], &seven[5]];
    let kept = majority_criteria(&clarity, &four);
    assert_eq!((kept[0].criterion.as_str(), kept[0].keep, kept[0].voters), ("Clarity", 2, 4));
    // revise 2 beats approve 1: the revised wording.
    let three = [&seven[0], &seven[2], &seven[3]];
    assert_eq!(majority_criteria(&clarity, &three)[0].criterion, "Clear wording");

    // (90 s + 90 s + 30 s) / 3 instances-with-time = 70 s.
    assert_eq!(minutes_per_sample(all), Some(70.0 / 60.0));

    // The α matrix of a Concord study: the LLM's scores and each annotator's own.
    let unit = |i: &str| Unit {
        instance: i.to_owned(),
        system: format!("sys-{i}"),
        criterion: "Fluency".to_owned(),
    };
    let table = ScoreTable::from_annotations(
        "LLM",
        &[(unit("q1"), 5.0)],
        &[("a", &a), ("b", &b), ("c", &c)],
        |i| format!("sys-{i}"),
    );
    assert_eq!(table.raters, ["LLM", "a", "b", "c"]);
    assert_eq!(table.scores, [[Some(5.0)], [Some(3.0)], [Some(3.0)], [Some(5.0)]]);
    let m = table.alpha_matrix(KrippendorffLevel::Interval);
    // a and b both gave 3: a single value, so α is undefined (not 1, not 0).
    assert_eq!(m[0][0], Some(1.0));
    assert_eq!(m.len(), 4);
    assert_eq!((m[1][2], m[2][1]), (None, None));
}

#[test]
fn recurrence_over_ideation_samples() {
    let samples = vec![
        vec!["1. Fluency.".to_owned(), "2. Coherence".to_owned(), "3. fluency".to_owned()],
        vec!["- Coherence!".to_owned(), "Relevance".to_owned()],
        vec!["1) coherence".to_owned()],
    ];
    let got: Vec<(String, usize)> =
        recurrence(&samples).into_iter().map(|r| (r.criterion, r.samples)).collect();
    assert_eq!(
        got,
        [
            ("2. Coherence".to_owned(), 3),
            ("1. Fluency.".to_owned(), 1),
            ("Relevance".to_owned(), 1)
        ]
    );
}
