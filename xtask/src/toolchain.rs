//! Installs what the build and tests need, on demand, on a fresh machine without internet
//! (only package registries): the wasm32 target, wasm-bindgen-cli at the version locked in
//! Cargo.lock, npm's binaryen (wasm-opt), playwright-core and axe-core, Debian's Chromium +
//! ChromeDriver.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{self, has_program, output, repo_root};

/// How wasm32 code gets compiled on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WasmToolchain {
    /// rustup's toolchain with its prebuilt `wasm32-unknown-unknown` standard library.
    Rustup,
    /// Debian's `rustc-web`/`cargo-web` building the standard library from `rust-web-src`
    /// (`-Z build-std`), for machines where rustup cannot download the target.
    DebianBuildStd,
}

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Makes sure wasm32 code can be compiled, preferring rustup and falling back to Debian.
/// `CONCORD_WASM_TOOLCHAIN=debian` forces the fallback (to test it).
pub fn ensure_wasm_target() -> Result<WasmToolchain, String> {
    let forced = std::env::var("CONCORD_WASM_TOOLCHAIN").unwrap_or_default();
    if forced != "debian" {
        let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
            .unwrap_or_default();
        if installed.lines().any(|l| l.trim() == WASM_TARGET) {
            return Ok(WasmToolchain::Rustup);
        }
        println!("wasm32 target missing: trying `rustup target add {WASM_TARGET}`");
        if util::run(Command::new("rustup").args(["target", "add", WASM_TARGET])).is_ok() {
            return Ok(WasmToolchain::Rustup);
        }
        println!("rustup could not add the target; falling back to Debian's rustc-web + build-std");
    }
    let packages = ["rustc-web", "cargo-web", "rust-web-src", "lld-22"];
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !dpkg_installed(p)).collect();
    if !missing.is_empty() {
        apt_install(&missing)?;
    }
    Ok(WasmToolchain::DebianBuildStd)
}

/// A `cargo` command that targets wasm32 with the chosen toolchain. `subcommand` is e.g. "build".
pub fn wasm_cargo(toolchain: WasmToolchain, subcommand: &str) -> Command {
    let root = repo_root();
    match toolchain {
        WasmToolchain::Rustup => {
            let mut cmd = Command::new(cargo_program());
            cmd.current_dir(&root).args([subcommand, "--target", WASM_TARGET]);
            cmd
        }
        WasmToolchain::DebianBuildStd => {
            let mut cmd = Command::new("/usr/bin/cargo");
            let path = std::env::var("PATH").unwrap_or_default();
            cmd.current_dir(&root)
                .env("PATH", format!("/usr/bin:{path}"))
                .env("RUSTC_BOOTSTRAP", "1")
                .env("CARGO_TARGET_DIR", root.join("target/debian-web"))
                .env_remove("RUSTUP_TOOLCHAIN")
                .env_remove("RUSTC")
                .env_remove("RUSTDOC")
                .env_remove("RUSTC_WRAPPER")
                .args([subcommand, "-Z", "build-std=std,panic_abort", "--target", WASM_TARGET]);
            cmd
        }
    }
}

/// Where wasm32 artefacts of `profile` land for the chosen toolchain.
pub fn wasm_artifact_dir(toolchain: WasmToolchain, profile: &str) -> PathBuf {
    let target = match toolchain {
        WasmToolchain::Rustup => target_dir(),
        WasmToolchain::DebianBuildStd => repo_root().join("target/debian-web"),
    };
    target.join(WASM_TARGET).join(profile)
}

/// The cargo that runs this xtask (so rustup's toolchain choice is kept).
pub fn cargo_program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// The wasm-bindgen version pinned in Cargo.lock: the CLI must match it exactly.
pub fn locked_wasm_bindgen_version() -> Result<String, String> {
    let lock_path = repo_root().join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\""
            && let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = \""))
        {
            return Ok(v.trim_end_matches('"').to_string());
        }
    }
    Err("Cargo.lock has no wasm-bindgen package".to_string())
}

/// Returns a `wasm-bindgen` executable of exactly the locked version, installing
/// `wasm-bindgen-cli` with cargo when none is found.
pub fn ensure_wasm_bindgen() -> Result<PathBuf, String> {
    let version = locked_wasm_bindgen_version()?;
    let install_root = repo_root().join("target/tools");
    let local = install_root.join("bin/wasm-bindgen");
    let candidates = [local.clone(), PathBuf::from("wasm-bindgen")];
    for candidate in &candidates {
        if let Some(v) = output(Command::new(candidate).arg("--version"))
            && v.split_whitespace().nth(1) == Some(version.as_str())
        {
            return Ok(candidate.clone());
        }
    }
    println!("installing wasm-bindgen-cli {version} (the version in Cargo.lock) into target/tools");
    let install = |locked: bool| {
        let mut cmd = Command::new(cargo_program());
        cmd.args(["install", "wasm-bindgen-cli", "--version", &format!("={version}")])
            .arg("--root")
            .arg(&install_root);
        if locked {
            cmd.arg("--locked");
        }
        util::run(&mut cmd)
    };
    // The CLI's own lock file can name a dependency version the registry no longer serves
    // (seen: a yanked webpki-roots); then resolve afresh.
    if install(true).is_err() {
        println!("`cargo install --locked` failed; retrying without --locked");
        install(false)?;
    }
    Ok(local)
}

/// Installs the npm dev tools (binaryen, playwright-core, axe-core) from package.json when
/// any is missing.
/// Returns false (with a notice) when npm is not available.
pub fn ensure_npm_tools() -> Result<bool, String> {
    let root = repo_root();
    if root.join("node_modules/playwright-core/package.json").exists()
        && root.join("node_modules/binaryen/bin/wasm-opt").exists()
        && root.join("node_modules/axe-core/axe.min.js").exists()
    {
        return Ok(true);
    }
    if !has_program("npm") {
        println!(
            "npm not found: install Node.js and npm (`apt-get install nodejs npm`) for wasm-opt and the browser tests"
        );
        return Ok(false);
    }
    let lock = root.join("package-lock.json");
    let verb = if lock.exists() { "ci" } else { "install" };
    util::run(Command::new("npm").current_dir(&root).args([verb, "--no-audit", "--no-fund"]))?;
    Ok(true)
}

/// npm binaryen's wasm-opt (Debian's binaryen 108 is too old: its output breaks wasm-bindgen).
pub fn wasm_opt() -> Option<PathBuf> {
    let path = repo_root().join("node_modules/binaryen/bin/wasm-opt");
    path.exists().then_some(path)
}

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Makes sure Debian's Chromium and ChromeDriver are installed, installing them with apt when
/// running as root; otherwise says exactly what to install.
pub fn ensure_chromium() -> Result<(), String> {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        return Ok(());
    }
    let is_root = output(Command::new("id").arg("-u")).as_deref() == Some("0");
    if !is_root || !has_program("apt-get") {
        return Err("Chromium and ChromeDriver are missing: install them with \
             `sudo apt-get install chromium chromium-driver` (they must be at /usr/bin/chromium \
             and /usr/bin/chromedriver), then run again"
            .to_string());
    }
    apt_install(&["chromium", "chromium-driver"])
}

fn dpkg_installed(package: &str) -> bool {
    output(Command::new("dpkg-query").args(["-W", "-f=${Status}", package]))
        .is_some_and(|s| s.contains("install ok installed"))
}

fn apt_install(packages: &[&str]) -> Result<(), String> {
    println!("installing Debian packages: {}", packages.join(" "));
    util::run(Command::new("apt-get").arg("update").arg("-q"))?;
    util::run(
        Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "-q"])
            .args(packages),
    )
}
