//! The rules read off each non-test module's code: no `Result<_, String>` (errors are typed
//! enums that say what happened and what to do) and no `.unwrap()` outside tests.

use std::path::PathBuf;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{GenericArgument, Item, PathArguments, Type};

use super::graph::item_attrs;
use super::modules::{Crate, is_test_only};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    StringError,
    Unwrap,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub file: PathBuf,
    pub line: usize,
    pub rule: Rule,
}

/// Every `Result<_, String>` and `.unwrap()` in the non-test code of `krate`.
pub fn findings(krate: &Crate) -> Vec<Finding> {
    let mut out = Vec::new();
    for module in krate.modules.iter().filter(|m| !m.test) {
        let mut scan = Scan { lines: Vec::new() };
        for item in &module.items {
            scan.visit_item(item);
        }
        out.extend(scan.lines.into_iter().map(|(line, rule)| Finding {
            file: module.file.clone(),
            line,
            rule,
        }));
    }
    out.sort();
    out.dedup();
    out
}

struct Scan {
    lines: Vec<(usize, Rule)>,
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_item(&mut self, item: &'ast Item) {
        if let Item::Mod(m) = item
            && m.content.is_some()
        {
            return; // scanned as a module of its own
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

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if is_string_result(path) {
            let line = path.segments.last().map_or(0, |s| s.ident.span().start().line);
            self.lines.push((line, Rule::StringError));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "unwrap" && call.args.is_empty() {
            self.lines.push((call.method.span().start().line, Rule::Unwrap));
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        scan_tokens(mac.tokens.clone(), &mut self.lines);
    }
}

/// `Result<T, String>` (also `std::result::Result<T, std::string::String>`).
fn is_string_result(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last().filter(|s| s.ident == "Result") else { return false };
    let PathArguments::AngleBracketed(args) = &last.arguments else { return false };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| if let GenericArgument::Type(t) = a { Some(t) } else { None })
        .collect();
    match types.as_slice() {
        [_, Type::Path(error)] => {
            error.qself.is_none()
                && error.path.segments.last().is_some_and(|s| {
                    s.ident == "String" && matches!(s.arguments, PathArguments::None)
                })
        }
        _ => false,
    }
}

/// The same two rules in a macro's tokens (`view! { … }`, `format!(…)`), which `syn` leaves
/// unparsed: `. unwrap ()` and `Result < … , String >`.
fn scan_tokens(tokens: TokenStream, out: &mut Vec<(usize, Rule)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => scan_tokens(g.stream(), out),
            TokenTree::Ident(id) if id == "unwrap" => {
                let dot_before =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let empty_call = matches!(trees.get(i + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                        && g.stream().is_empty());
                if dot_before && empty_call {
                    out.push((id.span().start().line, Rule::Unwrap));
                }
            }
            TokenTree::Ident(id) if id == "Result" && string_error_after(&trees[i + 1..]) => {
                out.push((id.span().start().line, Rule::StringError));
            }
            _ => {}
        }
    }
}

/// Whether tokens `< … , String >` follow (the generic list's last argument is `String`).
fn string_error_after(rest: &[TokenTree]) -> bool {
    let is =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    if !is(rest.first(), '<') {
        return false;
    }
    let mut depth = 0usize;
    let mut last_comma = None;
    for (i, t) in rest.iter().enumerate() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
            TokenTree::Punct(p) if p.as_char() == '>' => {
                // `->` is no closing bracket.
                let arrow = i > 0
                    && matches!(&rest[i - 1], TokenTree::Punct(q) if q.as_char() == '-' && q.spacing() == Spacing::Joint);
                if arrow {
                    continue;
                }
                depth -= 1;
                if depth == 0 {
                    let Some(comma) = last_comma else { return false };
                    let tail = &rest[comma + 1..i];
                    return matches!(tail.last(), Some(TokenTree::Ident(id)) if id == "String");
                }
            }
            TokenTree::Punct(p) if p.as_char() == ',' && depth == 1 => last_comma = Some(i),
            _ => {}
        }
    }
    false
}
