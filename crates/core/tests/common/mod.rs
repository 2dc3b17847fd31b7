//! Helpers shared by the integration tests that read the released data in place.

use std::path::PathBuf;

/// `../shared/<rel>` beside the workspace, or `None` with a printed notice when it is absent:
/// tests on the released data skip without it, never fail, and never copy it.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (the released data is not beside this checkout)",
            path.display()
        );
        None
    }
}
