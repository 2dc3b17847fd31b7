//! Auto-CoT's evaluation steps (`study::workbench::steps`): G-Eval's released steps named as a
//! choice where a built-in prompt fits, the judge asked once per attribute from the task and
//! criteria, the steps written into every "+cot" method's template, the plan refusing a "+cot"
//! prompt without steps, and the study (request, answer, edited steps, no key) in the bundle.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use concord_core::bundle::{Bundle, Settings};
use concord_core::data::{self, Dataset};
use concord_core::judge::builtin::{Benchmark, OutputMode, builtin};
use concord_core::judge::parse::Policy;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::template::{PartKind, Persona};
use concord_core::run::{Capabilities, Endpoint, ProviderId};
use concord_core::study::workbench::steps::{
    check, current_steps, has_released_steps, is_current, missing_steps, steps_request,
    written_steps,
};
use concord_core::study::workbench::{self as wb, GridSpec, StepsError, StepsSource, Study};

const STEPS: &str = "1. Read the question and the answer.\n2. Check the answer helps.\n3. Rate it.";

fn generic() -> Dataset {
    let csv = "doc,sys,question,answer,helpfulness,tone\n\
               q1,a,What is 2+2?,4,5,4\nq1,b,What is 2+2?,5,1,2\nq2,a,Capital of France?,Paris,5,5\n";
    data::load("qa.csv", csv.as_bytes()).unwrap().dataset
}

fn attrs(d: &Dataset) -> Vec<String> {
    d.attributes.iter().map(|a| a.name.clone()).collect()
}

fn grid_study(d: &Dataset, cot: Vec<bool>, personas: Vec<Persona>) -> Study {
    let attributes = attrs(d);
    let spec = GridSpec {
        modes: vec![OutputMode::ScoreOnly, OutputMode::RateExplain],
        auto_cot: cot,
        personas,
        temperatures: vec![Some(1.0)],
        sampling: Sampling::single(),
        policy: Policy::Concord,
        weighting: None,
        structured: false,
    };
    let methods = wb::grid(d, &attributes, &spec);
    let mut s = Study { attributes, methods, ..Study::default() };
    s.apply_steps(d);
    s
}

fn endpoint() -> Endpoint {
    Endpoint {
        provider: ProviderId::Vllm,
        base_url: "https://user:sk-secret@llm.example.org/v1?api_key=sk-secret".into(),
        model: "judge-model".into(),
    }
}

fn steps_text(s: &Study, method: &str, attribute: &str) -> String {
    s.method(method)
        .unwrap()
        .template(attribute)
        .unwrap()
        .part(PartKind::Steps)
        .unwrap()
        .text
        .clone()
}

#[test]
fn summeval_like_data_names_g_evals_released_steps_as_its_choice() {
    let d = data::example().unwrap().dataset;
    let s = grid_study(&d, vec![false, true], vec![Persona::None]);
    for attribute in attrs(&d) {
        assert!(has_released_steps(&d, &attribute));
        let source = s.steps_source(&attribute).unwrap();
        assert_eq!(source, &StepsSource::Released);
        assert_eq!(source.label(), "G-Eval's released steps");
        // Byte for byte the paper's prompt.
        for mode in [OutputMode::ScoreOnly, OutputMode::RateExplain] {
            let paper = builtin(Benchmark::SummEval, &attribute, mode, true).unwrap();
            let name = wb::study::method_name(mode, true, Persona::None, None);
            assert_eq!(
                steps_text(&s, &name, &attribute),
                paper.part(PartKind::Steps).unwrap().text
            );
        }
    }
    assert!(
        current_steps(&s, "coherence").unwrap().starts_with("1. Read the news article carefully")
    );
    // A study saved before steps had sources runs with its templates' steps, which stay readable.
    let mut old = s.clone();
    old.steps.clear();
    assert_eq!(current_steps(&old, "fluency"), current_steps(&s, "fluency"));
    // Methods without auto-CoT have no steps at all.
    assert!(
        s.method("score-only")
            .unwrap()
            .template("coherence")
            .unwrap()
            .part(PartKind::Steps)
            .is_none()
    );
    let caps = Capabilities::for_model(ProviderId::Vllm, "m");
    assert!(wb::plan(&d, &s, &endpoint(), &caps, None).problems.is_empty());
}

#[test]
fn without_a_built_in_prompt_a_cot_method_has_no_steps_until_someone_writes_them() {
    let d = generic();
    let mut s = grid_study(&d, vec![false, true], vec![Persona::None]);
    assert!(s.steps.is_empty(), "no released steps to fall back on");
    assert_eq!(current_steps(&s, "helpfulness"), None);
    assert_eq!(
        s.set_steps(&d, "helpfulness", StepsSource::Released),
        Err(StepsError::NoReleasedSteps { attribute: "helpfulness".into() })
    );
    let caps = Capabilities::for_model(ProviderId::Vllm, "m");
    let p = wb::plan(&d, &s, &endpoint(), &caps, None);
    let refused: Vec<(&str, &str)> =
        p.problems.iter().map(|x| (x.method.as_str(), x.attribute.as_str())).collect();
    assert_eq!(
        refused,
        [
            ("score-only +cot", "helpfulness"),
            ("score-only +cot", "tone"),
            ("rate-explain +cot", "helpfulness"),
            ("rate-explain +cot", "tone")
        ]
    );
    assert!(p.problems[0].message.contains("no evaluation steps"), "{}", p.problems[0].message);
    // The methods without auto-CoT are planned: 2 methods × 2 attributes × 3 items.
    assert_eq!(p.prompts.len(), 12);
    assert!(missing_steps(s.method("score-only +cot").unwrap(), "tone"));
    assert_eq!(
        check(&s),
        Err(StepsError::Missing {
            method: "score-only +cot".into(),
            attribute: "helpfulness".into()
        })
    );
    assert!(
        check(&s).unwrap_err().to_string().contains("under Evaluation steps on the Judge screen")
    );

    // The user's own steps fill every "+cot" template of that attribute.
    s.set_steps(&d, "tone", StepsSource::Own { text: "1. Mind the tone.".into() }).unwrap();
    assert_eq!(
        steps_text(&s, "rate-explain +cot", "tone"),
        "Evaluation Steps:\n\n1. Mind the tone.\n\n"
    );
    assert_eq!(current_steps(&s, "tone").as_deref(), Some("1. Mind the tone."));
    assert!(!missing_steps(s.method("score-only +cot").unwrap(), "tone"));
    assert_eq!(wb::plan(&d, &s, &endpoint(), &caps, None).problems.len(), 2);
}

#[test]
fn the_judge_writes_the_steps_once_per_attribute_and_every_cot_method_uses_them() {
    let d = generic();
    let mut s = grid_study(&d, vec![false, true], vec![Persona::None, Persona::Hhh]);
    assert_eq!(
        steps_request(&Study { methods: Vec::new(), ..s.clone() }, "helpfulness"),
        Err(StepsError::NoCotMethod { attribute: "helpfulness".into() })
    );
    let (method, request) = steps_request(&s, "helpfulness").unwrap();
    assert_eq!(method, "score-only +cot");
    // G-Eval's procedure: the task and the criteria, then "Evaluation Steps:" to continue; no
    // persona, no item, one sample at the provider's defaults.
    let prompt = &request.messages[0].content;
    assert_eq!(request.messages.len(), 1);
    assert!(prompt.starts_with("You will be given an output written for an input."), "{prompt}");
    assert!(prompt.contains("Helpfulness (1-5)"), "{prompt}");
    assert!(prompt.ends_with("annotation guidelines.\n\nEvaluation Steps:\n"), "{prompt:?}");
    assert!(!prompt.contains("You are an AI assistant"), "{prompt}");
    assert!(!prompt.contains("{{"), "no placeholder: {prompt}");
    assert_eq!((request.n, request.temperature, request.max_tokens), (1, None, None));
    assert_eq!(request.tag, "steps/helpfulness");
    // The same request whichever "+cot" method comes first, persona or not.
    let hhh_first = Study {
        methods: s.methods.iter().filter(|m| m.persona == Persona::Hhh).cloned().collect(),
        ..s.clone()
    };
    assert_eq!(steps_request(&hhh_first, "helpfulness").unwrap().1.messages, request.messages);

    let answer = format!("  {STEPS}\n\n");
    let written =
        written_steps("helpfulness", &endpoint(), method, request.clone(), &answer).unwrap();
    assert_eq!(written.steps, STEPS);
    assert_eq!(written.answer, answer, "the raw answer is kept");
    assert_eq!(written.endpoint.base_url, "https://llm.example.org/v1");
    assert_eq!(written.endpoint.model, "judge-model");
    assert!(is_current(&s, "helpfulness", &written));
    assert_eq!(
        written_steps("helpfulness", &endpoint(), "m".into(), request, " \n "),
        Err(StepsError::EmptyAnswer { attribute: "helpfulness".into() })
    );

    let caps = Capabilities::for_model(ProviderId::Vllm, "m");
    s.set_steps(&d, "tone", StepsSource::Own { text: "1. Mind the tone.".into() }).unwrap();
    let before = wb::plan(&d, &s, &endpoint(), &caps, None);
    s.set_steps(&d, "helpfulness", StepsSource::Judge(Box::new(written.clone()))).unwrap();
    assert_eq!(s.steps_source("helpfulness").unwrap().label(), "written by the judge");
    let cot: Vec<&str> = s.methods.iter().filter(|m| m.auto_cot).map(|m| m.name.as_str()).collect();
    assert_eq!(cot.len(), 4, "two modes × two personas");
    for name in &cot {
        let t = s.method(name).unwrap().template("helpfulness").unwrap();
        let text = t.render(&d.items[0]).unwrap();
        assert!(text.contains(&format!("Evaluation Steps:\n\n{STEPS}\n\n")), "{name}: {text}");
    }
    assert!(
        s.method("rate-explain")
            .unwrap()
            .template("helpfulness")
            .unwrap()
            .part(PartKind::Steps)
            .is_none(),
        "methods without auto-CoT are untouched"
    );
    let after = wb::plan(&d, &s, &endpoint(), &caps, None);
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    assert_eq!(check(&s), Ok(()));
    assert_eq!(after.prompts.len(), 8 * 2 * 3);

    // Edited steps are new prompts (new cache keys) for the "+cot" methods only.
    let mut edited = written.clone();
    edited.steps = format!("{STEPS}\n4. Be strict.");
    s.set_steps(&d, "helpfulness", StepsSource::Judge(Box::new(edited))).unwrap();
    let again = wb::plan(&d, &s, &endpoint(), &caps, None);
    let digests = |p: &wb::Plan| -> HashMap<(usize, String, usize), String> {
        p.prompts
            .iter()
            .map(|x| ((x.method, x.attribute.clone(), x.item), x.digest.clone()))
            .collect()
    };
    let (a, b) = (digests(&after), digests(&again));
    for ((m, attribute, item), digest) in &a {
        let changed = b[&(*m, attribute.clone(), *item)] != *digest;
        let expected = s.methods[*m].auto_cot && attribute == "helpfulness";
        assert_eq!(changed, expected, "{} {attribute} {item}", s.methods[*m].name);
    }
    assert!(before.prompts.len() < after.prompts.len());

    // One "+cot" method with criteria of its own: the steps were written from the others',
    // so the run is refused, naming both.
    let mut apart = s.clone();
    if let Some(t) = apart
        .methods
        .iter_mut()
        .rev()
        .find(|m| m.auto_cot)
        .and_then(|m| m.templates.get_mut("helpfulness"))
    {
        t.set_part(PartKind::Criteria, "Evaluation Criteria:\n\nHelpfulness (1-5) - other.\n\n");
    }
    let last = apart.methods.iter().rev().find(|m| m.auto_cot).unwrap().name.clone();
    assert_eq!(
        check(&apart),
        Err(StepsError::DifferentCriteria {
            attribute: "helpfulness".into(),
            method: "score-only +cot".into(),
            other: last,
        })
    );
    // Own steps are the user's choice for every method: allowed.
    apart.set_steps(&d, "helpfulness", StepsSource::Own { text: STEPS.into() }).unwrap();
    assert_eq!(check(&apart), Ok(()));

    // Editing the criteria the steps were asked from makes them stale.
    for m in &mut s.methods {
        if let Some(t) = m.templates.get_mut("helpfulness") {
            t.set_part(PartKind::Criteria, "Evaluation Criteria:\n\nHelpfulness (1-5) - new.\n\n");
        }
    }
    assert!(!is_current(&s, "helpfulness", &written));
}

#[test]
fn the_study_carries_the_steps_request_and_answer_into_the_bundle_without_a_key() {
    let d = generic();
    let mut s = grid_study(&d, vec![true], vec![Persona::None]);
    let (method, request) = steps_request(&s, "helpfulness").unwrap();
    let written = written_steps("helpfulness", &endpoint(), method, request, STEPS).unwrap();
    s.set_steps(&d, "helpfulness", StepsSource::Judge(Box::new(written.clone()))).unwrap();
    s.set_steps(&d, "tone", StepsSource::Own { text: "1. Tone.".into() }).unwrap();
    let b = Bundle::new(
        &d,
        "csv",
        Some(s.clone()),
        Some(&endpoint()),
        Vec::new(),
        Vec::new(),
        Settings::default(),
        "2026-11-26T04:00:00Z".into(),
    );
    let json = b.to_json();
    assert!(!json.contains("sk-secret"), "no key anywhere");
    let back = Bundle::from_json(&json).unwrap();
    let study = back.study.unwrap();
    assert_eq!(study, s);
    assert_eq!(study.steps_source("helpfulness"), Some(&StepsSource::Judge(Box::new(written))));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let entry = &value["study"]["steps"]["helpfulness"];
    assert_eq!(entry["kind"], "judge");
    assert!(
        entry["request"]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .ends_with("Evaluation Steps:\n")
    );
    assert_eq!(entry["answer"], STEPS);

    // A study saved before steps sources existed still loads, its templates as written.
    let mut old: serde_json::Value = serde_json::to_value(&s).unwrap();
    old.as_object_mut().unwrap().remove("steps");
    let old: Study = serde_json::from_value(old).unwrap();
    assert!(old.steps.is_empty());
    assert_eq!(old.methods, s.methods);
    // An empty map is not written at all, so older studies keep their bytes.
    let plain = grid_study(&d, vec![false], vec![Persona::None]);
    assert!(!serde_json::to_string(&plain).unwrap().contains("\"steps\""));
}
