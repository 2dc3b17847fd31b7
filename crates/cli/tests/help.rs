//! `concord`'s generated help and its command-line errors, as a user sees them: `--help` lists
//! every command, each command's `--help` its options, a misspelt option is named with the one
//! meant, and usage errors exit with code 2.

use std::process::{Command, Output};

/// Every command `concord` has (the README's and docs/guide/cli.md's tables list the same).
const COMMANDS: [&str; 10] = [
    "stats", "inspect", "table", "meta", "coeval", "report", "audit", "alt-test", "trust", "class",
];

fn concord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord")).args(args).output().expect("concord runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn help_lists_every_command() {
    let out = concord(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    let listed: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .expect("a list of commands")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut want = COMMANDS.to_vec();
    want.push("help");
    assert_eq!(listed, want, "{help}");
    // `concord help` is the same text; `concord` alone prints it to stderr as a usage error.
    assert_eq!(text(&concord(&["help"]).stdout), help);
    let bare = concord(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(text(&bare.stderr).contains("Usage: concord <COMMAND>"), "{}", text(&bare.stderr));
}

#[test]
fn every_command_has_its_help() {
    for command in COMMANDS {
        let out = concord(&[command, "--help"]);
        assert!(out.status.success(), "{command}");
        let help = text(&out.stdout);
        assert!(help.contains(&format!("Usage: concord {command} ")), "{command}: {help}");
        assert_eq!(text(&concord(&["help", command]).stdout), help, "concord help {command}");
    }
    // Options say what they do and their defaults.
    let meta = text(&concord(&["meta", "--help"]).stdout);
    assert!(meta.contains("--shuffles <N>\n          Elo: how many shuffled orders"), "{meta}");
    assert!(meta.contains("[default: 200]"), "{meta}");
    assert!(meta.contains("- latex: LaTeX `table` environments"), "{meta}");
    let out = concord(&["--version"]);
    assert_eq!(text(&out.stdout), format!("concord {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_misspelt_option_is_named_with_the_one_meant() {
    let out = concord(&["meta", "somewhere", "--formt", "md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("unexpected argument '--formt' found"), "{err}");
    assert!(err.contains("a similar argument exists: '--format'"), "{err}");
    // A misspelt command too.
    let out = concord(&["reprot", "bundle.json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("unrecognized subcommand 'reprot'"), "{err}");
    assert!(err.contains("a similar subcommand exists: 'report'"), "{err}");
}

/// A usage error found after parsing (an option that needs another) also exits with 2, after
/// the command's name; a file that cannot be read exits with 1.
#[test]
fn usage_errors_exit_with_2_and_input_errors_with_1() {
    let out = concord(&["meta", "somewhere", "--labelled", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("concord meta: --labelled adds the corrected win rate"), "{err}");
    let out = concord(&["inspect", "/nonexistent/x.csv"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "concord inspect: /nonexistent/x.csv: No such file or directory (os error 2)\n"
    );
}
