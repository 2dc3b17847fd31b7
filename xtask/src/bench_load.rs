//! `cargo xtask bench-load [--root DIR] [--runs N] [--only first,cold,prefetched,click]`:
//! serves the built site (`site/`, or the copy in DIR) on a loopback port and runs
//! `benches/load.mjs` against it: headless Chromium at 10 Mbit/s and 40 ms latency, the bytes
//! and time to the Data screen, then each other screen's bytes and time when first opened,
//! and each screen clicked 0–2 s after the Data screen is interactive (issue 39). Build first
//! (`cargo xtask build`).

use std::path::PathBuf;
use std::process::Command;

use crate::util::{self, flag_value, repo_root};
use crate::{serve, toolchain};

pub fn run(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--root", "--runs", "--only"], &[])?;
    let root = flag_value(args, "--root").map(PathBuf::from).unwrap_or_else(crate::build::site_dir);
    let runs = flag_value(args, "--runs").unwrap_or("3");
    runs.parse::<u32>().map_err(|_| format!("--runs: `{runs}` is not a number"))?;
    toolchain::ensure_chromium()?;
    if !toolchain::ensure_npm_tools()? {
        return Err(
            "the load benchmark needs npm's playwright-core: install Node.js and npm".into()
        );
    }
    let port = serve::spawn_static_at(root.clone(), "/")?;
    println!("serving {} at http://127.0.0.1:{port}/", root.display());
    util::run(
        Command::new("node")
            .current_dir(repo_root())
            .env("CONCORD_CHROMIUM", toolchain::CHROMIUM)
            .arg("benches/load.mjs")
            .arg(format!("http://127.0.0.1:{port}/"))
            .args(["--runs", runs])
            .args(flag_value(args, "--only").map(|only| ["--only", only]).into_iter().flatten()),
    )
}
