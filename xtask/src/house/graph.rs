//! The module-level import graph of a crate and its circles.
//!
//! A node is a module (a file or an inline `mod` block; test-only modules are left out). An
//! edge `a → b` is a reference from code of `a` to a module `b` or to an item `b` defines or
//! re-exports: a `use` (a `pub use` re-export is an edge of the re-exporting module) or a path
//! of two or more segments in code or in a macro's tokens (`crate::x::f()`, `super::T`,
//! `self::x::Y`, `store::put` where `store` is a module in scope), resolved to the deepest
//! module the path names. A parent's `mod child;` is no edge; a parent that uses what a child
//! defines and a child that uses what the parent defines (`use super::Item`) are a circle.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::PathBuf;

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Item, UseTree};

use super::modules::{Crate, Module, is_test_only};

/// Where an edge was seen.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub file: PathBuf,
    pub line: usize,
}

/// Every edge between two modules (indices into [`Crate::modules`]) with the sites seen.
pub type Edges = BTreeMap<(usize, usize), Vec<Site>>;

/// The edges of every non-test module of `krate`.
pub fn edges(krate: &Crate) -> Edges {
    let mut all = Edges::new();
    for (from, module) in krate.modules.iter().enumerate() {
        if module.test {
            continue;
        }
        let mut refs = References::default();
        for item in &module.items {
            refs.visit_item(item);
        }
        let aliases = aliases(krate, module, &refs.uses);
        let mut add = |path: &[String], line: usize, glob: bool| {
            let Some(absolute) = resolve(&module.path, path, &aliases) else { return };
            // A glob names the module it empties, which `deepest` finds as well.
            let _ = glob;
            let Some(to) = deepest(krate, &absolute) else { return };
            if to != from && !krate.modules[to].test {
                all.entry((from, to)).or_default().push(Site { file: module.file.clone(), line });
            }
        };
        for use_path in &refs.uses {
            add(&use_path.segments, use_path.line, use_path.glob);
        }
        for (path, line) in &refs.paths {
            if path.len() >= 2 {
                add(path, *line, false);
            }
        }
    }
    all
}

/// One leaf of a `use` tree: `use a::{b::C as D, e::*}` gives `a::b::C` (alias `D`) and `a::e`.
struct UsePath {
    segments: Vec<String>,
    alias: Option<String>,
    glob: bool,
    line: usize,
}

#[derive(Default)]
struct References {
    uses: Vec<UsePath>,
    paths: Vec<(Vec<String>, usize)>,
}

impl<'ast> Visit<'ast> for References {
    fn visit_item(&mut self, item: &'ast Item) {
        // An inline module is a node of its own; test-only code is no part of the graph.
        if let Item::Mod(m) = item
            && m.content.is_some()
        {
            return;
        }
        if item_attrs(item).is_some_and(is_test_only) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        use_leaves(&u.tree, &mut prefix, &mut self.uses);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // `#[allow(clippy::x)]`, `#[serde(…)]`: tool and derive paths, no module's.
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(in crate::a)` says who may see an item, not what it uses.
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = path.segments.first().map_or(0, |s| s.ident.span().start().line);
            self.paths.push((segments, line));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        for (segments, line) in token_paths(mac.tokens.clone()) {
            self.paths.push((segments, line));
        }
    }
}

/// The attributes of an item (`None` for a verbatim item).
pub fn item_attrs(item: &Item) -> Option<&[syn::Attribute]> {
    Some(match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => return None,
    })
}

fn use_leaves(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<UsePath>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let mut segments = prefix.clone();
            let line = n.ident.span().start().line;
            // `use a::b::{self}` names `a::b`.
            if n.ident != "self" {
                segments.push(n.ident.to_string());
            }
            out.push(UsePath { segments, alias: None, glob: false, line });
        }
        UseTree::Rename(r) => {
            let mut segments = prefix.clone();
            if r.ident != "self" {
                segments.push(r.ident.to_string());
            }
            let line = r.ident.span().start().line;
            out.push(UsePath { segments, alias: Some(r.rename.to_string()), glob: false, line });
        }
        UseTree::Glob(g) => {
            let line = g.star_token.span.start().line;
            out.push(UsePath { segments: prefix.clone(), alias: None, glob: true, line });
        }
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// Paths of two or more segments in a macro's tokens: `a :: b (:: c)*`.
fn token_paths(tokens: TokenStream) -> Vec<(Vec<String>, usize)> {
    let mut found = Vec::new();
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Group(g) = &trees[i] {
            found.extend(token_paths(g.stream()));
            i += 1;
            continue;
        }
        // A path starts at an identifier not itself after `::`.
        let after_colons = i >= 2 && is_colon_pair(&trees, i - 2);
        if let (TokenTree::Ident(first), false) = (&trees[i], after_colons) {
            let line = first.span().start().line;
            let mut segments = vec![first.to_string()];
            let mut j = i + 1;
            while is_colon_pair(&trees, j) {
                match trees.get(j + 2) {
                    Some(TokenTree::Ident(next)) => {
                        segments.push(next.to_string());
                        j += 3;
                    }
                    _ => break,
                }
            }
            if segments.len() >= 2 {
                found.push((segments, line));
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    found
}

fn is_colon_pair(trees: &[TokenTree], at: usize) -> bool {
    matches!(
        (trees.get(at), trees.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// The names in scope of `module` that stand for modules: its children, and `use` leaves
/// that name a module (`use crate::edge::store;` makes `store` one).
fn aliases(krate: &Crate, module: &Module, uses: &[UsePath]) -> HashMap<String, Vec<String>> {
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    for m in &krate.modules {
        if m.path.len() == module.path.len() + 1 && m.path.starts_with(&module.path) {
            names.insert(m.path[m.path.len() - 1].clone(), m.path.clone());
        }
    }
    // Twice, so `use a::b; use b::c;` resolves whatever the order.
    for _ in 0..2 {
        for u in uses.iter().filter(|u| !u.glob) {
            let Some(absolute) = resolve(&module.path, &u.segments, &names) else { continue };
            if krate.index(&absolute).is_some() {
                let name = u.alias.clone().or_else(|| absolute.last().cloned());
                if let Some(name) = name.filter(|n| n != "_") {
                    names.insert(name, absolute);
                }
            }
        }
    }
    names
}

/// `path` as seen from module `from`, absolute (without `crate`), or `None` when it does not
/// start in this crate (another crate, `std`, a local item or variable).
fn resolve(
    from: &[String],
    path: &[String],
    aliases: &HashMap<String, Vec<String>>,
) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => {
            let mut base = from.to_vec();
            base.pop()?;
            let mut rest = rest;
            while let Some((_, tail)) = rest.split_first().filter(|(s, _)| *s == "super") {
                base.pop()?;
                rest = tail;
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        name => aliases.get(name)?.clone(),
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The deepest module `path` names: itself when it is one, else the longest prefix that is.
fn deepest(krate: &Crate, path: &[String]) -> Option<usize> {
    (0..=path.len()).rev().find_map(|n| krate.index(&path[..n]))
}

/// A strongly connected set of two or more modules, with one shortest circle through it.
pub struct Circle {
    pub modules: Vec<usize>,
    /// A shortest circle: module indices, the first repeated at the end.
    pub cycle: Vec<usize>,
}

/// The circles of a graph: Tarjan's strongly connected components of two or more modules.
pub fn circles(nodes: usize, edges: &Edges) -> Vec<Circle> {
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for &(a, b) in edges.keys() {
        next[a].push(b);
    }
    let components = tarjan(&next);
    let mut out = Vec::new();
    for component in components.into_iter().filter(|c| c.len() > 1) {
        let set: BTreeSet<usize> = component.iter().copied().collect();
        let start = *set.iter().next().unwrap_or(&0);
        let cycle = shortest_cycle(&next, &set, start);
        out.push(Circle { modules: set.into_iter().collect(), cycle });
    }
    out.sort_by(|a, b| a.modules.cmp(&b.modules));
    out
}

fn shortest_cycle(next: &[Vec<usize>], set: &BTreeSet<usize>, start: usize) -> Vec<usize> {
    let mut came_from: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &n in &next[node] {
            if !set.contains(&n) {
                continue;
            }
            if n == start {
                let mut cycle = vec![start];
                let mut at = node;
                while at != start {
                    cycle.push(at);
                    at = came_from[&at];
                }
                cycle.push(start);
                cycle.reverse();
                return cycle;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = came_from.entry(n) {
                e.insert(node);
                queue.push_back(n);
            }
        }
    }
    vec![start]
}

fn tarjan(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn connect(s: &mut State, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for i in 0..s.next[v].len() {
            let w = s.next[v][i];
            match s.index[w] {
                None => {
                    connect(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            connect(&mut s, v);
        }
    }
    s.out
}
