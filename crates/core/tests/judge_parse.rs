//! Response parsing: the named policies against the papers' own scripts, and the tag readers.
//!
//! The expected values of `geval`, `closer-look` and `closer-look-zero` were produced by
//! running G-Eval's and Chiang & Lee's `parse_output` (Python, copied from their repositories)
//! on the same strings; `None` is their NaN.

// A failed unwrap is a failed test, which is what it should be here.
#![allow(clippy::unwrap_used)]

use concord_core::judge::parse::{self, ParseFailure, Policy, Verdict};

fn check(policy: Policy, response: &str, want: Option<f64>) {
    let got = policy.parse(response, Some((1.0, 3.0))).ok();
    assert_eq!(got, want, "{} on {response:?}", policy.name());
}

/// (response, closer-look, closer-look-zero, geval) — from the Python scripts.
const CASES: &[(&str, Option<f64>, f64, f64)] = &[
    ("3", Some(3.0), 3.0, 3.0),
    ("Rating: 3\nRationale: fine", Some(3.0), 3.0, 0.0),
    ("Rating: 3.5", Some(3.0), 3.0, 0.0),
    ("Rating: 2.7 out of 3", Some(2.0), 2.0, 0.0),
    ("Analysis: the response scores 1-3 on a scale.\nRating: 2", Some(2.0), 2.0, 0.0),
    ("I would rate it 10", Some(1.0), 1.0, 0.0),
    ("rating: -2", Some(2.0), 2.0, 0.0),
    ("RATING: two", None, 0.0, 0.0),
    ("Naturalness: 2", Some(2.0), 2.0, 0.0),
    ("- Coherence: 3", Some(3.0), 3.0, 0.0),
    ("The response is natural.", None, 0.0, 0.0),
    ("  3", Some(3.0), 3.0, 0.0),
    ("3.", Some(3.0), 3.0, 3.0),
    ("1.2.3", Some(1.0), 1.0, 0.0),
    (". 5", Some(5.0), 5.0, 0.0),
    ("Rating:\n\n3", Some(3.0), 3.0, 0.0),
    ("On a scale of 1-3, I give 2.", Some(2.0), 2.0, 0.0),
    ("Score: 4/5", Some(4.0), 4.0, 0.0),
    ("rating: 1 rating: 3", Some(3.0), 3.0, 0.0),
    ("Rating: 0 (no)", Some(0.0), 0.0, 0.0),
    ("2 out of 3", Some(2.0), 2.0, 2.0),
];

#[test]
fn paper_policies_match_their_scripts() {
    for &(response, closer, zero, geval) in CASES {
        check(Policy::CloserLook, response, closer);
        check(Policy::CloserLookZero, response, Some(zero));
        check(Policy::Geval, response, Some(geval));
    }
}

#[test]
fn geval_reads_full_decimals_at_the_start() {
    check(Policy::Geval, " 2.5", Some(2.5));
    check(Policy::Geval, "2.5 points", Some(2.5));
    // Two spaces are more than the one its pattern allows.
    check(Policy::Geval, "  2", Some(0.0));
}

#[test]
fn coeval_drops_list_numbers_and_denominators() {
    let c = |s: &str| Policy::Coeval.parse(s, None).ok();
    assert_eq!(c("1. The story is coherent.\n2. Score: 4 out of 5\n3. Evidence: ..."), Some(1.0));
    assert_eq!(c("Conclusion: yes.\n2. I give it 4/5."), Some(4.0));
    assert_eq!(c("Score: 3.5 out of 5"), Some(3.5));
    assert_eq!(c("no score"), None);
}

#[test]
fn concord_policy_never_invents_a_rating() {
    let c = |s: &str, scale| Policy::Concord.parse(s, scale);
    assert_eq!(c("Rating: 3.5", Some((1.0, 5.0))), Ok(3.5));
    assert_eq!(
        c("Analysis: on a scale of 1-3 this is fine.\nRating: 2", Some((1.0, 3.0))),
        Ok(2.0)
    );
    assert_eq!(c("On a scale of 1 to 5, I would give it a 4.", Some((1.0, 5.0))), Ok(4.0));
    assert_eq!(c("Score: 4/5", Some((1.0, 5.0))), Ok(4.0));
    assert_eq!(c("- Naturalness: 2", Some((1.0, 3.0))), Ok(2.0));
    assert_eq!(c("The response is natural.", Some((1.0, 3.0))), Err(ParseFailure::NoNumber));
    assert_eq!(c("Rating: 7", Some((1.0, 3.0))), Err(ParseFailure::OutOfScale { value: 7.0 }));
    assert_eq!(c("Rating: -2", Some((1.0, 3.0))), Err(ParseFailure::Negative { value: -2.0 }));
    // Echoed dialogue before the answer: the last `Label: N` line counts, not "31 years".
    assert_eq!(c("Fact: he umpired for 31 years.\n\nResponse: 1", Some((0.0, 1.0))), Ok(1.0));
    assert_eq!(c("1. Engagingness: 3", Some((1.0, 3.0))), Ok(3.0));
    assert_eq!(c("2. somewhat interesting", Some((1.0, 3.0))), Ok(2.0));
    // No rating given, only the fact's numbers: a failure, not 40.
    assert_eq!(
        c(
            "Fact: 40 % of the music.\n\nEvaluation Form (scores ONLY):\n- Groundedness",
            Some((0.0, 1.0))
        ),
        Err(ParseFailure::OutOfScale { value: 40.0 })
    );
    // A bullet is not a minus sign (SmolLM2 answered "- 4 (not enough information)").
    assert_eq!(c("- 4 (not enough information)", Some((1.0, 5.0))), Ok(4.0));
    assert_eq!(c("Coherence:\n- 3", Some((1.0, 5.0))), Ok(3.0));
    assert_eq!(c("Rating: -4", Some((1.0, 5.0))), Err(ParseFailure::Negative { value: -4.0 }));
    // A rubric the model repeats is not its rating.
    assert_eq!(
        c("A score of 1 (bad) means the summary is off topic. I give it 4.", Some((1.0, 5.0))),
        Ok(4.0)
    );
    assert_eq!(c("1 means poor, 5 means excellent. This one: 3", Some((1.0, 5.0))), Ok(3.0));
    assert_eq!(c("5 = excellent", Some((1.0, 5.0))), Err(ParseFailure::NoNumber));
    // Where closer-look reads the first digit of "10", concord reads ten and rejects it.
    assert_eq!(
        c("I would rate it 10", Some((1.0, 3.0))),
        Err(ParseFailure::OutOfScale { value: 10.0 })
    );
}

#[test]
fn policies_by_name() {
    for p in Policy::ALL {
        assert_eq!(Policy::from_name(p.name()), Some(p));
    }
    assert_eq!(Policy::from_name("closer-look"), Some(Policy::CloserLook));
    assert_eq!(Policy::from_name("nope"), None);
    assert_eq!(Policy::default(), Policy::Concord);
}

#[test]
fn tags_are_read_case_and_markdown_insensitively() {
    let r = "<Explanation> both fine </Explanation>\n<Winner> 2 </Winner>";
    assert_eq!(parse::tag(r, "Winner"), Some("2"));
    assert_eq!(parse::tag(r, "winner"), Some("2"));
    assert_eq!(
        parse::tag("<Better\\_assistant>Assistant1</Better\\_assistant>", "Better_assistant"),
        Some("Assistant1")
    );
    assert_eq!(parse::tag("<Winner> 1", "Winner"), None);
    assert_eq!(parse::tag("nothing", "Winner"), None);
}

#[test]
fn verdicts() {
    let w = |s: &str| parse::winner(s).ok();
    assert_eq!(w("<Winner>1</Winner>"), Some(Verdict::First));
    assert_eq!(w("<Winner> 2 </Winner>"), Some(Verdict::Second));
    assert_eq!(w("<Winner>0</Winner>"), Some(Verdict::Tie));
    assert_eq!(w("<Winner>1 or 2</Winner>"), None);
    assert!(parse::winner("no tag").is_err());
    let a = |s: &str| parse::better_answer(s).ok();
    assert_eq!(a("<Better_answer>\nAnswerB\n</Better_answer>"), Some(Verdict::Second));
    assert_eq!(a("<Better_answer>equally good</Better_answer>"), Some(Verdict::Tie));
    let b = |s: &str| parse::better_assistant(s).ok();
    assert_eq!(b("<Better_assistant>Assistant1</Better_assistant>"), Some(Verdict::First));
    assert_eq!(b("<Better_assistant> assistant 2 </Better_assistant>"), Some(Verdict::Second));
    assert_eq!(Verdict::First.swapped(), Verdict::Second);
}

/// Every spelling of a verdict the released meta-evaluation files contain (cleaned `winner` /
/// `better_response` fields and raw tags of the JDEval and evaluator results), with its count
/// there, read through the tag parsers.
#[test]
fn released_verdict_spellings() {
    let check = |tag: &str, content: &str, want: Option<Verdict>| {
        let response = format!("<{tag}>{content}</{tag}>");
        let got = match tag {
            "Winner" => parse::winner(&response),
            "Better_answer" => parse::better_answer(&response),
            _ => parse::better_assistant(&response),
        };
        assert_eq!(got.ok(), want, "<{tag}>{content}");
    };
    for (tag, content, want) in [
        ("Winner", "1", Some(Verdict::First)),  // 1296 cleaned
        ("Winner", "2", Some(Verdict::Second)), // 925
        ("Winner", "0", Some(Verdict::Tie)),    // 234
        ("Winner", "Tie", Some(Verdict::Tie)),  // 1 raw tag
        ("Winner", "N/A", None),                // 1 raw tag
        ("Better_answer", "AnswerA", Some(Verdict::First)), // 500
        ("Better_answer", "AnswerB", Some(Verdict::Second)), // 670
        ("Better_answer", "Answer B", Some(Verdict::Second)), // 14
        ("Better_answer", "Answer2", Some(Verdict::Second)), // 5 cleaned, 2 raw
        ("Better_answer", "answer2", Some(Verdict::Second)),
        ("Better_answer", "Answer 2", Some(Verdict::Second)),
        ("Better_answer", "Answer1", Some(Verdict::First)),
        ("Better_answer", "answer 1", Some(Verdict::First)),
        ("Better_answer", "equally good", Some(Verdict::Tie)), // 10
        ("Better_answer", "AnswerA or AnswerB (equally good)", Some(Verdict::Tie)), // 1
        ("Better_answer", "Positive sentiment (AnswerB)", None), // 1 raw tag: not a verdict
        ("Better_assistant", "Assistant1", Some(Verdict::First)), // 382
        ("Better_assistant", "Assistant2", Some(Verdict::Second)), // 420
        ("Better_assistant", "Assistant 2", Some(Verdict::Second)), // 7
        ("Better_assistant", "equally good", Some(Verdict::Tie)), // 378
        ("Better_assistant", "Equally good", Some(Verdict::Tie)), // 13
        ("Better_assistant", "Answer2 3", None),
    ] {
        check(tag, content, want);
    }
}

#[test]
fn numeric_tags_and_questions() {
    let r = "<Score_for_story>4</Score_for_story><Score_for_Assistant>2</Score_for_Assistant>";
    assert_eq!(parse::rating_tag(r, "Score_for_story", Policy::Concord, Some((1.0, 5.0))), Ok(4.0));
    assert_eq!(
        parse::rating_tag(r, "Score_for_Assistant", Policy::Concord, Some((1.0, 5.0))),
        Ok(2.0)
    );
    assert!(parse::rating_tag(r, "Rating", Policy::Concord, None).is_err());
    assert_eq!(
        parse::rating_tag("<Rating> 5 </Rating>", "Rating", Policy::Concord, Some((1.0, 5.0))),
        Ok(5.0)
    );
    assert_eq!(parse::question("<Question> Why B? </Question>"), Some("Why B?"));
    assert_eq!(parse::question("<Question></Question>"), None);
}

#[test]
fn odd_input_never_panics() {
    let odd = [
        "",
        " ",
        "İRATİNG: ３",
        "ﬁ rating:",
        "Rating:",
        "rating: ٣",
        "ẞ 2",
        "😀 3 😀",
        "\\_",
        "<Winner>",
        "</Winner><Winner>",
        "<Better\\_answer>Ä</Better\\_answer>",
        "1-3",
        "-",
        "-.",
        "..5",
        "9".repeat(400).as_str(),
    ]
    .map(str::to_owned);
    for s in &odd {
        for p in Policy::ALL {
            let _ = p.parse(s, Some((1.0, 5.0)));
            let _ = p.parse(s, None);
        }
        let _ = parse::winner(s);
        let _ = parse::better_answer(s);
        let _ = parse::question(s);
        let _ = parse::rating_tag(s, "Score_for_story", Policy::Concord, None);
        let _ = concord_core::judge::coeval::read_evaluation("c", s, Policy::Coeval);
        let _ = concord_core::judge::meta_eval::list_items(s);
    }
    // A run of 400 nines is read, not overflowed into a panic, and is off the scale.
    assert!(Policy::Concord.parse(&"9".repeat(400), Some((1.0, 5.0))).is_err());
    // Fuzz regression (fuzz/artifacts/parse/crash-a1bfa2b6…): without a scale, the 400-digit
    // run read as +inf and was returned as a rating.
    let inf = Policy::Concord.parse(&format!("u:\n){}", "6".repeat(400)), None);
    assert_eq!(inf, Err(ParseFailure::OutOfScale { value: f64::INFINITY }));
    assert!(Policy::Concord.parse(&format!("-{}", "9".repeat(400)), None).is_err());
}

/// `Policy::read` says where the rating was read: the text the highlight marks in the item view.
#[test]
fn readings_point_at_the_number_the_policy_read() {
    let at = |policy: Policy, text: &'static str, scale: Option<(f64, f64)>| {
        let r = policy.read(text, scale).unwrap();
        (r.value, r.span.map(|s| &text[s]))
    };
    let five = Some((1.0, 5.0));
    // Concord: after the last label, so not the first 3 here.
    let text = "Fluency score: 3. Overall rating: 4";
    assert_eq!(at(Policy::Concord, text, five), (4.0, Some("4")));
    assert_eq!(at(Policy::Concord, "Rating: 3.5 of 5", five), (3.5, Some("3.5")));
    assert_eq!(at(Policy::Concord, "On a 1-5 scale I give 2/5", five), (2.0, Some("2")));
    assert_eq!(at(Policy::Concord, "Ünïcödé ÅÄÖ İ — RATING: 5", five), (5.0, Some("5")));
    let echo = "Dialogue: 1 2 3\n- Naturalness: 2";
    assert_eq!(at(Policy::Concord, echo, five), (2.0, Some("2")));
    // Chiang & Lee read one digit after the last `rating:` ("3.5" is 3), skipping "1-3".
    assert_eq!(at(Policy::CloserLook, "Rating: 3.5", None), (3.0, Some("3")));
    assert_eq!(at(Policy::CloserLook, "On 1-3, RATING:\n 2", None), (2.0, Some("2")));
    assert_eq!(at(Policy::CloserLook, "İİ rating: 7", None), (7.0, Some("7")));
    // G-Eval: the leading number after an optional space; no number is 0, read nowhere.
    assert_eq!(at(Policy::Geval, " 4.5 points", None), (4.5, Some("4.5")));
    assert_eq!(at(Policy::Geval, "Four", None), (0.0, None));
    assert_eq!(at(Policy::CloserLookZero, "none", None), (0.0, None));
    // CoEval removes "2.", "out of 5" and "/5" first: "12.5" reads as 15, from all of "12.5".
    assert_eq!(at(Policy::Coeval, "Score: 4/5", None), (4.0, Some("4")));
    assert_eq!(at(Policy::Coeval, "12.5", None), (15.0, Some("12.5")));
    assert_eq!(at(Policy::Coeval, "2. 3 out of 5", None), (3.0, Some("3")));
}

/// Wherever a policy says it read a rating, the span lies inside the response and holds a
/// digit, on every shape of response, non-ASCII letters included (offsets are kept).
#[test]
fn spans_lie_inside_the_response() {
    let long = "9".repeat(320);
    let responses = [
        "4",
        " 3.0",
        "Rating: 5\nBecause it is fluent.",
        "rating:  2 out of 5",
        "-3",
        "Score: -1",
        "no number",
        "1. Good.\n2. 3",
        "I'd say 4/5.",
        "Coherence: 1-5 scale, 4",
        "3.5.",
        "",
        long.as_str(),
        "RATİNG: 4",
        "ẞcore: 2",
        "Kelvin \u{212A} score: 3",
        "ÅÅÅ 2.2.5 /5 1-3 7",
    ];
    let mut spans = 0;
    for policy in Policy::ALL {
        for scale in [None, Some((1.0, 5.0))] {
            for text in responses {
                let Ok(Some(span)) = policy.read(text, scale).map(|r| r.span) else { continue };
                spans += 1;
                assert!(
                    span.start < span.end && span.end <= text.len(),
                    "{policy:?} {text:?} {span:?}"
                );
                let marked = text
                    .get(span.clone())
                    .unwrap_or_else(|| panic!("{policy:?} {text:?} {span:?} not on char bounds"));
                assert!(marked.contains(|c: char| c.is_ascii_digit()), "{policy:?} {text:?}");
            }
        }
    }
    assert!(spans > 100, "{spans}");
}

#[test]
fn the_json_policy_reads_the_rating_of_a_structured_answer() {
    let j = |text: &str| Policy::Json.read(text, Some((1.0, 5.0)));
    let r = j(r#"{"rating": 4, "rationale": "Rating: 2 would be unfair"}"#).expect("reads");
    assert_eq!(r.value, 4.0);
    let text = r#"{"rating": 4, "rationale": "x"}"#;
    assert_eq!(&text[r.span.expect("span")], "4");
    assert_eq!(
        j("```json\n{\"analysis\": \"fine\", \"rating\": \"3.5\"}\n```").map(|r| r.value),
        Ok(3.5)
    );
    assert_eq!(j(r#"{"rating": 9}"#), Err(ParseFailure::OutOfScale { value: 9.0 }));
    assert_eq!(j(r#"{"score": 3}"#), Err(ParseFailure::NoNumber));
    assert_eq!(j("Rating: 3"), Err(ParseFailure::NoNumber));
    assert_eq!(j(r#"{"rating": 3"#), Err(ParseFailure::NoNumber), "cut off mid-object");
    assert_eq!(Policy::from_name("json"), Some(Policy::Json));
}
