//! Builds the web app. Release: wasm32 compile (the `split` feature, linked with
//! `--emit-relocs`), the split at the app's split points (`wasm_split`, `#[lazy]`) into a main module and chunks,
//! wasm-bindgen (`--target web`) of the main module into `pkg/`, then wasm-opt on every `.wasm`
//! of `pkg/`, then `.br` and `.gz` beside every `.wasm` and `.js`. `--dev`: one unsplit,
//! unoptimized module.
//!
//! The order matters: the splitter reads the relocations rustc's linker keeps, which wasm-opt
//! would drop, so it runs on the raw rustc output; wasm-bindgen then processes the main module
//! (`--keep-lld-exports` keeps the table and functions the chunks import); wasm-opt comes last.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::toolchain::{self, WasmToolchain};
use crate::util::{self, has_flag, repo_root};

/// What a build produced, for the size report.
pub struct BuildReport {
    /// The main module: what the page loads before anything shows.
    pub wasm: PathBuf,
    pub wasm_bytes: u64,
    pub wasm_gzip_bytes: Option<u64>,
    /// The chunks split off at the split points, fetched when first needed.
    pub chunks: Vec<Chunk>,
    pub optimized: bool,
}

/// One lazily loaded wasm chunk of `pkg/`.
pub struct Chunk {
    pub name: String,
    pub bytes: u64,
    pub gzip_bytes: Option<u64>,
}

pub fn build_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &[], &["--dev"])?;
    let toolchain = toolchain::ensure_wasm_target()?;
    let report = build_web(toolchain, !has_flag(args, "--dev"))?;
    print_report(&report);
    Ok(())
}

fn kb(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

pub fn print_report(report: &BuildReport) {
    let gz = report
        .wasm_gzip_bytes
        .map(|b| format!("{} gzipped", kb(b)))
        .unwrap_or_else(|| "gzip size unknown (no gzip)".to_string());
    println!(
        "{} (loaded first): {}, {gz}{}{}",
        report.wasm.display(),
        kb(report.wasm_bytes),
        brotli_size(&report.wasm).map(|b| format!(", {} brotli", kb(b))).unwrap_or_default(),
        if report.optimized { ", wasm-opt -Oz applied" } else { ", not optimized by wasm-opt" }
    );
    if report.chunks.is_empty() {
        return;
    }
    println!("{} chunks loaded when first needed:", report.chunks.len());
    for chunk in &report.chunks {
        let gz = chunk.gzip_bytes.map(|b| format!(", {} gzipped", kb(b))).unwrap_or_default();
        println!("  {}: {}{gz}", chunk.name, kb(chunk.bytes));
    }
}

/// Compiles `concord-web` for wasm32 and writes `pkg/concord.js` and `pkg/concord_bg.wasm`;
/// a release build is split, adding `pkg/__wasm_split.js` (the chunk loader) and one
/// `pkg/*.wasm` per chunk, and `concord_bg.wasm` is then the main module.
pub fn build_web(toolchain: WasmToolchain, release: bool) -> Result<BuildReport, String> {
    let root = repo_root();
    let profile = if release { "wasm-release" } else { "dev" };
    // Release builds are split; `--dev` builds stay one module (quicker, and nothing to load
    // lazily). `cargo rustc` passes `--emit-relocs` to the app's own link only: dependencies
    // keep the flags of every other wasm32 build (`.cargo/config.toml`), so none rebuilds.
    let mut compile = toolchain::wasm_cargo(toolchain, if release { "rustc" } else { "build" });
    compile.args(["-p", "concord-web", "--lib", "--profile", profile]);
    if release {
        compile.args(["--features", "split", "--", "-Clink-args=--emit-relocs"]);
    }
    let what = if release { " (feature `split`, --emit-relocs)" } else { "" };
    util::step(&format!("compile concord-web for wasm32{what}"), || util::run(&mut compile))?;
    let artifact_profile = if release { "wasm-release" } else { "debug" };
    let artifacts = toolchain::wasm_artifact_dir(toolchain, artifact_profile);
    let input = artifacts.join("concord_web.wasm");
    let pkg = root.join("pkg");
    // Chunk names change with the code: old ones must not linger beside the new build.
    if pkg.exists() {
        std::fs::remove_dir_all(&pkg)
            .map_err(|e| format!("cannot clear {}: {e}", pkg.display()))?;
    }
    std::fs::create_dir_all(&pkg).map_err(|e| format!("cannot create {}: {e}", pkg.display()))?;
    let main_module = if release {
        let main_module = artifacts.join("concord_web_split.wasm");
        util::step("split into the main module and chunks", || split(&input, &pkg, &main_module))?;
        main_module
    } else {
        input
    };
    let bindgen =
        util::step("wasm-bindgen-cli at the locked version", toolchain::ensure_wasm_bindgen)?;
    // The chunks import the main module's table and functions: `--keep-lld-exports` keeps them.
    util::step("wasm-bindgen --target web", || {
        util::run(
            Command::new(&bindgen)
                .args(["--target", "web", "--no-typescript"])
                .args(if release { &["--keep-lld-exports"][..] } else { &[] })
                .args(["--out-name", "concord", "--out-dir"])
                .arg(&pkg)
                .arg(&main_module),
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
                for file in wasm_files(&pkg)? {
                    let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
                    util::step(&format!("wasm-opt -Oz {name}"), || {
                        util::run(
                            Command::new(&wasm_opt)
                                .args(["-Oz", "--strip-debug", "--strip-producers"])
                                .args(WASM_FEATURES)
                                .arg(&file)
                                .arg("-o")
                                .arg(&file),
                        )
                    })?;
                }
                optimized = true;
            }
            None => println!("wasm-opt not available: the bundle is larger than it could be"),
        }
    }
    if release {
        util::step("precompress (gzip -9, brotli -q 11)", || precompress(&pkg))?;
    }
    let wasm_bytes = file_size(&wasm)?;
    let mut chunks = Vec::new();
    for file in wasm_files(&pkg)?.into_iter().filter(|f| *f != wasm) {
        chunks.push(Chunk {
            name: file.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            bytes: file_size(&file)?,
            gzip_bytes: gzip_size(&file),
        });
    }
    Ok(BuildReport { wasm_gzip_bytes: gzip_size(&wasm), wasm, wasm_bytes, chunks, optimized })
}

/// Splits rustc's output `input` at its split points (`src/screens/mod.rs`): the chunks and their loader
/// (`__wasm_split.js`, which imports `initSync` from wasm-bindgen's `concord.js`) go to `pkg`,
/// the main module to `main_out` (wasm-bindgen's input).
fn split(input: &Path, pkg: &Path, main_out: &Path) -> Result<(), String> {
    let bytes =
        std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let mut options = wasm_split_cli_support::Options::new(&bytes);
    options.output_dir = pkg;
    options.main_out_path = main_out;
    options.main_module = "./concord.js";
    options.link_name = "./__wasm_split.js";
    let result = wasm_split_cli_support::transform(options)
        .map_err(|e| format!("splitting {} failed: {e:#}", input.display()))?;
    println!("{} chunks split off", result.split_modules.len());
    Ok(())
}

/// Every `.wasm` file directly in `dir`, sorted.
fn wasm_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    files.sort();
    Ok(files)
}

fn file_size(path: &Path) -> Result<u64, String> {
    std::fs::metadata(path).map(|m| m.len()).map_err(|e| format!("{}: {e}", path.display()))
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

/// Writes `F.gz` (`gzip -9 -n`) and `F.br` (brotli, quality 11, window 2^24) beside every
/// `.wasm` and `.js` file `F` of `pkg`, the same bytes for the same build: a static host that
/// serves precompressed files (and `cargo xtask static`) sends these to browsers that accept
/// them. Without a `gzip` command there is no `.gz`, and this says so.
fn precompress(pkg: &Path) -> Result<(), String> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(pkg)
        .map_err(|e| format!("cannot list {}: {e}", pkg.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm" || e == "js"))
        .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
        .collect();
    // The biggest first, on every core: the main module takes longest.
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let next = AtomicUsize::new(0);
    let no_gzip = AtomicBool::new(false);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len());
    let outcomes: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    loop {
                        let Some((_, file)) = files.get(next.fetch_add(1, Ordering::Relaxed))
                        else {
                            return Ok(());
                        };
                        precompress_file(file, &no_gzip)?;
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a compression thread panicked".to_string())))
            .collect()
    });
    outcomes.into_iter().collect::<Result<Vec<()>, String>>()?;
    if no_gzip.load(Ordering::Relaxed) {
        println!("no gzip command: no .gz files (browsers without brotli get the plain files)");
    }
    println!("{} files precompressed", files.len());
    Ok(())
}

/// `file.br` and (with a `gzip` command) `file.gz` beside `file`.
fn precompress_file(file: &Path, no_gzip: &AtomicBool) -> Result<(), String> {
    let beside = |ext: &str| {
        let mut path = file.to_path_buf().into_os_string();
        path.push(ext);
        PathBuf::from(path)
    };
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    std::fs::write(beside(".br"), brotli_bytes(&bytes)?)
        .map_err(|e| format!("cannot write {}.br: {e}", file.display()))?;
    if no_gzip.load(Ordering::Relaxed) {
        return Ok(());
    }
    match Command::new("gzip").args(["-9", "-n", "-c"]).arg(file).output() {
        Ok(out) if out.status.success() => std::fs::write(beside(".gz"), out.stdout)
            .map_err(|e| format!("cannot write {}.gz: {e}", file.display())),
        _ => {
            no_gzip.store(true, Ordering::Relaxed);
            Ok(())
        }
    }
}

/// `bytes` compressed with brotli at its best (quality 11, a 16 MB window: the wasm is ~3 MB).
pub fn brotli_bytes(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 24, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
        .map_err(|e| format!("brotli compression failed: {e}"))?;
    Ok(out)
}

/// The size of the build's `F.br` beside `path` (a release build writes one).
fn brotli_size(path: &Path) -> Option<u64> {
    let mut br = path.to_path_buf().into_os_string();
    br.push(".br");
    std::fs::metadata(PathBuf::from(br)).ok().map(|m| m.len())
}

fn gzip_size(path: &Path) -> Option<u64> {
    let out = Command::new("gzip").arg("-9").arg("-c").arg(path).output().ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}
