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

/// Every [`step`] this process ran: name, seconds, whether it succeeded.
static STEPS: std::sync::Mutex<Vec<(String, f64, bool)>> = std::sync::Mutex::new(Vec::new());

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
    STEPS.lock().unwrap_or_else(|e| e.into_inner()).push((name.to_owned(), secs, result.is_ok()));
    result.map_err(|e| format!("{name}: {e}"))
}

/// The steps run so far, in order (a step inside another is listed before it).
pub fn steps_taken() -> Vec<(String, f64, bool)> {
    STEPS.lock().unwrap_or_else(|e| e.into_inner()).clone()
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

/// How many jobs run at once: one per core (`std::thread::available_parallelism`), or
/// `CONCORD_JOBS` when set to a positive number.
pub fn jobs() -> usize {
    std::env::var("CONCORD_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `work` on every item, [`jobs`] at a time on threads of their own, the largest
/// (`size`) first: the longest job starts at once and the small ones fill in around it. The
/// first error is returned (after every started job has ended); a panic is an error.
pub fn parallel_largest_first<T: Sync>(
    items: Vec<(u64, T)>,
    work: impl Fn(&T) -> Result<(), String> + Sync,
) -> Result<(), String> {
    parallel_on(jobs(), items, work)
}

/// [`parallel_largest_first`] on `jobs` threads.
fn parallel_on<T: Sync>(
    jobs: usize,
    mut items: Vec<(u64, T)>,
    work: impl Fn(&T) -> Result<(), String> + Sync,
) -> Result<(), String> {
    items.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let workers = jobs.max(1).min(items.len());
    let outcomes: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    use std::sync::atomic::Ordering::Relaxed;
                    while !failed.load(Relaxed) {
                        let Some((_, item)) = items.get(next.fetch_add(1, Relaxed)) else {
                            break;
                        };
                        if let Err(e) = work(item) {
                            failed.store(true, Relaxed);
                            return Err(e);
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker thread panicked".to_owned())))
            .collect()
    });
    outcomes.into_iter().collect()
}

/// The lower-case hex SHA-256 of `parts`, each prefixed by its length (so no two different
/// lists of parts give the same bytes to hash).
pub fn sha256_hex(parts: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn the_largest_job_starts_first_and_every_job_runs_once() {
        let order = Mutex::new(Vec::new());
        let items = vec![(3, "c"), (10, "a"), (1, "d"), (5, "b")];
        let record = |name: &&'static str| {
            order.lock().unwrap_or_else(|e| e.into_inner()).push(*name);
            Ok(())
        };
        assert_eq!(parallel_on(1, items.clone(), record), Ok(()));
        assert_eq!(*order.lock().unwrap_or_else(|e| e.into_inner()), ["a", "b", "c", "d"]);
        order.lock().unwrap_or_else(|e| e.into_inner()).clear();
        assert_eq!(parallel_on(3, items, record), Ok(()));
        let mut ran = order.lock().unwrap_or_else(|e| e.into_inner()).clone();
        ran.sort_unstable();
        assert_eq!(ran, ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_failed_job_fails_the_step() {
        let items: Vec<(u64, u32)> = (0..20).map(|i| (i, i as u32)).collect();
        let result =
            parallel_on(2, items, |&i| if i == 7 { Err(format!("job {i}")) } else { Ok(()) });
        assert_eq!(result, Err("job 7".to_owned()));
        assert_eq!(parallel_on(2, Vec::<(u64, u32)>::new(), |_| Ok(())), Ok(()));
    }
}
