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
    locked_version("wasm-bindgen")
}

/// The version of the package `name` in Cargo.lock (the first, when several are locked).
pub fn locked_version(name: &str) -> Result<String, String> {
    let lock_path = repo_root().join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted
            && let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = \""))
        {
            return Ok(v.trim_end_matches('"').to_string());
        }
    }
    Err(format!("Cargo.lock has no {name} package"))
}

/// Where tools compiled once per machine are kept, for every clone of the repository:
/// `$CONCORD_TOOLS_DIR` when set, else `$XDG_CACHE_HOME/concord/tools`, else
/// `$HOME/.cache/concord/tools`; none without a home directory.
pub fn machine_tools_dir() -> Option<PathBuf> {
    machine_tools_dir_from(|name| std::env::var_os(name))
}

fn machine_tools_dir_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("CONCORD_TOOLS_DIR")
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("concord/tools")))
        .or_else(|| set("HOME").map(|d| d.join(".cache/concord/tools")))
}

/// The directory `cargo install` fills with wasm-bindgen-cli `version` below the machine's
/// tools directory (`bin/wasm-bindgen`, `bin/wasm-bindgen-test-runner`, …).
fn wasm_bindgen_root(tools: &Path, version: &str) -> PathBuf {
    tools.join(format!("wasm-bindgen-{version}"))
}

/// Where a `wasm-bindgen` is looked for, in order: the machine's tools directory (compiled
/// once, used by every clone), this clone's `target/tools` (where earlier versions of this
/// program installed it), then `PATH`.
fn wasm_bindgen_candidates(version: &str, tools: Option<&Path>, clone: &Path) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(tools) = tools {
        candidates.push(wasm_bindgen_root(tools, version).join("bin/wasm-bindgen"));
    }
    candidates.push(clone.join("target/tools/bin/wasm-bindgen"));
    candidates.push(PathBuf::from("wasm-bindgen"));
    candidates
}

/// The first candidate that answers `--version` with exactly `version`.
fn find_wasm_bindgen(version: &str, candidates: &[PathBuf]) -> Option<PathBuf> {
    candidates
        .iter()
        .find(|candidate| {
            output(Command::new(candidate).arg("--version"))
                .is_some_and(|v| v.split_whitespace().nth(1) == Some(version))
        })
        .cloned()
}

/// Returns a `wasm-bindgen` executable of exactly the locked version. When none is found
/// ([`wasm_bindgen_candidates`]), `cargo install`s wasm-bindgen-cli into the machine's tools
/// directory ([`machine_tools_dir`]; this clone's `target/tools` without one), so every
/// clone on this machine uses that one build.
///
/// No registry this machine reaches ships a prebuilt wasm-bindgen-cli (crates.io has its
/// source; npm has no `wasm-bindgen-cli` package, PyPI none of that name, Debian none; the
/// project's GitHub releases are out of reach): it is compiled once per machine.
pub fn ensure_wasm_bindgen() -> Result<PathBuf, String> {
    let version = locked_wasm_bindgen_version()?;
    let tools = machine_tools_dir();
    if let Some(found) = find_wasm_bindgen(
        &version,
        &wasm_bindgen_candidates(&version, tools.as_deref(), &repo_root()),
    ) {
        return Ok(found);
    }
    let root = match &tools {
        Some(tools) => wasm_bindgen_root(tools, &version),
        None => repo_root().join("target/tools"),
    };
    println!(
        "installing wasm-bindgen-cli {version} (the version in Cargo.lock) into {}, once for \
         every clone on this machine",
        root.display()
    );
    // Installed beside its final place and renamed into it: two clones installing at once,
    // or an install stopped midway, never leave a half-written tool where it is looked for.
    let mut staging = root.clone().into_os_string();
    staging.push(format!(".partial-{}", std::process::id()));
    let staging = PathBuf::from(staging);
    let _ = std::fs::remove_dir_all(&staging);
    let install = |locked: bool| {
        let mut cmd = Command::new(cargo_program());
        cmd.args(["install", "wasm-bindgen-cli", "--version", &format!("={version}")])
            .arg("--root")
            .arg(&staging);
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
    if let Some(parent) = root.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let installed = root.join("bin/wasm-bindgen");
    if std::fs::rename(&staging, &root).is_err() {
        if find_wasm_bindgen(&version, std::slice::from_ref(&installed)).is_some() {
            // Another clone finished first: its copy is the same version.
            let _ = std::fs::remove_dir_all(&staging);
        } else {
            // A broken directory in the way (a tool that does not run): replaced.
            let _ = std::fs::remove_dir_all(&root);
            std::fs::rename(&staging, &root).map_err(|e| {
                format!("cannot move {} to {}: {e}", staging.display(), root.display())
            })?;
        }
    }
    find_wasm_bindgen(&version, std::slice::from_ref(&installed))
        .ok_or_else(|| format!("{} does not answer as wasm-bindgen {version}", installed.display()))
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

/// npm binaryen (its JavaScript API, which `xtask/wasm_opt_many.mjs` drives, and its
/// `wasm-opt` command; Debian's binaryen 108 is too old: its output breaks wasm-bindgen).
pub fn binaryen_js() -> Option<PathBuf> {
    let path = repo_root().join("node_modules/binaryen/index.js");
    path.exists().then_some(path)
}

/// npm binaryen's `wasm-opt` command.
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

#[cfg(test)]
// A failed unwrap is a failed test, which is what it should be here.
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn the_machine_tools_dir_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(*v))
            }
        };
        const ALL: &[(&str, &str)] =
            &[("CONCORD_TOOLS_DIR", "/tools"), ("XDG_CACHE_HOME", "/xdg"), ("HOME", "/home/u")];
        assert_eq!(machine_tools_dir_from(env(ALL)), Some(PathBuf::from("/tools")));
        assert_eq!(
            machine_tools_dir_from(env(&[("XDG_CACHE_HOME", "/xdg"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/xdg/concord/tools"))
        );
        assert_eq!(
            machine_tools_dir_from(env(&[("CONCORD_TOOLS_DIR", ""), ("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.cache/concord/tools")),
            "an empty variable counts as unset"
        );
        assert_eq!(machine_tools_dir_from(env(&[])), None);
    }

    /// A fake `wasm-bindgen` at `path` that says it is `version`.
    fn fake_bindgen(path: &Path, version: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("#!/bin/sh\necho wasm-bindgen {version}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_machine_wide_wasm_bindgen_is_found_first_and_only_at_the_locked_version() {
        let dir = std::env::temp_dir().join(format!("concord-tools-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (tools, clone) = (dir.join("cache/concord/tools"), dir.join("clone"));
        let candidates = wasm_bindgen_candidates("0.2.130", Some(&tools), &clone);
        let machine = tools.join("wasm-bindgen-0.2.130/bin/wasm-bindgen");
        let local = clone.join("target/tools/bin/wasm-bindgen");
        assert_eq!(candidates, [machine.clone(), local.clone(), PathBuf::from("wasm-bindgen")]);
        // Nothing installed (and no wasm-bindgen 0.0.0 on PATH): none found.
        let none = wasm_bindgen_candidates("0.0.0", Some(&tools), &clone);
        assert_eq!(find_wasm_bindgen("0.0.0", &none), None);
        // This clone's copy alone is found; the machine's, once there, comes first.
        fake_bindgen(&local, "0.2.130");
        assert_eq!(find_wasm_bindgen("0.2.130", &candidates), Some(local.clone()));
        fake_bindgen(&machine, "0.2.130");
        assert_eq!(find_wasm_bindgen("0.2.130", &candidates), Some(machine.clone()));
        // Another version is passed over: the CLI must match the crate exactly.
        fake_bindgen(&machine, "0.2.129");
        assert_eq!(find_wasm_bindgen("0.2.130", &candidates), Some(local));
        // Each version has its own directory.
        assert_eq!(
            wasm_bindgen_candidates("0.2.131", Some(&tools), &clone)[0],
            tools.join("wasm-bindgen-0.2.131/bin/wasm-bindgen")
        );
        // Without a machine directory, this clone's and PATH's remain.
        assert_eq!(wasm_bindgen_candidates("0.2.130", None, &clone).len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
