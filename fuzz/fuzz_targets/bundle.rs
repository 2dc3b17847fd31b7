//! Fuzzes bundle import: `Bundle::from_json` (schema, version, the dataset's hash), then what
//! the Results screen does with an imported bundle — read every raw response under each run's
//! policy, tabulate against the bundle's baseline, render every export format, summarize the
//! embedded dataset. A mutated bundle almost never keeps its hash, so the first input byte
//! also selects a path that deserializes the bundle directly (as if the hash matched) and
//! recomputes from there.
#![no_main]

use concord_core::data::{self, Format as DataFormat};
use concord_core::study::workbench::bundle::Bundle;
use concord_core::study::workbench::results::{self, Format, Granularity, Statistic};
use libfuzzer_sys::fuzz_target;

fn recompute(bundle: &Bundle) {
    let dataset = &bundle.dataset.embedded;
    let _ = data::summarize(DataFormat::Csv, dataset, &[]);
    let table = results::compute(dataset, &bundle.runs, bundle.settings.baseline.as_deref());
    for stat in [Statistic::Pearson, Statistic::Spearman, Statistic::KendallB] {
        for level in [Granularity::Dataset, Granularity::Document] {
            for format in [Format::Markdown, Format::Latex, Format::Csv] {
                let _ = table.render(stat, level, format);
            }
        }
    }
    let _ = bundle.to_json();
}

fuzz_target!(|input: &[u8]| {
    let Some((&selector, rest)) = input.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    if selector & 1 == 0 {
        if let Ok(bundle) = Bundle::from_json(text) {
            recompute(&bundle);
        }
    } else if let Ok(bundle) = serde_json::from_str::<Bundle>(text) {
        recompute(&bundle);
    }
});
