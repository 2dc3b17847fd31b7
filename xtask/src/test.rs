//! `cargo xtask test`: everything CI checks, in the order that fails fastest.
//!
//! fmt → core purity → house rules (`cargo xtask house`) → clippy (native, then wasm32 with the wasm-only config) → native tests →
//! release wasm build (size report, first-load budget) → wasm-bindgen browser tests →
//! Playwright end-to-end tests (two files at a time, each slot with its own mock LLM). Each
//! step prints its time, and the run its total and the time of every step.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::toolchain::{self, WasmToolchain};
use crate::util::{self, has_flag, repo_root};
use crate::{build, mock_llm, serve};

/// Crates the pure core must never depend on, directly or transitively.
const WEB_CRATES: &[&str] =
    &["leptos", "web-sys", "js-sys", "wasm-bindgen", "gloo", "gloo-net", "gloo-utils"];

pub fn test_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &[], &["--skip-browser"])?;
    let start = Instant::now();
    let result = every_check(args);
    let minutes = start.elapsed().as_secs_f64() / 60.0;
    println!("\nstage times:");
    for (name, secs, ok) in util::steps_taken() {
        println!("  {:7.1} s  {name}{}", secs, if ok { "" } else { "  (FAILED)" });
    }
    match &result {
        Ok(()) => println!("\ncargo xtask test: all green in {minutes:.1} min"),
        Err(_) => println!("\ncargo xtask test: FAILED after {minutes:.1} min"),
    }
    result
}

fn every_check(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let cargo = toolchain::cargo_program();

    util::step("cargo fmt --check", || {
        util::run(Command::new(&cargo).current_dir(&root).args(["fmt", "--all", "--check"]))
    })?;
    util::step("the core has no web dependency", check_core_is_pure)?;
    util::step("house rules (no import circle, no String error, no unwrap)", || {
        crate::house::command(&[])
    })?;
    util::step("clippy (native)", || {
        util::run(Command::new(&cargo).current_dir(&root).args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    })?;
    let wasm = util::step("wasm32 toolchain", toolchain::ensure_wasm_target)?;
    util::step("clippy (wasm32, wasm-only config)", || clippy_wasm(wasm))?;
    util::step("native tests", || {
        util::run(Command::new(&cargo).current_dir(&root).args(["test", "--workspace"]))
    })?;
    let report = util::step("release wasm build", || build::build_web(wasm, true))?;
    build::print_report(&report);
    util::step("first-load size budget", || check_first_load(&report))?;

    if has_flag(args, "--skip-browser") {
        println!("\n--skip-browser: browser tests not run");
    } else {
        util::step("Chromium and ChromeDriver", toolchain::ensure_chromium)?;
        util::step("wasm-bindgen browser tests (headless Chromium)", || wasm_bindgen_tests(wasm))?;
        let npm_ok = util::step("npm tools", toolchain::ensure_npm_tools)?;
        if !npm_ok {
            return Err("the Playwright tests need npm: `apt-get install nodejs npm`".to_string());
        }
        util::step("Playwright end-to-end tests (headless Chromium)", playwright_tests)?;
    }
    Ok(())
}

/// The most the first load may weigh gzipped: the main module (all the wasm the page loads
/// before the Data screen, after wasm-opt) and the JavaScript it runs first
/// ([`build::FIRST_LOAD_JS`]) — issue 21's target, what `cargo xtask bench-load` measures as
/// "first load". 350 KB when set (2026-11-26: 332.5 KB of wasm): code that only one screen
/// needs belongs in that screen's chunk (`src/screens/mod.rs`), code that only the worker's
/// jobs need in theirs (`src/edge/worker`), code that reads or writes saved workspaces and
/// bundles in `page_io` (`src/persist/bundle.rs`).
const FIRST_LOAD_BUDGET_KB: u64 = 400;

fn check_first_load(report: &build::BuildReport) -> Result<(), String> {
    let Some(gz) = report.wasm_gzip_bytes.filter(|_| report.optimized) else {
        println!("no wasm-opt or no gzip: the first-load budget is not checked");
        return Ok(());
    };
    let Some(js) = report.js_gzip_bytes else {
        return Err(format!(
            "the first load's JavaScript ({}) is not all in the build",
            build::FIRST_LOAD_JS.join(", ")
        ));
    };
    let (wasm_kb, js_kb, kb) = (gz.div_ceil(1024), js.div_ceil(1024), (gz + js).div_ceil(1024));
    if kb > FIRST_LOAD_BUDGET_KB {
        return Err(format!(
            "the first load is {kb} KB gzipped ({wasm_kb} KB main module, {js_kb} KB JavaScript), \
             over its budget of {FIRST_LOAD_BUDGET_KB} KB: split what only one screen needs \
             into its chunk"
        ));
    }
    println!(
        "first load {kb} KB gzipped ({wasm_kb} KB main module, {js_kb} KB JavaScript), within \
         its budget of {FIRST_LOAD_BUDGET_KB} KB"
    );
    Ok(())
}

/// Fails when `cargo tree` shows any web crate under concord-core, for any target.
fn check_core_is_pure() -> Result<(), String> {
    let tree =
        util::output(Command::new(toolchain::cargo_program()).current_dir(repo_root()).args([
            "tree",
            "-p",
            "concord-core",
            "-e",
            "normal,build",
            "--target",
            "all",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ]))
        .ok_or("`cargo tree -p concord-core` failed")?;
    let offenders = web_crates_in(&tree);
    if offenders.is_empty() {
        println!(
            "concord-core depends on no web crate ({} packages checked)",
            tree.lines().count()
        );
        Ok(())
    } else {
        Err(format!("concord-core depends on web crates: {}", offenders.join(", ")))
    }
}

fn web_crates_in(tree: &str) -> Vec<String> {
    let mut found: Vec<String> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| WEB_CRATES.contains(name) || name.starts_with("gloo-"))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

fn clippy_wasm(toolchain: WasmToolchain) -> Result<(), String> {
    if toolchain == WasmToolchain::DebianBuildStd && !util::has_program("/usr/bin/cargo-clippy") {
        println!("Debian's rustc-web has no clippy: wasm32 clippy skipped (native clippy ran)");
        return Ok(());
    }
    // The core's own tests and benches are native-only (they read ../shared, time with
    // Instant): lint the core's library for wasm32, the app with its browser tests, and the
    // app as the release pipeline builds it (feature `split`: the screens' split points).
    let scopes: [&[&str]; 3] = [
        &["-p", "concord-core", "--lib"],
        &["-p", "concord-web", "--all-targets"],
        &["-p", "concord-web", "--lib", "--features", "split"],
    ];
    for scope in scopes {
        util::run(
            toolchain::wasm_cargo(toolchain, "clippy")
                .env("CLIPPY_CONF_DIR", repo_root().join("clippy_wasm"))
                .args(scope)
                .args(["--", "-D", "warnings"]),
        )?;
    }
    Ok(())
}

fn wasm_bindgen_tests(toolchain: WasmToolchain) -> Result<(), String> {
    let bindgen = toolchain::ensure_wasm_bindgen()?;
    let bin_dir = bindgen.parent().filter(|p| !p.as_os_str().is_empty()).map(Path::to_path_buf);
    let path = std::env::var("PATH").unwrap_or_default();
    let path = match bin_dir {
        Some(dir) => format!("{}:{path}", dir.display()),
        None => path,
    };
    let mut cmd = toolchain::wasm_cargo(toolchain, "test");
    // The Debian fallback puts /usr/bin first; keep it first and add the runner after it.
    let path =
        if toolchain == WasmToolchain::DebianBuildStd { format!("/usr/bin:{path}") } else { path };
    util::run(
        cmd.env("PATH", path)
            .env("CHROMEDRIVER", toolchain::CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120")
            .args(["-p", "concord-web"]),
    )
}

/// `cargo xtask e2e [--dev] [--skip-build] [--screenshots] [FILE …]`: builds the app (release
/// unless `--dev`), then runs the given Playwright files (every `tests/e2e/*.test.mjs` when
/// none) against it, with the static servers, the mock LLM and the CLI as `cargo xtask test`
/// sets them up. `--screenshots` writes the screenshots into `docs/screenshots` (the README's
/// pictures) instead of `target/screenshots`.
pub fn e2e_command(args: &[String]) -> Result<(), String> {
    let files: Vec<String> = args.iter().filter(|a| !a.starts_with("--")).cloned().collect();
    let flags: Vec<String> = args.iter().filter(|a| a.starts_with("--")).cloned().collect();
    util::check_flags(&flags, &[], &["--dev", "--skip-build", "--screenshots"])?;
    if !has_flag(&flags, "--skip-build") {
        let wasm = toolchain::ensure_wasm_target()?;
        let report = build::build_web(wasm, !has_flag(&flags, "--dev"))?;
        build::print_report(&report);
    }
    toolchain::ensure_chromium()?;
    if !toolchain::ensure_npm_tools()? {
        return Err("the Playwright tests need npm: `apt-get install nodejs npm`".to_string());
    }
    let shots = if has_flag(&flags, "--screenshots") { "docs/screenshots" } else { SCREENSHOTS };
    playwright_files(files, shots, !has_flag(&flags, "--dev"))
}

/// Where test runs write their screenshots: under `target/`, never into tracked files.
const SCREENSHOTS: &str = "target/screenshots";

fn playwright_tests() -> Result<(), String> {
    playwright_files(Vec::new(), SCREENSHOTS, true)
}

/// Runs `files` (every `tests/e2e/*.test.mjs` when empty) in headless Chromium. `split`: the
/// site is a release build, split into chunks (`tests/e2e/code_split.test.mjs` checks it;
/// a `--dev` build is one module and that test says it skips).
///
/// The files run [`e2e_jobs`] at a time, each in a `node --test` process of its own; every
/// concurrent slot has its own mock LLM API (the tests script it through `/__mock/scenario`
/// and read its request log, so two files must never share one), while the static servers
/// and the CLI, which hold no state, are shared. The files the last run took longest over
/// start first ([`E2E_DURATIONS`]). A file's output is printed whole when it ends, never
/// interleaved with another's; the run ends with every file's counts and the total.
fn playwright_files(chosen: Vec<String>, screenshots: &str, split: bool) -> Result<(), String> {
    let root = repo_root();
    let port = serve::spawn_static("/")?;
    let sub_port = serve::spawn_static("/some/path/")?;
    let mut files: Vec<String> = if !chosen.is_empty() {
        chosen
    } else {
        std::fs::read_dir(root.join("tests/e2e"))
            .map_err(|e| format!("tests/e2e: {e}"))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".test.mjs"))
            .map(|n| format!("tests/e2e/{n}"))
            .collect()
    };
    files.sort();
    std::fs::create_dir_all(root.join(screenshots)).map_err(|e| e.to_string())?;
    // Tests compare what the browser shows with the CLI's output on the same files.
    util::run(Command::new(toolchain::cargo_program()).current_dir(&root).args([
        "build",
        "-p",
        "concord-cli",
    ]))?;
    let durations_path = toolchain::target_dir().join(E2E_DURATIONS);
    let last = read_durations(&durations_path);
    let queue =
        longest_first(files, &last, |f| std::fs::metadata(root.join(f)).map_or(0, |m| m.len()));
    let jobs = e2e_jobs().min(queue.len()).max(1);
    let mocks = (0..jobs)
        .map(|_| mock_llm::spawn(0, mock_llm::Scenario::default()))
        .collect::<Result<Vec<_>, String>>()?;
    println!("{} Playwright files, {jobs} at a time, each slot with its own mock LLM", queue.len());
    let env = E2eEnv {
        cli: toolchain::target_dir().join("debug/concord"),
        url: format!("http://127.0.0.1:{port}/"),
        sub_url: format!("http://127.0.0.1:{sub_port}/some/path/"),
        split,
        screenshots: root.join(screenshots),
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::Mutex::new(Vec::<FileOutcome>::new());
    std::thread::scope(|scope| {
        for mock in &mocks {
            let (queue, env, next, finished) = (&queue, &env, &next, &finished);
            scope.spawn(move || {
                while let Some(file) =
                    queue.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    println!("--> {file} started");
                    // Every file meets the mock as the first file of a run would.
                    let outcome = match reset_mock(mock) {
                        Ok(()) => run_e2e_file(file, env, &mock.base_url()),
                        Err(e) => FileOutcome::failed(file, format!("{e}\n")),
                    };
                    let mut done = finished.lock().unwrap_or_else(|e| e.into_inner());
                    // Printed under the lock: one file's output at a time.
                    print!("{}", outcome.output);
                    println!(
                        "<-- {file}: {} in {:.1} s ({} of {} files done)",
                        outcome.counts.summary(),
                        outcome.seconds,
                        done.len() + 1,
                        queue.len()
                    );
                    done.push(outcome);
                }
            });
        }
    });
    let outcomes = finished.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut durations = last;
    for o in &outcomes {
        durations.insert(o.file.clone(), o.seconds);
    }
    write_durations(&durations_path, &durations);
    let mut total = Counts::default();
    let mut failed_files = Vec::new();
    for o in &outcomes {
        total.add(&o.counts);
        if !o.ok {
            failed_files.push(o.file.clone());
        }
    }
    println!("\nPlaywright files, longest first:");
    let mut by_time: Vec<&FileOutcome> = outcomes.iter().collect();
    by_time.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    for o in by_time {
        println!("  {:6.1} s  {}  {}", o.seconds, o.file, o.counts.summary());
    }
    println!("playwright: {} passed, {} failed, {} skipped", total.pass, total.fail, total.skipped);
    if failed_files.is_empty() {
        Ok(())
    } else {
        Err(format!("Playwright files failed: {}", failed_files.join(", ")))
    }
}

/// How many Playwright files run at once: `CONCORD_E2E_JOBS` when set, else two per core, at
/// most four. Most of a test's time is spent waiting (on the mock's latency, a retry's backoff,
/// the page's timers): with two files at a time a suite kept about half of one core busy
/// (`/usr/bin/time` over 8 files: 245 s of CPU in 443 s), so two per core fills the machine
/// without crowding it; 4 at a time on 2 cores under 3 other builds passed once the races it
/// showed were fixed (see benches/README.md).
fn e2e_jobs() -> usize {
    std::env::var("CONCORD_E2E_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .filter(|&j| j > 0)
        .unwrap_or_else(|| (2 * util::jobs()).clamp(1, 4))
}

/// Where the seconds each Playwright file took in the last run are kept (below the target
/// directory), so the next run starts the longest first.
const E2E_DURATIONS: &str = "e2e-durations.json";

fn read_durations(path: &Path) -> std::collections::BTreeMap<String, f64> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write_durations(path: &Path, durations: &std::collections::BTreeMap<String, f64>) {
    if let Ok(text) = serde_json::to_string_pretty(durations) {
        let _ = std::fs::write(path, text);
    }
}

/// `files`, those that took longest last time first; files never timed after them, the
/// largest (`size`) first.
fn longest_first(
    mut files: Vec<String>,
    last: &std::collections::BTreeMap<String, f64>,
    size: impl Fn(&str) -> u64,
) -> Vec<String> {
    files.sort_by(|a, b| match (last.get(a), last.get(b)) {
        (Some(x), Some(y)) => y.total_cmp(x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => size(b).cmp(&size(a)).then_with(|| a.cmp(b)),
    });
    files
}

/// What every Playwright file is run with.
struct E2eEnv {
    cli: std::path::PathBuf,
    url: String,
    sub_url: String,
    split: bool,
    screenshots: std::path::PathBuf,
}

/// The counts node's test runner prints at the end of a file's run.
#[derive(Default, Debug, PartialEq)]
struct Counts {
    pass: u32,
    fail: u32,
    skipped: u32,
    cancelled: u32,
}

impl Counts {
    /// Reads the summary lines of `node --test` (`# pass 3` with the TAP reporter, `ℹ pass 3`
    /// with the spec reporter).
    fn parse(output: &str) -> Counts {
        let mut counts = Counts::default();
        for line in output.lines() {
            let mut words = line.split_whitespace();
            let (Some(mark), Some(name), Some(n), None) =
                (words.next(), words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Ok(n) = n.parse::<u32>() else { continue };
            if mark != "#" && mark != "ℹ" {
                continue;
            }
            match name {
                "pass" => counts.pass = n,
                "fail" => counts.fail = n,
                "skipped" => counts.skipped = n,
                "cancelled" => counts.cancelled = n,
                _ => {}
            }
        }
        counts
    }

    fn add(&mut self, other: &Counts) {
        self.pass += other.pass;
        self.fail += other.fail + other.cancelled;
        self.skipped += other.skipped;
    }

    fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.pass,
            self.fail + self.cancelled,
            self.skipped
        )
    }
}

struct FileOutcome {
    file: String,
    ok: bool,
    counts: Counts,
    seconds: f64,
    output: String,
}

impl FileOutcome {
    fn failed(file: &str, output: String) -> FileOutcome {
        FileOutcome {
            file: file.to_owned(),
            ok: false,
            counts: Counts::default(),
            seconds: 0.0,
            output,
        }
    }
}

/// Puts `mock` back as it starts: the default scenario, nothing held, an empty log (the test
/// files script it themselves; one file's leftovers must not reach the next).
fn reset_mock(mock: &mock_llm::MockHandle) -> Result<(), String> {
    use std::io::{Read, Write};
    mock.set_scenario(mock_llm::Scenario::default());
    let fail = |e: std::io::Error| format!("cannot reset the mock LLM at {}: {e}", mock.base_url());
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", mock.port())).map_err(fail)?;
    stream
        .write_all(
            b"POST /__mock/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\
              Connection: close\r\n\r\n",
        )
        .map_err(fail)?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(fail)?;
    if answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200") {
        Ok(())
    } else {
        Err(format!("the mock LLM refused a reset: {}", answer.lines().next().unwrap_or("")))
    }
}

/// Runs one Playwright file in its own `node --test` process against the mock at `mock_url`.
fn run_e2e_file(file: &str, env: &E2eEnv, mock_url: &str) -> FileOutcome {
    let started = Instant::now();
    let mut cmd = Command::new("node");
    cmd.current_dir(repo_root())
        .env("CONCORD_CLI", &env.cli)
        .env("CONCORD_URL", &env.url)
        .env("CONCORD_SUBPATH_URL", &env.sub_url)
        .env("CONCORD_CHROMIUM", toolchain::CHROMIUM)
        .env("MOCK_URL", mock_url)
        .env("CONCORD_SPLIT", if env.split { "1" } else { "0" })
        .env("CONCORD_SCREENSHOTS", &env.screenshots)
        .args(["--test", "--test-reporter=spec", file]);
    let header = format!("\n--> node --test {file} (mock LLM {mock_url})\n");
    let (ok, output) = match cmd.output() {
        Ok(out) => (
            out.status.success(),
            format!(
                "{header}{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ),
        Err(e) => (false, format!("{header}could not start node: {e}\n")),
    };
    let counts = Counts::parse(&output);
    // A file that ran no test, or exited non-zero with nothing failed, still fails.
    let ok = ok && counts.fail == 0 && counts.cancelled == 0 && counts.pass + counts.skipped > 0;
    FileOutcome {
        file: file.to_owned(),
        ok,
        counts,
        seconds: started.elapsed().as_secs_f64(),
        output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_counts_node_prints() {
        let spec = "▶ a suite\n  ✔ one (12ms)\nℹ tests 4\nℹ suites 1\nℹ pass 2\nℹ fail 1\n\
                    ℹ cancelled 0\nℹ skipped 1\nℹ todo 0\nℹ duration_ms 5443.2\n";
        assert_eq!(Counts::parse(spec), Counts { pass: 2, fail: 1, skipped: 1, cancelled: 0 });
        let tap = "ok 1 - one\n# tests 3\n# pass 3\n# fail 0\n# skipped 0\n";
        assert_eq!(Counts::parse(tap), Counts { pass: 3, fail: 0, skipped: 0, cancelled: 0 });
        // A test's own output that looks alike but has more words is not a count.
        let own = "# pass 3 of the storm\nℹ pass 1\n";
        assert_eq!(Counts::parse(own).pass, 1);
        let mut total = Counts::default();
        total.add(&Counts::parse(spec));
        total.add(&Counts { pass: 0, fail: 0, skipped: 0, cancelled: 2 });
        assert_eq!(total.summary(), "2 passed, 3 failed, 1 skipped");
    }

    #[test]
    fn the_files_slowest_last_time_start_first() {
        let last: std::collections::BTreeMap<String, f64> =
            [("b".to_owned(), 10.0), ("c".to_owned(), 300.0)].into_iter().collect();
        let sizes = |f: &str| match f {
            "a" => 5,
            "d" => 50,
            _ => 0,
        };
        let files = vec!["a".to_owned(), "b".to_owned(), "c".to_owned(), "d".to_owned()];
        assert_eq!(longest_first(files, &last, sizes), ["c", "b", "d", "a"]);
    }

    #[test]
    fn finds_web_crates_in_a_tree() {
        let tree =
            "concord-core v0.1.0\nserde v1.0.0\njs-sys v0.3.1\ngloo-net v0.7.0\nserde v1.0.0 (*)";
        assert_eq!(web_crates_in(tree), vec!["gloo-net".to_string(), "js-sys".to_string()]);
        assert!(web_crates_in("concord-core v0.1.0\nstatrs v0.18.0").is_empty());
    }
}
