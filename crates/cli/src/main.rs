//! `concord`: Concord's core from the shell — statistics, dataset inspection, paper tables.
//!
//! Each subcommand lives in its own module and receives the arguments after its name. Output
//! goes to stdout (JSON unless a format says otherwise); errors go to stderr with exit code 1.

use std::process::ExitCode;

mod audit;
mod class;
mod coeval;
mod error;
mod inspect;
mod meta;
mod report;
mod stats_cmd;
mod table;
mod validity;

const USAGE: &str = "\
concord — LLM-as-a-judge evaluation from the command line

USAGE:
    concord stats CASES.json               statistics of STATS_SPEC.md, printed as JSON
    concord inspect FILE                   detect a dataset's format; counts and diagnostics as JSON
    concord table --dataset FILE --run NAME=ATTRIBUTE:FILE [--run ...] [--parse POLICY]
                  [--format json|md|latex|csv]
                                           correlation table of judge runs against human ratings
    concord meta FILE|DIR... [--k 4 --init 1000 --shuffles 200 --seed S]
                  [--labelled N|all] [--format json|md|csv|latex]
                                           seed 003 meta-evaluation: accuracy, Pearson, JDEval-i/BSMEval, Elo
                                           (md|csv|latex: Tables 1, 5, 6 and Elo in the paper's layout;
                                           --labelled: then the PPI / PPI++ corrected win rate of
                                           output 1 from the human labels of N pairs or all)
    concord coeval PATH... [--format json|md|csv|latex] [--level LEVEL]
                                           CoEval (seed 004) from released files: the report as
                                           JSON, or Table 6, Figure 3, α, Table 7 as tables
    concord report BUNDLE [--screen workbench|audit|meta|coeval] [--format md|csv|latex|json|svg]
                  [--out DIR]
                                           every table (or figure) a bundle shows in the app
    concord audit BUNDLE [--labelled N|all] [--format md|csv|latex|json] [--out DIR]
                                           judge audit of a bundle's runs: judge against judge,
                                           juries, prediction-powered corrected means
    concord alt-test DIR|BUNDLE [--scoring accuracy|neg_rmse] [--epsilon E] [--q Q]
                  [--format md|csv|latex|json] [--out DIR]
                                           may the judge replace the annotators? the alternative
                                           annotator test of each judge against the raters
                                           (an AltTest folder or a bundle)
    concord trust BUNDLE|DIR [--alpha A] [--delta D] [--format md|csv|latex|json|svg] [--out DIR]
                                           where can the judge be trusted? selective trust with a
                                           guaranteed agreement, held out, and the cascade
    concord class EXERCISE SUBMISSION... [--format md|csv|latex|json|svg] [--out DIR]
                                           the class view of students' submissions to an
                                           exercise: each student against the reference and
                                           the judges, agreement among the students
    concord help                           this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "stats" => stats_cmd::run(rest),
        "inspect" => inspect::run(rest),
        "coeval" => coeval::run(rest),
        "table" => table::run(rest),
        "meta" => meta::run(rest),
        "report" => report::run(rest),
        "audit" => audit::run(rest),
        "class" => class::run(rest),
        "alt-test" => validity::alt_test(rest),
        "trust" => validity::trust(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        "--version" | "-V" => {
            println!("concord {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        other => Err(error::CliError::Usage(format!("unknown command `{other}`\n\n{USAGE}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("concord {command}: {message}");
            ExitCode::FAILURE
        }
    }
}
