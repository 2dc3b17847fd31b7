//! Every case file in the `stats_examples` format reproduced within STATS_SPEC §0's tolerances:
//! the spec's own examples (`../shared/stats_examples`, skipped with a notice when absent) and
//! our scipy-generated edge-case fixtures (`tests/fixtures/stats`, made by
//! `benches/stats_make_fixtures.py`).

mod common;

use concord_core::stats::cases::run_cases;
use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stats");

/// Tolerance of §0 for a field name.
fn tolerance(key: &str, expected: f64) -> f64 {
    if key == "bt" || key == "bt_l2" {
        1e-6
    } else if key == "p" || key.starts_with("p_") && key != "p_method" {
        1e-9 + 1e-6 * expected.abs()
    } else {
        1e-9
    }
}

/// Compare `got` against `expected` recursively; differences are pushed as `path: message`.
fn compare(path: &str, key: &str, got: &Value, expected: &Value, errors: &mut Vec<String>) {
    match (got, expected) {
        (Value::Number(g), Value::Number(e)) => {
            if e.is_u64() || e.is_i64() {
                // Counts are exact; integral floats in the reference (1.0) compare as numbers.
                if g.as_f64() != e.as_f64() {
                    errors.push(format!("{path}: got {g}, expected {e}"));
                }
            } else {
                let (g, e) = (g.as_f64().unwrap_or(f64::NAN), e.as_f64().unwrap_or(f64::NAN));
                if g.is_nan() || (g - e).abs() > tolerance(key, e) {
                    errors.push(format!("{path}: got {g:e}, expected {e:e} (diff {:e})", g - e));
                }
            }
        }
        (Value::Array(g), Value::Array(e)) => {
            if g.len() != e.len() {
                errors.push(format!("{path}: got {} items, expected {}", g.len(), e.len()));
                return;
            }
            for (i, (g, e)) in g.iter().zip(e).enumerate() {
                compare(&format!("{path}[{i}]"), key, g, e, errors);
            }
        }
        (Value::Object(g), Value::Object(e)) => {
            for (k, e) in e {
                match g.get(k) {
                    Some(g) => compare(&format!("{path}.{k}"), k, g, e, errors),
                    None => errors.push(format!("{path}.{k}: missing")),
                }
            }
            for k in g.keys().filter(|k| !e.contains_key(*k)) {
                errors.push(format!("{path}.{k}: not in the reference"));
            }
        }
        (g, e) if g == e => {}
        (g, e) => errors.push(format!("{path}: got {g}, expected {e}")),
    }
}

/// Run `cases` and compare every result with `expected` (matched by id).
fn check(cases: &Path, expected: &Path) {
    let input = std::fs::read_to_string(cases).unwrap_or_else(|e| panic!("{cases:?}: {e}"));
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(expected).unwrap_or_else(|e| panic!("{expected:?}: {e}")),
    )
    .unwrap_or_else(|e| panic!("{expected:?}: {e}"));
    let got = run_cases(&input).unwrap_or_else(|e| panic!("{cases:?}: {e}"));
    let got = serde_json::to_value(&got).expect("results serialise");
    let got = got["results"].as_array().expect("output has results");
    let reference = reference["results"].as_array().expect("reference has results");
    assert_eq!(got.len(), reference.len(), "{cases:?}: number of results");
    let mut errors = Vec::new();
    for (g, e) in got.iter().zip(reference) {
        assert_eq!(g["id"], e["id"], "results are in case order");
        compare(e["id"].as_str().unwrap_or("?"), "", g, e, &mut errors);
    }
    assert!(errors.is_empty(), "{cases:?}: {} differences:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn spec_examples_match_expected_json() {
    let Some(cases) = common::shared("stats_examples/cases.json") else { return };
    check(&cases, &cases.with_file_name("expected.json"));
}

#[test]
fn scipy_fixtures_match() {
    let dir = Path::new(FIXTURES);
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("fixture directory exists") {
        let path = entry.expect("readable directory").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stem) = name.strip_suffix(".cases.json") {
            check(&path, &dir.join(format!("{stem}.expected.json")));
            checked += 1;
        }
    }
    assert!(checked > 0, "no fixtures found in {FIXTURES}");
}

/// A malformed case yields an `error` naming the field; the other cases are still computed.
#[test]
fn malformed_cases_report_the_field() {
    let input = r#"{"cases": [
        {"id": "ok", "kind": "correlation", "x": [1, 2, 3], "y": [1, 3, 2]},
        {"id": "k", "kind": "regression"},
        {"id": "x", "kind": "correlation", "x": [1, "two"], "y": [1, 2]},
        {"id": "len", "kind": "correlation", "x": [1, 2, 3], "y": [1, 2]},
        {"id": "g", "kind": "correlation", "x": [1, 2], "y": [1, 2], "groups": ["a"]},
        {"id": "w", "kind": "williams", "r12": 0.5, "r13": 0.4, "r23": 0.1},
        {"id": "b", "kind": "resampling", "human": [1, 2, 3], "metric_a": [1, 2, 3],
         "metric_b": [3, 2, 1], "stats": ["pearson"], "boot_indices": [[0, 1, 7]],
         "perm_masks": [[0, 1, 0]]},
        {"id": "m", "kind": "resampling", "human": [1, 2, 3], "metric_a": [1, 2, 3],
         "metric_b": [3, 2, 1], "stats": ["pearson"], "boot_indices": [[0, 1, 2]],
         "perm_masks": [[0, 1]]},
        {"id": "s", "kind": "resampling", "human": [1, 2], "metric_a": [1, 2],
         "metric_b": [2, 1], "stats": ["cosine"], "boot_indices": [], "perm_masks": []},
        {"id": "lv", "kind": "resampling", "human": [1, 2], "metric_a": [1, 2],
         "metric_b": [2, 1], "level": "group"},
        {"id": "r", "kind": "agreement", "ratings": [[1, 2], [true, 1]]},
        {"id": "l", "kind": "pairwise_labels", "judge": ["A", "C"], "gold": ["A", "B"]},
        {"id": "mm", "kind": "matches", "models": ["A", "B"], "matches": [["A", "Z", "a"]]},
        {"id": "o", "kind": "matches", "models": ["A", "B"], "matches": [["A", "B", "a"]],
         "orders": [[0, 1]]},
        {"id": "out", "kind": "matches", "models": ["A", "B"], "matches": [["A", "B", "win"]]},
        {"id": "wk", "kind": "wilson", "k": 3, "n": 2},
        {"id": "wc", "kind": "wilson", "k": 1, "n": 2, "confidence": 1.5},
        {"id": "wn", "kind": "wilson", "k": 1},
        {"id": "fr", "kind": "flip_rate", "forward": ["A"], "backward": ["A", "B"]},
        {"id": "fl", "kind": "flip_rate", "forward": ["C"], "backward": ["A"]},
        {"id": "ga", "kind": "gwet_ac1", "ratings": [[1, true]]},
        {"id": "pp", "kind": "ppi_mean", "y": [1, 2], "yhat": [1], "yhat_unlabeled": []},
        {"id": "ps", "kind": "paired_shift", "orig": [1, 2], "variant": [1, 2],
         "boot_indices": [[0, 5]]},
        {"id": "pl", "kind": "paired_shift", "orig": [1, 2], "variant": [1]},
        {"id": "ja", "kind": "judge_agreement", "human": [1, 2], "judges": [[1, 2]]},
        {"id": "jl", "kind": "judge_agreement", "human": [1, 2], "judges": [[1, 2], [1]]},
        {"id": "jj", "kind": "judge_agreement", "human": [1, 2], "judges": [[1, 2], [2, 1]],
         "jury": [5]},
        "not an object"
    ]}"#;
    let results = run_cases(input).expect("the file itself is fine");
    let fields: Vec<(String, Option<&str>)> =
        results.results.iter().map(|r| (r.id.to_string(), r.error())).collect();
    let expect = [
        ("\"ok\"", None),
        ("\"k\"", Some("field `kind`")),
        ("\"x\"", Some("field `x`: item 1")),
        ("\"len\"", Some("field `y`")),
        ("\"g\"", Some("field `groups`")),
        ("\"w\"", Some("field `n`")),
        ("\"b\"", Some("field `boot_indices`: resample 0: index 7")),
        ("\"m\"", Some("field `perm_masks`")),
        ("\"s\"", Some("field `stats`")),
        ("\"lv\"", Some("field `groups`")),
        ("\"r\"", Some("field `ratings`")),
        ("\"l\"", Some("field `judge`")),
        ("\"mm\"", Some("field `matches`")),
        ("\"o\"", Some("field `orders`")),
        ("\"out\"", Some("field `matches`")),
        ("\"wk\"", Some("field `k`: 3 successes out of 2")),
        ("\"wc\"", Some("field `confidence`")),
        ("\"wn\"", Some("field `n`")),
        ("\"fr\"", Some("field `backward`")),
        ("\"fl\"", Some("field `forward`")),
        ("\"ga\"", Some("field `ratings`")),
        ("\"pp\"", Some("field `yhat`")),
        ("\"ps\"", Some("field `boot_indices`: resample 0: index 5")),
        ("\"pl\"", Some("field `variant`")),
        ("\"ja\"", Some("field `judges`")),
        ("\"jl\"", Some("field `judges`")),
        ("\"jj\"", Some("field `jury`")),
        ("null", Some("field `case`")),
    ];
    assert_eq!(fields.len(), expect.len());
    for ((id, got), (want_id, want)) in fields.iter().zip(expect) {
        assert_eq!(id, want_id);
        match (got, want) {
            (None, None) => {}
            (Some(g), Some(w)) => assert!(g.starts_with(w), "{id}: {g:?} should start with {w:?}"),
            _ => panic!("{id}: got {got:?}, expected {want:?}"),
        }
    }
    assert!(matches!(run_cases("{"), Err(e) if e.to_string().starts_with("not valid JSON")));
    assert!(run_cases("{\"x\": 1}").is_err());
}
