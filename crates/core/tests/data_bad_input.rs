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
        "topical-chat items=1 pairs=0\ntc.json:3: JSON error in record 2: EOF while parsing a string; kept the 1 record before it",
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
        "csv items=2 pairs=0\nx.csv:2: the file is not valid UTF-8 (first bad byte at offset 39); 1 invalid sequence replaced by U+FFFD",
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

// --- A damaged or stray record at the top does not decide how the whole file is read. ---

#[test]
fn a_first_record_missing_a_key_does_not_change_the_format() {
    let first = TC.replacen("\"system_id\": \"s1\", ", "", 1);
    let text = format!(
        "[\n{first},\n{},\n{}\n]",
        TC.replacen("\"s1\"", "\"s2\"", 1),
        TC.replacen("\"s1\"", "\"s3\"", 1)
    );
    let loaded = data::load("tc.json", text.as_bytes()).unwrap();
    assert_eq!(loaded.summary.format, "topical-chat");
    assert_eq!(loaded.summary.counts.items, 2);
    assert_eq!(loaded.dataset.attributes.len(), 1, "the scores are ratings, not a text input");
    let warning =
        loaded.diagnostics.iter().find(|d| d.severity == data::Severity::Warning).unwrap();
    assert_eq!((warning.line, warning.field.as_deref()), (Some(2), Some("system_id")), "{warning}");
}

#[test]
fn a_non_object_first_record_keeps_the_declared_scales() {
    // Topical-Chat coherence is 1–3: a 7 is dropped even after a stray `1` at the top.
    let bad = TC.replacen("2.0", "7", 1).replacen("\"s1\"", "\"s2\"", 1);
    let text = format!("[1,\n{TC},\n{bad}\n]");
    let loaded = data::load("tc.json", text.as_bytes()).unwrap();
    let coherence = &loaded.dataset.attributes[0];
    assert_eq!((coherence.scale.min, coherence.scale.max), (1.0, 3.0));
    assert!(
        loaded.diagnostics.iter().any(|d| d.message.contains("outside")),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn a_stray_object_first_does_not_choose_the_scales() {
    // A stray object with a `doc_id` but no output at the top of Topical-Chat: the scales are
    // still Topical-Chat's (coherence 1–3), not SummEval's (1–5).
    let bad = TC.replacen("2.0", "4", 1).replacen("\"s1\"", "\"s2\"", 1);
    let text = format!("[{{\"doc_id\": \"x\"}},\n{TC},\n{bad}\n]");
    let loaded = data::load("tc.json", text.as_bytes()).unwrap();
    assert_eq!(loaded.summary.format, "topical-chat");
    let coherence = &loaded.dataset.attributes[0];
    assert_eq!((coherence.scale.min, coherence.scale.max), (1.0, 3.0));
    assert!(
        loaded.diagnostics.iter().any(|d| d.message.contains("outside")),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn jsonl_with_a_broken_first_line_loads_the_rest() {
    let line = |i: usize| {
        format!(
            r#"{{"article_id": "a{i}", "summary_id": "M{i}", "article": "x", "summary": "y", "coherence": 3, "consistency": 4, "fluency": 2, "relevance": 5}}"#
        )
    };
    let first = line(0);
    let text = format!("{}\n{}\n{}\n{}\n", &first[..30], line(1), line(2), line(3));
    let loaded = data::load("s.jsonl", text.as_bytes()).unwrap();
    assert_eq!(loaded.summary.format, "summeval-ppairs");
    assert_eq!(loaded.summary.counts.items, 3);
    assert!(loaded.diagnostics.iter().any(|d| d.line == Some(1)), "{:?}", loaded.diagnostics);
}

#[test]
fn a_single_record_object_is_a_record_not_a_wrapper() {
    // One Chiang & Lee record: its only array is `all_responses` (strings).
    let record = r#"{"doc_id": "d1", "system_id": "M1", "source": "s", "system_output": "o", "scores": {"coherence": 3}, "prompt": "p", "all_responses": ["4", "5"]}"#;
    let loaded = data::load("one.json", record.as_bytes()).unwrap();
    assert_eq!(loaded.summary.format, "chiang-lee-results");
    assert_eq!(loaded.runs[0].records.len(), 1);
    assert_eq!(loaded.runs[0].records[0].responses, ["4", "5"]);
}

#[test]
fn files_with_nothing_to_evaluate_are_errors() {
    for (name, bytes) in [
        ("empty_object.json", &b"{}"[..]),
        ("flat.json", &br#"{"a": {"b": 1}}"#[..]),
        ("binary.json", &b"\x7fELF\x02\x01,\x01\x00,\x00\x00"[..]),
        ("text.json", &b"hello, world"[..]),
    ] {
        let err = data::load(name, bytes).expect_err(name);
        assert!(
            matches!(
                err,
                LoadError::UnknownFormat { .. }
                    | LoadError::NoRecords { .. }
                    | LoadError::Binary { .. }
            ),
            "{name}: {err}"
        );
        assert!(err.to_string().starts_with(name), "{err}");
    }
}

// --- Ids are unique; repeated (document, system) rows are kept and said. ---

#[test]
fn generic_rows_repeating_document_and_system_are_kept_and_reported() {
    let csv = "doc,output,score\nd1,a,1\nd1,b,2\nd2,c,3\nd1,d,4\n";
    let loaded = data::load("g.csv", csv.as_bytes()).unwrap();
    assert_eq!(loaded.summary.counts.items, 4);
    let repeats: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("again (first on line 2)"))
        .collect();
    assert_eq!(repeats.iter().map(|d| d.line).collect::<Vec<_>>(), [Some(3), Some(5)]);
    // A `sys` column is the system, and then nothing repeats.
    let csv = "doc,sys,output,score\nd1,A,a,1\nd1,B,b,2\n";
    let loaded = data::load("g.csv", csv.as_bytes()).unwrap();
    assert_eq!(loaded.summary.counts.systems, 2);
    assert!(!loaded.diagnostics.iter().any(|d| d.message.contains("again")));
}

#[test]
fn repeated_item_ids_are_renamed_once_each() {
    let csv = "id,output,score\nx,a,1\nx,b,2\nx#2,c,3\ny,d,4\n";
    let loaded = data::load("ids.csv", csv.as_bytes()).unwrap();
    let ids: Vec<&str> = loaded.dataset.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["x", "x#2", "x#2#2", "y"]);
    let warning = loaded.diagnostics.iter().find(|d| d.message.contains("renamed")).unwrap();
    assert!(
        warning.message.starts_with("2 ids repeat an earlier one and were renamed"),
        "{warning}"
    );
    assert!(warning.message.ends_with("map an id column with unique values to keep your own"));
}

#[test]
fn coeval_summaries_say_what_they_are() {
    let shares = r#"{"1. Fluent.": {"pass": "0.87%", "delete": "0.02%", "revise": "0.11%", "add": "0.01%"}}"#;
    let err = data::load("eli5_criteria_to_action.json", shares.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("per-criterion action shares"), "{err}");
    let changes = r#"{"prediction": {"improve": 0, "decrease": 0, "unchange": 0}, "1. Fluent.": {"improve": 3, "decrease": 1, "unchange": 9}}"#;
    let err = data::load("eli5_score_change.json", changes.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("per-criterion score changes"), "{err}");
}

#[test]
fn a_broken_record_inside_an_array_is_skipped_and_the_rest_read() {
    // Record 2 has a stray token; records 1 and 3 load, and the warning names line and record.
    let bad = TC.replacen("\"s1\"", "\"s2\"", 1).replacen("2.0}", "2.0 oops}", 1);
    let text = format!("[\n{TC},\n{bad},\n{}\n]", TC.replacen("\"s1\"", "\"s3\"", 1));
    check(
        "tc.json",
        text.as_bytes(),
        "topical-chat items=2 pairs=0\ntc.json:3: JSON error in record 2: expected `,` or `}`; record skipped",
    );
    // An empty slot is skipped too (and cannot make the split go round in circles).
    let loaded =
        data::load("n.json", br#"[{"text": "x", "score": 1},,{"text": "y", "score": 2}]"#).unwrap();
    assert_eq!(loaded.summary.counts.items, 2);
    assert!(
        loaded
            .diagnostics
            .iter()
            .any(|d| d.message.contains("record 2") && d.message.contains("skipped")),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn python_nan_and_infinity_are_missing_values() {
    // json.dump writes NaN for a missing score: the item loads, the rating is missing, and a
    // warning says how many such values were read as missing.
    let with_nan = TC.replacen("2.0", "NaN", 1).replacen("\"s1\"", "\"s2\"", 1);
    let with_inf = TC.replacen("2.0", "-Infinity", 1).replacen("\"s1\"", "\"s3\"", 1);
    let text = format!("[\n{TC},\n{with_nan},\n{with_inf}\n]");
    let loaded = data::load("tc.json", text.as_bytes()).unwrap();
    assert_eq!(loaded.summary.format, "topical-chat");
    assert_eq!(loaded.summary.counts.items, 3);
    for item in &loaded.dataset.items[1..] {
        assert!(item.ratings[0].is_none(), "{:?}", item.ratings);
    }
    assert!(loaded.dataset.items[0].ratings[0].is_some());
    let w = loaded.diagnostics.iter().find(|d| d.message.contains("NaN / Infinity")).unwrap();
    assert_eq!((w.line, w.message.starts_with("2 ")), (Some(3), true), "{w}");
}

/// 20 kB of random bytes named `.csv` loaded as a 159-item dataset: binary files are now
/// refused before parsing, with what they are, and the open dataset stays.
#[test]
fn binary_files_are_refused_before_parsing() {
    // A fixed xorshift stream: random-looking bytes, the same on every run.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let random: Vec<u8> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let err = data::load("noise.csv", &random).unwrap_err();
    assert!(matches!(err, LoadError::Binary { .. }), "{err}");
    assert!(
        err.to_string().starts_with("noise.csv: this is not a text file (binary data"),
        "{err}"
    );
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    check(
        "chart.csv",
        png,
        "error: chart.csv: this is not a text file (a PNG image); load a CSV, TSV, JSON or JSON Lines file",
    );
    let xlsx = b"PK\x03\x04\x14\0\x06\0";
    assert!(data::load("sheet.csv", xlsx).unwrap_err().to_string().contains("an .xlsx"));
    // Text stays text: Latin-1 accents, UTF-16 with its byte-order mark, tabs and form feeds.
    assert!(
        data::load("x.csv", b"doc_id,system_id,output,score\nd1,s1,caf\xe9 cr\xe8me,3\n").is_ok()
    );
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            "doc_id,system_id,output,score\nd1,s1,ok,3\n".encode_utf16().flat_map(u16::to_le_bytes),
        )
        .collect();
    assert!(!matches!(data::load("w.csv", &utf16), Err(LoadError::Binary { .. })));
    assert!(data::load("t.tsv", b"doc_id\tsystem_id\toutput\tscore\nd1\ts1\tok\x0c\t3\n").is_ok());
}
