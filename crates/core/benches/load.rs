//! Loading all 28 released Chiang & Lee Topical-Chat result files natively (issue: under 1 s
//! in total) and joining each to the dataset, as `concord table` does. Needs `../shared`
//! beside the checkout; prints one JSON line per repetition and the best.
//!
//! `cargo bench -p concord-core --bench load` (release build).

use std::path::PathBuf;
use std::time::Instant;

use concord_core::data::{self, join};

fn main() {
    let root = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/A-Closer-Look-To-LLM-Evaluation"
    ));
    let dir = root.join("results/topical_chat");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (name, bytes)
        })
        .collect();
    files.sort();
    let dataset_bytes = std::fs::read(root.join("data/topical_chat.json")).unwrap_or_default();
    let megabytes = files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    let reps = 5;
    let mut best = f64::INFINITY;
    for rep in 0..reps {
        // Files are read into memory before the clock starts: what is timed is parsing and
        // joining, not the disk.
        let started = Instant::now();
        let dataset = match data::load("topical_chat.json", &dataset_bytes) {
            Ok(l) => l.dataset,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        };
        let mut records = 0;
        let mut matched = 0;
        for (name, bytes) in &files {
            match data::load(name, bytes) {
                Ok(loaded) => {
                    for run in &loaded.runs {
                        records += run.records.len();
                        matched += join(&dataset, run).matched.len();
                    }
                }
                Err(e) => eprintln!("{e}"),
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        best = best.min(seconds);
        println!(
            "{{\"rep\": {rep}, \"files\": {}, \"megabytes\": {megabytes:.1}, \"records\": {records}, \"joined\": {matched}, \"seconds\": {seconds:.3}}}",
            files.len()
        );
    }
    println!(
        "best of {reps}: {best:.3} s for {} files ({megabytes:.1} MB) plus the dataset",
        files.len()
    );
}
