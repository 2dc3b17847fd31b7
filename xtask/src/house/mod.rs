//! `cargo xtask house`: the house rules ARCHITECTURE.md states as absences, checked on the
//! source (also a step of `cargo xtask test`):
//!
//! - no import circle among the modules of any crate (`graph`: what counts as an edge);
//! - no import from a layer below into one above it ([`LAYERS`]: the app's services);
//! - no `Result<_, String>` outside the browser edge (`src/edge/`) and the build tool;
//! - no `.unwrap()` outside tests.
//!
//! Each finding names its file and line; a circle lists its modules and one `file:line` per edge.

mod graph;
mod modules;
mod rules;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use graph::{Edges, Site};

use modules::{Crate, Disk, Sources};
use rules::Rule;

/// One crate the rules read: its name, its root file, whether `Result<_, String>` is refused
/// in it, and the directories where it is allowed (the browser edge).
struct Scope {
    name: &'static str,
    root: &'static str,
    string_errors_refused: bool,
    edge: &'static [&'static str],
}

const SCOPES: &[Scope] = &[
    Scope {
        name: "concord-core",
        root: "crates/core/src/lib.rs",
        string_errors_refused: true,
        edge: &[],
    },
    Scope {
        name: "concord-cli",
        root: "crates/cli/src/main.rs",
        string_errors_refused: true,
        edge: &[],
    },
    // The browser edge: a JS exception's text arrives as a string there.
    Scope {
        name: "concord-web",
        root: "src/lib.rs",
        string_errors_refused: true,
        edge: &["src/edge/"],
    },
    // The build tool prints its errors and exits: a `String` is the whole of its error model.
    Scope { name: "xtask", root: "xtask/src/main.rs", string_errors_refused: false, edge: &[] },
];

/// A circle still allowed until it is broken: crate, its modules (as the check names them),
/// and why it is there and what breaks it. A circle that is not within one of these fails the
/// check, so no circle is added and none grows; an entry no circle needs any more fails too,
/// so the list only shrinks.
type AllowedCircle = (&'static str, &'static [&'static str], &'static str);

const ALLOWED_CIRCLES: &[AllowedCircle] = &[
    (
        "concord-web",
        &["screens::coeval::state", "screens::coeval::tasks"],
        "coeval/state.rs calls tasks.rs (loading, saving the study) and tasks.rs writes the \
         state: the state's methods that start tasks move to tasks.rs",
    ),
    (
        "xtask",
        &["mock_llm", "mock_llm::batch"],
        "mock_llm.rs routes to batch.rs, and batch.rs answers with the chat mock's state, key \
         check and replies: split mock_llm.rs into its state and answers (a leaf both use) and \
         its router (also included by #[path] in two tests)",
    ),
];

/// A layer below others: in crate `.0`, no module at or under `.1` imports a module at or
/// under any of `.2`; `.3` says why.
type Layer = (&'static str, &'static str, &'static [&'static str], &'static str);

const LAYERS: &[Layer] = &[(
    "concord-web",
    "run",
    &["app", "components", "links", "persist", "screens"],
    "src/run/ is the service that carries LLM calls out for the screens: it is given what it \
     needs (a Connection, a Store, a BatchRecord, the key) and reads no screen's state",
)];

/// Findings of a rule still allowed in a file: file, rule, how many, why and what removes them.
/// More fails the check, and so do fewer (the count is lowered with the fix).
type AllowedFindings = (&'static str, Rule, usize, &'static str);

const ALLOWED_FINDINGS: &[AllowedFindings] = &[];

pub fn command(args: &[String]) -> Result<(), String> {
    crate::util::check_flags(args, &[], &["--allowed"])?;
    let root = crate::util::repo_root();
    let report = check(&Disk(root), SCOPES, LAYERS, ALLOWED_CIRCLES, ALLOWED_FINDINGS)?;
    print!("{}", report.summary);
    if crate::util::has_flag(args, "--allowed") {
        println!("\n{}", report.allowed.join("\n\n"));
    }
    if report.problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", report.problems.join("\n\n"), "house rules broken (see above)"))
    }
}

struct Report {
    summary: String,
    problems: Vec<String>,
    /// The circles the allow-list lets pass, described as problems are (`--allowed`).
    allowed: Vec<String>,
}

fn check(
    sources: &dyn Sources,
    scopes: &[Scope],
    layers: &[Layer],
    allowed_circles: &[AllowedCircle],
    allowed_findings: &[AllowedFindings],
) -> Result<Report, String> {
    let mut summary = String::new();
    let mut problems = Vec::new();
    let mut allowed_now = Vec::new();
    let mut needed = vec![false; allowed_circles.len()];
    let mut counts: BTreeMap<(PathBuf, Rule), Vec<usize>> = BTreeMap::new();
    for scope in scopes {
        let krate = Crate::read(Path::new(scope.root), sources)?;
        let edges = graph::edges(&krate);
        let name = |i: usize| krate.modules[i].name(scope.name);
        let circles = graph::circles(krate.modules.len(), &edges);
        let mut refused = 0;
        for circle in &circles {
            let names: Vec<String> = circle.modules.iter().map(|&i| name(i)).collect();
            let allowed = allowed_circles.iter().position(|(c, modules, _)| {
                *c == scope.name && names.iter().all(|n| modules.contains(&n.as_str()))
            });
            match allowed {
                Some(k) => {
                    needed[k] = true;
                    allowed_now.push(describe_circle(&krate, scope.name, circle, &edges));
                    if names.len() < allowed_circles[k].1.len() {
                        let _ = writeln!(
                            summary,
                            "note: an allowed circle of {} shrank to {}: list only these in \
                             ALLOWED_CIRCLES",
                            scope.name,
                            names.join(", ")
                        );
                    }
                }
                None => {
                    refused += 1;
                    problems.push(describe_circle(&krate, scope.name, circle, &edges));
                }
            }
        }
        for (_, lower, above, why) in layers.iter().filter(|l| l.0 == scope.name) {
            for ((a, b), sites) in &edges {
                let (from, to) = (name(*a), name(*b));
                if within(&from, lower) && above.iter().any(|u| within(&to, u)) {
                    problems.push(format!(
                        "{from} → {to}  {}: an import up out of a lower layer ({why}); pass \
                         what it needs as an argument or move the type down",
                        sites_text(sites)
                    ));
                }
            }
        }
        let live = krate.modules.iter().filter(|m| !m.test).count();
        let _ = writeln!(
            summary,
            "{}: {live} modules, {} import edges, {} circle{} ({} allowed)",
            scope.name,
            edges.len(),
            circles.len(),
            if circles.len() == 1 { "" } else { "s" },
            circles.len() - refused
        );
        for finding in rules::findings(&krate) {
            let path = finding.file.to_string_lossy().replace('\\', "/");
            let refused = match finding.rule {
                Rule::Unwrap => true,
                Rule::StringError => {
                    scope.string_errors_refused && !scope.edge.iter().any(|e| path.starts_with(e))
                }
            };
            if refused {
                counts.entry((finding.file.clone(), finding.rule)).or_default().push(finding.line);
            }
        }
    }
    for (k, (krate_name, modules, _)) in allowed_circles.iter().enumerate() {
        if !needed[k] {
            problems.push(format!(
                "the allowed circle of {krate_name} among {} is gone: remove it from \
                 ALLOWED_CIRCLES in xtask/src/house/mod.rs",
                modules.join(", ")
            ));
        }
    }
    for ((file, rule), lines) in &counts {
        let path = file.to_string_lossy().replace('\\', "/");
        let allowed = allowed_findings
            .iter()
            .find(|(f, r, _, _)| *f == path && r == rule)
            .map_or(0, |(_, _, n, _)| *n);
        if lines.len() != allowed {
            problems.push(describe_findings(&path, *rule, lines, allowed));
        }
    }
    for (file, rule, n, _) in allowed_findings {
        if *n > 0 && !counts.contains_key(&(PathBuf::from(file), *rule)) {
            problems.push(format!(
                "{file}: {n} {} allowed but none found: remove the entry from \
                 ALLOWED_FINDINGS in xtask/src/house/mod.rs",
                rule_name(*rule)
            ));
        }
    }
    let string_errors = counts
        .iter()
        .filter(|((_, r), _)| *r == Rule::StringError)
        .map(|(_, l)| l.len())
        .sum::<usize>();
    let unwraps =
        counts.iter().filter(|((_, r), _)| *r == Rule::Unwrap).map(|(_, l)| l.len()).sum::<usize>();
    let _ = writeln!(
        summary,
        "Result<_, String> outside the browser edge and xtask: {string_errors}; .unwrap() outside tests: {unwraps}"
    );
    Ok(Report { summary, problems, allowed: allowed_now })
}

/// Whether `module` is `prefix` or one of its descendants.
fn within(module: &str, prefix: &str) -> bool {
    module == prefix || module.strip_prefix(prefix).is_some_and(|rest| rest.starts_with("::"))
}

fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::StringError => "`Result<_, String>`",
        Rule::Unwrap => "`.unwrap()`",
    }
}

fn describe_findings(file: &str, rule: Rule, lines: &[usize], allowed: usize) -> String {
    let at: Vec<String> = lines.iter().map(|l| format!("{file}:{l}")).collect();
    let what = match rule {
        Rule::StringError => {
            "return a `thiserror` enum whose variants say what happened and what to do \
             (a `String` error is allowed only in `src/edge/`, where a JS exception's text arrives)"
        }
        Rule::Unwrap => {
            "handle the `None`/`Err` (or use `expect` with the invariant that makes it \
             impossible); only tests may unwrap"
        }
    };
    let allowance = if allowed > 0 { format!(" ({allowed} allowed)") } else { String::new() };
    format!("{} {}{allowance}: {what}\n  {}", lines.len(), rule_name(rule), at.join("\n  "))
}

fn describe_circle(
    krate: &Crate,
    crate_name: &str,
    circle: &graph::Circle,
    edges: &Edges,
) -> String {
    let name = |i: usize| krate.modules[i].name(crate_name);
    let ring: Vec<String> = circle.cycle.iter().map(|&i| name(i)).collect();
    let mut text = format!(
        "import circle in {crate_name} ({} modules): {}\n",
        circle.modules.len(),
        ring.join(" → ")
    );
    for pair in circle.cycle.windows(2) {
        let sites = &edges[&(pair[0], pair[1])];
        let _ = writeln!(text, "  {} → {}  {}", name(pair[0]), name(pair[1]), sites_text(sites));
    }
    let others: Vec<(&(usize, usize), &Vec<Site>)> = edges
        .iter()
        .filter(|((a, b), _)| {
            circle.modules.contains(a)
                && circle.modules.contains(b)
                && !circle.cycle.windows(2).any(|p| p[0] == *a && p[1] == *b)
        })
        .collect();
    if !others.is_empty() {
        let _ = writeln!(text, "  other edges among these modules:");
        for ((a, b), sites) in others {
            let _ = writeln!(text, "    {} → {}  {}", name(*a), name(*b), sites_text(sites));
        }
    }
    text.push_str(
        "  break it by moving what the lower module needs down (a type, a constant) out of the \
         module above it, or by passing a value instead of reaching up",
    );
    text
}

fn sites_text(sites: &[Site]) -> String {
    let first = sites.first().map_or(String::new(), |s| format!("{}:{}", s.file.display(), s.line));
    if sites.len() > 1 { format!("{first} (+{} more)", sites.len() - 1) } else { first }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::*;

    const APP: &[Scope] = &[Scope {
        name: "app",
        root: "src/lib.rs",
        string_errors_refused: true,
        edge: &["src/edge/"],
    }];

    fn fixture(files: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
        files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()
    }

    fn run(files: &[(&str, &str)]) -> Report {
        check(&fixture(files), APP, &[], &[], &[]).unwrap()
    }

    #[test]
    fn a_circle_between_two_files_is_found_with_each_edge_site() {
        let report = run(&[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "//! a\nuse crate::b::B;\npub struct A(B);\n"),
            ("src/b.rs", "//! b\n\npub struct B;\npub fn f() -> crate::a::A { todo!() }\n"),
        ]);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        let p = &report.problems[0];
        assert!(p.contains("import circle in app (2 modules): a → b → a"), "{p}");
        assert!(p.contains("a → b  src/a.rs:2"), "{p}");
        assert!(p.contains("b → a  src/b.rs:4"), "{p}");
    }

    #[test]
    fn layers_that_only_point_down_pass() {
        // `mod` declarations are no edge, a test module's `use super::*` none either, and
        // `a` may use `b` as long as `b` does not reach back.
        let report = run(&[
            ("src/lib.rs", "mod a;\nmod b;\npub fn start() { a::go(); }\n"),
            (
                "src/a.rs",
                "use crate::b::B;\npub fn go() { let _ = B; crate::b::helper(); }\n\
                 #[cfg(test)]\nmod tests { use super::*; use crate::b; }\n",
            ),
            ("src/b.rs", "pub struct B;\npub fn helper() {}\n"),
        ]);
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert!(
            report.summary.contains("app: 3 modules, 2 import edges, 0 circles"),
            "{}",
            report.summary
        );
    }

    #[test]
    fn a_child_reaching_up_to_its_parent_that_uses_it_is_a_circle() {
        // The parent re-exports the child; the child uses an item the parent defines.
        let report = run(&[
            ("src/lib.rs", "pub mod screen;\n"),
            ("src/screen/mod.rs", "mod batch;\npub use batch::Panel;\npub struct Context;\n"),
            ("src/screen/batch.rs", "use super::Context;\npub struct Panel(Context);\n"),
        ]);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].contains("screen → screen::batch → screen"));
    }

    #[test]
    fn paths_in_macros_and_through_module_aliases_are_edges() {
        let report = run(&[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "use crate::b;\npub fn f() { b::g(); }\n"),
            ("src/b.rs", "pub fn g() { view! { <crate::a::Thing/> } }\n"),
        ]);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].contains("b → a  src/b.rs:1"), "{:?}", report.problems);
    }

    #[test]
    fn a_string_error_in_a_screen_is_found_and_the_edge_may_keep_one() {
        let report = run(&[
            ("src/lib.rs", "mod edge;\nmod screens;\n"),
            ("src/edge/mod.rs", "pub fn read() -> Result<Vec<u8>, String> { todo!() }\n"),
            (
                "src/screens/mod.rs",
                "use crate::edge;\n\nasync fn fetch(\n    x: u8,\n) -> Result<(), String> {\n\
                 let _ = edge::read(); Ok(()) }\n\
                 fn view() { let s = RwSignal::new(None::<Result<String, String>>); }\n\
                 fn fine() -> Result<Vec<String>, MyError> { todo!() }\n",
            ),
        ]);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        let p = &report.problems[0];
        assert!(p.starts_with("2 `Result<_, String>`"), "{p}");
        assert!(p.contains("src/screens/mod.rs:5") && p.contains("src/screens/mod.rs:7"), "{p}");
        assert!(!p.contains("src/edge/mod.rs"), "{p}");
    }

    #[test]
    fn an_unwrap_outside_tests_is_found_and_tests_may_unwrap() {
        let files = [
            ("src/lib.rs", "mod a;\n#[cfg(test)]\nmod tests;\n"),
            (
                "src/a.rs",
                "pub fn f(x: Option<u8>) -> u8 {\n    x.unwrap()\n}\n\
                 pub fn g() { println!(\"{}\", Some(1).unwrap()); }\n\
                 #[test]\nfn t() { Some(1).unwrap(); }\n\
                 #[cfg(test)]\nmod tests { fn h() { Some(2).unwrap(); } }\n\
                 #[cfg(all(test, feature = \"x\"))]\nfn k() { Some(3).unwrap(); }\n",
            ),
            ("src/tests.rs", "fn t() { Some(1).unwrap(); }\n"),
            ("tests/web.rs", "fn t() { Some(1).unwrap(); }\n"),
        ];
        let report = run(&files);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        let p = &report.problems[0];
        assert!(p.starts_with("2 `.unwrap()`"), "{p}");
        assert!(p.contains("src/a.rs:2") && p.contains("src/a.rs:4"), "{p}");
    }

    #[test]
    fn allowances_hold_only_what_they_list_and_must_shrink_with_the_fix() {
        let files = [
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::b::B;\npub struct A;\n"),
            (
                "src/b.rs",
                "use crate::a::A;\npub struct B;\npub fn f() -> Result<(), String> { Ok(()) }\n",
            ),
            ("src/c.rs", "pub fn g() -> Result<(), String> { Ok(()) }\n"),
        ];
        let circles: &[AllowedCircle] = &[("app", &["a", "b"], "test")];
        let findings: &[AllowedFindings] = &[("src/b.rs", Rule::StringError, 1, "test")];
        let report = check(&fixture(&files), APP, &[], circles, findings).unwrap();
        // The circle and b.rs's error are allowed; c.rs's is not.
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].contains("src/c.rs:1"));
        // Entries nothing needs any more fail the check.
        let stale_circles: &[AllowedCircle] = &[("app", &["a", "c"], "test")];
        let stale_findings: &[AllowedFindings] = &[("src/a.rs", Rule::StringError, 1, "test")];
        let report = check(&fixture(&files), APP, &[], stale_circles, stale_findings).unwrap();
        let all = report.problems.join("\n");
        assert!(all.contains("the allowed circle of app among a, c is gone"), "{all}");
        assert!(all.contains("src/a.rs: 1 `Result<_, String>` allowed but none found"), "{all}");
        assert!(all.contains("import circle in app (2 modules): a → b → a"), "{all}");
    }

    #[test]
    fn a_service_may_not_import_a_screen_but_a_screen_may_call_it() {
        let files = [
            ("src/lib.rs", "mod run;\nmod screens;\nmod runner2;\n"),
            ("src/run/mod.rs", "pub mod batch;\n"),
            ("src/run/batch.rs", "pub fn send(f: crate::screens::Form) {}\n"),
            (
                "src/screens/mod.rs",
                "pub struct Form;\npub fn go() { crate::run::batch::send(Form); }\n",
            ),
            ("src/runner2.rs", "use crate::screens::Form;\n"),
        ];
        let layers: &[Layer] = &[("app", "run", &["screens"], "test")];
        let report = check(&fixture(&files), APP, layers, &[], &[]).unwrap();
        // batch → screens is refused (and makes a circle with screens → batch); `runner2`,
        // whose name only starts like the layer's, is not in it.
        let all = report.problems.join("\n");
        assert!(all.contains("run::batch → screens  src/run/batch.rs:1: an import up"), "{all}");
        assert!(!all.contains("runner2 → screens"), "{all}");
        // Without the layer only the circle is found.
        let report = check(&fixture(&files), APP, &[], &[], &[]).unwrap();
        assert!(!report.problems.join("\n").contains("an import up"), "{:?}", report.problems);
    }

    #[test]
    fn the_repository_keeps_the_house_rules() {
        let report = check(
            &Disk(crate::util::repo_root()),
            SCOPES,
            LAYERS,
            ALLOWED_CIRCLES,
            ALLOWED_FINDINGS,
        )
        .unwrap();
        assert!(report.problems.is_empty(), "{}", report.problems.join("\n\n"));
    }
}
