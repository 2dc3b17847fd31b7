//! Built-in prompts are the papers' text, byte for byte.
//!
//! Always: the built-in SummEval and Topical-Chat templates reproduce the authors' prompt
//! files (fixtures under `tests/fixtures/judge/`, placeholders left in place). When
//! `../shared/data` is present: every `prompt` field of Chiang & Lee's 28 released
//! Topical-Chat result files (10,000 prompts) is rendered identically from the item's fields.

// A failed unwrap is a failed test, which is what it should be here.
#![allow(clippy::unwrap_used)]

mod common;

use concord_core::judge::builtin::{Benchmark, OutputMode, builtin, closer_look_stem};
use concord_core::judge::template::{Part, PartKind, Persona, PromptTemplate, RenderError};
use std::path::PathBuf;

fn fixture(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Renders a built-in template with each field set to its own placeholder, which gives back
/// the prompt file's text (substitution is single-pass, so the inserted `{{…}}` stay).
fn check(benchmark: Benchmark, attribute: &str, mode: OutputMode, auto_cot: bool, file: &str) {
    let t = builtin(benchmark, attribute, mode, auto_cot).unwrap();
    let fields: &[(&str, &str)] = match benchmark {
        Benchmark::SummEval => &[("source", "{{Document}}"), ("system_output", "{{Summary}}")],
        _ => &[
            ("source", "{{Document}}"),
            ("context", "{{Fact}}"),
            ("system_output", "{{Response}}"),
        ],
    };
    let got = t.render(fields).unwrap();
    let want = fixture(file);
    assert_eq!(got, want, "{file}");
}

#[test]
fn summeval_prompts_are_the_authors_files() {
    use OutputMode::*;
    check(
        Benchmark::SummEval,
        "coherence",
        RateExplain,
        true,
        "summeval/coh_rate_explain_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "consistency",
        RateExplain,
        true,
        "summeval/con_rate_explain_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "relevance",
        RateExplain,
        true,
        "summeval/rel_rate_explain_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "fluency",
        RateExplain,
        true,
        "summeval/flu_new_rate_explain_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "coherence",
        FreeText,
        false,
        "summeval/coh_free_text_no_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "consistency",
        FreeText,
        false,
        "summeval/con_free_text_no_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "relevance",
        FreeText,
        false,
        "summeval/rel_free_text_no_auto_cot.txt",
    );
    check(
        Benchmark::SummEval,
        "fluency",
        FreeText,
        false,
        "summeval/flu_new_free_text_no_auto_cot.txt",
    );
    check(Benchmark::SummEval, "coh", AnalyzeRate, false, "summeval/coh_analyze_rate.txt");
    check(Benchmark::SummEval, "coh", ScoreOnly, false, "summeval/coh_geval_no_auto_cot.txt");
}

#[test]
fn topical_chat_prompt_is_the_authors_file() {
    check(
        Benchmark::TopicalChat,
        "naturalness",
        OutputMode::AnalyzeRate,
        true,
        "topical_chat/nat_analyze_rate_auto_cot.txt",
    );
}

#[test]
fn templates_have_named_parts() {
    let t = builtin(Benchmark::TopicalChat, "gro", OutputMode::RateExplain, true).unwrap();
    let kinds: Vec<PartKind> = t.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PartKind::Task, PartKind::Criteria, PartKind::Steps, PartKind::Sample, PartKind::Output]
    );
    assert!(
        t.part(PartKind::Criteria)
            .unwrap()
            .text
            .starts_with("Evaluation Crieteria:\n\nGroundedness (0-1)")
    );
    assert_eq!(t.placeholders(), ["Document", "Fact", "Response"]);
    let no_cot = builtin(Benchmark::TopicalChat, "gro", OutputMode::RateExplain, false).unwrap();
    assert!(no_cot.part(PartKind::Steps).is_none());
    assert!(builtin(Benchmark::SummEval, "naturalness", OutputMode::ScoreOnly, false).is_err());
}

#[test]
fn rendering_is_single_pass_and_reports_missing_fields() {
    let t = PromptTemplate::new(vec![Part::new(PartKind::Sample, "A: {{a}} B: {{ b }}")]);
    assert_eq!(t.render(&[("a", "{{b}}"), ("b", "x")]).unwrap(), "A: {{b}} B: x");
    assert_eq!(
        t.render(&[("a", "1")]),
        Err(RenderError::MissingField {
            placeholder: "b".into(),
            field: "b".into(),
            part: PartKind::Sample
        })
    );
    let broken = PromptTemplate::new(vec![Part::new(PartKind::Task, "x {{a")]);
    assert_eq!(
        broken.render(&[("a", "1")]),
        Err(RenderError::Unterminated { part: PartKind::Task, offset: 2 })
    );
}

#[test]
fn persona_goes_first() {
    let t = builtin(Benchmark::TopicalChat, "nat", OutputMode::ScoreOnly, false).unwrap();
    let with = Persona::Hhh.apply(t.clone());
    assert_eq!(with.parts[0].kind, PartKind::Persona);
    assert!(with.parts[0].text.starts_with("You are an AI assistant. The AI tries to be helpful"));
    assert_eq!(Persona::None.apply(with).parts, t.parts);
    assert!(Persona::HumanAnnotator.text().unwrap().ends_with("doing the job with high-quality."));
}

fn shared_data() -> Option<PathBuf> {
    common::shared("data/A-Closer-Look-To-LLM-Evaluation")
}

#[test]
fn released_topical_chat_prompts_render_byte_for_byte() {
    let Some(root) = shared_data() else { return };
    let mut checked = 0;
    for (abbr, attribute) in [
        ("nat", "naturalness"),
        ("coh", "coherence"),
        ("eng", "engagingness"),
        ("gro", "groundedness"),
    ] {
        for mode in OutputMode::ALL {
            for auto_cot in [false, true] {
                let Some(stem) = closer_look_stem(mode, auto_cot) else { continue };
                let file = root.join(format!("results/topical_chat/gpt3.5_{abbr}_{stem}.json"));
                let bytes = std::fs::read(&file).unwrap();
                let records: Vec<serde_json::Value> = serde_json::from_slice(&bytes).unwrap();
                let template = builtin(Benchmark::TopicalChat, attribute, mode, auto_cot).unwrap();
                for (i, r) in records.iter().enumerate() {
                    let field = |k: &str| r[k].as_str().unwrap();
                    let fields = [
                        ("source", field("source")),
                        ("context", field("context")),
                        ("system_output", field("system_output")),
                    ];
                    let got = template.render(&fields).unwrap();
                    assert!(
                        got == field("prompt"),
                        "{} record {i}: rendered prompt differs",
                        file.display()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 10_000);
}
