//! `concord report`: a version-2 bundle carrying all three screens prints each screen's report
//! through the core's exporters — the workbench's Results tables, the meta-evaluation
//! workspace rebuilt from its released files (found with `--data`, checked by SHA-256) and
//! replayed live runs, and the CoEval study rebuilt from its raw answers and event logs.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

use concord_core::bundle::Bundle;
use concord_core::report::Format;
use concord_core::stats::KrippendorffLevel;
use concord_core::study::coeval::Snapshot as CoEvalSnapshot;
use concord_core::study::meta::{Settings, Workspace};
use concord_core::study::workbench::report::bundle_report;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const META_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/meta");
const META_FILES: [&str; 3] = [
    "merged_eval_results_judge-a_pairwise.jsonl",
    "merged_eval_results_judge-a-swapped_pairwise.jsonl",
    "mx_fixture_elo.jsonl",
];
const COEVAL_SNAPSHOT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/coeval-snapshot.json");

fn concord(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_concord")).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = concord(args);
    assert!(out.status.success(), "concord {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A scratch directory under `target/` for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The meta workspace of the core's fixtures: an evaluator file, its swapped twin and a
/// JDEval file, as the screen would hold them after loading them.
fn meta_workspace() -> Workspace {
    let mut w = Workspace::new();
    for name in META_FILES {
        let bytes = std::fs::read(Path::new(META_FIXTURES).join(name)).unwrap();
        w.add_bytes(name, &bytes);
    }
    w
}

/// The demo bundle with a meta-evaluation workspace and a CoEval study added (version 2).
fn full_bundle(dir: &Path) -> (PathBuf, Bundle) {
    let text = std::fs::read_to_string(Path::new(ROOT).join("demo/example-bundle.json")).unwrap();
    let mut bundle = Bundle::from_json(&text).unwrap();
    bundle.version = concord_core::bundle::VERSION;
    let settings = Settings { shuffles: 20, resamples: 20, seeds: 0, ..Settings::default() };
    bundle.meta = Some(meta_workspace().snapshot(&settings));
    let coeval: CoEvalSnapshot =
        serde_json::from_str(&std::fs::read_to_string(COEVAL_SNAPSHOT).unwrap()).unwrap();
    bundle.coeval = Some(coeval);
    let path = dir.join("full-bundle.json");
    std::fs::write(&path, bundle.to_json()).unwrap();
    (path, bundle)
}

#[test]
fn each_screen_of_a_bundle_prints_its_report() {
    let dir = scratch("report-screens");
    let (path, bundle) = full_bundle(&dir);
    let path = path.to_str().unwrap();
    // The bundle reads back with both sections.
    let back = Bundle::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(back.meta.is_some() && back.coeval.is_some());

    // The workbench: the Results screen's report.
    let md = ok(&["report", path]);
    assert_eq!(md, bundle_report(&bundle).to_text(Format::Markdown));
    assert!(md.starts_with("**Correlation with human ratings**"), "{md}");

    // Meta-evaluation: the released files are found below --data and checked by hash.
    let meta = ok(&["report", path, "--screen", "meta", "--data", META_FIXTURES]);
    let snapshot = bundle.meta.as_ref().unwrap();
    let files: Vec<(&str, Vec<u8>)> = META_FILES
        .iter()
        .map(|n| (*n, std::fs::read(Path::new(META_FIXTURES).join(n)).unwrap()))
        .collect();
    let given: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let expected = Workspace::from_snapshot(snapshot, &given).unwrap();
    assert_eq!(meta, expected.report(&snapshot.settings).to_text(Format::Markdown));
    assert_eq!(
        expected.report(&snapshot.settings),
        meta_workspace().report(&snapshot.settings),
        "the rebuilt workspace is the one saved"
    );
    assert!(meta.contains("Table 1"), "{meta}");
    // Without --data it says which files it needs.
    let out = concord(&["report", path, "--screen", "meta"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mx_fixture_elo.jsonl") && err.contains("--data"), "{err}");
    // A changed file is refused by its SHA-256.
    let other = scratch("report-screens-other");
    for name in &META_FILES[..2] {
        std::fs::copy(Path::new(META_FIXTURES).join(name), other.join(name)).unwrap();
    }
    std::fs::write(other.join("mx_fixture_elo.jsonl"), b"{}\n").unwrap();
    let out = concord(&["report", path, "--screen", "meta", "--data", other.to_str().unwrap()]);
    assert!(!out.status.success(), "a file with other bytes is not the bundle's");

    // CoEval: the study rebuilt from its raw answers and logs, at the screen's α level.
    let coeval = ok(&["report", path, "--screen", "coeval", "--format", "csv"]);
    let restored = bundle.coeval.as_ref().unwrap().restore().unwrap();
    let report = restored.results(KrippendorffLevel::Interval).unwrap().report();
    assert_eq!(coeval, report.to_text(Format::Csv));

    // --out writes one file per table under the app's names.
    let out = dir.join("out");
    ok(&[
        "report",
        path,
        "--screen",
        "coeval",
        "--format",
        "latex",
        "--out",
        out.to_str().unwrap(),
    ]);
    for file in report.files(Format::Latex) {
        assert_eq!(
            std::fs::read_to_string(out.join(&file.name)).unwrap(),
            file.text,
            "{}",
            file.name
        );
    }
}

#[test]
fn a_bundle_without_a_screen_says_so() {
    let demo = Path::new(ROOT).join("demo/example-bundle.json");
    let demo = demo.to_str().unwrap();
    for screen in ["meta", "coeval"] {
        let out = concord(&["report", demo, "--screen", screen]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("this bundle has no"), "{screen}: {err}");
    }
    let out = concord(&["report", demo, "--screen", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'nope' for '--screen <SCREEN>'"), "{err}");
    assert!(err.contains("[possible values: workbench, audit, validity, meta, coeval]"), "{err}");
}

#[test]
fn the_audit_of_a_bundle_is_the_audit_panel() {
    let demo = Path::new(ROOT).join("demo/example-bundle.json");
    let bundle = Bundle::from_json(&std::fs::read_to_string(&demo).unwrap()).unwrap();
    let demo = demo.to_str().unwrap();
    let md = ok(&["audit", demo]);
    assert_eq!(
        md,
        concord_core::study::workbench::report::bundle_audit(&bundle).to_text(Format::Markdown)
    );
    assert!(md.contains("score-only vs rate-explain"), "{md}");
    // `concord report --screen audit` is the same report.
    assert_eq!(ok(&["report", demo, "--screen", "audit"]), md);
    // Keeping fewer labels adds the column of every label and changes the corrected means.
    let mut fewer = bundle.clone();
    fewer.settings.audit_labelled = Some(6);
    let csv = ok(&["audit", demo, "--labelled", "6", "--format", "csv"]);
    assert_eq!(
        csv,
        concord_core::study::workbench::report::bundle_audit(&fewer).to_text(Format::Csv)
    );
    assert!(csv.contains("All human labels"), "{csv}");
    assert_ne!(csv, ok(&["audit", demo, "--format", "csv"]));
    // One file per table, named as the app's exports.
    let dir = scratch("audit-files");
    ok(&["audit", demo, "--format", "latex", "--out", dir.to_str().unwrap()]);
    for id in [
        "audit-judges",
        "audit-panel",
        "audit-juries",
        "audit-corrected",
        "audit-length",
        "audit-self-preference",
        "audit-length-variants",
    ] {
        assert!(dir.join(format!("{id}.tex")).exists(), "{id}.tex");
    }
    let out = concord(&["audit", demo, "--labelled", "some"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("a number of items or `all`"));
    // The self-preference probe for the systems named.
    let own = ok(&["audit", demo, "--own", "abstractive"]);
    assert!(own.contains("Own family: abstractive."), "{own}");
    let out = concord(&["audit", demo, "--own", "nobody"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no system `nobody`"));
}

/// A bundle with a review: `concord report` prints the corrected run's row, the before/after
/// table and the history of revisions, as the Results screen shows them.
#[test]
fn a_reviewed_bundle_prints_the_before_after_table() {
    use concord_core::study::workbench::review::{ReviewEvent, ReviewLog, ReviewerFile, run_key};
    use concord_core::study::workbench::revise::ReviewSnapshot;
    let dir = scratch("report-review");
    let text = std::fs::read_to_string(Path::new(ROOT).join("demo/example-bundle.json")).unwrap();
    let mut bundle = Bundle::from_json(&text).unwrap();
    let run = run_key(&bundle.runs[0]);
    let mut log = ReviewLog::new();
    for item in bundle.dataset.embedded.items.iter().take(3) {
        let rating = 1.0;
        log.push(ReviewEvent::Change { run: run.clone(), item: item.id.clone(), rating }).unwrap();
    }
    log.push(ReviewEvent::Flag {
        run: run.clone(),
        item: bundle.dataset.embedded.items[3].id.clone(),
        note: "off topic".into(),
    })
    .unwrap();
    bundle.review = Some(ReviewSnapshot {
        reviewer: "ann".into(),
        files: vec![ReviewerFile::by("ann", &log)],
        ..ReviewSnapshot::default()
    });
    let path = dir.join("reviewed.json");
    std::fs::write(&path, bundle.to_json()).unwrap();
    let md = ok(&["report", path.to_str().unwrap()]);
    assert_eq!(md, bundle_report(&bundle).to_text(Format::Markdown));
    assert!(md.contains("agreement with the human ratings before and after"), "{md}");
    assert!(md.contains("| judge + review |"), "{md}");
    assert!(md.contains(&format!("{} + review", bundle.runs[0].method)), "{md}");
}

/// Every record of `run` as one call that reported 1,000 prompt and 40 output tokens (through a
/// batch when `batch`).
fn report_usage(run: &mut concord_core::study::workbench::JudgedRun, batch: bool) {
    use concord_core::data::{CallUsage, ReportedTokens};
    for record in &mut run.run.records {
        let samples = u32::try_from(record.responses.len()).unwrap();
        record.calls = vec![CallUsage {
            samples,
            tokens: Some(ReportedTokens {
                prompt_tokens: 1_000,
                completion_tokens: 40,
                reasoning_tokens: 0,
            }),
            batch,
        }];
    }
}

/// A bundle whose records keep the providers' usage (some calls through a batch): `concord
/// report` prices them as Results does — reported tokens, batch calls at the batch discount —
/// and writes the same Cost and quality table, byte for byte.
#[test]
fn a_bundle_with_reported_usage_prints_the_apps_cost_table() {
    let dir = scratch("report-cost");
    let text = std::fs::read_to_string(Path::new(ROOT).join("demo/example-bundle.json")).unwrap();
    let mut bundle = Bundle::from_json(&text).unwrap();
    bundle.endpoint = Some(concord_core::bundle::EndpointEntry {
        provider: "openai".into(),
        base_url: "https://api.openai.com/v1".into(),
        model: "gpt-4o-mini".into(),
        price: None,
    });
    let method = bundle.runs[0].method.clone();
    for (r, run) in bundle.runs.iter_mut().filter(|r| r.method == method).enumerate() {
        report_usage(run, r == 0);
    }
    let path = dir.join("usage.json");
    std::fs::write(&path, bundle.to_json()).unwrap();
    let report = bundle_report(&bundle);
    let mut printed = String::new();
    for (format, flag, name) in
        [(Format::Csv, "csv", "cost-quality.csv"), (Format::Markdown, "md", "cost-quality.md")]
    {
        let out = dir.join(flag);
        ok(&["report", path.to_str().unwrap(), "--format", flag, "--out", out.to_str().unwrap()]);
        let file = report.files(format).into_iter().find(|f| f.name == name).unwrap();
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert_eq!(text, file.text, "{name}");
        printed.push_str(&text);
    }
    assert!(printed.contains("Tokens are the usage the providers reported for "), "{printed}");
    assert!(printed.contains("answered through a provider's batch API at 50% of it"), "{printed}");
    assert!(printed.contains("; 15 of them at the batch price"), "{printed}");
}

/// A price typed on the Run screen for the runs' model travels with the bundle (its endpoint's
/// `price`): `concord report` prices the runs with it, as Results does (the app reads the same
/// core report with the same price), not with the shipped list's — the batch card's figure.
#[test]
fn a_typed_price_in_the_bundle_prices_the_cli_report_as_results_does() {
    use concord_core::run::Price;
    let dir = scratch("report-typed-price");
    let text = std::fs::read_to_string(Path::new(ROOT).join("demo/example-bundle.json")).unwrap();
    let mut bundle = Bundle::from_json(&text).unwrap();
    let typed = Price { input_per_million: 100.0, output_per_million: 400.0 };
    bundle.endpoint = Some(
        concord_core::bundle::EndpointEntry {
            provider: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            price: None,
        }
        .with_price(Some(typed.into())),
    );
    for run in &mut bundle.runs {
        report_usage(run, false);
    }
    let path = dir.join("typed.json");
    std::fs::write(&path, bundle.to_json()).unwrap();
    // The bundle keeps the price through its own round trip.
    let back = Bundle::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back.endpoint.as_ref().and_then(|e| e.price).map(Price::from), Some(typed));
    let out = dir.join("md");
    ok(&["report", path.to_str().unwrap(), "--format", "md", "--out", out.to_str().unwrap()]);
    let printed = std::fs::read_to_string(out.join("cost-quality.md")).unwrap();
    let report = bundle_report(&bundle);
    let file =
        report.files(Format::Markdown).into_iter().find(|f| f.name == "cost-quality.md").unwrap();
    assert_eq!(printed, file.text);
    // At the typed price: 1,000 prompt and 40 output tokens a record cost $0.1 + $0.016.
    let mut shipped = bundle.clone();
    if let Some(e) = shipped.endpoint.as_mut() {
        e.price = None;
    }
    let list = bundle_report(&shipped);
    let list =
        list.files(Format::Markdown).into_iter().find(|f| f.name == "cost-quality.md").unwrap();
    assert_ne!(printed, list.text, "the typed price, not the shipped list's");
    let records = bundle
        .runs
        .iter()
        .filter(|r| r.method == bundle.runs[0].method)
        .map(|r| r.run.records.len())
        .sum::<usize>();
    let cost = records as f64 * (1_000.0 * 100.0 + 40.0 * 400.0) / 1e6;
    assert!(
        printed.contains(&format!("{cost:.2}"))
            || printed.contains(&format!("{cost:.3}"))
            || printed.contains(&format!("{cost:.4}")),
        "{cost} not in\n{printed}"
    );
}
