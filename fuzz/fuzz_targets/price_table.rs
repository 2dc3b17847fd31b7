//! Fuzzes the price table parser (the shipped `prices.json` shape, or a user's edited copy).
#![no_main]

use concord_core::run::cost::PriceTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Ok(text) = std::str::from_utf8(input) else { return };
    if let Ok((table, diagnostics)) = PriceTable::parse(text) {
        let _ = format!("{table:?} {diagnostics:?}");
    }
});
