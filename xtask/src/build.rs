//! Builds the web app: wasm32 compile, wasm-bindgen (`--target web`) into `pkg/`, then wasm-opt.

use std::path::PathBuf;
use std::process::Command;

use crate::toolchain::{self, WasmToolchain};
use crate::util::{self, has_flag, repo_root};

/// What a build produced, for the size report.
pub struct BuildReport {
    pub wasm: PathBuf,
    pub wasm_bytes: u64,
    pub wasm_gzip_bytes: Option<u64>,
    pub optimized: bool,
}

pub fn build_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &[], &["--dev"])?;
    let toolchain = toolchain::ensure_wasm_target()?;
    let report = build_web(toolchain, !has_flag(args, "--dev"))?;
    print_report(&report);
    Ok(())
}

pub fn print_report(report: &BuildReport) {
    let gz = report
        .wasm_gzip_bytes
        .map(|b| format!("{:.1} KB gzipped", b as f64 / 1024.0))
        .unwrap_or_else(|| "gzip size unknown (no gzip)".to_string());
    println!(
        "{}: {:.1} KB, {gz}{}",
        report.wasm.display(),
        report.wasm_bytes as f64 / 1024.0,
        if report.optimized { ", wasm-opt -Oz applied" } else { ", not optimized by wasm-opt" }
    );
}

/// Compiles `concord-web` for wasm32 and writes `pkg/concord.js` + `pkg/concord_bg.wasm`.
pub fn build_web(toolchain: WasmToolchain, release: bool) -> Result<BuildReport, String> {
    let root = repo_root();
    let profile = if release { "wasm-release" } else { "dev" };
    util::step("compile concord-web for wasm32", || {
        util::run(toolchain::wasm_cargo(toolchain, "build").args([
            "-p",
            "concord-web",
            "--lib",
            "--profile",
            profile,
        ]))
    })?;
    let artifact_profile = if release { "wasm-release" } else { "debug" };
    let input = toolchain::wasm_artifact_dir(toolchain, artifact_profile).join("concord_web.wasm");
    let bindgen =
        util::step("wasm-bindgen-cli at the locked version", toolchain::ensure_wasm_bindgen)?;
    let pkg = root.join("pkg");
    util::step("wasm-bindgen --target web", || {
        util::run(
            Command::new(&bindgen)
                .args(["--target", "web", "--no-typescript", "--out-name", "concord", "--out-dir"])
                .arg(&pkg)
                .arg(&input),
        )
    })?;
    let wasm = pkg.join("concord_bg.wasm");
    let mut optimized = false;
    if release {
        let npm_ok = toolchain::ensure_npm_tools().unwrap_or_else(|e| {
            println!("npm tools unavailable ({e}); skipping wasm-opt");
            false
        });
        match toolchain::wasm_opt().filter(|_| npm_ok) {
            Some(wasm_opt) => {
                util::step("wasm-opt -Oz", || {
                    util::run(
                        Command::new(wasm_opt)
                            .args(["-Oz", "--strip-debug", "--strip-producers"])
                            .args(WASM_FEATURES)
                            .arg(&wasm)
                            .arg("-o")
                            .arg(&wasm),
                    )
                })?;
                optimized = true;
            }
            None => println!("wasm-opt not available: the bundle is larger than it could be"),
        }
    }
    let wasm_bytes = std::fs::metadata(&wasm).map(|m| m.len()).map_err(|e| e.to_string())?;
    Ok(BuildReport { wasm_gzip_bytes: gzip_size(&wasm), wasm, wasm_bytes, optimized })
}

/// The wasm features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept
/// them and must not add others.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

fn gzip_size(path: &std::path::Path) -> Option<u64> {
    let out = Command::new("gzip").arg("-9").arg("-c").arg(path).output().ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}
