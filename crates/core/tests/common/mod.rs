//! Helpers shared by the integration tests that read the released data in place.

use std::path::PathBuf;

/// `../shared/<rel>` beside the workspace, or `None` with a printed notice when it is absent:
/// tests on the released data skip without it (unless `CONCORD_REQUIRE_SHARED` is set, see
/// [`absent`]) and never copy it.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).join(rel);
    if path.exists() {
        Some(path)
    } else {
        absent(&path);
        None
    }
}

/// Says that `path` is absent and the test is skipped, or fails when `CONCORD_REQUIRE_SHARED`
/// is set (CI sets it: there `../shared` is always beside the checkout, so a test skipped for
/// want of it would be a test that silently stopped checking anything).
fn absent(path: &std::path::Path) {
    assert!(
        std::env::var_os("CONCORD_REQUIRE_SHARED").is_none(),
        "{} is absent and CONCORD_REQUIRE_SHARED is set",
        path.display()
    );
    eprintln!(
        "skipped: {} is absent (the released data is not beside this checkout)",
        path.display()
    );
}
