//! Bad input never panics: truncated, non-UTF-8, wrong-shaped and partly wrong files load what
//! they can with located diagnostics, and unusable files give one clear error. Cases found by
//! fuzzing (`fuzz/`) are kept at the end as regressions.

#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

use concord_core::data::{self, LoadError};

/// Loads `bytes` as `name` and renders either the error or the counts plus diagnostics.
fn render(name: &str, bytes: &[u8]) -> String {
    match data::load(name, bytes) {
        Err(e) => format!("error: {e}"),
        Ok(l) => {
            let c = &l.summary.counts;
            let mut out = format!("{} items={} pairs={}", l.summary.format, c.items, c.pairs);
            for d in l.diagnostics.iter().filter(|d| d.severity == data::Severity::Warning) {
                out += &format!("\n{d}");
            }
            out
        }
    }
}

fn check(name: &str, bytes: &[u8], expect: &str) {
    let got = render(name, bytes);
    assert_eq!(got.trim(), expect.trim(), "\n--- got ---\n{got}");
}

const TC: &str = r#"{"source": "hi ?\n", "system_id": "s1", "system_output": "hello .", "context": "c", "scores": {"coherence": 2.0}}"#;

#[test]
fn truncated_json_array_keeps_complete_records() {
    // Two records of different systems, then cut inside the second.
    let text = format!("[\n{TC},\n{}", TC.replacen("\"s1\"", "\"s2\"", 1));
    let cut = &text[..text.len() - 10];
    check(
        "tc.json",
        cut.as_bytes(),
        "topical-chat items=1 pairs=0\ntc.json:3: JSON error in record 2: EOF while parsing a string; kept the 1 record(s) before it",
    );
}

#[test]
fn duplicate_keys_keep_the_first() {
    let text = format!("[{TC},\n{TC}]");
    check(
        "tc.json",
        text.as_bytes(),
        "topical-chat items=1 pairs=0\ntc.json:2: duplicate item (document 563b59acebba0ccb, system s1); the first one is kept",
    );
}

#[test]
fn non_utf8_bytes_are_replaced_and_reported() {
    check(
        "x.csv",
        b"doc_id,system_id,output,score\nd1,s1,caf\xe9,3\nd2,s1,ok,4\n",
        "csv items=2 pairs=0\nx.csv:2: the file is not valid UTF-8 (first bad byte at offset 39); 1 invalid sequence(s) replaced by U+FFFD",
    );
}

#[test]
fn wrong_types_are_reported_with_field_and_line() {
    let text = r#"{"article_id": "A0", "summary_id": "S0", "article": "a", "summary": "s", "coherence": 3}
{"article_id": "A0", "summary_id": 7, "article": "a", "summary": ["s"], "coherence": "high"}
[1, 2]
{"article_id": "A1", "summary_id": "S0", "article": "a"}
"#;
    check(
        "p.jsonl",
        text.as_bytes(),
        "summeval-ppairs items=1 pairs=0
p.jsonl:2 [summary]: `summary` should be a string; record skipped
p.jsonl:3: record is not a JSON object; skipped
p.jsonl:4 [summary]: missing field `summary`; record skipped",
    );
}

#[test]
fn unusable_files_give_one_error() {
    let check_err = |name: &str, bytes: &[u8], want: &str| {
        let e = data::load(name, bytes).expect_err(name);
        assert_eq!(e.to_string(), want);
    };
    check_err("empty.json", b"  \n", "empty.json: the file is empty");
    check_err(
        "notes.md",
        b"# Title\nsome prose\n",
        "notes.md: not a format Concord recognises (expected JSON, JSON Lines, CSV or TSV with a header row)",
    );
    check_err(
        "broken.json",
        b"{\"a\": 1,\n \"b\": }",
        "broken.json:2: invalid JSON: expected value",
    );
    check_err(
        "n.json",
        b"[1, 2,\n 3]",
        "n.json: read as json, but no record could be loaded; first problem: n.json:1: record is not a JSON object; skipped",
    );
    assert!(matches!(data::load("e.csv", b"\xEF\xBB\xBF"), Err(LoadError::Empty { .. })));
}

#[test]
fn bad_mapping_names_the_column() {
    let mut m = data::example_mapping();
    m.output = Some("summary".to_owned());
    let e =
        data::load_with_mapping("x.csv", concord_core::example::EXAMPLE_CSV.as_bytes(), Some(&m))
            .unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.csv: the mapping uses column `summary` as output, but the file has no such column"
    );
}

/// Every prefix of a valid file loads or fails cleanly (a cheap, deterministic stand-in for the
/// fuzzers, run on every `cargo test`).
#[test]
fn every_prefix_of_fixtures_is_handled() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/data");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for cut in 0..bytes.len() {
            let _ = data::load(&name, &bytes[..cut]);
        }
    }
}
