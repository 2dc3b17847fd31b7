//! The module tree of one crate, read from its source files with `syn`: every file module and
//! inline `mod` block, whether it is test-only, and its items (inline modules' contents are
//! their own modules).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::{Attribute, Item, Meta};

/// Where the checker reads source files: the disk, or a map of fixtures in the tests.
pub trait Sources {
    fn read(&self, path: &Path) -> Option<String>;
}

/// The file system, relative to a root directory.
pub struct Disk(pub PathBuf);

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(self.0.join(path)).ok()
    }
}

/// Fixtures: path → text.
impl Sources for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).cloned()
    }
}

/// One module: `crate::a::b` as `["a", "b"]` (the root is `[]`).
pub struct Module {
    pub path: Vec<String>,
    /// The file that holds it (an inline module's is its parent's file), relative to the root.
    pub file: PathBuf,
    /// Compiled for tests only (`#[cfg(test)]`, itself or an ancestor).
    pub test: bool,
    /// Its items; an inline `mod` block among them is listed but is a module of its own.
    pub items: Vec<Item>,
}

impl Module {
    pub fn name(&self, krate: &str) -> String {
        if self.path.is_empty() { krate.to_string() } else { self.path.join("::") }
    }
}

/// A crate's modules, the root first.
pub struct Crate {
    pub modules: Vec<Module>,
}

impl Crate {
    /// Reads the crate whose root file is `root` (`src/lib.rs`, `src/main.rs`).
    pub fn read(root: &Path, sources: &dyn Sources) -> Result<Crate, String> {
        let mut krate = Crate { modules: Vec::new() };
        let text = sources
            .read(root)
            .ok_or_else(|| format!("{}: cannot read the file", root.display()))?;
        let file = parse(root, &text)?;
        let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
        krate.add(sources, Vec::new(), root.to_path_buf(), dir, false, file.items)?;
        Ok(krate)
    }

    pub fn index(&self, path: &[String]) -> Option<usize> {
        self.modules.iter().position(|m| m.path == path)
    }

    /// Adds a module and, recursively, its children. `dir` is where its `mod x;` files are.
    fn add(
        &mut self,
        sources: &dyn Sources,
        path: Vec<String>,
        file: PathBuf,
        dir: PathBuf,
        test: bool,
        items: Vec<Item>,
    ) -> Result<(), String> {
        let children: Vec<syn::ItemMod> = items
            .iter()
            .filter_map(|item| if let Item::Mod(m) = item { Some(m.clone()) } else { None })
            .collect();
        self.modules.push(Module { path: path.clone(), file: file.clone(), test, items });
        for child in children {
            let name = child.ident.to_string();
            let mut child_path = path.clone();
            child_path.push(name.clone());
            let child_test = test || is_test_only(&child.attrs);
            let explicit = path_attribute(&child.attrs);
            match child.content {
                Some((_, inner)) => {
                    let child_dir = match &explicit {
                        Some(p) => dir.join(p),
                        None => dir.join(&name),
                    };
                    self.add(sources, child_path, file.clone(), child_dir, child_test, inner)?;
                }
                None => {
                    // `#[path]` is relative to the declaring file's directory; a plain
                    // `mod x;` is looked up where this module keeps its children.
                    let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
                    let candidates: Vec<PathBuf> = match &explicit {
                        Some(p) => vec![here.join(p)],
                        None => {
                            vec![dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")]
                        }
                    };
                    let Some((found, text)) =
                        candidates.iter().find_map(|c| sources.read(c).map(|t| (c.clone(), t)))
                    else {
                        if child_test {
                            continue; // a test module in a file we need not read
                        }
                        return Err(format!(
                            "{}: `mod {name};` — none of {} exists",
                            file.display(),
                            candidates
                                .iter()
                                .map(|c| c.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    };
                    let parsed = parse(&found, &text)?;
                    // A file read through `#[path]` keeps its children beside it.
                    let child_dir = if explicit.is_some() {
                        found.parent().map(Path::to_path_buf).unwrap_or_default()
                    } else {
                        dir.join(&name)
                    };
                    self.add(sources, child_path, found, child_dir, child_test, parsed.items)?;
                }
            }
        }
        Ok(())
    }
}

fn parse(path: &Path, text: &str) -> Result<syn::File, String> {
    syn::parse_file(text).map_err(|e| {
        let at = e.span().start();
        format!("{}:{}:{}: cannot parse: {e}", path.display(), at.line, at.column + 1)
    })
}

/// `#[path = "x.rs"]` on a `mod` item.
fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Whether attributes make an item test-only: `#[cfg(test)]` (also inside `all(…)`), `#[test]`
/// or any `#[…test]` attribute (`wasm_bindgen_test`, `tokio::test`).
pub fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("cfg") {
            return a.parse_args::<Meta>().is_ok_and(|m| cfg_needs_test(&m));
        }
        path.segments.last().is_some_and(|s| s.ident.to_string().ends_with("test"))
    })
}

/// `test` → true; `all(…)` → any part needs it; `any(…)` → every part needs it; else false.
fn cfg_needs_test(meta: &Meta) -> bool {
    match meta {
        Meta::Path(p) => p.is_ident("test"),
        Meta::List(list) => {
            let parts = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                )
                .map(|p| p.into_iter().collect::<Vec<_>>())
                .unwrap_or_default();
            if list.path.is_ident("all") {
                parts.iter().any(cfg_needs_test)
            } else if list.path.is_ident("any") {
                !parts.is_empty() && parts.iter().all(cfg_needs_test)
            } else {
                false
            }
        }
        Meta::NameValue(_) => false,
    }
}
