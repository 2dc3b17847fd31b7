//! `concord stats` against the oracle on the four reporting rules of STATS_SPEC (§6 every input
//! group listed, §8 `group_ids` of group-level resampling, §10 `<level>_error` beside a null α,
//! §11 no κ on continuous ratings without declared categories): the binary runs the random
//! cases of `benches/oracle/gen_rules.py` and its output must match `rules.expected.json` field
//! by field — every key present on both sides, null-ness and counts exact, strings equal,
//! numbers within §0's tolerances. The fixture is only read here, never written.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use serde_json::Value;
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/stats");

fn read(name: &str) -> Value {
    let path = format!("{FIXTURES}/{name}");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// §0: p-values `1e-9 + 1e-6·|expected|`, Bradley–Terry 1e-6, every other statistic 1e-9.
fn tolerance(key: &str, expected: f64) -> f64 {
    match key {
        "bt" | "bt_l2" => 1e-6,
        "p" | "p_greater" | "p_abs_one_sided" | "p_two_sided" | "p_value" | "p_values" => {
            1e-9 + 1e-6 * expected.abs()
        }
        _ => 1e-9,
    }
}

fn compare(path: &str, key: &str, got: &Value, expected: &Value, errors: &mut Vec<String>) {
    match (got, expected) {
        (Value::Number(g), Value::Number(e)) if e.is_u64() || e.is_i64() => {
            if g.as_f64() != e.as_f64() {
                errors.push(format!("{path}: got {g}, expected {e}"));
            }
        }
        (Value::Number(g), Value::Number(e)) => {
            let (g, e) = (g.as_f64().unwrap(), e.as_f64().unwrap());
            if (g - e).abs() > tolerance(key, e) {
                errors.push(format!("{path}: got {g:e}, expected {e:e}"));
            }
        }
        (Value::Array(g), Value::Array(e)) if g.len() == e.len() => {
            for (i, (g, e)) in g.iter().zip(e).enumerate() {
                compare(&format!("{path}[{i}]"), key, g, e, errors);
            }
        }
        (Value::Object(g), Value::Object(e)) => {
            for (k, ev) in e {
                match g.get(k) {
                    Some(gv) => compare(&format!("{path}.{k}"), k, gv, ev, errors),
                    None => errors.push(format!("{path}.{k}: missing, expected {ev}")),
                }
            }
            for k in g.keys().filter(|k| !e.contains_key(*k)) {
                errors.push(format!("{path}.{k}: {} not in the reference", g[k]));
            }
        }
        (g, e) if g == e => {}
        (g, e) => errors.push(format!("{path}: got {g}, expected {e}")),
    }
}

/// Runs `concord stats` on `<name>.cases.json` and compares its output with
/// `<name>.expected.json` field by field; returns the expected results.
fn matches_the_oracle(name: &str) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["stats", &format!("{FIXTURES}/{name}.cases.json")])
        .output()
        .unwrap();
    assert!(out.status.success(), "concord stats: {}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = read(&format!("{name}.expected.json"));
    let (got, expected) =
        (got["results"].as_array().unwrap(), expected["results"].as_array().unwrap());
    assert_eq!(got.len(), expected.len(), "one result per case");
    let mut errors = Vec::new();
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g["id"], e["id"], "results in case order");
        compare(e["id"].as_str().unwrap(), "", g, e, &mut errors);
    }
    assert!(errors.is_empty(), "{} differences:\n{}", errors.len(), errors.join("\n"));
    expected.clone()
}

#[test]
fn concord_stats_matches_the_oracle_on_the_reporting_rules() {
    matches_the_oracle("rules");
}

/// The fixture really exercises each rule, so switching one off makes the comparison fail.
#[test]
fn the_rules_fixture_covers_all_four_rules() {
    let expected = read("rules.expected.json");
    let results = expected["results"].as_array().unwrap();
    let cases = read("rules.cases.json");
    let cases = cases["cases"].as_array().unwrap();
    let of_kind = |k: &'static str| results.iter().filter(move |r| r["kind"] == k);

    // §6: groups with no paired item are listed, size 0, null values, lists aligned.
    let listed_empty = of_kind("correlation")
        .filter_map(|r| r.get("group"))
        .filter(|g| {
            let sizes = g["group_sizes_used"].as_array().unwrap();
            let n = g["n_groups"].as_u64().unwrap() as usize;
            assert_eq!(g["group_ids"].as_array().unwrap().len(), n);
            assert_eq!(sizes.len(), n);
            assert_eq!(g["pearson"]["values"].as_array().unwrap().len(), n);
            sizes.iter().enumerate().any(|(i, s)| {
                *s == 0 && g["tau_23"]["values"][i].is_null() && g["pearson"]["values"][i].is_null()
            })
        })
        .count();
    assert!(listed_empty >= 10, "{listed_empty} correlation cases list an all-missing group");

    // §8: group-level results list group_ids, fewer than the input's groups when some lost all
    // their used items; dataset-level results do not.
    let mut dropped = 0;
    for (case, r) in cases.iter().zip(results).filter(|(_, r)| r["kind"] == "resampling") {
        if r["level"] == "group" {
            let ids = r["group_ids"].as_array().expect("group-level result lists group_ids");
            let mut input: Vec<&Value> = Vec::new();
            for g in case["groups"].as_array().unwrap() {
                if !input.contains(&g) {
                    input.push(g);
                }
            }
            dropped += usize::from(ids.len() < input.len());
        } else {
            assert!(r.get("group_ids").is_none(), "{}: dataset level has no group_ids", r["id"]);
        }
    }
    assert!(dropped >= 5, "{dropped} group-level cases drop a group with no used items");

    // §10: every null α carries a reason; every reason the package gives occurs.
    let mut reasons = std::collections::BTreeSet::new();
    for r in of_kind("agreement") {
        for level in ["nominal", "ordinal", "interval", "ratio"] {
            let error = &r["krippendorff"][format!("{level}_error")];
            assert_eq!(r["krippendorff"][level].is_null(), error.is_string(), "{}", r["id"]);
            if let Some(e) = error.as_str() {
                reasons.insert(e);
            }
        }
    }
    for reason in [
        "There has to be more than one value in the domain.",
        "There has to be at least one unit with values assigned by at least two coders.",
    ] {
        assert!(reasons.contains(reason), "no case gives {reason:?}");
    }
    assert!(reasons.len() >= 4, "reasons: {reasons:?}");

    // §11: continuous ratings without categories have no κ; α is still computed.
    let continuous = of_kind("agreement")
        .filter(|r| r["id"].as_str().unwrap().starts_with("k11-continuous-"))
        .filter(|r| {
            r["mean_pairwise_cohen"].is_null()
                && r["fleiss"]["kappa"].is_null()
                && r["krippendorff"]["interval"].is_number()
        })
        .count();
    assert!(continuous >= 6, "{continuous} continuous cases with every κ null");
    let declared = results.iter().find(|r| r["id"] == "k11-continuous-declared").unwrap();
    assert!(declared["cohen"]["unweighted"].is_number(), "declared categories keep κ");
}

/// The judge-validity kinds of §16 (`alt_test`, `selective_trust`, `cascade`, `stratified_ppi`,
/// `stability`) through the binary against `benches/oracle/gen_validity.py`'s independent
/// implementations (scipy, statsmodels, krippendorff, numpy): annotators skipped, m = 0,
/// equal differences, ties, labels as lists, no threshold passing, a held-out half, a stratum
/// with one label, a constant judge, the planner and its ceiling note.
#[test]
fn concord_stats_matches_the_oracle_on_judge_validity() {
    let expected = matches_the_oracle("validity");
    // The fixture exercises each edge: a skipped annotator, m = 0, an undefined p, a rejected
    // annotator, no threshold passed, a held-out check, an undefined stratum, the ceiling note.
    let find = |id: &str| expected.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(find("alt-skipped")["skipped"].as_array().unwrap().len(), 2);
    assert!(find("alt-m0")["winning_rate"].is_null());
    assert!(find("alt-constant")["annotators"][0]["p_value"].is_null());
    assert!(expected.iter().any(|r| {
        r["annotators"].as_array().is_some_and(|a| a.iter().any(|x| x["rejected"] == true))
    }));
    assert!(find("trust-nothing-passes")["threshold"].is_null());
    assert!(find("trust-0")["held_out"]["agreement"].is_number());
    assert!(find("strat-thin")["estimate"].is_null());
    assert!(find("strat-three")["plan"]["n"].is_number());
    assert!(expected.iter().any(|r| r["plan"]["ceiling_note"].is_string()));
}
