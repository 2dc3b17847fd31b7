//! The chunk loader rewritten so that what the user asked for comes first (issue 39).
//!
//! `wasm_split_cli_support` writes `__wasm_split.js` with one loader per split module: it
//! fetches the module's files at once, whoever asked. The app also loads modules ahead of need
//! (the idle prefetch), and a user who opens a screen meanwhile waited behind it. [`apply`]
//! adds a small runtime (`chunk_priority.js`) to the loader: every fetch goes through
//! `chunkFetch`, which knows whether the load is the user's or a prefetch
//! (`globalThis.__concordChunks.prefetch(name)`, called by `src/edge/chunks.rs`), fetches a
//! prefetch at low priority and only while no user load is on its way, aborts (and later
//! restarts) the prefetch fetches a user load does not share, and promotes those it shares.
//! Like [`crate::build`]'s pack rewrite it checks the loader's layout and refuses another,
//! naming `wasm_split_cli_support`, so a version bump cannot silently drop it.

use std::path::Path;

/// The runtime inserted after the loader's import line.
const RUNTIME: &str = include_str!("chunk_priority.js");
/// The loader's own functions, renamed `…Plain` and wrapped by the runtime's.
const MAKE_LOAD: &str = "function makeLoad(fetcher, deps) {";
const WRAP_CB: &str = "function wrapAsyncCb(callee) {";
/// How the loader (and the pack's helper) fetch a file.
const FETCH: &str = "= fetch(new URL(\"./";
/// How the loader exports a split module's load function.
const EXPORT: &str = "export const __wasm_split_load_";
const EXPORT_REST: &str = " = wrapAsyncCb(";

/// Rewrites `pkg/__wasm_split.js` (after the small chunks were packed); does nothing in a
/// build without a loader.
pub fn apply(pkg: &Path) -> Result<(), String> {
    let path = pkg.join("__wasm_split.js");
    if !path.exists() {
        return Ok(());
    }
    let js = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (rewritten, splits) = prioritise(&js)?;
    std::fs::write(&path, rewritten)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "chunk loader: the user's loads first ({} split modules can be prefetched)",
        splits.len()
    );
    Ok(())
}

fn changed(what: &str) -> String {
    format!(
        "__wasm_split.js {what}: has wasm_split_cli_support changed? (xtask/src/chunk_priority.rs)"
    )
}

/// The loader `js` with the priority runtime, and the names of its split modules.
pub fn prioritise(js: &str) -> Result<(String, Vec<String>), String> {
    if js.contains("chunkFetch(") {
        return Err(changed("already has the priority runtime"));
    }
    for (what, once) in [("makeLoad", MAKE_LOAD), ("wrapAsyncCb", WRAP_CB)] {
        if js.matches(once).count() != 1 {
            return Err(changed(&format!("does not define {what} once as `{once}`")));
        }
    }
    if !js.contains(FETCH) {
        return Err(changed(&format!("fetches no file as `{FETCH}…`")));
    }
    let mut splits = Vec::new();
    for line in js.lines() {
        if let Some(rest) = line.strip_prefix(EXPORT) {
            let name = rest.split(EXPORT_REST).next().filter(|_| rest.contains(EXPORT_REST));
            match name {
                Some(n)
                    if !n.is_empty()
                        && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    splits.push(n.to_owned())
                }
                _ => return Err(changed(&format!("exports a loader as `{line}`"))),
            }
        }
    }
    if splits.is_empty() {
        return Err(changed(&format!("exports no loader as `{EXPORT}NAME{EXPORT_REST}…`")));
    }
    let line = js
        .find('\n')
        .filter(|_| js.starts_with("import "))
        .ok_or_else(|| changed("does not open with its import"))?;
    let mut out = String::with_capacity(js.len() + RUNTIME.len() + 64 * splits.len());
    out.push_str(&js[..=line]);
    out.push_str(RUNTIME);
    out.push_str(
        &js[line + 1..]
            .replace(MAKE_LOAD, "function makeLoadPlain(fetcher, deps) {")
            .replace(WRAP_CB, "function wrapAsyncCbPlain(callee) {")
            .replace(FETCH, "= chunkFetch(new URL(\"./"),
    );
    out.push_str("\n// The split modules the app may prefetch, by name (src/edge/chunks.rs).\nconst splitsByName = {\n");
    for name in &splits {
        out.push_str(&format!("    \"{name}\": __wasm_split_load_{name},\n"));
    }
    out.push_str(
        "};\nglobalThis.__concordChunks = {\n    prefetch: (name) => prefetchSplit(splitsByName[name]),\n    busy: userBusy,\n};\n",
    );
    Ok((out, splits))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A loader as `wasm_split_cli_support` 0.2.4 writes it (shortened), with the pack.
    const LOADER: &str = r#"import { initSync } from "./concord.js";

let packFetch;
function packed(start, end) {
    if (packFetch === undefined) {
        const load = fetch(new URL("./chunks_small.bin", import.meta.url)).then((r) => r.arrayBuffer());
        packFetch = load;
    }
    return packFetch.then((b) => b.slice(start, end));
}
function wrapAsyncCb(callee) {
    return async (callbackIndex, callbackData) => { await callee(); }
}
function makeLoad(fetcher, deps) {
    return () => fetcher();
}
/* screen_judge, screen_run */
const __chunk_1 = makeLoad(() => {
    const src = fetch(new URL("./chunk_1.wasm", import.meta.url));
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
export const __wasm_split_load_screen_judge = wrapAsyncCb(makeLoad(() => {
    const src = fetch(new URL("./split_screen_judge.wasm", import.meta.url));
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, [__chunk_1]));
export const __wasm_split_load_page_io = wrapAsyncCb(makeLoad(() => async (_imp) => ({}), []));
"#;

    #[test]
    fn every_fetch_goes_through_the_runtime_and_every_split_is_named() {
        let (js, splits) = prioritise(LOADER).unwrap();
        assert_eq!(splits, ["screen_judge", "page_io"]);
        assert!(js.starts_with("import { initSync } from \"./concord.js\";\n"));
        assert!(!js.contains("= fetch(new URL("), "{js}");
        assert_eq!(js.matches("= chunkFetch(new URL(\"./").count(), 3);
        assert!(js.contains("function makeLoadPlain(fetcher, deps) {"));
        assert!(js.contains("function wrapAsyncCbPlain(callee) {"));
        // The runtime's wrappers are the only makeLoad / wrapAsyncCb left.
        assert_eq!(js.matches("function makeLoad(").count(), 1);
        assert_eq!(js.matches("function wrapAsyncCb(").count(), 1);
        assert!(js.contains("\"screen_judge\": __wasm_split_load_screen_judge,"));
        assert!(js.contains("globalThis.__concordChunks"));
    }

    #[test]
    fn a_loader_of_another_layout_is_refused() {
        let twice = prioritise(&prioritise(LOADER).unwrap().0).unwrap_err();
        assert!(twice.contains("wasm_split_cli_support"), "{twice}");
        let renamed = LOADER.replace("function makeLoad(fetcher, deps)", "function makeLoad(f, d)");
        assert!(prioritise(&renamed).is_err());
        let streamed = LOADER.replace("= fetch(new URL(", "= import.source(new URL(");
        assert!(prioritise(&streamed).is_err());
        let odd = LOADER.replace(" = wrapAsyncCb(makeLoad(() => async", " = makeLoad(() => async");
        assert!(prioritise(&odd).is_err());
        assert!(prioritise(&LOADER.replacen("import ", "// import ", 1)).is_err());
    }
}
