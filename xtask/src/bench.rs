//! `cargo xtask bench-stats`: the statistics benchmarks side by side with scipy, in one run.
//!
//! 1. `cargo bench -p concord-core --bench stats` times every case natively (best of reps) and
//!    writes its seeded inputs as raw f64 files;
//! 2. `benches/stats_scipy_bench.py` times scipy / krippendorff on the same files;
//! 3. the release `concord stats` process on a file of 10⁶ pairs is timed against a Python
//!    process doing json.load + pearsonr, spearmanr, kendalltau (b and c) on the same file;
//! 4. the same `concord_core::stats::bench::BenchCase::run` compiled to wasm32 (release) runs in
//!    headless Chromium through wasm-bindgen-test (`tests/wasm_bench.rs`, ignored in normal test
//!    runs) and logs `BENCH <case> <n> <ms> <finite>` lines (skip with `--skip-wasm`; a failure
//!    there leaves the column empty instead of failing the command);
//! 5. a table of times, speed-ups (scipy ÷ concord) and wasm ÷ native is printed, and written as
//!    Markdown to `target/bench-stats/table.md`.

use crate::util::{self, check_flags, flag_value, repo_root};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const USAGE: &str = "cargo xtask bench-stats [--sizes 1600,100000,1000000] [--reps 5] \
                     [--process-n 1000000] [--skip-wasm]";

/// Input seed shared with `tests/wasm_bench.rs`, so native, scipy and wasm time the same data.
const SEED: &str = "20261122";

pub fn run(args: &[String]) -> Result<(), String> {
    check_flags(args, &["--sizes", "--reps", "--process-n"], &["--skip-wasm"])
        .map_err(|e| format!("{e}\n{USAGE}"))?;
    let sizes = flag_value(args, "--sizes").unwrap_or("1600,100000,1000000");
    let reps = flag_value(args, "--reps").unwrap_or("5");
    let process_n: usize = flag_value(args, "--process-n")
        .unwrap_or("1000000")
        .parse()
        .map_err(|_| "--process-n must be a number".to_string())?;
    let root = repo_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let dir = target.join("bench-stats");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let dir_arg = dir.to_string_lossy().into_owned();
    let sizes_with_process = format!("{sizes},{process_n}");

    println!("==> native bench (release)");
    let native = capture(
        Command::new(cargo())
            .current_dir(&root)
            .args(["bench", "-p", "concord-core", "--bench", "stats", "--"])
            .args(["--sizes", &dedup_sizes(&sizes_with_process), "--reps", reps, "--seed", SEED])
            .args(["--write-inputs", &dir_arg]),
    )?;
    println!("==> scipy reference");
    let python = python()?;
    let scipy = capture(
        Command::new(&python)
            .current_dir(&root)
            .arg("benches/stats_scipy_bench.py")
            .args(["--dir", &dir_arg, "--sizes", sizes, "--reps", reps]),
    )?;

    println!("==> whole process on {process_n} pairs: concord stats vs python + scipy");
    util::run(Command::new(cargo()).current_dir(&root).args([
        "build",
        "--release",
        "-p",
        "concord-cli",
    ]))?;
    let cases = dir.join(format!("pairs_{process_n}.cases.json"));
    write_process_cases(&dir, process_n, &cases)?;
    let concord = target.join("release").join("concord");
    let concord_s = time_process(Command::new(&concord).arg("stats").arg(&cases), 3)?;
    let python_s = time_process(
        Command::new(&python)
            .current_dir(&root)
            .arg("benches/stats_scipy_bench.py")
            .arg("--process")
            .arg(&cases),
        3,
    )?;

    let wasm = if util::has_flag(args, "--skip-wasm") {
        Timings::new()
    } else {
        println!("==> wasm32 in headless Chromium (release)");
        match wasm_bench() {
            Ok(t) => t,
            Err(e) => {
                eprintln!("wasm benchmark skipped: {e}");
                Timings::new()
            }
        }
    };
    let table =
        render(&parse_lines(&native), &parse_lines(&scipy), &wasm, process_n, concord_s, python_s);
    print!("\n{table}");
    let md = dir.join("table.md");
    std::fs::write(&md, &table).map_err(|e| format!("writing {}: {e}", md.display()))?;
    println!("\n(written to {})", md.display());
    Ok(())
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

fn python() -> Result<String, String> {
    for candidate in ["python3", "python"] {
        let ok = Command::new(candidate)
            .args(["-c", "import scipy, krippendorff, numpy"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Ok(candidate.to_string());
        }
    }
    Err("needs python3 with scipy, krippendorff and numpy: pip install scipy krippendorff numpy"
        .into())
}

fn dedup_sizes(list: &str) -> String {
    let mut seen = Vec::new();
    for s in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.join(",")
}

/// Run a command, echo its stderr, return its stdout.
fn capture(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.stderr(Stdio::inherit()).output().map_err(|e| format!("could not start: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed ({})", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// (case, n) → (seconds, value) from JSON lines.
fn parse_lines(text: &str) -> BTreeMap<(String, u64), (f64, Option<f64>)> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let case = v.get("case")?.as_str()?.to_string();
            let n = v.get("n")?.as_u64()?;
            let seconds = v.get("seconds")?.as_f64()?;
            Some(((case, n), (seconds, v.get("value").and_then(Value::as_f64))))
        })
        .collect()
}

/// The case file of the whole-process comparison, from the bench's own x/y inputs.
fn write_process_cases(dir: &Path, n: usize, path: &Path) -> Result<(), String> {
    let read = |name: &str| -> Result<Vec<f64>, String> {
        let file = dir.join(format!("{name}_{n}.f64"));
        let bytes = std::fs::read(&file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect())
    };
    let case = serde_json::json!({"cases": [{"id": format!("pairs-{n}"), "kind": "correlation",
        "x": read("x")?, "y": read("y")?}]});
    std::fs::write(path, case.to_string()).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// Best wall-clock time of `reps` runs of a whole process (stdout discarded).
fn time_process(cmd: &mut Command, reps: usize) -> Result<f64, String> {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let start = Instant::now();
        let status = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .status()
            .map_err(|e| format!("could not start {cmd:?}: {e}"))?;
        if !status.success() {
            return Err(format!("{cmd:?} failed ({status})"));
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// Run `tests/wasm_bench.rs` in Chromium and collect its `BENCH case n ms finite` lines.
fn wasm_bench() -> Result<Timings, String> {
    use crate::toolchain;
    let wasm_toolchain = toolchain::ensure_wasm_target()?;
    toolchain::ensure_chromium()?;
    let bindgen = toolchain::ensure_wasm_bindgen()?;
    let mut path = std::env::var("PATH").unwrap_or_default();
    if let Some(dir) = bindgen.parent().filter(|p| !p.as_os_str().is_empty()) {
        path = format!("{}:{path}", dir.display());
    }
    if wasm_toolchain == toolchain::WasmToolchain::DebianBuildStd {
        path = format!("/usr/bin:{path}");
    }
    let out = capture(
        toolchain::wasm_cargo(wasm_toolchain, "test")
            .env("PATH", path)
            .env("CHROMEDRIVER", toolchain::CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "900")
            .args(["--release", "-p", "concord-web", "--test", "wasm_bench", "--"])
            .args(["--include-ignored", "--nocapture"]),
    )?;
    let timings: Timings = out
        .lines()
        .filter_map(|line| {
            let rest = &line[line.find("BENCH ")? + 6..];
            let mut parts = rest.split_whitespace();
            let case = parts.next()?.to_string();
            let n: u64 = parts.next()?.parse().ok()?;
            let ms: f64 = parts.next()?.parse().ok()?;
            Some(((case, n), (ms / 1e3, None)))
        })
        .collect();
    if timings.is_empty() {
        return Err("the browser run printed no BENCH lines".into());
    }
    Ok(timings)
}

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

type Timings = BTreeMap<(String, u64), (f64, Option<f64>)>;

fn render(
    native: &Timings,
    scipy: &Timings,
    wasm: &Timings,
    process_n: usize,
    concord_s: f64,
    python_s: f64,
) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "| statistic | n | concord (native) | scipy | scipy ÷ concord | wasm (Chromium) | wasm ÷ native | |Δ value| |"
    );
    let _ = writeln!(t, "|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut keys: Vec<_> = native.keys().collect();
    keys.sort_by_key(|(case, n)| (*n, case.clone()));
    let cell = |s: Option<f64>| s.filter(|s| s.is_finite()).map_or("–".to_string(), seconds);
    let ratio = |a: Option<f64>, b: f64| {
        a.filter(|a| a.is_finite()).map_or("–".to_string(), |a| format!("{:.1}×", a / b))
    };
    for key in keys {
        let (ns, nv) = native[key];
        let scipy_entry = scipy.get(key).copied();
        let ss = scipy_entry.map(|e| e.0);
        let ws = wasm.get(key).map(|e| e.0);
        let diff = match (nv, scipy_entry.and_then(|e| e.1)) {
            (Some(a), Some(b)) => format!("{:.1e}", (a - b).abs()),
            _ => "–".to_string(),
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            key.0,
            key.1,
            seconds(ns),
            cell(ss),
            ratio(ss, ns),
            cell(ws),
            ratio(ws, ns),
            diff
        );
    }
    let _ = writeln!(
        t,
        "| whole process: `concord stats` vs python json.load + pearsonr, spearmanr, kendalltau b, c | {process_n} | {} | {} | {:.1}× | | | |",
        seconds(concord_s),
        seconds(python_s),
        python_s / concord_s
    );
    t
}
