//! Native benchmark of the statistics core: times every [`BenchCase`] of
//! `concord_core::stats::bench_suite` at the requested sizes (best of several runs) and prints
//! one JSON object per line. `cargo xtask bench-stats` runs this next to scipy on the same
//! inputs (written with `--write-inputs DIR`) and prints the ratio table.
//!
//! ```text
//! cargo bench -p concord-core --bench stats -- [--sizes 1600,100000,1000000] [--reps 5]
//!     [--seed 20261122] [--write-inputs DIR] [--only CASE]
//! ```

use concord_core::stats::{BenchCase, BenchInputs, bench_inputs};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Options {
    sizes: Vec<usize>,
    reps: usize,
    seed: u64,
    write_inputs: Option<PathBuf>,
    only: Option<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        sizes: vec![1600, 100_000, 1_000_000],
        reps: 5,
        seed: 20_261_122,
        write_inputs: None,
        only: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                options.sizes = value("--sizes")?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("bad size {s:?}")))
                    .collect::<Result<_, _>>()?;
            }
            "--reps" => options.reps = value("--reps")?.parse().map_err(|_| "bad --reps")?,
            "--seed" => options.seed = value("--seed")?.parse().map_err(|_| "bad --seed")?,
            "--write-inputs" => options.write_inputs = Some(value("--write-inputs")?.into()),
            "--only" => options.only = Some(value("--only")?),
            // `cargo bench` passes `--bench`; ignore it and anything libtest-like.
            _ => {}
        }
    }
    Ok(options)
}

/// Raw little-endian f64 files (NaN = missing) that numpy reads with `np.fromfile`.
fn write_inputs(dir: &Path, n: usize, input: &BenchInputs) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let write = |name: &str, values: &mut dyn Iterator<Item = f64>| -> std::io::Result<()> {
        let bytes: Vec<u8> = values.flat_map(f64::to_le_bytes).collect();
        std::fs::write(dir.join(format!("{name}_{n}.f64")), bytes)
    };
    write("x", &mut input.x.iter().copied())?;
    write("y", &mut input.y.iter().copied())?;
    write("z", &mut input.z.iter().copied())?;
    write("x_likert", &mut input.x_likert.iter().copied())?;
    write("y_likert", &mut input.y_likert.iter().copied())?;
    write("ratings", &mut input.ratings.iter().flatten().map(|v| v.unwrap_or(f64::NAN)))
}

// A native-only timing binary (the wasm timings come from `tests/wasm_bench.rs` with
// `performance.now()`), so the wasm32 lint against `Instant::now` does not apply here.
#[allow(clippy::disallowed_methods)]
fn main() {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("stats bench: {e}");
            std::process::exit(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for &n in &options.sizes {
        let input = bench_inputs(n, options.seed);
        if let Some(dir) = &options.write_inputs
            && let Err(e) = write_inputs(dir, n, &input)
        {
            eprintln!("stats bench: writing inputs to {}: {e}", dir.display());
            std::process::exit(1);
        }
        for case in BenchCase::ALL {
            if !case.scales_with_n() && n != options.sizes[0]
                || options.only.as_ref().is_some_and(|only| only != case.name())
            {
                continue;
            }
            // Fewer repetitions for the slow large cases keep the whole run short.
            let reps = if n >= 1_000_000 { options.reps.min(3) } else { options.reps };
            // Warm-up: calls for at least 100 ms (at least one), the same rule as
            // tests/wasm_bench.rs, where V8 only moves hot wasm code from its baseline compiler
            // to its optimising one after enough executions. Then calls shorter than 10 ms are
            // timed in batches of `batch` calls (the browser's timer has only 5 µs steps).
            let warm_up = Instant::now();
            loop {
                std::hint::black_box(case.run(std::hint::black_box(&input)));
                if warm_up.elapsed().as_secs_f64() >= 0.1 {
                    break;
                }
            }
            let start = Instant::now();
            let mut value = std::hint::black_box(case.run(std::hint::black_box(&input)));
            let batch = batch_size(start.elapsed().as_secs_f64());
            let mut best = f64::INFINITY;
            for _ in 0..reps.max(1) {
                let start = Instant::now();
                for _ in 0..batch {
                    value = std::hint::black_box(case.run(std::hint::black_box(&input)));
                }
                best = best.min(start.elapsed().as_secs_f64() / batch as f64);
            }
            let size = if case.scales_with_n() { n } else { n.min(1600) };
            let _ = writeln!(
                out,
                "{{\"case\":\"{}\",\"n\":{size},\"seconds\":{best:e},\"value\":{}}}",
                case.name(),
                if value.is_finite() { value.to_string() } else { "null".to_string() }
            );
        }
    }
}

/// How many calls one timed sample makes so that it lasts about 10 ms (at most 1,000).
fn batch_size(one_call_seconds: f64) -> usize {
    ((0.010 / one_call_seconds.max(1e-9)).ceil() as usize).clamp(1, 1000)
}
