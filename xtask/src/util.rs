//! Small helpers shared by the xtask commands: the repository root, running commands, flags.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The workspace root (the parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or_else(|| manifest.to_path_buf())
}

/// Runs `cmd`, echoing it first, and fails with the command line when it exits non-zero.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let line = describe(cmd);
    println!("$ {line}");
    let status = cmd.status().map_err(|e| format!("could not start `{line}`: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{line}` failed ({status})")) }
}

/// Runs `cmd` quietly and returns its trimmed stdout, or `None` when it cannot run or fails.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether an executable answers `--version`.
pub fn has_program(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn describe(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Times a named step and prints its duration, so budgets can be read off any log.
pub fn step<T>(name: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    println!("\n==> {name}");
    let start = Instant::now();
    let result = f();
    let secs = start.elapsed().as_secs_f64();
    match &result {
        Ok(_) => println!("<== {name}: ok in {secs:.1} s"),
        Err(e) => println!("<== {name}: FAILED after {secs:.1} s: {e}"),
    }
    result.map_err(|e| format!("{name}: {e}"))
}

/// Simple flag parsing: `--name value`.
pub fn flag_value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

/// Simple flag parsing: a bare `--name`.
pub fn has_flag(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

/// Rejects flags a command does not know, so typos are not silently ignored.
pub fn check_flags(
    args: &[String],
    known_with_value: &[&str],
    known_bare: &[&str],
) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if known_with_value.contains(&a) {
            if i + 1 >= args.len() {
                return Err(format!("{a} needs a value"));
            }
            i += 2;
        } else if known_bare.contains(&a) {
            i += 1;
        } else {
            return Err(format!("unknown argument `{a}`"));
        }
    }
    Ok(())
}
