//! The parser's own checks, and the documentation against it: every `concord …` the README,
//! ARCHITECTURE.md and docs/ show parses, every command is in the README's and
//! docs/guide/cli.md's tables, and every option of a command appears in the guide's synopsis.

use clap::{CommandFactory, Parser};

use super::Cli;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The documents whose `concord …` invocations must parse: the README, ARCHITECTURE.md and
/// every Markdown file under docs/, as paths below the repository's root.
fn documents() -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("docs/ is readable")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let relative = path.strip_prefix(ROOT).expect("below the root");
                out.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let mut found = vec!["README.md".to_owned(), "ARCHITECTURE.md".to_owned()];
    walk(&std::path::Path::new(ROOT).join("docs"), &mut found);
    found
}

#[test]
fn the_parser_is_consistent() {
    Cli::command().debug_assert();
}

/// `--help` says what every command and option does.
#[test]
fn every_command_and_option_has_help() {
    let cli = Cli::command();
    for command in cli.get_subcommands() {
        let name = command.get_name();
        assert!(command.get_about().is_some(), "`concord {name}` has no description");
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            assert!(arg.get_help().is_some(), "`concord {name}`: `{id}` has no help");
            for value in arg.get_possible_values() {
                assert!(value.get_help().is_some(), "`concord {name} {id}`: {value:?} unexplained");
            }
        }
    }
}

/// A repeated option keeps its last value, as the hand-written loops did.
#[test]
fn a_repeated_option_keeps_its_last_value() {
    let cli = Cli::try_parse_from(["concord", "coeval", "x", "--format", "md", "--format", "csv"])
        .unwrap_or_else(|e| panic!("a repeated option is refused: {}", e.render()));
    let super::Command::Coeval(args) = cli.command else { panic!("coeval") };
    let want = crate::args::parse::<crate::coeval::Args>("coeval", &["x", "--format", "csv"]);
    assert_eq!(args, want.expect("parses"));
}

/// Negative numbers are values, as the hand-written loops took them (`--init -100`).
#[test]
fn a_negative_number_is_a_value() {
    for line in [
        ["concord", "meta", "x", "--init", "-100"],
        ["concord", "alt-test", "x", "--epsilon", "-0.1"],
        ["concord", "trust", "x", "--tolerance", "-1"],
    ] {
        if let Err(e) = Cli::try_parse_from(line) {
            panic!("{line:?}: {}", e.render());
        }
    }
}

/// The inline code spans (a span may go on over a line break within its paragraph) and the
/// lines of fenced code blocks of `text` that start with `concord `.
fn invocations(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut paragraph: Vec<&str> = Vec::new();
    let spans = |paragraph: &mut Vec<&str>, found: &mut Vec<String>| {
        let joined = paragraph.join(" ");
        for (i, span) in joined.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("concord ") {
                found.push(span.to_owned());
            }
        }
        paragraph.clear();
    };
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            spans(&mut paragraph, &mut found);
            fenced = !fenced;
            continue;
        }
        if fenced {
            let line = line.trim().trim_start_matches("$ ");
            if line.starts_with("concord ") {
                found.push(line.to_owned());
            }
        } else if line.trim().is_empty() {
            spans(&mut paragraph, &mut found);
        } else {
            paragraph.push(line.trim());
        }
    }
    spans(&mut paragraph, &mut found);
    found
}

/// A synopsis token's alternatives: `[--format` → `--format`, `json\|md]` → `json`, `md`;
/// `FILE\|DIR …`'s `…` → nothing.
fn alternatives(token: &str) -> Vec<String> {
    let token = token.replace("\\|", "|").replace(['[', ']'], "");
    let token = token.trim_end_matches("...").trim_end_matches('…');
    if token.is_empty() {
        return Vec::new();
    }
    token.split('|').map(str::to_owned).collect()
}

/// What to type for a placeholder value of `option` (`--seed S`, `--scoring S`, `--parse
/// POLICY`): the option's first possible value if it has some, a number for a one-letter
/// placeholder (`N`, `E`, …), else the placeholder itself (a path, `NAME=ATTRIBUTE:FILE`).
fn sample(command: &clap::Command, option: &str, value: &str) -> String {
    let placeholder = value.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    if !placeholder {
        return value.to_owned();
    }
    let arg = command.get_arguments().find(|a| a.get_long() == Some(option));
    if let Some(first) = arg.and_then(|a| a.get_possible_values().into_iter().next()) {
        return first.get_name().to_owned();
    }
    if value.len() == 1 { "1".to_owned() } else { value.to_owned() }
}

/// The command lines a synopsis stands for: every token at its first alternative, then each
/// other alternative of each token in turn.
fn command_lines(synopsis: &str) -> Vec<Vec<String>> {
    let cli = Cli::command();
    let mut tokens = synopsis.split_whitespace().skip(1);
    let name = tokens.next().expect("a command").to_owned();
    let Some(command) = cli.find_subcommand(&name) else {
        panic!("`{synopsis}`: `concord {name}` is not a command");
    };
    // Each position's alternatives, already in the form to type.
    let mut slots: Vec<Vec<String>> = Vec::new();
    let mut option: Option<String> = None;
    for token in tokens {
        let alts = alternatives(token);
        let Some(first) = alts.first() else { continue };
        if let Some(long) = first.strip_prefix("--") {
            option = Some(long.to_owned());
            slots.push(alts);
            continue;
        }
        let alts = match &option {
            Some(long) => alts.iter().map(|v| sample(command, long, v)).collect(),
            None => alts,
        };
        slots.push(alts);
    }
    let base: Vec<String> = std::iter::once("concord".to_owned())
        .chain(std::iter::once(name))
        .chain(slots.iter().map(|s| s[0].clone()))
        .collect();
    let mut lines = vec![base.clone()];
    for (i, slot) in slots.iter().enumerate() {
        for alt in &slot[1..] {
            let mut line = base.clone();
            line[i + 2] = alt.clone();
            lines.push(line);
        }
    }
    lines
}

/// Every `concord COMMAND …` the documents show is one the parser takes, with each
/// alternative of `a\|b\|c`: the command exists, every option is one of its options, every
/// value one it takes. A reference that leaves out a required argument (`concord report
/// --screen validity`) is checked as far as it goes.
#[test]
fn every_documented_invocation_parses() {
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(format!("{ROOT}/{document}")).expect("readable");
        for synopsis in invocations(&text) {
            let name = synopsis.split_whitespace().nth(1).unwrap_or_default();
            if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                continue; // `concord COMMAND --help`, `concord …`
            }
            for line in command_lines(&synopsis) {
                match Cli::try_parse_from(&line) {
                    Ok(_) => {}
                    Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => {}
                    Err(e) => panic!("{document}: `{synopsis}` as {line:?}:\n{}", e.render()),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 80, "only {checked} command lines checked");
}

/// Every command is in the README's and the guide's table, and the guide's synopsis of a
/// command names every one of its options.
#[test]
fn every_command_and_option_is_documented() {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).expect("README.md");
    let guide = std::fs::read_to_string(format!("{ROOT}/docs/guide/cli.md")).expect("cli.md");
    let (readme, guide) = (invocations(&readme), invocations(&guide));
    for command in Cli::command().get_subcommands() {
        let name = command.get_name();
        if name == "help" {
            continue;
        }
        let of = |spans: &[String]| -> Vec<String> {
            let prefix = format!("concord {name} ");
            spans
                .iter()
                .filter(|s| s.starts_with(&prefix) || **s == prefix.trim_end())
                .cloned()
                .collect()
        };
        assert!(!of(&readme).is_empty(), "README.md does not show `concord {name}`");
        let spans = of(&guide);
        assert!(!spans.is_empty(), "docs/guide/cli.md does not show `concord {name}`");
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if long == "help" {
                continue;
            }
            let flag = format!("--{long}");
            let named = spans
                .iter()
                .any(|s| s.split_whitespace().any(|t| alternatives(t).first() == Some(&flag)));
            assert!(named, "docs/guide/cli.md's `concord {name} …` does not name {flag}");
        }
    }
}
