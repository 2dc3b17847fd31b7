//! The statistics benchmark compiled to wasm and timed in headless Chromium, on exactly the
//! inputs the native bench uses (`concord_core::stats::bench`). Ignored in normal test runs;
//! `cargo xtask bench-stats` runs it with `--include-ignored` in release mode and reads the
//! `BENCH <case> <n> <ms>` lines it logs.
#![cfg(target_arch = "wasm32")]

use concord_core::stats::bench::{BenchCase, bench_inputs};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run by `cargo xtask bench-stats`"]
fn bench_statistics_in_the_browser() {
    for n in [1_600usize, 100_000, 1_000_000] {
        let input = bench_inputs(n, 20_261_122);
        for case in BenchCase::ALL {
            let bootstrap = matches!(case, BenchCase::Bootstrap | BenchCase::GroupBootstrap);
            // The bootstraps have a fixed size (1,600 items / 100 × 16): time them once.
            if bootstrap && n != 1_600 {
                continue;
            }
            // Best of a few repetitions, as the native bench reports its minimum too. Calls
            // shorter than 10 ms are timed in batches (the same rule as the native bench):
            // Chromium's performance.now() moves in 5 µs steps.
            let reps = if n >= 1_000_000 { 3 } else { 5 };
            // Warm-up for at least 100 ms (at least one call): V8 first compiles wasm with its
            // baseline compiler and moves a function to the optimising one only once it is hot,
            // so timing the first calls of a 12 µs statistic measures the baseline code.
            let warm_up = now_ms();
            let mut checksum = case.run(&input);
            while now_ms() - warm_up < 100.0 {
                checksum += case.run(&input);
            }
            let start = now_ms();
            checksum += case.run(&input);
            let batch = ((10.0 / (now_ms() - start).max(0.005)).ceil() as usize).clamp(1, 1000);
            let mut best = f64::INFINITY;
            for _ in 0..reps {
                let start = now_ms();
                for _ in 0..batch {
                    checksum += case.run(&input);
                }
                best = best.min((now_ms() - start) / batch as f64);
            }
            console_log!("BENCH {} {} {:.3} {}", case.name(), n, best, checksum.is_finite());
        }
    }
}
