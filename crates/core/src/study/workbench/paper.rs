//! Seed 002's Table 4 from Chiang & Lee's released answers: where the files are (one pinned
//! commit of their repository), what their SHA-256 must be, the numbers the paper prints, and
//! the table that sets those numbers beside what Concord computes from the same files.
//!
//! The app's "Chiang & Lee's released answers" demo downloads one attribute's files, checks
//! them ([`PinnedFile::check`]) and opens them; whenever runs read from these files are on the Results
//! table (downloaded, or imported by hand), [`reproduction`] compares them with the paper.

use crate::data::presets::{Digest, PinnedFile};
use crate::judge::parse::Policy;
use crate::report::{Cell, Column as TableColumn, Row as TableRow, Table, count};

use super::import::method_name;
use super::results::{Granularity, JudgedRun, ResultsTable, Statistic, value};

/// The repository the answers were released in.
pub const REPOSITORY: &str = crate::data::presets::CHIANG_LEE_REPOSITORY;
/// The commit every file is downloaded from (so a later push cannot change the demo).
pub const COMMIT: &str = crate::data::presets::CHIANG_LEE_COMMIT;

/// Table 4's columns: Chiang & Lee's file abbreviation and the dataset's attribute.
pub const ATTRIBUTES: [(&str, &str); 4] = [
    ("nat", "naturalness"),
    ("coh", "coherence"),
    ("eng", "engagingness"),
    ("gro", "groundedness"),
];

/// Table 4's rows: the file's mode and what the paper calls it.
pub const MODES: [(&str, &str); 5] = [
    ("geval", "G-Eval (auto CoT, score only)"),
    ("geval_no_auto_cot", "G-Eval without auto CoT"),
    ("llm_eval_no_cot", "Score only"),
    ("rate_explain", "Rate-explain"),
    ("analyze_rate", "Analyze-rate"),
];

/// Seed 002's Table 4 (document-level Pearson r and Kendall τ-b), rows in [`MODES`] order,
/// columns in [`ATTRIBUTES`] order, as printed: (r, τ).
pub const TABLE_4: [[(f64, f64); 4]; 5] = [
    [(0.445, 0.358), (0.498, 0.391), (0.579, 0.513), (0.685, 0.566)],
    [(0.431, 0.331), (0.507, 0.404), (0.631, 0.535), (0.666, 0.582)],
    [(0.572, 0.476), (0.523, 0.426), (0.676, 0.557), (0.747, 0.666)],
    [(0.621, 0.512), (0.472, 0.425), (0.610, 0.509), (0.771, 0.663)],
    [(0.573, 0.470), (0.486, 0.416), (0.628, 0.524), (0.725, 0.693)],
];

/// SHA-256 of `results/topical_chat/gpt3.5_{attribute}_{mode}.json` at [`COMMIT`], rows in
/// [`MODES`] order, columns in [`ATTRIBUTES`] order.
const RUN_SHA256: [[&str; 4]; 5] = [
    [
        "b49cc3a9ba66ac8373018caf945cb9ad22e475bda99d06e25e339b2567caecbe",
        "a4058f25025481889fece6c021955d00725ad41aaa0bfcf27f3f6a888814f57d",
        "ffc3b0e6c235b415dd5e5b30d4dc5b1bd9cee29f86fce29dc2b3202bf923db39",
        "5b84dae2d2969a1071d3609264fa469280b2c996c2cb414848b4054191feba68",
    ],
    [
        "fe2c66d430536e6e71bc706fdb53e530a462d8b4e33f754489735e84a702239c",
        "2f6c68bfabe42cefd5a6cedf87ea76a753a4cc96291dff684352e31cfe0ceb64",
        "8a9160a72ae3723e03b7b93b530b42964da3b608cf5dc5bd2d1c289626bd477f",
        "62bfc79c8f039a18565e27bb4cf0075150740e6ce6c654e562e1eb8cf727b441",
    ],
    [
        "de9da1d3b8990114989929f269ed8def2f396f1fd160115916abbf9215a7c70d",
        "66d0ddc71380247f0c13df9793839afedf936e36a071e923dc773d230805a668",
        "f1364f0e6d063bcf6ee04eb342503f2de151eb505b7c053fa274f0656f8c09b4",
        "6a3f978adabaffec7dbf6ab84da87414ac6d30a615163e41a6974939d38641e0",
    ],
    [
        "22be5ec1c9f90e9ac6f3693fc772551615f7c9604d7fc96e67ddc6b4286f75dc",
        "13a4a65451480b2e66b436bd40668b39ac7268fe60177e3ce72449ee872337b4",
        "e8c4deee5c152aaaa9464ab0094f535358085f97e083c2cb8fe4e747748729ef",
        "9b5ad31407e0499133f193953cdaedb29ee0df793bc99c5c65787ebc11e08633",
    ],
    [
        "55cdb30e6d796d4f682e2818212ac03b6a15864bbca0beb06071f6b5f3c6fff4",
        "f979530f28771cd209c1399620555be012b19d1fca0252408fc0265dafd1ab4f",
        "53ff923081eac1f46e1e13cb0de9c3ff11edee19f3025ba23d2f9e1c413744eb",
        "9cd967734459370c4d55e69ac2d7b7e4a9efa71d989275fbb6d06f7dba01373f",
    ],
];

/// The parser Table 4 needs: Chiang & Lee's own (`closer-look`), which drops what it cannot read.
pub const POLICY: Policy = Policy::CloserLook;

/// A column Table 4 does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Table 4 has no column {0}; choose naturalness, coherence, engagingness or groundedness")]
pub struct UnknownColumn(pub String);

/// The Topical-Chat dataset the answers were made on (360 responses, human ratings).
pub fn dataset_file() -> PinnedFile {
    crate::data::presets::chiang_lee_topical_chat()
}

/// The five result files of one Table 4 column, in [`MODES`] order.
pub fn run_files(attribute: &str) -> Result<Vec<PinnedFile>, UnknownColumn> {
    let a = ATTRIBUTES
        .iter()
        .position(|(_, name)| *name == attribute)
        .ok_or_else(|| UnknownColumn(attribute.to_owned()))?;
    let abbr = ATTRIBUTES[a].0;
    Ok(MODES
        .iter()
        .enumerate()
        .map(|(m, (mode, _))| {
            PinnedFile::github(
                REPOSITORY,
                COMMIT,
                &format!("results/topical_chat/gpt3.5_{abbr}_{mode}.json"),
                Digest::Sha256(RUN_SHA256[m][a]),
            )
        })
        .collect())
}

/// The (mode, attribute) of Table 4 a file name holds: `gpt3.5_nat_rate_explain.json` → (3, 0).
fn cell_of(file: &str) -> Option<(usize, usize)> {
    let stem = file.strip_prefix("gpt3.5_")?.strip_suffix(".json")?;
    let (abbr, mode) = stem.split_once('_')?;
    let a = ATTRIBUTES.iter().position(|(x, _)| *x == abbr)?;
    let m = MODES.iter().position(|(x, _)| *x == mode)?;
    Some((m, a))
}

fn rounds_to(x: Option<f64>, printed: f64) -> bool {
    x.is_some_and(|x| ((x * 1000.0).round() - printed * 1000.0).abs() < 0.5)
}

/// A Table 4 cell on the table: (mode, attribute), the run's parser, the computed r and τ at
/// document level.
type Found = ((usize, usize), Policy, Option<f64>, Option<f64>);

/// Table 4 beside what Concord computes, for the released files among `runs` that are on
/// `table`: per mode and attribute, the printed r and τ and the computed ones, and whether each
/// computed value rounds to the printed one. `None` when no such run is on the table.
pub fn reproduction(table: &ResultsTable, runs: &[JudgedRun]) -> Option<Table> {
    let mut found: Vec<Found> = Vec::new();
    for run in runs {
        let Some((m, a)) = cell_of(&run.origin) else { continue };
        if run.method != method_name(&run.origin) || run.attribute != ATTRIBUTES[a].1 {
            continue;
        }
        let Some(mi) = table.methods.iter().position(|x| *x == run.method) else { continue };
        let Some(ai) = table.attributes.iter().position(|x| *x == run.attribute) else {
            continue;
        };
        let Some(cell) = table.cell(mi, ai) else { continue };
        found.push((
            (m, a),
            run.policy,
            value(&cell.row, Statistic::Pearson, Granularity::Document),
            value(&cell.row, Statistic::KendallB, Granularity::Document),
        ));
    }
    if found.is_empty() {
        return None;
    }
    let attributes: Vec<usize> =
        (0..ATTRIBUTES.len()).filter(|a| found.iter().any(|((_, x), ..)| x == a)).collect();
    let modes: Vec<usize> =
        (0..MODES.len()).filter(|m| found.iter().any(|((x, _), ..)| x == m)).collect();
    let mut out = Table::new(
        "paper-table4",
        "Chiang & Lee (2023), Table 4: printed and recomputed",
        "Mode (GPT-3.5, 20 samples)",
    );
    for &a in &attributes {
        let group = ATTRIBUTES[a].1;
        out.columns.extend([
            TableColumn::number("r printed")
                .in_group(group)
                .with_latex("$r$ printed")
                .described("document-level Pearson r as printed in Table 4"),
            TableColumn::number("r here")
                .in_group(group)
                .with_latex("$r$ here")
                .described("document-level Pearson r computed here from the released answers"),
            TableColumn::number("τ printed")
                .in_group(group)
                .with_latex("$\\tau$ printed")
                .described("document-level Kendall τ-b as printed in Table 4"),
            TableColumn::number("τ here")
                .in_group(group)
                .with_latex("$\\tau$ here")
                .described("document-level Kendall τ-b computed here from the released answers"),
        ]);
    }
    let (mut cells_shown, mut equal) = (0, 0);
    let mut other_policy = Vec::new();
    for &m in &modes {
        let mut cells = Vec::new();
        for &a in &attributes {
            let (r_printed, tau_printed) = TABLE_4[m][a];
            match found.iter().find(|(c, ..)| *c == (m, a)) {
                None => {
                    let why = "this file is not on the table";
                    cells.extend([
                        Cell::number(Some(r_printed), 3),
                        Cell::blank(why),
                        Cell::number(Some(tau_printed), 3),
                        Cell::blank(why),
                    ]);
                }
                Some(&(_, policy, r, tau)) => {
                    if policy != POLICY {
                        other_policy.push(format!("{} / {}", MODES[m].1, ATTRIBUTES[a].1));
                    }
                    let key = format!("{}/{}", MODES[m].0, ATTRIBUTES[a].1);
                    for (printed, here, stat) in [(r_printed, r, "r"), (tau_printed, tau, "tau")] {
                        let same = rounds_to(here, printed);
                        cells_shown += 1;
                        equal += usize::from(same);
                        cells.push(Cell::number(Some(printed), 3));
                        let mut cell = Cell::number(here, 3).keyed(format!("{key}/{stat}"));
                        if !same {
                            cell = cell.with_note(format!("differs from the printed {printed:.3}"));
                        }
                        cells.push(cell);
                    }
                }
            }
        }
        out.rows.push(TableRow::new(MODES[m].1, cells));
    }
    out.notes.push(format!(
        "{equal} of {} recomputed from the released answers equal the printed value to three decimals.",
        count(cells_shown, "value", "values")
    ));
    out.notes.push(format!(
        "Document level (the paper's Method 2): one correlation per dialogue (6 responses each), averaged over the dialogues where it is defined. Answers: github.com/{REPOSITORY} at commit {}.",
        &COMMIT[..7]
    ));
    if !other_policy.is_empty() {
        out.notes.push(format!(
            "Read with another parser than Chiang & Lee's (`{}`), so these may differ: {}. Import them again with the parser `{}`.",
            POLICY.name(),
            other_policy.join(", "),
            POLICY.name()
        ));
    }
    Some(out)
}
