//! Fuzzes CoEval's exchange import (one annotator's export or a classroom bundle) and the merge
//! of what it imports.
#![no_main]

use concord_core::coeval;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if let Ok(files) = coeval::import(input) {
        let _ = coeval::merge(&files);
    }
});
