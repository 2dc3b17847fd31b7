//! `concord meta`: JSON is `meta::analyze`'s report, unchanged; `md`, `csv` and `latex` print
//! seed 003's Table 1, Table 5, Table 6 and the Elo table in the paper's layout, pinned here on
//! the core's own fixtures and, when `../shared` is beside the checkout, on the released files
//! against the numbers the paper prints.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/meta");
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/meta-evaluation");

/// Runs `concord meta ARGS`; stdout on success, the test fails with stderr otherwise.
fn concord_meta(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_concord")).arg("meta").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "concord meta {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The Markdown table under the bold title `title`: its header row and body rows, each as
/// trimmed cells.
fn markdown_table(md: &str, title: &str) -> Vec<Vec<String>> {
    let start = md.find(&format!("**{title}**")).unwrap_or_else(|| panic!("no {title} in\n{md}"));
    md[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|---"))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_owned()).collect())
        .collect()
}

fn column(table: &[Vec<String>], i: usize) -> Vec<&str> {
    table.iter().map(|r| r[i].as_str()).collect()
}

#[test]
fn markdown_prints_the_four_tables_in_the_papers_layout() {
    let md = concord_meta(&[FIXTURES, "--format", "md", "--shuffles", "20"]);
    let titles: Vec<&str> = md.lines().filter(|l| l.starts_with("**")).collect();
    assert_eq!(
        titles,
        [
            "**Table 1: evaluators against humans**",
            "**Table 5: JDEval-i average meta scores**",
            "**Table 6: BSMEval average meta scores**",
            "**Elo over shuffled orders: mean (SD)**",
        ]
    );
    let t1 = markdown_table(&md, "Table 1: evaluators against humans");
    assert_eq!(t1[0], ["Evaluator", "judge-a", "judge-a-swapped"]);
    assert_eq!(
        column(&t1, 0)[1..],
        ["Accuracy", "Pearson corr.", "Accuracy (no ties)", "n pairs", "n items"]
    );
    let t5 = markdown_table(&md, "Table 5: JDEval-i average meta scores");
    assert_eq!(t5[0], ["Meta-evaluator \\\\ Evaluator", "judge-a"]);
    // meta-x scored judge-a's two assessments 5 and 4.
    assert_eq!(t5[1], ["meta-x", "4.5000"]);
    let elo = markdown_table(&md, "Elo over shuffled orders: mean (SD)");
    assert_eq!(elo[0], ["Meta-evaluator \\\\ Evaluator", "a", "b", "c"]);
    assert_eq!(column(&elo, 0)[1..], ["mx"]);
    assert!(elo[1][1].ends_with(')'), "mean (SD): {}", elo[1][1]);
}

#[test]
fn csv_and_latex_are_the_core_exporters() {
    let csv = concord_meta(&[FIXTURES, "--format", "csv", "--shuffles", "5"]);
    // Accuracy (at the exports' 13 significant digits) and its 95 % Wilson interval in
    // companion columns (4 of 7: statsmodels gives
    // 0.2504583645276572, 0.8417801447485302).
    let header = "Evaluator,judge-a,judge-a low,judge-a high,\
                  judge-a-swapped,judge-a-swapped low,judge-a-swapped high\r\n";
    assert!(csv.starts_with(header), "{csv}");
    let accuracy: Vec<&str> =
        csv[header.len()..].split("\r\n").next().unwrap().split(',').collect();
    assert_eq!(accuracy[..2], ["Accuracy", "0.5714285714286"]);
    let bound = |i: usize| accuracy[i].parse::<f64>().unwrap();
    assert!((bound(2) - 0.2504583645276572).abs() < 1e-12, "{accuracy:?}");
    assert!((bound(3) - 0.8417801447485302).abs() < 1e-12, "{accuracy:?}");
    // Elo's SD goes to a companion column.
    assert!(csv.contains("\r\nMeta-evaluator \\ Evaluator,a,a sd,b,b sd,c,c sd\r\nmx,"), "{csv}");
    let tex = concord_meta(&[FIXTURES, "--format", "latex", "--shuffles", "5"]);
    assert_eq!(tex.matches("\\begin{table}").count(), 4);
    assert!(tex.contains("\\label{tab:table1}") && tex.contains("\\label{tab:elo}"));
    assert!(tex.contains("Meta-evaluator \\textbackslash{} Evaluator & a & b & c \\\\"), "{tex}");
}

#[test]
fn json_is_the_analysis_report_unchanged() {
    let json = concord_meta(&[FIXTURES, "--shuffles", "20", "--seeds", "3"]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let contents: Vec<(String, Vec<u8>)> =
        files.iter().map(|p| (p.display().to_string(), std::fs::read(p).unwrap())).collect();
    let inputs: Vec<concord_core::meta::Input<'_>> =
        contents.iter().map(|(name, bytes)| concord_core::meta::Input { name, bytes }).collect();
    let options = concord_core::meta::EloOptions { shuffles: 20, seeds: 3, ..Default::default() };
    let want = concord_core::meta::analyze(&inputs, &options);
    assert_eq!(json, serde_json::to_string_pretty(&want.report).unwrap() + "\n");
    assert!(json.contains("\"seed_spread\""));
}

/// The corrected win rate's fixture: 240 pairs of one pairwise evaluator, `judge-ppi`.
const WIN_RATE_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/fixtures/win_rate/merged_eval_results_judge-ppi_pairwise.jsonl"
);

#[test]
fn labelled_prints_the_corrected_win_rate_after_the_papers_tables() {
    let title = "Corrected win rate of output 1: the evaluators' verdicts corrected by the human labels (prediction-powered inference)";
    let plain = concord_meta(&[WIN_RATE_FILE, "--format", "md", "--shuffles", "0"]);
    assert!(!plain.contains(title), "only with --labelled");
    let md = concord_meta(&[WIN_RATE_FILE, "--format", "md", "--labelled", "60", "--seed", "3"]);
    let titles: Vec<&str> = md.lines().filter(|l| l.starts_with("**")).collect();
    assert_eq!(titles, ["**Table 1: evaluators against humans**", &format!("**{title}**")]);
    let t = markdown_table(&md, title);
    assert_eq!(
        t[0],
        [
            "Evaluator",
            "Labelled",
            "Unlabelled",
            "Judge only",
            "Humans only",
            "PPI",
            "PPI++",
            "λ",
            "All human labels"
        ]
    );
    assert_eq!(t[1][..3], ["judge-ppi", "60", "180"]);
    assert!(t[1][5].contains(" \\["), "PPI with its interval: {}", t[1][5]);
    assert!(md.contains("chosen by seed 3"), "{md}");
    // The same bytes as the core's table under the same settings.
    let mut w = concord_core::study::meta::Workspace::new();
    w.add_bytes(
        "merged_eval_results_judge-ppi_pairwise.jsonl",
        &std::fs::read(WIN_RATE_FILE).unwrap(),
    );
    let settings =
        concord_core::study::meta::Settings { labelled: Some(60), seed: 3, ..Default::default() };
    let core = w.win_rate_table(&settings).unwrap();
    let want =
        concord_core::report::export_table(&core, concord_core::report::Format::Markdown).unwrap();
    assert!(md.ends_with(&want), "{md}\nvs\n{want}");
    // Every label kept: PPI is the human-only rate, and says so.
    let all = concord_meta(&[WIN_RATE_FILE, "--format", "csv", "--labelled", "all"]);
    let row = all.split("\r\n").find(|l| l.starts_with("judge-ppi,240,0,")).unwrap();
    let cells: Vec<&str> = row.split(',').collect();
    // judge only (value, low, high), humans only, PPI, PPI++: three columns each.
    assert_eq!(cells[6..9], cells[9..12], "PPI = humans only: {row}");
    assert_eq!(cells[9..12], cells[12..15], "PPI++ = humans only: {row}");
    let all_md = concord_meta(&[WIN_RATE_FILE, "--format", "md", "--labelled", "all"]);
    assert!(all_md.contains("PPI and PPI++ equal the human-only win rate"), "{all_md}");
    // Bad values and the JSON format are refused.
    for (args, says) in [
        (
            vec!["--labelled", "some", "--format", "md"],
            "invalid value 'some' for '--labelled <N|all>': a number of pairs or `all`",
        ),
        (vec!["--labelled", "5"], "give --format md, csv or latex"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_concord"))
            .arg("meta")
            .arg(WIN_RATE_FILE)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: a usage error");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn svg_is_refused_with_the_formats_it_takes() {
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["meta", FIXTURES, "--format", "svg"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'svg' for '--format <FORMAT>'"), "{err}");
    assert!(err.contains("[possible values: md, csv, latex, json]"), "{err}");
}

/// `../shared` is beside the checkout (CI) or the test says it skips.
fn shared() -> bool {
    let there = Path::new(SHARED).exists();
    if !there {
        assert!(
            std::env::var_os("CONCORD_REQUIRE_SHARED").is_none(),
            "{SHARED} is absent and CONCORD_REQUIRE_SHARED is set"
        );
        eprintln!("skipped: {SHARED} is absent");
    }
    there
}

/// The paper's six evaluators, as the released evaluator files spell them (the paper prints
/// `Mixtral-8x7B-Instruct` and `Qwen1.5-…`).
const EVALUATORS: [&str; 6] = [
    "gpt-4-1106-preview",
    "gpt-3.5-turbo",
    "Mixtral-8x7B-Instruct-v0.1",
    "qwen1.5-7B-Chat",
    "qwen1.5-14B-Chat",
    "qwen1.5-72B-Chat",
];

#[test]
fn the_released_files_give_seed_003s_tables() {
    if !shared() {
        return;
    }
    let md = concord_meta(&[SHARED, "--format", "md"]);
    let header = |corner: &str| {
        std::iter::once(corner).chain(EVALUATORS).map(str::to_owned).collect::<Vec<_>>()
    };
    // Table 1 as printed (0.501 is printed with 3 decimals), but Mixtral: its pairwise file is
    // not released, and its released pointwise file gives 0.6362, not 0.6098. Each accuracy
    // carries its 95 % Wilson interval (k of 491 pairs; the bounds are statsmodels'
    // `proportion_confint(k, 491, method="wilson")` rounded to 4 decimals).
    let t1 = markdown_table(&md, "Table 1: evaluators against humans");
    assert_eq!(t1[0], header("Evaluator"));
    assert_eq!(
        t1[1],
        [
            "Accuracy",
            "0.7332 \\[0.6924, 0.7704\\]",
            "0.6741 \\[0.6315, 0.7141\\]",
            "–",
            "0.5010 \\[0.4570, 0.5451\\]",
            "0.6293 \\[0.5858, 0.6709\\]",
            "0.6965 \\[0.6545, 0.7355\\]"
        ]
    );
    assert_eq!(
        t1[2],
        ["Pearson corr.", "0.6183", "0.5501", "0.6362", "0.5902", "0.6416", "0.6223"]
    );
    // Table 5: every printed cell, rows in the paper's order.
    let t5 = markdown_table(&md, "Table 5: JDEval-i average meta scores");
    assert_eq!(t5[0], header("Meta-evaluator \\\\ Evaluator"));
    let printed_5 = [
        ["gpt-4-1106-preview", "4.744", "4.522", "4.178", "3.906", "3.994", "4.14"],
        ["qwen1.5-7B-Chat", "3.976", "3.8988", "3.7645", "3.895", "4.11", "3.889"],
        ["qwen1.5-14B-Chat", "4.21", "4.084", "4.083", "4.193", "4.264", "4.282"],
        ["qwen1.5-72B-Chat", "4.703", "4.605", "4.496", "4.406", "4.475", "4.567"],
    ];
    same_numbers(&t5[1..], &printed_5);
    // Table 6: the three Qwen rows (the GPT-4 row's files are not released).
    let t6 = markdown_table(&md, "Table 6: BSMEval average meta scores");
    assert_eq!(t6[0], header("Meta-evaluator \\\\ Evaluator"));
    let printed_6 = [
        ["qwen1.5-7B-Chat", "2.578", "2.5283", "2.641", "2.7779", "2.8202", "2.939"],
        ["qwen1.5-14B-Chat", "3.0032", "2.7199", "2.9953", "3.1303", "3.0467", "3.4534"],
        ["qwen1.5-72B-Chat", "4.2864", "4.0616", "3.9704", "4.1312", "4.1624", "4.1328"],
    ];
    same_numbers(&t6[1..], &printed_6);
    // The Elo table in Table 2's layout (its numbers rest on matches not released).
    let elo = markdown_table(&md, "Elo over shuffled orders: mean (SD)");
    assert_eq!(elo[0], header("Meta-evaluator \\\\ Evaluator"));
    assert_eq!(
        column(&elo, 0)[1..],
        ["gpt-4-1106-preview", "qwen1.5-7B-Chat", "qwen1.5-14B-Chat", "qwen1.5-72B-Chat"]
    );
    // docs/reproduction-meta.md: GPT-4 rates GPT-4 1091.2 (SD 1.7) on the LLMBar matches.
    assert_eq!(elo[1][1], "1,091.2 (1.7)");
}

/// Each shown cell (4 decimals) equals the printed number padded to 4 decimals.
fn same_numbers(rows: &[Vec<String>], printed: &[[&str; 7]]) {
    assert_eq!(rows.len(), printed.len());
    for (row, want) in rows.iter().zip(printed) {
        assert_eq!(row[0], want[0]);
        for (shown, p) in row[1..].iter().zip(&want[1..]) {
            let padded = format!("{:.4}", p.parse::<f64>().unwrap());
            assert_eq!(shown, &padded, "{} row: {shown} vs printed {p}", want[0]);
        }
    }
}
