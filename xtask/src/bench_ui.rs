//! `cargo xtask bench-ui [--runs N]`: serves the built site (`site/`) on a loopback port and
//! runs `benches/ui.mjs` against it in headless Chromium: the Results screen re-tabulating
//! 1,600 SummEval items × 4 attributes × 4 methods, its ~48 MB bundle written and opened,
//! every screen switched to, a 10,000-row preview scrolled and seed 003's Elo — each with its
//! time, the main thread's long tasks and the longest gap of a main-thread heartbeat. These
//! are the figures the Playwright tests no longer assert (issue 34). Build first (`cargo
//! xtask build`); needs `../shared` beside the checkout.

use std::process::Command;

use crate::util::{self, flag_value, repo_root};
use crate::{build, serve, toolchain};

pub fn run(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--runs"], &[])?;
    let runs = flag_value(args, "--runs").unwrap_or("3");
    runs.parse::<u32>().map_err(|_| format!("--runs: `{runs}` is not a number"))?;
    let site = build::site_dir();
    if !site.join("index.html").exists() {
        return Err(format!("no built site in {}: run `cargo xtask build` first", site.display()));
    }
    toolchain::ensure_chromium()?;
    if !toolchain::ensure_npm_tools()? {
        return Err("the UI benchmark needs npm's playwright-core: install Node.js and npm".into());
    }
    let port = serve::spawn_static("/")?;
    println!("serving {} at http://127.0.0.1:{port}/", site.display());
    util::run(
        Command::new("node")
            .current_dir(repo_root())
            .env("CONCORD_CHROMIUM", toolchain::CHROMIUM)
            .env("CONCORD_BENCH_OUT", toolchain::target_dir().join("bench-ui"))
            .arg("benches/ui.mjs")
            .arg(format!("http://127.0.0.1:{port}/"))
            .args(["--runs", runs]),
    )
}
