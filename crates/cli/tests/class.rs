//! `concord class`: an exercise built from the built-in example and three students'
//! submissions (one of them twice) print the class view's tables — each file the same bytes
//! as the core's report, which the app's export buttons write — and a damaged exercise is
//! named. A correct-judge exercise's tables (each student's corrections, the items most
//! changed) are written the same way.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

use concord_core::bundle::ExtraRater;
use concord_core::report::Format;
use concord_core::study::exercise::class::{CHANGED_TABLE, CORRECTIONS_TABLE};
use concord_core::study::exercise::class::{RESAMPLING, class_report};
use concord_core::study::exercise::{Exercise, ExerciseSpec, Submission};
use concord_core::study::workbench::JudgedRun;
use concord_core::study::workbench::review::{ReviewEvent, ReviewLog};

fn concord(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_concord")).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn exercise() -> Exercise {
    let dataset = concord_core::data::example().unwrap().dataset;
    let spec = ExerciseSpec {
        id: "ex".into(),
        title: "Coherence".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "Rate *coherence*.".into(),
        attributes: vec!["coherence".into()],
        sample: Some((6, 3)),
        hide_reference: true,
        coeval: None,
    };
    Exercise::build(&dataset, spec, Vec::new()).unwrap()
}

#[test]
fn class_prints_the_class_views_tables_byte_for_byte() {
    let dir = scratch("class");
    let ex = exercise();
    let ex_path = dir.join("exercise.json");
    std::fs::write(&ex_path, ex.to_json()).unwrap();
    let ids: Vec<String> = ex.dataset.embedded.items.iter().map(|i| i.id.clone()).collect();
    let mut files = Vec::new();
    let mut paths = vec![ex_path.to_str().unwrap().to_owned()];
    for (k, student) in ["Ann", "Bob", "Cy", "Ann"].into_iter().enumerate() {
        let offset = if k == 3 { 0 } else { k };
        let scores = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), 1.0 + ((i + offset * 2) % 5) as f64))
            .collect();
        let rater = ExtraRater { name: student.into(), attribute: "coherence".into(), scores };
        let s = Submission::new(&ex, student, "t".into(), &[rater], &[]).unwrap();
        let name = format!("{k}-{student}.json");
        let path = dir.join(&name);
        std::fs::write(&path, s.to_json()).unwrap();
        paths.push(path.to_str().unwrap().to_owned());
        files.push((name, s));
    }
    let expected = class_report(&ex, &files, RESAMPLING).report;
    let out = dir.join("out");
    let mut args: Vec<&str> = vec!["class"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--format", "csv", "--out", out.to_str().unwrap()]);
    let run = concord(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let want = expected.files(Format::Csv);
    assert_eq!(want.len(), 3, "submissions, students, agreement");
    for f in want {
        let got = std::fs::read_to_string(out.join(&f.name)).unwrap();
        assert_eq!(got, f.text, "{}", f.name);
    }
    // The duplicate is named in the printed Markdown.
    args.truncate(paths.len() + 1);
    let md = concord(&args);
    let text = String::from_utf8(md.stdout).unwrap();
    assert!(text.contains("duplicate of 0-Ann.json, left out"), "{text}");
    assert_eq!(text, expected.to_text(Format::Markdown));
}

#[test]
fn a_damaged_exercise_or_a_missing_submission_is_named() {
    let dir = scratch("class-bad");
    let ex = dir.join("exercise.json");
    let json = exercise().to_json().replacen("\"version\": 1", "\"version\": 7", 1);
    std::fs::write(&ex, json).unwrap();
    let sub = dir.join("s.json");
    std::fs::write(&sub, "{}").unwrap();
    let run = concord(&["class", ex.to_str().unwrap(), sub.to_str().unwrap()]);
    assert!(!run.status.success());
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(err.contains("this exercise has version 7"), "{err}");
    // Without a submission, the parser names the argument missing (a usage error: exit 2).
    let run = concord(&["class", ex.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(err.contains("required arguments were not provided:\n  <SUBMISSION>..."), "{err}");
}

#[test]
fn class_prints_a_correct_judge_exercises_corrections_byte_for_byte() {
    let dir = scratch("class-correct");
    let dataset = concord_core::data::example().unwrap().dataset;
    let attribute = dataset.attributes[0].name.clone();
    // A judge that rates every item 3 (item 0: 5), one sample each.
    let records = dataset
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| concord_core::data::JudgeRecord {
            key: concord_core::data::RecordKey::Id(item.id.clone()),
            prompt: None,
            prompt_chars: None,
            responses: vec![format!("Rating: {}", if i == 0 { 5 } else { 3 + i % 2 })],
            cut_off: Vec::new(),
            logprobs: Vec::new(),
            reasoning_tokens: Vec::new(),
            parsed: Vec::new(),
            line: i + 1,
            meta: None,
            calls: Vec::new(),
        })
        .collect();
    let run = JudgedRun {
        method: "score-only".into(),
        attribute: attribute.clone(),
        policy: Default::default(),
        weighting: None,
        run: concord_core::data::JudgeRun { name: "j".into(), attribute: None, records },
        origin: "study".into(),
    };
    let spec = ExerciseSpec {
        id: "cj".into(),
        title: "Correct".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "Correct the judge.".into(),
        attributes: Vec::new(),
        sample: Some((6, 3)),
        hide_reference: true,
        coeval: None,
    };
    let ex = Exercise::build_with(&dataset, spec, Vec::new(), Some(&run)).unwrap();
    assert_eq!(ex.version, 2);
    let ex_path = dir.join("exercise.json");
    std::fs::write(&ex_path, ex.to_json()).unwrap();
    let key = ex.correct_judge_key().unwrap();
    let ids: Vec<String> = ex.dataset.embedded.items.iter().map(|i| i.id.clone()).collect();
    let mut files = Vec::new();
    let mut paths = vec![ex_path.to_str().unwrap().to_owned()];
    for (k, student) in ["Ann", "Bob"].into_iter().enumerate() {
        let mut events = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let (run, item) = (key.clone(), id.clone());
            events.push(ReviewEvent::Timer { run: run.clone(), item: item.clone(), ms: 20_000 });
            events.push(match (i + k) % 3 {
                0 => ReviewEvent::Change { run, item, rating: 1.0 + ((i + k) % 5) as f64 },
                1 => ReviewEvent::Accept { run, item },
                _ => ReviewEvent::Flag { run, item, note: "odd".into() },
            });
        }
        let reviews = ReviewLog::from_events(events).unwrap().replay();
        let s = Submission::answer(&ex, student, "t".into(), &[], &[], &reviews).unwrap();
        let name = format!("{k}-{student}.json");
        let path = dir.join(&name);
        std::fs::write(&path, s.to_json()).unwrap();
        paths.push(path.to_str().unwrap().to_owned());
        files.push((name, s));
    }
    let expected = class_report(&ex, &files, RESAMPLING).report;
    assert!(expected.table(CORRECTIONS_TABLE).is_some());
    let out = dir.join("out");
    let mut args: Vec<&str> = vec!["class"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--format", "csv", "--out", out.to_str().unwrap()]);
    let run = concord(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let want = expected.files(Format::Csv);
    let names: Vec<&str> = want.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "class-submissions.csv",
            &format!("{CORRECTIONS_TABLE}.csv"),
            &format!("{CHANGED_TABLE}.csv")
        ]
    );
    for f in want {
        let got = std::fs::read_to_string(out.join(&f.name)).unwrap();
        assert_eq!(got, f.text, "{}", f.name);
    }
    let corrections = std::fs::read_to_string(out.join("class-corrections.csv")).unwrap();
    assert!(corrections.contains("judge + review"), "{corrections}");
}

#[test]
fn class_prints_a_run_judges_exercises_runs_byte_for_byte() {
    use concord_core::judge::builtin::OutputMode;
    use concord_core::run::{Endpoint, ProviderId};
    use concord_core::study::exercise::class::{RUNS_AGREEMENT_TABLE, RUNS_TABLE};
    use concord_core::study::workbench::{Study, method};

    let dir = scratch("class-run");
    let dataset = concord_core::data::example().unwrap().dataset;
    let attribute = dataset.attributes[0].name.clone();
    let attributes = vec![attribute.clone()];
    let m = method(
        &dataset,
        &attributes,
        OutputMode::ScoreOnly,
        false,
        Default::default(),
        concord_core::judge::protocol::Sampling::single(),
        Default::default(),
    );
    let study = Study { attributes, methods: vec![m], ..Study::default() };
    let spec = ExerciseSpec {
        id: "rj".into(),
        title: "Run".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "Run the judge.".into(),
        attributes: Vec::new(),
        sample: Some((6, 3)),
        hide_reference: true,
        coeval: None,
    };
    let ex = Exercise::build_tasks(&dataset, spec, Vec::new(), None, Some(&study)).unwrap();
    assert_eq!(ex.version, 2);
    let ex_path = dir.join("exercise.json");
    std::fs::write(&ex_path, ex.to_json()).unwrap();
    let ids: Vec<String> = ex.dataset.embedded.items.iter().map(|i| i.id.clone()).collect();
    let mut files = Vec::new();
    let mut paths = vec![ex_path.to_str().unwrap().to_owned()];
    for (k, student) in ["Ann", "Bob"].into_iter().enumerate() {
        // Each student's judge rates the items differently, one sample each.
        let records = ids
            .iter()
            .enumerate()
            .map(|(i, id)| concord_core::data::JudgeRecord {
                key: concord_core::data::RecordKey::Id(id.clone()),
                prompt: None,
                prompt_chars: None,
                responses: vec![format!("Rating: {}", 1 + (i * (k + 1)) % 5)],
                cut_off: Vec::new(),
                logprobs: Vec::new(),
                reasoning_tokens: Vec::new(),
                parsed: Vec::new(),
                line: i + 1,
                meta: None,
                calls: Vec::new(),
            })
            .collect();
        let run = JudgedRun {
            method: study.methods[0].name.clone(),
            attribute: attribute.clone(),
            policy: Default::default(),
            weighting: None,
            run: concord_core::data::JudgeRun { name: "j".into(), attribute: None, records },
            origin: "study".into(),
        };
        let endpoint = Endpoint {
            provider: ProviderId::OpenAi,
            base_url: "https://api.example/v1".into(),
            model: format!("model-{student}"),
        };
        let s = Submission::answer(&ex, student, "t".into(), &[], &[], &Default::default())
            .unwrap()
            .with_runs(&ex, &[run], Some(&endpoint))
            .unwrap();
        let name = format!("{k}-{student}.json");
        let path = dir.join(&name);
        std::fs::write(&path, s.to_json()).unwrap();
        paths.push(path.to_str().unwrap().to_owned());
        files.push((name, s));
    }
    let expected = class_report(&ex, &files, RESAMPLING).report;
    let out = dir.join("out");
    let mut args: Vec<&str> = vec!["class"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--format", "csv", "--out", out.to_str().unwrap()]);
    let run = concord(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let want = expected.files(Format::Csv);
    let names: Vec<&str> = want.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "class-submissions.csv",
            &format!("{RUNS_TABLE}.csv"),
            &format!("{RUNS_AGREEMENT_TABLE}.csv")
        ]
    );
    for f in want {
        let got = std::fs::read_to_string(out.join(&f.name)).unwrap();
        assert_eq!(got, f.text, "{}", f.name);
    }
    let runs = std::fs::read_to_string(out.join("class-runs.csv")).unwrap();
    assert!(runs.contains("model-Ann") && runs.contains("model-Bob"), "{runs}");
}
