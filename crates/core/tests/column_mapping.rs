//! The column mapping of generic tables: the guess (rater suffixes), the columns the editor
//! lists, roles ↔ mapping, validation, and reloading the same bytes with an edited mapping.
#![allow(clippy::unwrap_used)]

use concord_core::data::{
    self, ColumnMapping, RatingColumn, Role, Scale, ScaleKind, validate_roles,
};

const LETTERS: &str = "\
doc,model,article,summary,coherence_a,coherence_b,fluency_A,fluency_B,score_x,notes
d1,s1,Article one.,Summary one.,4,5,3,3,0.5,7
d1,s2,Article one.,Summary two.,2,2,4,5,0.1,8
d2,s1,Article two.,Summary three.,5,4,5,4,0.9,9
";

fn rating(column: &str, attribute: &str, rater: Option<&str>) -> RatingColumn {
    RatingColumn {
        column: column.into(),
        attribute: attribute.into(),
        rater: rater.map(Into::into),
        scale: None,
    }
}

#[test]
fn one_letter_suffixes_shared_by_numeric_columns_are_raters() {
    let l = data::load("letters.csv", LETTERS.as_bytes()).unwrap();
    let m = l.mapping.clone().unwrap();
    assert_eq!(
        m.ratings,
        vec![
            rating("coherence_a", "coherence", Some("a")),
            rating("coherence_b", "coherence", Some("b")),
            rating("fluency_A", "fluency", Some("A")),
            rating("fluency_B", "fluency", Some("B")),
            // A lone one-letter suffix is part of the name.
            rating("score_x", "score_x", None),
            // `notes` is numeric here, so the guess gets it wrong: the editor fixes it.
            rating("notes", "notes", None),
        ]
    );
    let names: Vec<&str> = l.dataset.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["coherence", "fluency", "score_x", "notes"]);
    assert_eq!(l.summary.counts.raters, 4, "a, b, A and B");
    // The first item's coherence is the mean of raters a and b.
    assert_eq!(l.dataset.items[0].ratings[0].as_ref().unwrap().aggregate, 4.5);
    assert_eq!(m.system.as_deref(), Some("model"));
    assert_eq!(m.output.as_deref(), Some("summary"));
}

#[test]
fn digits_and_letters_do_not_mix_up() {
    let csv = "output,quality_1,quality_2,fluency_a\nx,1,2,3\ny,2,3,4\n";
    let m = data::load("mixed.csv", csv.as_bytes()).unwrap().mapping.unwrap();
    assert_eq!(
        m.ratings,
        vec![
            rating("quality_1", "quality", Some("1")),
            rating("quality_2", "quality", Some("2")),
            rating("fluency_a", "fluency_a", None),
        ]
    );
    // A letter-suffixed text column is an input, and does not make a numeric one a rater.
    let csv = "output,topic_a,topic_b\nx,1,news\ny,2,sport\n";
    let m = data::load("text.csv", csv.as_bytes()).unwrap().mapping.unwrap();
    assert_eq!(m.ratings, vec![rating("topic_a", "topic_a", None)]);
    assert_eq!(m.inputs, ["topic_b"]);
}

#[test]
fn tabular_files_list_their_columns_with_samples() {
    let l = data::load("letters.csv", LETTERS.as_bytes()).unwrap();
    let names: Vec<&str> = l.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "doc",
            "model",
            "article",
            "summary",
            "coherence_a",
            "coherence_b",
            "fluency_A",
            "fluency_B",
            "score_x",
            "notes"
        ]
    );
    assert_eq!(l.columns[3].samples, ["Summary one.", "Summary two.", "Summary three."]);
    assert!(!l.columns[3].numeric);
    assert!(l.columns[4].numeric);
    // JSON Lines too, in order of first appearance; long values are clipped.
    let long = "w".repeat(100);
    let jsonl = format!(
        "{{\"output\":\"{long}\",\"q\":3}}\n{{\"output\":\"b\",\"q\":4,\"extra\":\"e\"}}\n"
    );
    let l = data::load("x.jsonl", jsonl.as_bytes()).unwrap();
    let names: Vec<&str> = l.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["output", "q", "extra"]);
    assert_eq!(l.columns[0].samples[0].chars().count(), 61);
    assert_eq!(l.columns[2].samples, ["e"]);
    // The papers' shapes have no column list.
    let l = data::load(
        "topical_chat.json",
        br#"[{"source":"s","context":"c","system_id":"x","system_output":"o","scores":{"naturalness":2}}]"#,
    )
    .unwrap();
    assert!(l.columns.is_empty());
    assert!(l.mapping.is_none());
}

#[test]
fn roles_round_trip_and_an_edited_mapping_reloads_the_same_bytes() {
    let l = data::load("letters.csv", LETTERS.as_bytes()).unwrap();
    let guess = l.mapping.clone().unwrap();
    let mut roles = guess.roles(&l.columns);
    assert_eq!(roles[0], Role::Document);
    assert_eq!(roles[1], Role::System);
    assert_eq!(roles[2], Role::Input);
    assert_eq!(roles[3], Role::Output);
    assert_eq!(ColumnMapping::from_roles(&l.columns, &roles), guess);

    // The user: `notes` is not a rating, `score_x` is rater x of "overall" on 0–0.5.
    roles[9] = Role::Ignore;
    roles[8] = Role::Rating {
        attribute: " overall ".into(),
        rater: Some("x".into()),
        scale: Some(Scale { min: 0.0, max: 0.5, kind: ScaleKind::Continuous }),
    };
    assert_eq!(validate_roles(&l.columns, &roles), []);
    let edited = ColumnMapping::from_roles(&l.columns, &roles);
    let again = data::load_with_mapping("letters.csv", LETTERS.as_bytes(), Some(&edited)).unwrap();
    assert_eq!(again.mapping.as_ref(), Some(&edited));
    assert_eq!(again.columns, l.columns);
    let names: Vec<&str> = again.dataset.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["coherence", "fluency", "overall"]);
    assert_eq!(again.summary.counts.raters, 5);
    assert_eq!(again.summary.counts.items, 3);
    // score_x = 0.9 is off the 0–0.5 scale: dropped with a diagnostic naming line and column.
    assert!(again.diagnostics.iter().any(|d| d.line == Some(4)
        && d.field.as_deref() == Some("score_x")
        && d.message.contains("outside")));
}

#[test]
fn validation_says_what_blocks_applying() {
    let l = data::load("letters.csv", LETTERS.as_bytes()).unwrap();
    let base = l.mapping.clone().unwrap().roles(&l.columns);
    let messages = |roles: &[Role]| -> Vec<(bool, String)> {
        validate_roles(&l.columns, roles).into_iter().map(|p| (p.blocking, p.message)).collect()
    };

    let mut no_output = base.clone();
    no_output[3] = Role::Input;
    assert_eq!(
        messages(&no_output),
        [(true, "no output column: choose the column with the text being rated".to_owned())]
    );

    let mut two_outputs = base.clone();
    two_outputs[2] = Role::Output;
    let got = messages(&two_outputs);
    assert_eq!(got.len(), 1);
    assert!(got[0].0 && got[0].1.contains("`article` and `summary`"), "{got:?}");
    // from_roles keeps the first.
    assert_eq!(
        ColumnMapping::from_roles(&l.columns, &two_outputs).output.as_deref(),
        Some("article")
    );

    let mut same_rater = base.clone();
    same_rater[5] =
        Role::Rating { attribute: "coherence".into(), rater: Some("a".into()), scale: None };
    let got = messages(&same_rater);
    assert!(got[0].0 && got[0].1.contains("both rate coherence by rater a"), "{got:?}");

    let mut unnamed = base.clone();
    unnamed[8] = Role::Rating { attribute: "  ".into(), rater: None, scale: None };
    assert!(messages(&unnamed)[0].1.contains("needs an attribute name"));

    let mut bad_scale = base.clone();
    bad_scale[8] =
        Role::Rating { attribute: "x".into(), rater: None, scale: Some(Scale::likert(5.0, 1.0)) };
    assert!(messages(&bad_scale)[0].1.contains("minimum below its maximum"));

    let no_ratings: Vec<Role> = base
        .iter()
        .map(|r| if matches!(r, Role::Rating { .. }) { Role::Ignore } else { r.clone() })
        .collect();
    assert_eq!(messages(&no_ratings).len(), 1);
    assert!(!messages(&no_ratings)[0].0, "not blocking");
}
