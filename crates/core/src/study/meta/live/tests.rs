//! The live runs' protocols, figures, files and replay, on scripted answers.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use super::*;
use crate::study::meta::tables;

pub(crate) fn pair(i: usize, label: PairLabel) -> PairInput {
    PairInput {
        id: i.to_string(),
        question: format!("Q{i}?"),
        answer_a: format!("A{i}"),
        answer_b: format!("B{i}"),
        label: Some(label),
    }
}

/// Answers every pending request of `p` with `reply(prompt of the last message)`.
fn drive<P: Protocol>(p: &mut P, reply: &dyn Fn(&str) -> String) {
    for _ in 0..20 {
        let pending = p.pending();
        if pending.is_empty() {
            return;
        }
        for r in pending {
            let text = reply(&r.messages.last().unwrap().content);
            p.respond(&r.tag, &[ChatResponse::text(text)]).unwrap();
        }
    }
}

#[test]
fn scoring_run_pearson_with_the_human_scores_and_assessments_for_meta_evaluation() {
    let texts: Vec<ScoredText> = (1..=5)
        .map(|i| ScoredText { text: format!("Story number {i}."), gold: Some(f64::from(i)) })
        .collect();
    let evaluators = vec!["tracks".to_owned(), "flat".to_owned()];
    let mut protocols = scoring_protocols(&texts, &evaluators, true).unwrap();
    // The OpenMEVA prompt of Table 8, with the text in it.
    let first = &protocols[0][0].pending()[0].messages[0].content;
    assert!(first.starts_with(
        "Please act as an impartial judge and evaluate the overall quality of the five-line story."
    ));
    assert!(first.contains("Here is the story: Story number 1. Please output"));
    let tracks = |prompt: &str| {
        let i = ["number 1.", "number 2.", "number 3.", "number 4.", "number 5."]
            .iter()
            .position(|t| prompt.contains(t))
            .unwrap();
        [
            "<Rating> 2 </Rating>",
            "<Rating>2</Rating>",
            "<Rating> 3 </Rating>",
            "<Explanation>fine</Explanation> <Rating> 5 </Rating>",
            "no tag at all",
        ][i]
            .to_owned()
    };
    for p in &mut protocols[0] {
        drive(p, &tracks);
    }
    for p in &mut protocols[1] {
        drive(p, &|_| "<Rating> 3 </Rating>".to_owned());
    }
    let outcomes = protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect();
    let run = ScoringRun { texts, evaluators, openmeva: true, outcomes };
    let f = run.figures();
    // (1, 2, 3, 4) against (2, 2, 3, 5): r = 5 / sqrt(5 · 6), by hand.
    assert_eq!((f[0].n, f[0].unreadable), (4, 1));
    assert!((f[0].pearson.unwrap() - 5.0 / 30f64.sqrt()).abs() < 1e-12);
    assert_eq!((f[1].n, f[1].unreadable, f[1].pearson), (5, 0, None), "constant scores: undefined");
    let files = run.files();
    assert_eq!(files.len(), 2);
    match &files[0].content {
        Content::Evaluator(row) => {
            assert_eq!((row.kind, row.n), ("pointwise", 4));
            assert_eq!(row.pearson, f[0].pearson);
        }
        other => panic!("{other:?}"),
    }
    // Every answered text is an assessment JDEval-i / BSMEval can score, unreadable or not.
    assert_eq!(files[0].individual.len(), 5);
    assert_eq!(
        files[0].individual[3].assessment,
        "<Explanation>fine</Explanation> <Rating> 5 </Rating>"
    );
    assert_eq!(files[0].individual[3].gold, Some(4.0));
    let table = tables::scoring_run_table(&run);
    let headings: Vec<&str> = table.columns.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(headings, ["n", "Pearson r", "Unreadable"]);
    assert_eq!(table.rows[0].cells[1].text, "0.9129");
    assert_eq!(table.keyed("flat/pearson").unwrap().value, None);
}

#[test]
fn pairwise_run_figures_and_files() {
    let pairs = vec![
        pair(0, PairLabel::A),
        pair(1, PairLabel::B),
        pair(2, PairLabel::Tie),
        pair(3, PairLabel::A),
    ];
    let evaluators = vec!["good".to_owned(), "first".to_owned()];
    let mut protocols = pairwise_protocols(&pairs, &evaluators, true).unwrap();
    // "good" names the gold answer in both orders (a tie for the tie); "first" always
    // names whatever is shown first.
    let gold = |prompt: &str| -> &'static str {
        let shown_first_is_a = prompt.find("1:\nA").is_some();
        let i: usize = prompt[prompt.find("### Question:\nQ").unwrap() + 15..]
            .chars()
            .next()
            .unwrap()
            .to_digit(10)
            .unwrap() as usize;
        match (pairs[i].label.unwrap(), shown_first_is_a) {
            (PairLabel::Tie, _) => "0",
            (PairLabel::A, true) | (PairLabel::B, false) => "1",
            _ => "2",
        }
    };
    for p in &mut protocols[0] {
        drive(p, &|prompt| format!("<Winner>{}</Winner>", gold(prompt)));
    }
    for p in &mut protocols[1] {
        drive(p, &|_| "<Winner>1</Winner>".to_owned());
    }
    let run = PairwiseRun {
        pairs: pairs.clone(),
        evaluators: evaluators.clone(),
        swap: true,
        outcomes: protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect(),
    };
    let f = run.figures();
    assert_eq!(f[0].accuracy.accuracy, Some(1.0));
    let pos = f[0].position.as_ref().unwrap();
    assert_eq!((pos.consistency, pos.position_bias), (Some(1.0), Some(0.0)));
    // "first": right on pairs 0 and 3 (gold A) of 4; of the 3 non-tie golds, 2.
    assert_eq!(f[1].accuracy.accuracy, Some(0.5));
    assert_eq!(f[1].accuracy.accuracy_no_ties, Some(2.0 / 3.0));
    let pos = f[1].position.as_ref().unwrap();
    assert_eq!((pos.consistency, pos.position_bias, pos.prefers_first), (Some(0.0), Some(1.0), 4));
    let table = tables::pairwise_run_table(&run);
    assert_eq!(table.rows.len(), 2);
    assert_eq!(table.rows[1].cells[1].text, "0.5000");
    assert_eq!(table.keyed("first/position_bias").unwrap().value, Some(1.0));
    assert_eq!(run.files().len(), 2);

    // JDEval over the one couple per pair: the judge prefers Assistant1 ("good").
    let jobs = couple_jobs(&run);
    assert_eq!(jobs.len(), 4);
    assert!(jobs[0].assessed.assessment_1.contains("<Winner>1</Winner>"));
    assert_eq!((jobs[2].evaluator_1.as_str(), jobs[2].label), ("good", Some(PairLabel::Tie)));
    let mut jd = jdeval_protocols(&jobs).unwrap();
    for p in &mut jd {
        drive(p, &|_| {
            "<Better_answer>AnswerA</Better_answer><Better_assistant>Assistant1</Better_assistant>"
                .to_owned()
        });
    }
    let outcomes: Vec<_> = jd.iter().map(|p| p.outcome()).collect();
    let file = jdeval_run_file("meta-judge", &jobs, &outcomes);
    let Content::JdEval(j) = &file.content else { panic!("not a JDEval file") };
    assert_eq!(j.meta_evaluator, "meta-judge · JDEval");
    assert_eq!(j.win_rates.wins, vec![0, 4]); // evaluators sorted: first, good
    assert_eq!((j.post.correct, j.post.n), (2, 4)); // AnswerA is right on pairs 0 and 3
    assert_eq!(j.debates.len(), 4);
}

#[test]
fn mdeval_debate_of_three_rounds_becomes_a_debate_record() {
    let pairs = vec![pair(0, PairLabel::A)];
    let run = PairwiseRun {
        pairs,
        evaluators: vec!["x".into(), "y".into()],
        swap: false,
        outcomes: vec![
            vec![Some(PairwiseOutcome {
                original: Ok(Verdict::First),
                swapped: None,
                verdict: Some(Verdict::First),
                consistent: None,
                responses: vec!["x says 1".into()],
            })],
            vec![Some(PairwiseOutcome {
                original: Ok(Verdict::Second),
                swapped: None,
                verdict: Some(Verdict::Second),
                consistent: None,
                responses: vec!["y says 2".into()],
            })],
        ],
    };
    let jobs = couple_jobs(&run);
    let mut md = mdeval_protocols(&jobs, 3).unwrap();
    drive(&mut md[0], &|prompt| {
        if prompt.contains("You are Assistant") {
            "I am right.".to_owned()
        } else if prompt.contains("Round 3\nJudge") {
            "<Better_assistant>Assistant2</Better_assistant>".to_owned()
        } else {
            "<Question>Why?</Question>".to_owned()
        }
    });
    let outcomes: Vec<_> = md.iter().map(|p| p.outcome()).collect();
    let file = mdeval_run_file("meta-judge", &jobs, &outcomes);
    let Content::JdEval(j) = &file.content else { panic!("not a JDEval file") };
    let d = &j.debates[0];
    assert_eq!(d.rounds.len(), 3);
    assert_eq!(d.rounds[0].judge_question.as_deref(), Some("Why?"));
    assert_eq!(d.verdict, "y");
    assert_eq!(d.opening.as_ref().unwrap()[0].1, "x says 1");
    assert_eq!(j.records[0].winner, Some(Verdict::Second));
}

#[test]
fn individual_runs_give_meta_scores_per_evaluator() {
    let inputs: Vec<IndividualInput> = ["a", "a", "b"]
        .iter()
        .enumerate()
        .map(|(i, e)| IndividualInput {
            evaluator: (*e).to_owned(),
            text: format!("Story {i}."),
            gold: Some(3.0),
            assessment: format!("Rating {i}"),
        })
        .collect();
    let mut jd = jdeval_i_protocols(&inputs, IndividualTask::OpenMeva).unwrap();
    for (i, p) in jd.iter_mut().enumerate() {
        let s = [4, 2, 5][i];
        drive(p, &|_| {
            format!(
                "<Score_for_story>3</Score_for_story><Score_for_Assistant>{s}</Score_for_Assistant>"
            )
        });
    }
    let outcomes: Vec<_> = jd.iter().map(|p| p.outcome()).collect();
    let files = jdeval_i_run_files("mj", &inputs, &outcomes);
    let means: Vec<(String, Option<f64>)> = files
        .iter()
        .map(|f| match &f.content {
            Content::MetaScore { score, .. } => (score.evaluator.clone(), score.mean),
            _ => panic!("not a meta score"),
        })
        .collect();
    assert_eq!(means, vec![("a".to_owned(), Some(3.0)), ("b".to_owned(), Some(5.0))]);

    let mut bsm = bsmeval_protocols(&inputs[..1]);
    drive(&mut bsm[0], &|prompt| {
        if prompt.contains("sub-tasks") {
            "1. Accuracy\n2. Reasoning".to_owned()
        } else if prompt.contains("Accuracy") {
            "<Score>4</Score>".to_owned()
        } else {
            "<Score>2</Score>".to_owned()
        }
    });
    let outcomes: Vec<_> = bsm.iter().map(|p| p.outcome()).collect();
    let files = bsmeval_run_files("mj", &inputs[..1], &outcomes);
    let Content::MetaScore { score, records } = &files[0].content else { panic!() };
    assert_eq!((score.protocol, score.mean), (MetaProtocol::BsmEval, Some(3.0)));
    let subtasks: Vec<_> = records[0].branches.iter().map(|b| b.subtask.clone()).collect();
    assert_eq!(subtasks, vec![Some("Accuracy".into()), Some("Reasoning".into())]);
    assert_eq!(records[0].branches[1].score, Some(2.0));
}

#[test]
fn a_run_replayed_from_its_answers_equals_the_run_driven() {
    // MDEval, the multi-step protocol: the judge's questions, both debaters, the decision.
    let jobs: Vec<CoupleJob> = (0..2)
        .map(|i| CoupleJob {
            pair: i,
            evaluator_1: "x".into(),
            evaluator_2: "y".into(),
            label: Some(PairLabel::A),
            assessed: AssessedPair {
                question: format!("Q{i}?"),
                answer_a: "A".into(),
                answer_b: "B".into(),
                assessment_1: "x: 1".into(),
                assessment_2: "y: 2".into(),
            },
        })
        .collect();
    let spec = RunSpec::MdEval { meta_evaluator: "mj".into(), rounds: 2, jobs: jobs.clone() };
    let Protocols::MdEval(mut groups) = spec.protocols().unwrap() else { panic!() };
    let mut answers = BTreeMap::new();
    for _ in 0..10 {
        for p in &mut groups[0].1 {
            for r in p.pending() {
                let prompt = &r.messages.last().unwrap().content;
                let text = if prompt.contains("You are Assistant") {
                    format!("debater answers {}", r.tag)
                } else if prompt.contains("Round 2\nJudge") {
                    "<Better_assistant>Assistant1</Better_assistant>".to_owned()
                } else {
                    "<Question>Why?</Question>".to_owned()
                };
                answers.insert(r.tag.clone(), text.clone());
                p.respond(&r.tag, &[ChatResponse::text(text)]).unwrap();
            }
        }
    }
    let outcomes: Vec<_> = groups[0].1.iter().map(|p| p.outcome()).collect();
    assert!(outcomes.iter().all(Option::is_some));
    let driven = mdeval_run_file("mj", &jobs, &outcomes);
    let replayed = LiveRun { spec: spec.clone(), answers: answers.clone() }.replay().unwrap();
    assert_eq!(replayed.files, vec![driven]);
    // Half the answers: the protocols stop where the answers stop, and say so by `None`.
    let first_round: BTreeMap<String, String> =
        answers.into_iter().filter(|(t, _)| t.ends_with("/0")).collect();
    let partial = LiveRun { spec, answers: first_round }.replay().unwrap();
    let Content::JdEval(j) = &partial.files[0].content else { panic!() };
    assert!(j.records.is_empty(), "no debate finished");
}
