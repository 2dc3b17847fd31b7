//! Outputs of the release build's slow, deterministic tools (wasm-opt, brotli, gzip) kept under
//! `target/build-cache/`, each named by a SHA-256 of the tool's identity (its version and
//! flags) and of its input: a chunk whose bytes did not change is never optimised or
//! compressed again, and a new tool version or flag misses every entry.
//!
//! Entries are written under a temporary name and renamed into place, so a build that is
//! stopped midway leaves no half-written entry; a hit refreshes the entry's modification
//! time and [`Cache::prune`] removes what no build used for [`KEEP_UNUSED_DAYS`] days.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::util::sha256_hex;

/// How long an entry no build used is kept.
pub const KEEP_UNUSED_DAYS: u64 = 7;

/// A directory of tool outputs, keyed by tool and input.
pub struct Cache {
    dir: PathBuf,
}

/// Whether an output came from the cache or was made now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Cached,
    Made,
}

impl Cache {
    /// The cache in `dir` (created when missing).
    pub fn open(dir: PathBuf) -> Result<Cache, String> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create the build cache {}: {e}", dir.display()))?;
        Ok(Cache { dir })
    }

    /// The cache of this repository's builds: `build-cache/` in the target directory.
    pub fn for_builds() -> Result<Cache, String> {
        Cache::open(crate::toolchain::target_dir().join("build-cache"))
    }

    fn entry(&self, tool: &str, input: &[u8], ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", sha256_hex(&[tool.as_bytes(), input])))
    }

    /// `tool`'s output for `input` (`ext` names the kind of file): the kept one, or the one
    /// `make` returns now, which is kept for next time.
    pub fn get_or_make(
        &self,
        tool: &str,
        input: &[u8],
        ext: &str,
        make: impl FnOnce() -> Result<Vec<u8>, String>,
    ) -> Result<(Vec<u8>, Source), String> {
        let entry = self.entry(tool, input, ext);
        if let Ok(bytes) = std::fs::read(&entry) {
            // Kept as used; a file whose time cannot be set is merely pruned sooner.
            let _ = std::fs::File::options()
                .write(true)
                .open(&entry)
                .and_then(|f| f.set_modified(SystemTime::now()));
            return Ok((bytes, Source::Cached));
        }
        let bytes = make()?;
        let thread = format!("{:?}", std::thread::current().id());
        let digits: String = thread.chars().filter(char::is_ascii_digit).collect();
        let temporary = entry.with_extension(format!("{ext}.tmp-{}-{digits}", std::process::id()));
        std::fs::write(&temporary, &bytes)
            .and_then(|()| std::fs::rename(&temporary, &entry))
            .map_err(|e| format!("cannot keep {} in the build cache: {e}", entry.display()))?;
        Ok((bytes, Source::Made))
    }

    /// `tool`'s output directory for `input`: the kept one, or the one `make` fills now (it
    /// is given an empty directory), which is kept for next time. Returns the directory.
    pub fn get_or_make_dir(
        &self,
        tool: &str,
        input: &[u8],
        make: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<(PathBuf, Source), String> {
        let entry = self.entry(tool, input, "d");
        if entry.is_dir() {
            let _ = std::fs::File::open(&entry).and_then(|f| f.set_modified(SystemTime::now()));
            return Ok((entry, Source::Cached));
        }
        let temporary = entry.with_extension(format!("d.tmp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&temporary);
        std::fs::create_dir_all(&temporary)
            .map_err(|e| format!("cannot create {}: {e}", temporary.display()))?;
        if let Err(e) = make(&temporary) {
            let _ = std::fs::remove_dir_all(&temporary);
            return Err(e);
        }
        std::fs::rename(&temporary, &entry)
            .map_err(|e| format!("cannot keep {} in the build cache: {e}", entry.display()))?;
        Ok((entry, Source::Made))
    }

    /// Removes the entries (and stray temporary files) not used for `unused`. Returns how many.
    pub fn prune(&self, unused: Duration) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return 0 };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > unused);
            let path = entry.path();
            let gone = |p: &Path| {
                if p.is_dir() { std::fs::remove_dir_all(p) } else { std::fs::remove_file(p) }
            };
            if old && gone(&path).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}

#[cfg(test)]
// A failed unwrap is a failed test, which is what it should be here.
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("concord-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn the_same_tool_and_input_are_made_once() {
        let dir = temp("once");
        let cache = Cache::open(dir.clone()).unwrap();
        let calls = Cell::new(0);
        let make = || {
            calls.set(calls.get() + 1);
            Ok(b"optimised".to_vec())
        };
        let first = cache.get_or_make("wasm-opt 132 -Oz", b"chunk", "wasm", make).unwrap();
        assert_eq!(first, (b"optimised".to_vec(), Source::Made));
        let again = cache
            .get_or_make("wasm-opt 132 -Oz", b"chunk", "wasm", || Err("not again".into()))
            .unwrap();
        assert_eq!(again, (b"optimised".to_vec(), Source::Cached));
        assert_eq!(calls.get(), 1);
        // Another input, another tool version or flag, another kind of output: made anew.
        for (tool, input, ext) in [
            ("wasm-opt 132 -Oz", &b"chunk!"[..], "wasm"),
            ("wasm-opt 133 -Oz", b"chunk", "wasm"),
            ("wasm-opt 132 -O3", b"chunk", "wasm"),
            ("wasm-opt 132 -Oz", b"chunk", "br"),
        ] {
            let (_, source) = cache.get_or_make(tool, input, ext, make).unwrap();
            assert_eq!(source, Source::Made, "{tool} {ext}");
        }
        assert_eq!(calls.get(), 5);
        // Nothing is left under a temporary name.
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 5, "{names:?}");
        assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failure_keeps_nothing() {
        let dir = temp("fail");
        let cache = Cache::open(dir.clone()).unwrap();
        let e = cache.get_or_make("t", b"x", "wasm", || Err("wasm-opt failed".into())).unwrap_err();
        assert_eq!(e, "wasm-opt failed");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let (_, source) = cache.get_or_make("t", b"x", "wasm", || Ok(vec![1])).unwrap();
        assert_eq!(source, Source::Made);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_of_outputs_is_made_once() {
        let dir = temp("dir");
        let cache = Cache::open(dir.clone()).unwrap();
        let calls = Cell::new(0);
        let make = |out: &Path| {
            calls.set(calls.get() + 1);
            std::fs::write(out.join("chunk_1.wasm"), b"split").map_err(|e| e.to_string())
        };
        let (first, source) = cache.get_or_make_dir("split 0.2.4", b"raw", make).unwrap();
        assert_eq!(source, Source::Made);
        assert_eq!(std::fs::read(first.join("chunk_1.wasm")).unwrap(), b"split");
        let (again, source) = cache.get_or_make_dir("split 0.2.4", b"raw", make).unwrap();
        assert_eq!((again, source), (first, Source::Cached));
        assert_eq!(calls.get(), 1);
        // A failed make keeps nothing; another input is made anew.
        let e = cache.get_or_make_dir("split 0.2.4", b"other", |_| Err("no".into()));
        assert!(e.is_err());
        let (_, source) = cache.get_or_make_dir("split 0.2.4", b"other", make).unwrap();
        assert_eq!(source, Source::Made);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        // Pruned like a file when no build used it for long.
        let long_ago = SystemTime::now() - Duration::from_secs(30 * 24 * 3600);
        std::fs::File::open(cache.entry("split 0.2.4", b"raw", "d"))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        assert_eq!(cache.prune(Duration::from_secs(KEEP_UNUSED_DAYS * 24 * 3600)), 1);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pruning_removes_only_entries_left_unused() {
        let dir = temp("prune");
        let cache = Cache::open(dir.clone()).unwrap();
        cache.get_or_make("t", b"old", "wasm", || Ok(vec![1])).unwrap();
        cache.get_or_make("t", b"new", "wasm", || Ok(vec![2])).unwrap();
        let old = cache.entry("t", b"old", "wasm");
        let long_ago = SystemTime::now() - Duration::from_secs(30 * 24 * 3600);
        std::fs::File::options().write(true).open(&old).unwrap().set_modified(long_ago).unwrap();
        assert_eq!(cache.prune(Duration::from_secs(KEEP_UNUSED_DAYS * 24 * 3600)), 1);
        assert!(!old.exists());
        assert!(cache.entry("t", b"new", "wasm").exists());
        // A hit refreshes the time: an entry used today survives.
        std::fs::File::options()
            .write(true)
            .open(cache.entry("t", b"new", "wasm"))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        cache.get_or_make("t", b"new", "wasm", || Err("cached".into())).unwrap();
        assert_eq!(cache.prune(Duration::from_secs(KEEP_UNUSED_DAYS * 24 * 3600)), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
