//! The judge revised from the disagreements (`study::workbench::revise`): the split (stratified,
//! seeded, exact), the meta-prompt (never a held-out item), the proposal, the held-out test
//! (Williams and the bootstrap interval of the difference) and the history in a bundle.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::bundle::{Bundle, Settings};
use concord_core::data::{self, Dataset};
use concord_core::judge::parse::Policy;
use concord_core::judge::template::{Part, PartKind, PromptTemplate};
use concord_core::study::workbench::JudgedRun;
use concord_core::study::workbench::report::bundle_report;
use concord_core::study::workbench::review::{self, Resampling, ReviewEvent, ReviewLog};
use concord_core::study::workbench::revise::{
    self, DEFAULT_META_PROMPT, DiffLine, ReviewSnapshot, ReviseError, Revision, Split,
};

const ITEMS: usize = 40;
const RUN: &str = "judge / overall";
const RESAMPLING: Resampling = Resampling { resamples: 400, seed: 11, confidence: 0.95 };

fn human(i: usize) -> f64 {
    1.0 + (i % 5) as f64
}

/// A judge that is right on a third of the items and off by up to two points elsewhere.
fn noisy(i: usize) -> f64 {
    let off = [0.0, 2.0, -2.0, 1.0, -1.0, 0.0, 2.0][(i * 3) % 7];
    (human(i) + off).clamp(1.0, 5.0)
}

/// Topical-Chat-shaped records; every output carries a unique marker `OUT-<i>-END`. Item 39
/// has no human rating when `unrated_last`.
fn records(judge: Option<fn(usize) -> f64>, unrated_last: bool) -> String {
    let rows: Vec<String> = (0..ITEMS)
        .map(|i| {
            let responses = judge
                .map(|j| format!(r#", "all_responses": ["Rating: {}"]"#, j(i)))
                .unwrap_or_default();
            let overall = if unrated_last && i == ITEMS - 1 {
                "null".to_owned()
            } else {
                human(i).to_string()
            };
            format!(
                r#"{{"source": "dialogue {}", "system_id": "system {}", "system_output": "OUT-{i}-END", "context": "fact", "scores": {{"naturalness": 2.0, "coherence": 2.0, "engagingness": 2.0, "groundedness": 1.0, "understandability": 1.0, "overall": {overall}}}{responses}}}"#,
                i / 2,
                i % 2,
            )
        })
        .collect();
    format!("[{}]", rows.join(",\n"))
}

fn dataset(unrated_last: bool) -> Dataset {
    data::load("dataset.json", records(None, unrated_last).as_bytes()).unwrap().dataset
}

fn run(judge: fn(usize) -> f64) -> JudgedRun {
    JudgedRun {
        method: "judge".into(),
        attribute: "overall".into(),
        policy: Policy::Concord,
        weighting: None,
        run: data::load("judge.json", records(Some(judge), false).as_bytes())
            .unwrap()
            .runs
            .remove(0),
        origin: "judge.json".into(),
    }
}

#[test]
fn the_split_is_stratified_seeded_and_exact() {
    let dataset = dataset(true);
    let s = revise::split(&dataset, "overall", 5, 0.5).unwrap();
    // Item 39 has no human rating: in neither set.
    assert_eq!(s.revision.len() + s.held_out.len(), ITEMS - 1);
    assert_eq!(s.revision.len(), 20, "round(0.5 × 39)");
    let last = &dataset.items[ITEMS - 1].id;
    assert!(!s.is_revision(last) && !s.is_held_out(last));
    assert!(s.revision.iter().all(|id| !s.is_held_out(id)), "disjoint");
    // Every stratum (human rating) within one item of half.
    for rating in 1..=5 {
        let in_stratum = |ids: &[String]| {
            ids.iter()
                .filter(|id| {
                    let i = dataset.items.iter().position(|it| &it.id == *id).unwrap();
                    human(i) == rating as f64
                })
                .count()
        };
        let (r, h) = (in_stratum(&s.revision), in_stratum(&s.held_out));
        assert!(r.abs_diff(h) <= 1, "rating {rating}: {r} revision, {h} held out");
    }
    // The same seed draws the same split; another seed another one.
    assert_eq!(revise::split(&dataset, "overall", 5, 0.5).unwrap(), s);
    assert_ne!(revise::split(&dataset, "overall", 6, 0.5).unwrap().revision, s.revision);
    let quarter = revise::split(&dataset, "overall", 5, 0.25).unwrap();
    assert_eq!(quarter.revision.len(), 10, "round(0.25 × 39)");

    assert_eq!(revise::split(&dataset, "overall", 5, 1.0), Err(ReviseError::BadShare(1.0)));
    assert!(matches!(revise::split(&dataset, "nope", 5, 0.5), Err(ReviseError::NoAttribute(_))));
    let few = data::load("few.json", records(None, false).as_bytes()).unwrap().dataset;
    let few = Dataset { items: few.items[..7].to_vec(), ..few };
    assert_eq!(revise::split(&few, "overall", 5, 0.5), Err(ReviseError::TooFewItems(7)));
}

#[test]
fn the_meta_prompt_holds_revision_items_only() {
    let dataset = dataset(false);
    let judged = run(noisy);
    let split = revise::split(&dataset, "overall", 1, 0.5).unwrap();
    let items = review::review_items(&dataset, &judged);
    // A reviewer flagged and changed items on both sides of the split.
    let mut log = ReviewLog::new();
    for (i, item) in dataset.items.iter().enumerate() {
        let event = if i % 2 == 0 {
            ReviewEvent::Flag {
                run: RUN.into(),
                item: item.id.clone(),
                note: format!("NOTE-{i}-END"),
            }
        } else {
            ReviewEvent::Change { run: RUN.into(), item: item.id.clone(), rating: human(i) }
        };
        log.push(event).unwrap();
    }
    let reviews = log.replay();
    let d = revise::disagreements(&dataset, &items, RUN, &reviews, &split, 100);
    let notes = revise::notes(RUN, &reviews, &split);
    let prompt = "Rate the reply.\n{{system_output}}\nRating:";
    let meta = revise::meta_prompt(DEFAULT_META_PROMPT, prompt, &d, &notes);
    for (i, item) in dataset.items.iter().enumerate() {
        let output = format!("OUT-{i}-END");
        let note = format!("NOTE-{i}-END");
        if split.is_held_out(&item.id) {
            assert!(!meta.contains(&output), "held-out item {i} is in the meta-prompt");
            assert!(!meta.contains(&note), "a held-out item's note is in the meta-prompt");
            assert!(!meta.contains(&format!("{}:", item.id)), "held-out id {}", item.id);
        }
    }
    // The revision set's disagreements are there, largest first, and its notes.
    assert!(!d.is_empty());
    assert!(d.iter().all(|x| split.is_revision(&x.id)));
    let gaps: Vec<f64> = d.iter().map(|x| (x.judge - x.people).abs()).collect();
    assert!(gaps.windows(2).all(|w| w[0] >= w[1]), "{gaps:?}");
    assert!(meta.contains(&d[0].text));
    assert!(
        notes.iter().all(|(item, note)| split.is_revision(item) && meta.contains(note.as_str()))
    );
    assert!(meta.contains("{{system_output}}"), "the judge's placeholders stay");
    assert!(!meta.contains("{{disagreements}}") && !meta.contains("{{notes}}"));
    // Only the `max` largest.
    assert_eq!(revise::disagreements(&dataset, &items, RUN, &reviews, &split, 3).len(), 3);
}

#[test]
fn proposals_are_read_and_checked() {
    assert_eq!(
        revise::proposal("Sure.\n<prompt>\nNew {{system_output}}\n</prompt>\nBye"),
        "New {{system_output}}"
    );
    assert_eq!(revise::proposal("  just text  "), "just text");
    let dataset = dataset(false);
    let split = revise::split(&dataset, "overall", 1, 0.5).unwrap();
    let old = PromptTemplate { parts: vec![Part::new(PartKind::Other, "x")], bindings: Vec::new() };
    assert!(revise::revised_template(&dataset, &old, "Rate {{system_output}}", &split).is_ok());
    assert!(matches!(
        revise::revised_template(&dataset, &old, "Rate {{summary}}", &split),
        Err(ReviseError::DoesNotRender { .. })
    ));
    assert_eq!(
        revise::revised_template(&dataset, &old, " ", &split),
        Err(ReviseError::EmptyProposal)
    );
    let d = revise::diff("a\nb\nc", "a\nB\nc\nd");
    assert_eq!(
        d,
        vec![
            DiffLine::Same("a".into()),
            DiffLine::Removed("b".into()),
            DiffLine::Added("B".into()),
            DiffLine::Same("c".into()),
            DiffLine::Added("d".into()),
        ]
    );
    assert_eq!(revise::diff_text(&d[..3]), "  a\n- b\n+ B");
}

fn split_of(dataset: &Dataset) -> Split {
    revise::split(dataset, "overall", 3, 0.5).unwrap()
}

#[test]
fn a_better_judge_on_the_held_out_items_is_called_better_and_an_equal_one_is_not() {
    let dataset = dataset(false);
    let split = split_of(&dataset);
    let humans: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(human(i))).collect();
    let old: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(noisy(i))).collect();
    // The revised judge rates the held-out items as the humans do, nearly.
    let good: Vec<Option<f64>> = (0..ITEMS)
        .map(|i| split.is_held_out(&dataset.items[i].id).then(|| human(i) + 0.1 * (i % 2) as f64))
        .collect();
    let held = revise::compare(&dataset, &humans, &old, &good, &split, RESAMPLING);
    assert_eq!(held.n, 20);
    let held_h: Vec<f64> =
        (0..ITEMS).filter(|&i| split.is_held_out(&dataset.items[i].id)).map(human).collect();
    let held_o: Vec<f64> =
        (0..ITEMS).filter(|&i| split.is_held_out(&dataset.items[i].id)).map(noisy).collect();
    assert_eq!(held.r_old, concord_core::stats::pearson(&held_h, &held_o).value);
    assert!(held.p.unwrap() < 0.05 && held.better(), "{held:?}");
    let [lo, hi] = held.diff_ci.unwrap();
    let delta = held.r_new.unwrap() - held.r_old.unwrap();
    assert!(lo > 0.0 && lo <= delta && delta <= hi, "{lo} {delta} {hi}");

    // A revision that changed nothing: the same ratings. Williams' test is undefined (the two
    // judges correlate perfectly), so it is not called better.
    let same: Vec<Option<f64>> =
        (0..ITEMS).map(|i| split.is_held_out(&dataset.items[i].id).then(|| noisy(i))).collect();
    let held = revise::compare(&dataset, &humans, &old, &same, &split, RESAMPLING);
    assert!(!held.better(), "{held:?}");
    assert_eq!(held.r_new, held.r_old);
    // A revision as noisy as the old judge but differently: not better either.
    let other: Vec<Option<f64>> =
        (0..ITEMS).map(|i| split.is_held_out(&dataset.items[i].id).then(|| noisy(i + 3))).collect();
    let held = revise::compare(&dataset, &humans, &old, &other, &split, RESAMPLING);
    assert!(!held.better(), "{held:?}");
    assert!(held.p.unwrap() >= 0.05);
}

#[test]
fn the_history_travels_in_the_bundle_and_concord_report_prints_it() {
    let dataset = dataset(false);
    let split = split_of(&dataset);
    let answers: Vec<(String, Vec<String>)> = dataset
        .items
        .iter()
        .enumerate()
        .filter(|(_, it)| split.is_held_out(&it.id))
        .map(|(i, it)| (it.id.clone(), vec![format!("Rating: {}", human(i))]))
        .collect();
    let revision = Revision {
        number: 1,
        run: RUN.into(),
        attribute: "overall".into(),
        policy: Policy::Concord,
        meta_prompt: "meta".into(),
        answer: "<prompt>new</prompt>".into(),
        prompt_before: "Rate.\n{{system_output}}".into(),
        prompt_after: "Rate carefully.\n{{system_output}}".into(),
        answers,
        cost_usd: None,
        split: None,
    };
    assert_eq!(revision.changed_lines(), (1, 1));
    let mut bundle = Bundle::new(
        &dataset,
        "json",
        None,
        None,
        vec![run(noisy)],
        Vec::new(),
        Settings::default(),
        "2026-11-26T00:00:00Z".into(),
    );
    bundle.review = Some(ReviewSnapshot {
        split: Some(split.clone()),
        revisions: vec![revision],
        ..ReviewSnapshot::default()
    });
    let read = Bundle::from_json(&bundle.to_json()).unwrap();
    assert_eq!(read.review, bundle.review);
    let report = bundle_report(&read);
    let table = report.tables.iter().find(|t| t.id == revise::HISTORY_TABLE).unwrap();
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.keyed("revision-1/better").unwrap().display(), "yes");
    assert_eq!(table.keyed("revision-1/r_after").unwrap().value, Some(1.0));
    assert_eq!(table.rows[0].cells[8].display(), "+1 −1");

    // The exported history carries each revision's prompts and diff with its test.
    let done = revise::outcomes(
        &read.dataset.embedded,
        &concord_core::study::workbench::report::judges_table(&read),
        Some(&split),
        &read.review.as_ref().unwrap().revisions,
        RESAMPLING,
    );
    let json: serde_json::Value = serde_json::from_str(&revise::history_json(&done)).unwrap();
    // A revision keeps the split it was tested under: a later split changes nothing.
    let other = revise::split(&read.dataset.embedded, "overall", 99, 0.5).unwrap();
    let mut kept = read.review.as_ref().unwrap().revisions.clone();
    kept[0].split = Some(split.clone());
    let judges = concord_core::study::workbench::report::judges_table(&read);
    let again = revise::outcomes(&read.dataset.embedded, &judges, Some(&other), &kept, RESAMPLING);
    assert_eq!(again[0].1, done[0].1);
    let unkept = revise::outcomes(
        &read.dataset.embedded,
        &judges,
        Some(&other),
        &read.review.as_ref().unwrap().revisions,
        RESAMPLING,
    );
    assert_ne!(unkept[0].1, done[0].1, "without it, the current split is used");
    assert_eq!(json[0]["diff"], "- Rate.\n+ Rate carefully.\n  {{system_output}}");
    assert_eq!(json[0]["better"], true);
    assert_eq!(json[0]["r_after"], 1.0);
    assert_eq!(json[0]["held_out_n"], 20);
}
