//! Judging protocols driven by scripted responses: what they ask, and what they conclude.

// A failed unwrap is a failed test, which is what it should be here.
#![allow(clippy::unwrap_used)]

use concord_core::judge::aggregate::{Fallback, ItemScore, probability_weighted};
use concord_core::judge::builtin::{Benchmark, OutputMode, builtin};
use concord_core::judge::coeval::{self, Ideation, InstanceEvaluation, TaskInfo};
use concord_core::judge::meta_eval::{
    AssessedPair, BsmEval, IndividualTask, JdEval, JdEvalI, MDEVAL_MAX_ROUNDS, MdEval, list_items,
};
use concord_core::judge::parse::VerdictError;
use concord_core::judge::parse::{ParseFailure, Policy, Verdict};
use concord_core::judge::protocol::{
    AutoCot, Pairwise, Pointwise, PositionReport, Protocol, ProtocolError, Reader, Sampling,
    individual_template,
};
use concord_core::judge::template::PartKind;
use concord_core::judge::{ChatResponse, Role, TokenLogprobs, TopLogprob};

fn texts(t: &[&str]) -> Vec<ChatResponse> {
    t.iter().map(|s| ChatResponse::text(*s)).collect()
}

/// Answers the single pending request of `p` with `responses`.
fn answer<P: Protocol>(p: &mut P, responses: &[&str]) -> String {
    let pending = p.pending();
    assert_eq!(pending.len(), 1, "expected one pending request");
    let tag = pending[0].tag.clone();
    p.respond(&tag, &texts(responses)).unwrap();
    tag
}

const ITEM: [(&str, &str); 3] =
    [("source", "a: hi\n"), ("context", "a fact\n"), ("system_output", "hello")];

#[test]
fn pointwise_samples_and_averages() {
    let t = builtin(Benchmark::TopicalChat, "nat", OutputMode::RateExplain, false).unwrap();
    let mut p = Pointwise::new(
        "i1/nat",
        &t,
        &ITEM,
        &Sampling::closer_look(),
        Reader::Policy { policy: Policy::CloserLook },
        Some((1.0, 3.0)),
    )
    .unwrap();
    let req = &p.pending()[0];
    assert_eq!(
        (req.n, req.temperature, req.top_p, req.max_tokens),
        (20, Some(1.0), Some(1.0), Some(128))
    );
    assert_eq!(req.messages[0].role, Role::User);
    assert!(
        req.messages[0].content.contains(
            "Response:\n\nhello\n\n\nEvaluation Form (Answer by starting with \"Rating:\""
        )
    );
    assert_eq!(
        p.respond("other", &texts(&["Rating: 3"])),
        Err(ProtocolError::UnknownTag { tag: "other".into() })
    );
    answer(&mut p, &["Rating: 3", "Rating: 2.5", "no idea", "Rating: 1"]);
    assert!(p.pending().is_empty());
    let o = p.outcome().unwrap();
    assert_eq!(o.score.mean, Some(2.0));
    assert_eq!((o.score.used, o.score.failures.clone()), (3, vec![ParseFailure::NoNumber]));
    assert_eq!(o.score.range, Some((1.0, 3.0)));
    assert!((o.score.std_dev.unwrap() - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
}

#[test]
fn ensemble_pools_samples() {
    let re: Vec<Result<f64, ParseFailure>> = vec![Ok(3.0), Ok(2.0)];
    let ar: Vec<Result<f64, ParseFailure>> =
        vec![Ok(2.0), Err(ParseFailure::NoNumber), Ok(1.0), Ok(1.0)];
    let e = ItemScore::ensemble(&[&re, &ar]);
    assert_eq!((e.mean, e.used, e.failures.len()), (Some(9.0 / 5.0), 5, 1));
    assert_eq!(ItemScore::from_samples(&[Err(ParseFailure::NoNumber)]).mean, None);
}

fn token(t: &str, alts: &[(&str, f64)]) -> TokenLogprobs {
    TokenLogprobs {
        token: t.into(),
        logprob: alts.iter().find(|(a, _)| *a == t).map_or(0.0, |(_, p)| p.ln()),
        top_logprobs: alts
            .iter()
            .map(|(a, p)| TopLogprob { token: (*a).into(), logprob: p.ln() })
            .collect(),
    }
}

#[test]
fn the_weighted_score_is_taken_at_the_rating_the_parser_read_not_the_first_digit() {
    use concord_core::judge::aggregate::{score_tokens, weighted_at_rating};
    let text = "Summary 2 is fine. Rating: 4";
    let lp = vec![
        token("Summary", &[("Summary", 1.0)]),
        token(" 2", &[(" 2", 0.9), (" 3", 0.1)]),
        token(" is fine. Rating:", &[(" is fine. Rating:", 1.0)]),
        token(" 4", &[(" 4", 0.5), ("5", 0.5)]),
    ];
    let tokens = score_tokens(&lp);
    assert_eq!(
        tokens.iter().map(|t| (t.at, t.token.as_str())).collect::<Vec<_>>(),
        [(7, " 2"), (26, " 4")]
    );
    let w = weighted_at_rating(text, Some(&tokens), (1, 5), Policy::Concord);
    assert_eq!((w.score, w.fallback), (Some(4.5), None));
    // No log-probabilities, or a rating no token starts: the parsed rating, said as a fallback.
    let none = weighted_at_rating(text, None, (1, 5), Policy::Concord);
    assert_eq!((none.score, none.fallback), (Some(4.0), Some(Fallback::NoLogprobs)));
    let elsewhere = weighted_at_rating(text, Some(&tokens[..1]), (1, 5), Policy::Concord);
    assert_eq!((elsewhere.score, elsewhere.fallback), (Some(4.0), Some(Fallback::NoScoreToken)));
    let unread = weighted_at_rating("no rating here", Some(&tokens), (1, 5), Policy::Concord);
    assert_eq!((unread.score, unread.fallback), (None, Some(Fallback::NoScoreToken)));
}

#[test]
fn geval_probability_weighted_score() {
    // 0.5·3 + 0.3·2 + 0.1·1 over valid mass 0.9 (" the" is not a score), renormalised.
    let lp = vec![
        token("-", &[("-", 1.0)]),
        token(" 3", &[(" 3", 0.5), ("2", 0.3), (" 1", 0.1), (" the", 0.1)]),
    ];
    let w = probability_weighted("- 3", Some(&lp), (1, 3), Policy::Concord);
    assert!((w.score.unwrap() - 2.2 / 0.9).abs() < 1e-12);
    assert!((w.valid_mass.unwrap() - 0.9).abs() < 1e-12);
    assert_eq!(w.fallback, None);
    let none = probability_weighted("Rating: 2", None, (1, 3), Policy::Concord);
    assert_eq!((none.score, none.fallback), (Some(2.0), Some(Fallback::NoLogprobs)));
    let no_score = probability_weighted(
        "fine",
        Some(&[token("fine", &[("fine", 1.0)])]),
        (1, 3),
        Policy::Concord,
    );
    assert_eq!((no_score.score, no_score.fallback), (None, Some(Fallback::NoScoreToken)));
    let bare = vec![TokenLogprobs { token: "2".into(), logprob: 0.0, top_logprobs: vec![] }];
    assert_eq!(
        probability_weighted("2", Some(&bare), (1, 3), Policy::Concord).fallback,
        Some(Fallback::NoAlternatives)
    );

    // Through the protocol: logprobs asked for, weighted mean reported next to the plain mean.
    let t = builtin(Benchmark::TopicalChat, "nat", OutputMode::ScoreOnly, true).unwrap();
    let sampling = Sampling { logprobs: Some(5), ..Sampling::closer_look() };
    let mut p = Pointwise::new(
        "i",
        &t,
        &ITEM,
        &sampling,
        Reader::Policy { policy: Policy::Geval },
        Some((1.0, 3.0)),
    )
    .unwrap();
    assert_eq!(p.pending()[0].logprobs, Some(5));
    let r = ChatResponse {
        text: "3".into(),
        logprobs: Some(vec![token("3", &[("3", 0.5), ("2", 0.5)])]),
    };
    p.respond("i", &[r]).unwrap();
    let o = p.outcome().unwrap();
    assert_eq!((o.score.mean, o.weighted_mean), (Some(3.0), Some(2.5)));
}

#[test]
fn auto_cot_generates_steps_once() {
    let t = builtin(Benchmark::TopicalChat, "coh", OutputMode::ScoreOnly, false).unwrap();
    let mut a = AutoCot::new("steps/coh", &t, &Sampling::single());
    let prompt = a.pending()[0].messages[0].content.clone();
    assert!(prompt.starts_with("You will be given a conversation"));
    assert!(
        prompt.ends_with("acknowledges the conversation history.\n\nEvaluation Steps:\n"),
        "{prompt:?}"
    );
    answer(&mut a, &[" 1. Read it.\n2. Score it. "]);
    let steps = a.outcome().unwrap();
    let with = AutoCot::apply(&steps, &t);
    assert_eq!(
        with.part(PartKind::Steps).unwrap().text,
        "Evaluation Steps:\n\n1. Read it.\n2. Score it.\n\n"
    );
    let kinds: Vec<PartKind> = with.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PartKind::Task, PartKind::Criteria, PartKind::Steps, PartKind::Sample, PartKind::Output]
    );
}

#[test]
fn pairwise_with_position_swap() {
    let t = Pairwise::default_template();
    let mk = || {
        Pairwise::new("q1", &t, "Why?", "Because A.", "Because B.", true, &Sampling::single())
            .unwrap()
    };
    let mut p = mk();
    let pending = p.pending();
    assert_eq!(pending.len(), 2);
    assert!(pending[0].messages[0].content.contains("### Answer of AI assistant 1:\nBecause A."));
    assert!(pending[1].messages[0].content.contains("### Answer of AI assistant 1:\nBecause B."));
    p.respond("q1/ab", &texts(&["<Winner>1</Winner>"])).unwrap();
    assert!(p.outcome().is_none());
    p.respond("q1/ba", &texts(&["<Winner>2</Winner>"])).unwrap();
    let consistent = p.outcome().unwrap();
    assert_eq!((consistent.verdict, consistent.consistent), (Some(Verdict::First), Some(true)));

    // The judge always picks the answer shown first: inconsistent, a tie, full position bias.
    let mut q = mk();
    q.respond("q1/ab", &texts(&["<Winner>1</Winner>"])).unwrap();
    q.respond("q1/ba", &texts(&["<Winner>1</Winner>"])).unwrap();
    let biased = q.outcome().unwrap();
    assert_eq!((biased.verdict, biased.consistent), (Some(Verdict::Tie), Some(false)));
    let report = PositionReport::from_outcomes(&[consistent, biased]);
    assert_eq!((report.both_read, report.consistency, report.decisive), (2, Some(0.5), 4));
    assert_eq!(report.first_position_rate, Some(0.75));
}

fn pair() -> AssessedPair {
    AssessedPair {
        question: "Q".into(),
        answer_a: "A".into(),
        answer_b: "B".into(),
        assessment_1: "A is better".into(),
        assessment_2: "B is better".into(),
    }
}

#[test]
fn jdeval_reads_both_tags() {
    let mut j = JdEval::new("m1", &pair(), &Sampling::single()).unwrap();
    assert!(
        j.pending()[0].messages[0].content.contains("### Assessment of assistant2:\nB is better")
    );
    answer(
        &mut j,
        &["<Better_answer>AnswerA</Better_answer><Better_assistant>Assistant1</Better_assistant>"],
    );
    let o = j.outcome().unwrap();
    assert_eq!((o.better_answer, o.better_assistant), (Ok(Verdict::First), Ok(Verdict::First)));
}

#[test]
fn mdeval_debates_then_decides() {
    let mut m = MdEval::new("d", pair(), Sampling::single()).unwrap();
    let first = m.pending();
    assert_eq!(first[0].messages[0].role, Role::System);
    assert!(first[0].messages[1].content.contains("(no debate yet)"));
    answer(&mut m, &["<Question>Why is A better?</Question>"]);
    let debaters = m.pending();
    assert_eq!(debaters.len(), 2);
    assert!(debaters[0].messages[0].content.contains("The Judge asks:\nWhy is A better?"));
    m.respond(&debaters[1].tag, &texts(&["B is clearer."])).unwrap();
    m.respond(&debaters[0].tag, &texts(&["A is correct."])).unwrap();
    let judge = m.pending();
    assert!(judge[0].messages[1].content.contains(
        "Round 1\nJudge: Why is A better?\nAssistant1: A is correct.\nAssistant2: B is clearer."
    ));
    answer(&mut m, &["<Better_assistant>Assistant1</Better_assistant>"]);
    let o = m.outcome().unwrap();
    assert_eq!((o.better_assistant, o.rounds.len()), (Ok(Verdict::First), 1));

    // A judge that keeps asking gets no verdict after five rounds.
    let mut m = MdEval::new("d", pair(), Sampling::single()).unwrap();
    for _ in 0..=MDEVAL_MAX_ROUNDS {
        if m.outcome().is_some() {
            break;
        }
        answer(&mut m, &["<Question>More?</Question>"]);
        for r in m.pending() {
            m.respond(&r.tag, &texts(&["yes"])).unwrap();
        }
    }
    let o = m.outcome().unwrap();
    assert_eq!(o.rounds.len(), MDEVAL_MAX_ROUNDS);
    assert_eq!(o.judge_responses.len(), MDEVAL_MAX_ROUNDS + 1);
    assert_eq!(o.better_assistant.unwrap_err(), VerdictError::NoDecision { rounds: 5 });
}

#[test]
fn mdeval_with_fewer_rounds_stops_at_its_limit_and_decides_within_it() {
    let ask = |m: &mut MdEval| {
        answer(m, &["<Question>More?</Question>"]);
        for r in m.pending() {
            m.respond(&r.tag, &texts(&["yes"])).unwrap();
        }
    };
    // Three rounds allowed: three questions are answered, the fourth ends the debate.
    let mut m = MdEval::new("d", pair(), Sampling::single()).unwrap().with_max_rounds(3);
    for _ in 0..3 {
        ask(&mut m);
    }
    assert!(m.outcome().is_none());
    answer(&mut m, &["<Question>Still more?</Question>"]);
    let o = m.outcome().unwrap();
    assert_eq!((o.rounds.len(), o.judge_responses.len()), (3, 4));
    assert_eq!(o.better_assistant.unwrap_err().to_string(), "no decision within 3 rounds");
    // A decision after the third round is a decision.
    let mut m = MdEval::new("d", pair(), Sampling::single()).unwrap().with_max_rounds(3);
    for _ in 0..3 {
        ask(&mut m);
    }
    answer(&mut m, &["<Better_assistant>Assistant2</Better_assistant>"]);
    let o = m.outcome().unwrap();
    assert_eq!((o.better_assistant, o.rounds.len()), (Ok(Verdict::Second), 3));
    // The limit is clamped to 1..=5.
    let mut m = MdEval::new("d", pair(), Sampling::single()).unwrap().with_max_rounds(0);
    ask(&mut m);
    answer(&mut m, &["<Question>Again?</Question>"]);
    assert_eq!(
        m.outcome().unwrap().better_assistant.unwrap_err(),
        VerdictError::NoDecision { rounds: 1 }
    );
}

#[test]
fn jdeval_i_and_bsmeval_score_an_assessment() {
    let mut j = JdEvalI::new(
        "s",
        IndividualTask::OpenMeva,
        "A story.",
        "Score 4: fine.",
        Policy::Concord,
        &Sampling::single(),
    )
    .unwrap();
    answer(
        &mut j,
        &["<Score_for_story>3</Score_for_story><Score_for_Assistant>4</Score_for_Assistant>"],
    );
    let o = j.outcome().unwrap();
    assert_eq!((o.text_score, o.assessment_score), (Ok(3.0), Ok(4.0)));

    let mut b = BsmEval::new("b", "A text.", "Score 2.", Policy::Concord, Sampling::single());
    answer(
        &mut b,
        &[
            "1. Score accuracy\n2. Reasoning quality\n3. Coverage\n4. Clarity\n5. Fairness\n6. Length",
        ],
    );
    let solve = b.pending();
    assert_eq!(solve.len(), 5, "at most five branches");
    assert!(solve[1].messages[0].content.contains("### Aspect:\nReasoning quality"));
    for (r, s) in solve.iter().zip([
        "<Score>4</Score>",
        "<Score>2</Score>",
        "<Score>3</Score>",
        "none",
        "<Score>5</Score>",
    ]) {
        b.respond(&r.tag, &texts(&[s])).unwrap();
    }
    let o = b.outcome().unwrap();
    assert_eq!(o.merged, Some(3.5));
    assert!(o.scores[3].is_err());
    // Each branch keeps its raw response, in branch order.
    assert_eq!(o.responses[1], "<Score>2</Score>");
    assert_eq!(o.responses[3], "none");
    assert_eq!(
        list_items("Intro\n1) one\n- two\n* three\n\n10. ten"),
        ["one", "two", "three", "ten"]
    );
}

#[test]
fn coeval_ideation_and_instance_evaluation() {
    let task = TaskInfo {
        description: "to generate a story that captures daily events".into(),
        input_name: "story requirement".into(),
        output_name: "story".into(),
    };
    assert_eq!(
        coeval::ideation_prompt(&task),
        "The task is to generate a story that captures daily events. The input is story requirement. What capabilities of the story should there be? List directly."
    );
    let mut i = Ideation::new("t", &task, &Sampling::single());
    answer(&mut i, &["1. Coherence\n2. Fluency"]);
    let criteria = i.outcome().unwrap();
    assert_eq!(criteria, ["Coherence", "Fluency"]);
    let mut e = InstanceEvaluation::new(
        "x",
        &task,
        &criteria,
        "a day at the park",
        "We went out.",
        Policy::Coeval,
        &Sampling::single(),
    );
    let reqs = e.pending();
    assert!(reqs[0].messages[0].content.contains(
        "Criterion: Coherence\n\nstory requirement: a day at the park\n\nstory: We went out."
    ));
    e.respond(
        &reqs[0].tag,
        &texts(&[
            "1. Conclusion: satisfies it.\n2. Score: 4 out of 5\n3. Evidence: \"We went out.\"",
        ]),
    )
    .unwrap();
    e.respond(
        &reqs[1].tag,
        &texts(&[
            "The story is fluent.\n2. I give it 5/5.\n3. Evidence: \u{201c}We went out.\u{201d}",
        ]),
    )
    .unwrap();
    let o = e.outcome().unwrap();
    // The score is read from step 2 only: the "1." of the numbered conclusion is not a score.
    assert_eq!((o[0].score.clone(), o[1].score.clone()), (Ok(4.0), Ok(5.0)));
    assert_eq!(o[0].conclusion, "satisfies it.");
    assert_eq!(o[1].evidence, ["We went out."]);
}

#[test]
fn coeval_score_is_read_from_the_score_step() {
    let read = |s: &str| coeval::read_score(s, Policy::Coeval);
    // The numbered conclusion's "1." and numbers inside the conclusion are not the score.
    assert_eq!(read("1. Conclusion: 3 of 4 facts hold.\n2. Score: 4\n3. Evidence: \"x\""), Ok(4.0));
    assert_eq!(read("1. Fine.\n\n2. I would assign a score of 5 to this answer.\n\n3. -"), Ok(5.0));
    assert_eq!(read("1. Fine.\n2. 2 out of 5"), Ok(2.0));
    assert_eq!(read("2. Score: 3/5\n3. Evidence: none"), Ok(3.0));
    // No numbered steps: the whole answer, as CoEval reads it.
    assert_eq!(read("Conclusion: fine. Score: 4"), Ok(4.0));
    // A step without a score, or off the scale, fails and says where.
    let err = read("1. Good.\n2. Score: five\n3. Evidence").unwrap_err().to_string();
    assert!(err.starts_with("the score step (2.)"), "{err}");
    let err = read("1. Good.\n2. Score: 9").unwrap_err();
    assert!(matches!(err, coeval::ScoreError::OffScale { value: 9.0, .. }), "{err}");
    assert!(err.to_string().contains("not on the 1–5 scale"), "{err}");
    assert_eq!(coeval::score_step("1. a\n2. b 4\n3. c"), Some("2. b 4"));
    assert_eq!(coeval::score_step("no steps"), None);
}

#[test]
fn coeval_repeated_ideation_counts_recurring_criteria() {
    assert_eq!(coeval::criterion_key("**Coherence**: the story flows"), "coherence");
    assert_eq!(
        coeval::criterion_key("Age-appropriate language – simple words"),
        "age appropriate language"
    );
    assert_eq!(coeval::criterion_key("Fluency (grammar)"), "fluency");
    let samples: Vec<Vec<String>> = [
        vec!["Coherence: flows", "Fluency: grammatical", "Creativity"],
        vec!["**Coherence** - logical", "Relevance: on topic", "coherence: again"],
        vec!["Fluency", "Coherence: flows"],
        vec![],
    ]
    .iter()
    .map(|s| s.iter().map(|x| x.to_string()).collect())
    .collect();
    let r = coeval::recurrence(&samples);
    let got: Vec<(&str, usize)> = r.iter().map(|r| (r.key.as_str(), r.samples)).collect();
    assert_eq!(got, [("coherence", 3), ("fluency", 2), ("creativity", 1), ("relevance", 1)]);
    assert_eq!(r[0].wording, "Coherence: flows");
    assert_eq!(r[0].variants, ["Coherence: flows", "**Coherence** - logical", "coherence: again"]);
    assert!((r[0].share - 0.75).abs() < 1e-12);
}

#[test]
fn individual_scoring_reads_the_rating_tag() {
    let t = individual_template(false);
    let reader = Reader::Tag { name: "Rating".into(), policy: Policy::Concord };
    let mut p = Pointwise::new(
        "s1",
        &t,
        &[("text", "A summary.")],
        &Sampling::single(),
        reader,
        Some((1.0, 5.0)),
    )
    .unwrap();
    assert!(
        p.pending()[0].messages[0].content.contains("Here is the text: A summary. Please output")
    );
    answer(&mut p, &["<Explanation>ok</Explanation> <Rating> 4 </Rating>"]);
    assert_eq!(p.outcome().unwrap().score.mean, Some(4.0));
}

#[test]
fn a_weighted_method_drops_or_reads_plainly_the_samples_it_cannot_weigh() {
    use concord_core::judge::aggregate::{ItemScore, WeightFallback, read_samples, score_tokens};
    let with = score_tokens(&[
        token("Rating: ", &[("Rating: ", 1.0)]),
        token("4", &[("4", 0.5), ("5", 0.5)]),
    ]);
    let responses = vec!["Rating: 4".to_owned(), "Rating: 2".to_owned(), "none".to_owned()];
    // The second sample came without log-probabilities, the third has no rating.
    let logprobs = vec![with, Vec::new(), Vec::new()];
    let drop = read_samples(
        &responses,
        &logprobs,
        Policy::Concord,
        Some(WeightFallback::Drop),
        Some((1.0, 5.0)),
    );
    assert_eq!((drop.weighted, drop.fell_back), (1, 1));
    assert_eq!(drop.samples, vec![Ok(4.5), Err(ParseFailure::NoNumber)]);
    assert_eq!(ItemScore::from_samples(&drop.samples).mean, Some(4.5));
    let parsed = read_samples(
        &responses,
        &logprobs,
        Policy::Concord,
        Some(WeightFallback::Parsed),
        Some((1.0, 5.0)),
    );
    assert_eq!((parsed.weighted, parsed.fell_back), (1, 1));
    assert_eq!(parsed.samples, vec![Ok(4.5), Ok(2.0), Err(ParseFailure::NoNumber)]);
    // Not weighted: the parsed ratings, whatever the log-probabilities.
    let plain = read_samples(&responses, &logprobs, Policy::Concord, None, Some((1.0, 5.0)));
    assert_eq!((plain.weighted, plain.fell_back), (0, 0));
    assert_eq!(plain.samples, vec![Ok(4.0), Ok(2.0), Err(ParseFailure::NoNumber)]);
    assert_eq!(WeightFallback::from_name("parsed"), Some(WeightFallback::Parsed));
}
