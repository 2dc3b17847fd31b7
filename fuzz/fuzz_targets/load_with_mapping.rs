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
        // The editor's path: the guessed load lists the columns; the mapping as roles, checked,
        // and back; an unblocked mapping loads.
        if let Ok(guessed) = data::load(name, bytes) {
            let columns = &guessed.columns;
            let roles = mapping.roles(columns);
            assert_eq!(roles.len(), columns.len());
            let problems = data::validate_roles(columns, &roles);
            let rebuilt = ColumnMapping::from_roles(columns, &roles);
            if !problems.iter().any(|p| p.blocking) {
                let _ = data::load_with_mapping(name, bytes, Some(&rebuilt));
            }
        }
    }
});
