//! Fuzzes format detection and every loader behind `data::load`, then the summary and the join
//! of the file's own runs to its own dataset. The first byte picks the file name, because the
//! name steers detection (`.tsv`, `.jsonl`, CoEval task prefixes, Chiang & Lee attribute codes).
#![no_main]

use concord_core::data;
use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &[
    "f.json",
    "f.jsonl",
    "f.csv",
    "f.tsv",
    "f.txt",
    "eli5_annotator_scores.json",
    "gpt3.5_coh_geval.json",
    "noext",
    "A01.json",
    "eli5_action.json",
];

fuzz_target!(|input: &[u8]| {
    let Some((&selector, bytes)) = input.split_first() else { return };
    let name = NAMES[usize::from(selector) % NAMES.len()];
    if let Ok(loaded) = data::load(name, bytes) {
        for run in &loaded.runs {
            let joined = data::join(&loaded.dataset, run);
            assert!(joined.matched.len() + joined.unmatched_records.len() == run.records.len());
        }
        for (i, _) in loaded.dataset.attributes.iter().enumerate() {
            assert_eq!(loaded.dataset.human_scores(i).len(), loaded.dataset.items.len());
        }
        let _ = loaded.diagnostics.iter().map(ToString::to_string).count();
    }
});
