//! Builds the web app into `site/`, the directory a static host publishes: `index.html`,
//! `demo/` and `pkg-<hash>/`, which holds everything else — `boot.js`, `worker.js`, `style/`,
//! wasm-bindgen's `concord.js` and `concord_bg.wasm`, and in a release build the chunk loader
//! `__wasm_split.js` and the chunks. `<hash>` is the first 16 hex digits of a SHA-256 over the
//! directory's file names and bytes, so any change to any file gives the directory a new
//! name: its files can be cached for good (`cargo xtask static` sends them `immutable`), and
//! `index.html`, the only file that names it, is revalidated on every load. Every file of
//! `pkg-<hash>/` names the others relative to its own URL (`import.meta.url`), so the page,
//! the worker and the chunk loader always fetch files of one build.
//!
//! Release: wasm32 compile (the `split` feature, linked with `--emit-relocs`), the split at the
//! app's split points (`wasm_split`, `#[lazy]`) into a main module and chunks, wasm-bindgen
//! (`--target web`) of the main module, then wasm-opt on every `.wasm`, then `.br` and `.gz`
//! beside every `.wasm`, `.js` and `.css`. `--dev`: one unsplit, unoptimized module, in the
//! same layout.
//!
//! The order matters: the splitter reads the relocations rustc's linker keeps, which wasm-opt
//! would drop, so it runs on the raw rustc output; wasm-bindgen then processes the main module
//! (`--keep-lld-exports` keeps the table and functions the chunks import); wasm-opt comes
//! next, the compression after it, and the hash last, over the files as they are served.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cache::{Cache, KEEP_UNUSED_DAYS, Source};
use crate::toolchain::{self, WasmToolchain};
use crate::util::{self, has_flag, repo_root};
use crate::wasm_opt::{self, Optimiser};

/// What a build produced, for the size report.
pub struct BuildReport {
    /// The main module: what the page loads before anything shows.
    pub wasm: PathBuf,
    pub wasm_bytes: u64,
    pub wasm_gzip_bytes: Option<u64>,
    /// The JavaScript the page runs before the Data screen shows ([`FIRST_LOAD_JS`]), gzipped.
    pub js_gzip_bytes: Option<u64>,
    /// The chunks split off at the split points, fetched when first needed.
    pub chunks: Vec<Chunk>,
    pub optimized: bool,
}

/// One lazily loaded wasm chunk of `pkg-<hash>/`.
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

/// The directory `cargo xtask build` writes the site into, below the repository root.
pub const SITE_DIR: &str = "site";

/// The built site: `index.html`, `demo/` and one `pkg-<hash>/`.
pub fn site_dir() -> PathBuf {
    repo_root().join(SITE_DIR)
}

/// How many hex digits of the SHA-256 name the directory (64 bits).
pub const HASH_DIGITS: usize = 16;

/// Whether a path segment is a build's `pkg-<hash>` directory: `pkg-` and [`HASH_DIGITS`]
/// lower-case hex digits. Only these are served as immutable.
pub fn is_hashed_dir(segment: &str) -> bool {
    segment.strip_prefix("pkg-").is_some_and(|h| {
        h.len() == HASH_DIGITS
            && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Compiles `concord-web` for wasm32 and writes the site into [`site_dir`]: wasm-bindgen's
/// `concord.js` and `concord_bg.wasm` (in a release build the main module, beside the chunk
/// loader `__wasm_split.js` and one `.wasm` per chunk), `boot.js`, `worker.js` and `style/`
/// in `pkg-<hash>/`; `index.html` naming it; `demo/`.
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
    let site = site_dir();
    // A new site each time: an earlier build's directory must not linger beside this one.
    if site.exists() {
        std::fs::remove_dir_all(&site)
            .map_err(|e| format!("cannot clear {}: {e}", site.display()))?;
    }
    // Built under a hidden name (never served), renamed once its hash is known.
    let pkg = site.join(".pkg");
    std::fs::create_dir_all(&pkg).map_err(|e| format!("cannot create {}: {e}", pkg.display()))?;
    let bindgen =
        util::step("wasm-bindgen-cli at the locked version", toolchain::ensure_wasm_bindgen)?;
    let cache = if release { Some(Cache::for_builds()?) } else { None };
    match &cache {
        Some(cache) => {
            let main_module = artifacts.join("concord_web_split.wasm");
            util::step("split into the main module and chunks, then wasm-bindgen", || {
                split_and_bind(&input, &pkg, &main_module, &bindgen, cache)
            })?;
        }
        None => util::step("wasm-bindgen --target web", || bind(&bindgen, &input, &pkg, false))?,
    }
    let mut optimized = false;
    if let Some(cache) = &cache {
        let npm_ok = toolchain::ensure_npm_tools().unwrap_or_else(|e| {
            println!("npm tools unavailable ({e}); skipping wasm-opt");
            false
        });
        if npm_ok && toolchain::binaryen_js().is_some() && toolchain::wasm_opt().is_some() {
            let files = wasm_files(&pkg)?;
            util::step(
                &format!("wasm-opt -Oz on {} files, {} at a time", files.len(), util::jobs()),
                || optimise(&files, cache),
            )?;
            optimized = true;
        } else {
            println!("wasm-opt not available: the bundle is larger than it could be");
        }
        util::step("pack the small chunks into one file", || pack_small_chunks(&pkg))?;
        util::step("chunk loader: the user's loads first", || crate::chunk_priority::apply(&pkg))?;
    }
    util::step("boot.js, worker.js and style/ beside the module", || stage_shell(&root, &pkg))?;
    if let Some(cache) = &cache {
        util::step("precompress (gzip -9, brotli -q 11)", || precompress(&pkg, cache))?;
        let pruned = cache.prune(std::time::Duration::from_secs(KEEP_UNUSED_DAYS * 24 * 3600));
        if pruned > 0 {
            println!("{pruned} build-cache entries unused for {KEEP_UNUSED_DAYS} days removed");
        }
    }
    let name = format!("pkg-{}", content_hash(&pkg)?);
    let hashed = site.join(&name);
    std::fs::rename(&pkg, &hashed)
        .map_err(|e| format!("cannot rename {} to {}: {e}", pkg.display(), hashed.display()))?;
    let index = std::fs::read_to_string(root.join("index.html"))
        .map_err(|e| format!("cannot read index.html: {e}"))?;
    std::fs::write(site.join("index.html"), site_index(&index, &name)?)
        .map_err(|e| format!("cannot write {}: {e}", site.join("index.html").display()))?;
    copy_dir(&root.join("demo"), &site.join("demo"))?;
    println!("the site is in {} (index.html, demo/, {name}/)", site.display());
    let wasm = hashed.join("concord_bg.wasm");
    let wasm_bytes = file_size(&wasm)?;
    let mut chunks = Vec::new();
    for file in wasm_files(&hashed)?.into_iter().filter(|f| *f != wasm) {
        chunks.push(Chunk {
            name: file.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            bytes: file_size(&file)?,
            gzip_bytes: gzip_size(&file),
        });
    }
    let pack = hashed.join(PACK_NAME);
    if pack.exists() {
        chunks.push(Chunk {
            name: PACK_NAME.to_owned(),
            bytes: file_size(&pack)?,
            gzip_bytes: gzip_size(&pack),
        });
    }
    let js_gzip_bytes =
        FIRST_LOAD_JS.iter().map(|f| gzip_size(&hashed.join(f))).sum::<Option<u64>>();
    Ok(BuildReport {
        wasm_gzip_bytes: gzip_size(&wasm),
        js_gzip_bytes,
        wasm,
        wasm_bytes,
        chunks,
        optimized,
    })
}

/// The files of the repository the page starts from, copied beside wasm-bindgen's output:
/// `boot.js` and `worker.js` (which import `./concord.js`) and `style/`.
fn stage_shell(root: &Path, pkg: &Path) -> Result<(), String> {
    for file in ["boot.js", "worker.js"] {
        std::fs::copy(root.join(file), pkg.join(file))
            .map_err(|e| format!("cannot copy {file} into {}: {e}", pkg.display()))?;
    }
    copy_dir(&root.join("style"), &pkg.join("style"))
}

/// Copies `from` into `to`, subdirectories too.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    for (rel, path) in files_below(from)? {
        let target = to.join(&rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::copy(&path, &target)
            .map_err(|e| format!("cannot copy {} to {}: {e}", path.display(), target.display()))?;
    }
    Ok(())
}

/// Every file below `dir`, as (path relative to `dir` with `/` separators, full path), sorted
/// by the relative path.
fn files_below(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in
            std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?
        {
            let path = entry.map_err(|e| format!("cannot list {}: {e}", d.display()))?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let rel = path.strip_prefix(dir).map_err(|e| e.to_string())?;
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push((rel.join("/"), path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The first [`HASH_DIGITS`] hex digits of a SHA-256 over every file below `dir`: its relative
/// path, its length and its bytes, in the order of the paths. Another byte anywhere, another
/// file or another name gives another hash.
pub fn content_hash(dir: &Path) -> Result<String, String> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for (rel, path) in files_below(dir)? {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        hasher.update((rel.len() as u64).to_le_bytes());
        hasher.update(rel.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest = hasher.finalize();
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect::<String>()[..HASH_DIGITS].to_owned())
}

/// The site's `index.html`: the repository's with its script and style sheets (and icon) named
/// in `pkg` — `src="boot.js"` becomes `src="pkg-<hash>/boot.js"`, `href="style/…"` becomes
/// `href="pkg-<hash>/style/…"`. Nothing else changes (the Content-Security-Policy allows
/// `'self'`, which these are). An `index.html` that no longer has them is an error, not a
/// site that loads nothing.
pub fn site_index(index: &str, pkg: &str) -> Result<String, String> {
    const SCRIPT: &str = "src=\"boot.js\"";
    const STYLE: &str = "href=\"style/";
    if index.matches(SCRIPT).count() != 1 || !index.contains(STYLE) {
        return Err(format!(
            "index.html must load its script as {SCRIPT} (once) and its style sheets as {STYLE}…: \
             xtask/src/build.rs (site_index) rewrites those into the hashed directory"
        ));
    }
    Ok(index
        .replace(SCRIPT, &format!("src=\"{pkg}/boot.js\""))
        .replace(STYLE, &format!("href=\"{pkg}/style/")))
}

/// wasm-bindgen (`--target web`) of `module` into `pkg` as `concord.js` and
/// `concord_bg.wasm`. A split main module keeps the table and functions its chunks import
/// (`--keep-lld-exports`).
fn bind(bindgen: &Path, module: &Path, pkg: &Path, split: bool) -> Result<(), String> {
    util::run(
        Command::new(bindgen)
            .args(["--target", "web", "--no-typescript"])
            .args(if split { &["--keep-lld-exports"][..] } else { &[] })
            .args(["--out-name", "concord", "--out-dir"])
            .arg(pkg)
            .arg(module),
    )
}

/// [`split`] then [`bind`] of rustc's output `input` into `pkg` (and the main module into
/// `main_out`), or, when this splitter and this wasm-bindgen already did it for these bytes,
/// their output copied from the cache: a build with nothing changed skips both.
fn split_and_bind(
    input: &Path,
    pkg: &Path,
    main_out: &Path,
    bindgen: &Path,
    cache: &Cache,
) -> Result<(), String> {
    let bytes =
        std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let bindgen_version = util::output(Command::new(bindgen).arg("--version"))
        .ok_or_else(|| format!("{} --version failed", bindgen.display()))?;
    let tool = format!(
        "wasm_split_cli_support {} (./concord.js, ./__wasm_split.js); {bindgen_version} \
         --target web --no-typescript --keep-lld-exports --out-name concord",
        toolchain::locked_version("wasm_split_cli_support")?
    );
    const MAIN: &str = "main_module.wasm";
    let (entry, source) = cache.get_or_make_dir(&tool, &bytes, |dir| {
        let out = dir.join("pkg");
        std::fs::create_dir_all(&out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        split(input, &out, &dir.join(MAIN))?;
        bind(bindgen, &dir.join(MAIN), &out, true)
    })?;
    if source == Source::Cached {
        println!(
            "rustc's output is unchanged: the split and wasm-bindgen's output come from the build cache"
        );
    }
    copy_dir(&entry.join("pkg"), pkg)?;
    std::fs::copy(entry.join(MAIN), main_out)
        .map_err(|e| format!("cannot copy the main module to {}: {e}", main_out.display()))?;
    Ok(())
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
/// Shared chunks smaller than this (bytes, after wasm-opt) travel together in [`PACK_NAME`]
/// (packed after optimisation: a chunk straight from the splitter is ~10 times its optimised
/// size, most of it a copy of the whole program's type section and its names).
const PACK_BELOW: usize = 4096;
/// The file of the small chunks, beside the chunk loader.
pub const PACK_NAME: &str = "chunks_small.bin";

/// What the chunk loader (`__wasm_split.js`, written by `wasm_split_cli_support` 0.2.4) says
/// to fetch and instantiate one chunk.
const FETCH_CHUNK: (&str, &str) = ("const src = fetch(new URL(\"./", "\", import.meta.url));");
const SRC_CATCH: &str = "src.catch(() => {});";
const STREAMING: &str =
    "return async (imports) => (WebAssembly.instantiateStreaming(src, imports));";
const FROM_PACK: &str = "return async (imports) => (WebAssembly.instantiate(await src, imports));";

/// The loader's helper that reads a packed chunk: the pack is fetched once (a failed fetch is
/// forgotten, so the next load of a chunk tries again, as for a chunk of its own).
const PACK_HELPER: &str = r#"
// Shared chunks under 4 KB come in one file (`cargo xtask build`): one request, not hundreds.
let packFetch;
function packed(start, end) {
    if (packFetch === undefined) {
        const load = fetch(new URL("./chunks_small.bin", import.meta.url)).then((r) => {
            if (!r.ok) throw new Error(`chunks_small.bin: HTTP ${r.status}`);
            return r.arrayBuffer();
        });
        load.catch(() => { if (packFetch === load) packFetch = undefined; });
        packFetch = load;
    }
    return packFetch.then((b) => b.slice(start, end));
}
"#;

/// Every split point's module set makes its own shared chunks: a screen opened first fetches
/// dozens to hundreds of files, most under 4 KB, and over HTTP/1.1 each costs a round trip.
/// The small ones go into [`PACK_NAME`] (their bytes one after another) and the loader reads
/// each from there ([`pack_loader`]); bigger chunks and the split points' own modules stay
/// files. Returns how many chunks were packed.
fn pack_small_chunks(pkg: &Path) -> Result<usize, String> {
    let loader_path = pkg.join("__wasm_split.js");
    let loader = std::fs::read_to_string(&loader_path)
        .map_err(|e| format!("cannot read {}: {e}", loader_path.display()))?;
    let mut small = Vec::new();
    for file in wasm_files(pkg)? {
        let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if !name.starts_with("chunk_") {
            continue;
        }
        let bytes =
            std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        if bytes.len() < PACK_BELOW {
            small.push((name, bytes));
        }
    }
    if small.is_empty() {
        return Ok(0);
    }
    let (loader, pack) = pack_loader(&loader, &small)?;
    std::fs::write(pkg.join(PACK_NAME), pack)
        .map_err(|e| format!("cannot write {PACK_NAME}: {e}"))?;
    std::fs::write(&loader_path, loader)
        .map_err(|e| format!("cannot write {}: {e}", loader_path.display()))?;
    for (name, _) in &small {
        std::fs::remove_file(pkg.join(name)).map_err(|e| format!("cannot remove {name}: {e}"))?;
    }
    println!("{} chunks packed into {PACK_NAME}", small.len());
    Ok(small.len())
}

/// The loader `loader` rewritten to read each of `chunks` (file name, bytes) from the pack,
/// and the pack. Fails, naming the chunk, when the loader does not fetch a chunk the way
/// `wasm_split_cli_support` 0.2.4 writes it (a new version: look at its `__wasm_split.js`).
fn pack_loader(loader: &str, chunks: &[(String, Vec<u8>)]) -> Result<(String, Vec<u8>), String> {
    let mut js = loader.to_owned();
    let mut pack = Vec::new();
    for (name, bytes) in chunks {
        let fetch = format!("{}{name}{}", FETCH_CHUNK.0, FETCH_CHUNK.1);
        let unknown = || {
            format!(
                "__wasm_split.js does not fetch {name} as expected (`{fetch}`, then \
                 `{SRC_CATCH}` and `{STREAMING}`): has wasm_split_cli_support changed?"
            )
        };
        if js.matches(&fetch).count() != 1 {
            return Err(unknown());
        }
        let at = js.find(&fetch).ok_or_else(unknown)?;
        let after = at + fetch.len();
        let rest = &js[after..];
        let streaming = rest.find(STREAMING).ok_or_else(unknown)?;
        if rest[..streaming].trim() != SRC_CATCH {
            return Err(unknown());
        }
        let (start, end) = (pack.len(), pack.len() + bytes.len());
        js.replace_range(after + streaming..after + streaming + STREAMING.len(), FROM_PACK);
        js.replace_range(at..after, &format!("const src = packed({start}, {end});"));
        pack.extend_from_slice(bytes);
    }
    if !chunks.is_empty() {
        // After the loader's first line, its import of the main module's glue.
        let line = js.find('\n').filter(|_| js.starts_with("import ")).ok_or_else(|| {
            "__wasm_split.js does not open with its import: has wasm_split_cli_support changed?"
                .to_owned()
        })?;
        js.insert_str(line + 1, PACK_HELPER);
    }
    Ok((js, pack))
}

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

/// The flags every `wasm-opt` run gets: smallest code, no debug or producers sections, and
/// exactly the wasm features rustc enables ([`WASM_FEATURES`]).
fn wasm_opt_flags() -> Vec<&'static str> {
    let mut flags = vec!["-Oz", "--strip-debug", "--strip-producers"];
    flags.extend_from_slice(WASM_FEATURES);
    flags
}

/// How many of a step's outputs were made now and how many came from the cache.
#[derive(Default)]
struct Tally {
    made: AtomicUsize,
    cached: AtomicUsize,
}

impl Tally {
    fn count(&self, source: Source) {
        match source {
            Source::Made => self.made.fetch_add(1, Ordering::Relaxed),
            Source::Cached => self.cached.fetch_add(1, Ordering::Relaxed),
        };
    }

    fn say(&self, what: &str) {
        println!(
            "{what}: {} made now, {} from the build cache",
            self.made.load(Ordering::Relaxed),
            self.cached.load(Ordering::Relaxed)
        );
    }
}

/// Rewrites each of `files` with `tool`'s output for its bytes — the cached one when `tool`
/// already made it, else `make`'s — one job per core, the largest first.
fn transform_in_place(
    files: &[PathBuf],
    cache: &Cache,
    tool: &str,
    ext: &str,
    make: impl Fn(&Path, &[u8]) -> Result<Vec<u8>, String> + Sync,
) -> Result<Tally, String> {
    let tally = Tally::default();
    let sized = files.iter().map(|f| (std::fs::metadata(f).map_or(0, |m| m.len()), f)).collect();
    util::parallel_largest_first(sized, |file| {
        let bytes =
            std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let (out, source) = cache.get_or_make(tool, &bytes, ext, || make(file, &bytes))?;
        tally.count(source);
        if out != bytes {
            std::fs::write(file, out)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
        Ok(())
    })?;
    Ok(tally)
}

/// Inputs from this size (bytes) on are optimised by the `wasm-opt` command itself; smaller
/// ones by the long-running [`Optimiser`]. Binaryen's JavaScript API gives a module a few
/// bytes more than the command does (0.1 % over the 69 files of 2026-11-28's build, never
/// fewer), so the main module and the screens — the bytes users fetch — keep the command's
/// output, while the ~280 small chunks, for which the command's two seconds of start-up are
/// a hundred times the work, go through the API.
const COMMAND_FROM: usize = 128 * 1024;

/// `wasm-opt -Oz` on every one of `files`, in place, one job per core, the largest first
/// ([`COMMAND_FROM`] says by what); a file whose bytes were optimised before by this
/// binaryen with these flags comes from the cache.
fn optimise(files: &[PathBuf], cache: &Cache) -> Result<(), String> {
    let flags = wasm_opt_flags();
    let command =
        toolchain::wasm_opt().ok_or("npm's binaryen has no bin/wasm-opt: run `npm ci`")?;
    // The command is npm binaryen's, whose version the identity names.
    let tool = format!(
        "its wasm-opt command from {COMMAND_FROM} bytes, below: {}",
        Optimiser::identity(&flags)?
    );
    let big = files.iter().filter(|f| file_size(f).is_ok_and(|n| n >= COMMAND_FROM as u64)).count();
    println!(
        "{big} files of {} KB or more through the wasm-opt command, {} through binaryen.js",
        COMMAND_FROM / 1024,
        files.len() - big
    );
    let optimiser = Optimiser::new();
    let tally = transform_in_place(files, cache, &tool, "wasm", |file, bytes| {
        let out = wasm_opt::scratch_output(file);
        if bytes.len() >= COMMAND_FROM {
            util::run(Command::new(&command).args(&flags).arg(file).arg("-o").arg(&out))?;
        } else {
            optimiser.run(file, &out, &flags)?;
        }
        let optimised =
            std::fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        let _ = std::fs::remove_file(&out);
        Ok(optimised)
    });
    optimiser.finish();
    tally?.say("wasm-opt -Oz");
    Ok(())
}

/// Writes `F.gz` (`gzip -9 -n`) and `F.br` (brotli, quality 11, window 2^24) beside every
/// `.wasm`, `.js`, `.css` and `.bin` file `F` below `pkg`, the same bytes for the same build:
/// a static host that serves precompressed files (and `cargo xtask static`) sends these to
/// browsers that accept them. One job per core, the largest file first; a file compressed
/// before (the same bytes, the same brotli and gzip) comes from the cache. Without a `gzip`
/// command there is no `.gz`, and this says so.
fn precompress(pkg: &Path, cache: &Cache) -> Result<(), String> {
    let files: Vec<(u64, PathBuf)> = files_below(pkg)?
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| {
            p.extension().is_some_and(|e| e == "wasm" || e == "js" || e == "css" || e == "bin")
        })
        .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
        .collect();
    let count = files.len();
    let brotli_tool = format!(
        "brotli {} quality 11 lgwin 24",
        toolchain::locked_version("brotli").unwrap_or_default()
    );
    let gzip_tool = util::output(Command::new("gzip").arg("--version"))
        .and_then(|v| v.lines().next().map(|l| format!("{l} -9 -n")));
    if gzip_tool.is_none() {
        println!("no gzip command: no .gz files (browsers without brotli get the plain files)");
    }
    let tally = Tally::default();
    util::parallel_largest_first(files, |file| {
        let bytes =
            std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let beside = |ext: &str| {
            let mut path = file.clone().into_os_string();
            path.push(ext);
            PathBuf::from(path)
        };
        let (br, source) =
            cache.get_or_make(&brotli_tool, &bytes, "br", || brotli_bytes(&bytes))?;
        tally.count(source);
        std::fs::write(beside(".br"), br)
            .map_err(|e| format!("cannot write {}.br: {e}", file.display()))?;
        if let Some(gzip_tool) = &gzip_tool {
            let (gz, source) = cache.get_or_make(gzip_tool, &bytes, "gz", || gzip_bytes(file))?;
            tally.count(source);
            std::fs::write(beside(".gz"), gz)
                .map_err(|e| format!("cannot write {}.gz: {e}", file.display()))?;
        }
        Ok(())
    })?;
    tally.say(&format!("{count} files precompressed"));
    Ok(())
}

/// `gzip -9 -n` of `file` (no name, no time: the same bytes for the same file).
fn gzip_bytes(file: &Path) -> Result<Vec<u8>, String> {
    let out = Command::new("gzip")
        .args(["-9", "-n", "-c"])
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!("gzip -9 {} failed ({})", file.display(), out.status))
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

/// The JavaScript of `pkg-<hash>/` that the page loads before the Data screen shows: the
/// boot script, wasm-bindgen's glue and the chunk loader (`worker.js` starts only with a job).
pub const FIRST_LOAD_JS: [&str; 3] = ["boot.js", "concord.js", "__wasm_split.js"];

fn gzip_size(path: &Path) -> Option<u64> {
    let out = Command::new("gzip").arg("-9").arg("-c").arg(path).output().ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}

#[cfg(test)]
// A failed unwrap is a failed test, which is what it should be here.
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A loader as `wasm_split_cli_support` 0.2.4 writes it, with two chunks.
    const LOADER: &str = r#"import { initSync } from "./concord.js";

/* a, b */
const __chunk_1 = makeLoad(() => {
    const src = fetch(new URL("./chunk_1.wasm", import.meta.url));
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
/* a, c */
const __chunk_2 = makeLoad(() => {
    const src = fetch(new URL("./chunk_2.wasm", import.meta.url));
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
"#;

    #[test]
    fn small_chunks_are_read_from_the_pack() {
        let chunks = [("chunk_2.wasm".to_owned(), vec![7u8; 5])];
        let (js, pack) = pack_loader(LOADER, &chunks).unwrap();
        assert_eq!(pack, vec![7u8; 5]);
        assert!(js.starts_with("import { initSync } from \"./concord.js\";\n"));
        assert!(js.contains("function packed(start, end)"));
        assert!(js.contains("new URL(\"./chunks_small.bin\", import.meta.url)"));
        // chunk_2 from the pack, chunk_1 still its own file.
        assert!(js.contains("const src = packed(0, 5);"));
        assert!(!js.contains("./chunk_2.wasm"));
        assert!(js.contains("fetch(new URL(\"./chunk_1.wasm\", import.meta.url));"));
        assert_eq!(js.matches(STREAMING).count(), 1);
        assert_eq!(js.matches(FROM_PACK).count(), 1);
    }

    #[test]
    fn packed_chunks_follow_one_another() {
        let chunks =
            [("chunk_1.wasm".to_owned(), vec![1u8; 3]), ("chunk_2.wasm".to_owned(), vec![2u8; 4])];
        let (js, pack) = pack_loader(LOADER, &chunks).unwrap();
        assert_eq!(pack, [1, 1, 1, 2, 2, 2, 2]);
        assert!(js.contains("const src = packed(0, 3);"));
        assert!(js.contains("const src = packed(3, 7);"));
        assert_eq!(js.matches(STREAMING).count(), 0);
    }

    #[test]
    fn a_loader_of_another_layout_is_refused() {
        let chunks = [("chunk_3.wasm".to_owned(), vec![0u8; 2])];
        let e = pack_loader(LOADER, &chunks).unwrap_err();
        assert!(e.contains("chunk_3.wasm") && e.contains("wasm_split_cli_support"), "{e}");
        let streamed =
            LOADER.replace("instantiateStreaming(src, imports)", "compileStreaming(src)");
        let chunks = [("chunk_1.wasm".to_owned(), vec![0u8; 2])];
        assert!(pack_loader(&streamed, &chunks).is_err());
        // Nothing to pack: the loader stays as it is.
        assert_eq!(pack_loader(LOADER, &[]).unwrap(), (LOADER.to_owned(), Vec::new()));
    }

    /// What the release build does to each `.wasm` (wasm-opt, brotli, gzip) is done once per
    /// input: a build with nothing changed runs the tool on nothing, a build with one chunk
    /// changed on that chunk alone, and the files come out the same.
    #[test]
    fn an_unchanged_file_is_never_transformed_twice() {
        let pkg = temp("transform");
        let cache = Cache::open(temp("transform-cache")).unwrap();
        let files: Vec<PathBuf> = (0..5).map(|i| pkg.join(format!("chunk_{i}.wasm"))).collect();
        for (i, f) in files.iter().enumerate() {
            std::fs::write(f, vec![i as u8; 10 + i]).unwrap();
        }
        let runs = AtomicUsize::new(0);
        let tool = |_: &Path, bytes: &[u8]| {
            runs.fetch_add(1, Ordering::Relaxed);
            Ok(bytes.iter().map(|b| b + 100).collect())
        };
        let build = |files: &[PathBuf]| {
            for (i, f) in files.iter().enumerate() {
                let first = std::fs::read(f).unwrap().first().copied().unwrap_or(0);
                // Each build starts from the tool's input, as the pipeline does.
                if first >= 100 {
                    std::fs::write(f, vec![i as u8; 10 + i]).unwrap();
                }
            }
            transform_in_place(files, &cache, "tool 1 -Oz", "wasm", tool).unwrap()
        };
        let first = build(&files);
        assert_eq!((first.made.into_inner(), first.cached.into_inner()), (5, 0));
        let out: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert_eq!(out[2], vec![102u8; 12]);
        let again = build(&files);
        assert_eq!((again.made.into_inner(), again.cached.into_inner()), (0, 5));
        assert_eq!(runs.load(Ordering::Relaxed), 5, "nothing changed: the tool never ran");
        let same: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert_eq!(same, out);
        // One chunk changes: only it is transformed.
        std::fs::write(&files[3], b"changed").unwrap();
        let transformed =
            transform_in_place(&files[3..4], &cache, "tool 1 -Oz", "wasm", tool).unwrap();
        assert_eq!(transformed.made.into_inner(), 1);
        assert_eq!(runs.load(Ordering::Relaxed), 6);
        // Another version of the tool is a new input for every chunk.
        let other = transform_in_place(&files[..1], &cache, "tool 2 -Oz", "wasm", tool).unwrap();
        assert_eq!(other.made.into_inner(), 1);
        let _ = std::fs::remove_dir_all(&pkg);
        let _ = std::fs::remove_dir_all(temp("transform-cache"));
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("concord-build-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_hash_changes_with_any_byte_name_or_file() {
        let dir = temp("hash");
        std::fs::create_dir_all(dir.join("style")).unwrap();
        std::fs::write(dir.join("concord.js"), "export default 1;").unwrap();
        std::fs::write(dir.join("style/a.css"), "p{}").unwrap();
        let first = content_hash(&dir).unwrap();
        assert!(is_hashed_dir(&format!("pkg-{first}")), "{first}");
        assert_eq!(content_hash(&dir).unwrap(), first, "the same files, the same name");
        std::fs::write(dir.join("style/a.css"), "p{ }").unwrap();
        let edited = content_hash(&dir).unwrap();
        assert_ne!(edited, first, "one byte more in a nested file");
        std::fs::rename(dir.join("style/a.css"), dir.join("style/b.css")).unwrap();
        let renamed = content_hash(&dir).unwrap();
        assert_ne!(renamed, edited, "another name");
        std::fs::write(dir.join("chunk_1.wasm"), "").unwrap();
        assert_ne!(content_hash(&dir).unwrap(), renamed, "another (even empty) file");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn copying_a_directory_keeps_its_subdirectories() {
        let from = temp("copy-from");
        std::fs::create_dir_all(from.join("runs/old")).unwrap();
        std::fs::write(from.join("example.csv"), "a\n").unwrap();
        std::fs::write(from.join("runs/old/run.json"), "{}").unwrap();
        let to = temp("copy-to");
        copy_dir(&from, &to.join("demo")).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("demo/example.csv")).unwrap(), "a\n");
        assert_eq!(std::fs::read_to_string(to.join("demo/runs/old/run.json")).unwrap(), "{}");
        let _ = std::fs::remove_dir_all(&from);
        let _ = std::fs::remove_dir_all(&to);
    }

    #[test]
    fn only_pkg_and_sixteen_hex_digits_is_a_hashed_dir() {
        assert!(is_hashed_dir("pkg-0123456789abcdef"));
        assert!(!is_hashed_dir("pkg"));
        assert!(!is_hashed_dir("pkg-0123456789abcde"));
        assert!(!is_hashed_dir("pkg-0123456789abcdef0"));
        assert!(!is_hashed_dir("pkg-0123456789ABCDEF"));
        assert!(!is_hashed_dir("pkg-0123456789abcdeg"));
        assert!(!is_hashed_dir("demo"));
    }

    /// The repository's index.html, rewritten, names only files of the hashed directory as the
    /// build lays it out, and keeps its Content-Security-Policy as it was.
    #[test]
    fn the_site_index_names_the_hashed_files_and_keeps_its_policy() {
        let root = repo_root();
        let index = std::fs::read_to_string(root.join("index.html")).unwrap();
        let pkg = temp("stage");
        stage_shell(&root, &pkg).unwrap();
        let name = format!("pkg-{}", content_hash(&pkg).unwrap());
        let site = site_index(&index, &name).unwrap();
        let policy = |html: &str| {
            html.lines().find(|l| l.contains("Content-Security-Policy")).unwrap().to_owned()
        };
        assert_eq!(policy(&site), policy(&index));
        assert!(policy(&site).contains("script-src 'self' 'wasm-unsafe-eval';"));
        let mut named = Vec::new();
        for attr in ["src=\"", "href=\""] {
            for part in site.split(attr).skip(1) {
                named.push(part.split('"').next().unwrap().to_owned());
            }
        }
        assert!(named.len() >= 3, "{named:?}");
        for url in &named {
            let rel = url.strip_prefix(&format!("{name}/")).unwrap_or_else(|| {
                panic!("{url} is not in the hashed directory");
            });
            assert!(pkg.join(rel).is_file(), "{url} names no file of the directory");
        }
        assert!(named.contains(&format!("{name}/boot.js")));
        // boot.js and worker.js import the module beside them, relative to their own URL.
        for js in ["boot.js", "worker.js"] {
            let text = std::fs::read_to_string(pkg.join(js)).unwrap();
            assert!(text.contains("from './concord.js'"), "{js}");
            assert!(!text.contains("pkg/"), "{js} names no fixed directory");
        }
        // An index.html that loads its script another way is refused, not silently kept.
        assert!(site_index(&index.replace("src=\"boot.js\"", "src=\"./boot.js\""), &name).is_err());
        let _ = std::fs::remove_dir_all(&pkg);
    }
}
