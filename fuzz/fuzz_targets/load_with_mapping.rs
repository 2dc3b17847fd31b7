//! Fuzzes the generic tabular path with a user-edited column mapping: the input is a JSON
//! mapping, a NUL byte, then the file.
#![no_main]

use concord_core::data::{self, ColumnMapping};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some(split) = input.iter().position(|&b| b == 0) else { return };
    let Ok(mapping) = serde_json::from_slice::<ColumnMapping>(&input[..split]) else { return };
    let bytes = &input[split + 1..];
    for name in ["f.csv", "f.tsv", "f.jsonl"] {
        let _ = data::load_with_mapping(name, bytes, Some(&mapping));
    }
});
