//! `concord alt-test` reproduces the alternative annotator test paper's published table: the
//! nine AltTest data sets of `../shared/data/AltTest/`, each with its scoring function and ε,
//! print the winning rate ω, passed/failed and the advantage probability ρ of every one of the
//! 52 (data set, LLM) pairs exactly as the paper's notebook printed them (two decimals).
//!
//! The expected values, the scoring and ε come from `PROVENANCE.md` itself (its table and the
//! notebook's printed output), not from a copy here. Skipped when `../shared` is absent, failed
//! instead when `CONCORD_REQUIRE_SHARED` is set (CI).

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::PathBuf;
use std::process::Command;

const ALT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/AltTest");

fn shared() -> Option<PathBuf> {
    let path = PathBuf::from(ALT);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CONCORD_REQUIRE_SHARED").is_none(),
        "{ALT} is absent and CONCORD_REQUIRE_SHARED is set"
    );
    eprintln!("skipped: {ALT} is absent (the released data is not beside this checkout)");
    None
}

/// One printed line of the notebook: data set, LLM, passed, ω and ρ as printed.
struct Published {
    set: String,
    llm: String,
    passed: bool,
    omega: String,
    rho: String,
}

/// The scoring and ε of each data set (PROVENANCE.md's table) and the printed results.
fn provenance(dir: &std::path::Path) -> (Vec<(String, String, String)>, Vec<Published>) {
    let text = std::fs::read_to_string(dir.join("PROVENANCE.md")).unwrap();
    let mut settings = Vec::new();
    let mut printed = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() == 6 && ["accuracy", "neg_rmse"].contains(&cells[2]) {
            settings.push((cells[1].to_owned(), cells[2].to_owned(), cells[3].to_owned()));
        }
        if let Some((head, rest)) = line.split_once(":\tWinning Rate=") {
            let (omega, rho) = rest.split_once("\tAdvantage Probability=").unwrap();
            let mut words = head.split_whitespace();
            let (set, llm, verdict) =
                (words.next().unwrap(), words.next().unwrap(), words.next().unwrap());
            printed.push(Published {
                set: set.to_owned(),
                llm: llm.to_owned(),
                passed: verdict == "[PASSED]",
                omega: omega.trim().to_owned(),
                rho: rho.trim().to_owned(),
            });
        }
    }
    (settings, printed)
}

fn cell<'a>(table: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["cells"].as_array().unwrap())
        .find(|c| c["key"] == key)
        .unwrap_or_else(|| panic!("no cell {key}"))
}

#[test]
fn all_52_published_cells_reproduce() {
    let Some(dir) = shared() else { return };
    let (settings, printed) = provenance(&dir);
    assert_eq!(settings.len(), 9, "PROVENANCE.md's table of data sets");
    assert_eq!(printed.len(), 52, "PROVENANCE.md's printed (data set, LLM) pairs");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (set, scoring, epsilon) in &settings {
        let out = Command::new(env!("CARGO_BIN_EXE_concord"))
            .args(["alt-test", dir.join("data").join(set).to_str().unwrap()])
            .args(["--scoring", scoring, "--epsilon", epsilon, "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{set}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let table = report["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == "validity-alt-test")
            .unwrap();
        let rows: Vec<&str> = table["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["label"].as_str().unwrap())
            .collect();
        let expected: Vec<&Published> = printed.iter().filter(|p| p.set == *set).collect();
        assert_eq!(rows, expected.iter().map(|p| p.llm.as_str()).collect::<Vec<_>>(), "{set}");
        for p in expected {
            let key = |what: &str| format!("{}/annotation/{what}", p.llm);
            let omega = cell(table, &key("winning_rate"));
            let rho = cell(table, &key("advantage_prob"));
            let passed = cell(table, &key("passed"))["text"] == if p.passed { "yes" } else { "no" };
            // The printed text, and the full-precision value rounded as Python's `:.2f`.
            let agrees = |c: &serde_json::Value, want: &str| {
                c["text"] == want && format!("{:.2}", c["value"].as_f64().unwrap()) == want
            };
            if !(agrees(omega, &p.omega) && agrees(rho, &p.rho) && passed) {
                wrong.push(format!(
                    "{set} {}: ω {} (printed {}), ρ {} (printed {}), passed as printed: {passed}",
                    p.llm, omega["text"], p.omega, rho["text"], p.rho
                ));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 52);
    assert!(wrong.is_empty(), "cells that do not reproduce:\n{}", wrong.join("\n"));
}

#[test]
fn the_test_fails_for_a_wrong_epsilon() {
    // The same folder at another ε gives another table: the reproduction is not a constant.
    let Some(dir) = shared() else { return };
    let run = |eps: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_concord"))
            .args(["alt-test", dir.join("data/wax").to_str().unwrap(), "--epsilon", eps])
            .args(["--format", "csv"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (crowd, experts) = (run("0.1"), run("0.2"));
    assert_ne!(crowd, experts);
    // At ε = 0.2 gemini_flash beats more annotators than at 0.1 (the bar is lower): 5 of 8
    // (passed) against 3 of 8 (failed, the paper's print).
    assert!(crowd.contains("gemini_flash,annotation,246,8,0,0.375,no,"), "{crowd}");
    assert!(experts.contains("gemini_flash,annotation,246,8,0,0.625,yes,"), "{experts}");
}

#[test]
fn bad_arguments_say_what_to_type() {
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["alt-test", "somewhere", "--scoring", "f1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'f1' for '--scoring <SCORING>'"), "{err}");
    assert!(err.contains("[possible values: accuracy, neg_rmse]"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["alt-test", "/nonexistent-folder"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonexistent-folder"));
}

/// A bundle whose judge rated 40 items with three samples each, against three raters.
fn bundle_file() -> PathBuf {
    use concord_core::bundle::Bundle;
    use concord_core::data::{self, JudgeRecord, JudgeRun, RecordKey};
    use concord_core::judge::parse::Policy;
    use concord_core::study::workbench::{JudgedRun, Settings};
    let mut csv = String::from("id,doc_id,system_id,output,quality_r1,quality_r2,quality_r3\n");
    let mut records = Vec::new();
    for i in 0..40 {
        let t = 1 + i % 4;
        csv.push_str(&format!("item{i},d{i},s{},text,{t},{t},{}\n", i % 2, 1 + (i * 7) % 4));
        let off = 1 + (t % 4);
        let responses = match i % 5 {
            0 => vec![t, off, off],
            1 => vec![t, t, off],
            _ => vec![t, t, t],
        };
        records.push(JudgeRecord {
            key: RecordKey::Id(format!("item{i}")),
            prompt: None,
            prompt_chars: None,
            responses: responses.iter().map(|r| format!("{r}")).collect(),
            cut_off: Vec::new(),
            logprobs: Vec::new(),
            reasoning_tokens: Vec::new(),
            parsed: Vec::new(),
            line: 0,
            meta: None,
            calls: Vec::new(),
        });
    }
    let dataset = data::load("q.csv", csv.as_bytes()).unwrap().dataset;
    let run = JudgedRun {
        method: "judge".into(),
        attribute: "quality".into(),
        policy: Policy::Concord,
        weighting: None,
        run: JudgeRun { name: "judge".into(), attribute: Some("quality".into()), records },
        origin: "study".into(),
    };
    let bundle = Bundle::new(
        &dataset,
        "csv",
        None,
        None,
        vec![run],
        Vec::new(),
        Settings::default(),
        "t".into(),
    );
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("validity-bundle.json");
    std::fs::write(&path, bundle.to_json()).unwrap();
    path
}

fn concord(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_concord")).args(args).output().unwrap();
    assert!(out.status.success(), "concord {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn trust_and_report_print_the_panel_from_a_bundle() {
    use concord_core::report::Format;
    use concord_core::study::validity;
    let path = bundle_file();
    let p = path.to_str().unwrap();
    let bundle =
        concord_core::bundle::Bundle::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // `concord report --screen validity` prints the panel's bytes.
    let panel = validity::bundle_report(&bundle);
    assert_eq!(
        concord(&["report", p, "--screen", "validity", "--format", "csv"]),
        panel.to_text(Format::Csv)
    );
    // `concord trust` prints the trust and cascade tables with the α and δ asked for.
    let md = concord(&["trust", p, "--alpha", "0.2", "--delta", "0.2"]);
    assert!(md.contains("Where can the judge be trusted?"), "{md}");
    assert!(md.contains("A cascade of judges"), "{md}");
    assert!(md.contains("at least 0.800 (α = 0.2)"), "{md}");
    assert!(md.contains("share of samples giving the majority rating"), "{md}");
    let svg = concord(&["trust", p, "--format", "svg"]);
    assert!(svg.starts_with("<svg"), "{svg}");
    // `concord alt-test BUNDLE` tests the judge against the bundle's raters.
    let alt = concord(&["alt-test", p, "--epsilon", "0.15", "--min-instances", "20"]);
    assert!(alt.contains("ε = 0.15 (skilled)"), "{alt}");
    assert!(alt.contains("| judge | quality | 40 | 3 | 0 |"), "{alt}");
}
