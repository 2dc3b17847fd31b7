//! `concord table`: correlation tables of judge runs against a dataset's human ratings.
//!
//! Thin shell over [`concord_core::study::workbench::scores`]: reads the files, parses the
//! arguments, prints the table through the core's exporters. Loader diagnostics go to stderr
//! so stdout stays machine-readable.

use concord_core::data;
use concord_core::judge::parse::Policy;
use concord_core::report::{self, Format};
use concord_core::study::workbench::report::run_table;
use concord_core::study::workbench::scores::{self, RunSpec};

use crate::error::{CliError, Result};

const HELP: &str = "\
concord table --dataset FILE --run NAME=ATTRIBUTE:FILE [--run ...] [--parse POLICY]
              [--format json|md|latex|csv]

  --dataset FILE   the dataset with human ratings (e.g. topical_chat.json)
  --run SPEC       NAME=ATTRIBUTE:FILE — a judge run file (e.g. a Chiang & Lee result file)
                   rating ATTRIBUTE of the dataset; repeat for more rows
  --parse POLICY   how responses are read: concord (default), geval, closer-look,
                   closer-look-zero, coeval
  --format FMT     json (default), md, latex, csv

Each row: n, parse failures, Pearson r, Spearman rho and Kendall tau-b at dataset level and
at document level (per source text, averaged over documents where defined), and Williams'
one-sided p that the run's dataset-level r is greater than that of the first run rating the
same attribute. json is the table with every cell's full-precision value, n and notes.
";

struct Args {
    dataset: String,
    runs: Vec<(String, String, String)>,
    policy: Policy,
    format: Format,
}

/// `Ok(None)` when help was asked for.
fn parse_args(args: &[String]) -> Result<Option<Args>> {
    let mut dataset = None;
    let mut runs = Vec::new();
    let mut policy = Policy::Concord;
    let mut format = Format::Json;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(None);
        }
        let mut value =
            || it.next().ok_or_else(|| CliError::Usage(format!("{flag} needs a value\n\n{HELP}")));
        match flag.as_str() {
            "--dataset" => dataset = Some(value()?.clone()),
            "--run" => {
                let spec = value()?;
                let (name, rest) = spec.split_once('=').ok_or_else(|| {
                    CliError::Usage(format!("--run `{spec}`: expected NAME=ATTRIBUTE:FILE"))
                })?;
                let (attribute, file) = rest.split_once(':').ok_or_else(|| {
                    CliError::Usage(format!("--run `{spec}`: expected NAME=ATTRIBUTE:FILE"))
                })?;
                if name.is_empty() || attribute.is_empty() || file.is_empty() {
                    return Err(CliError::Usage(format!(
                        "--run `{spec}`: NAME, ATTRIBUTE and FILE must not be empty"
                    )));
                }
                runs.push((name.to_owned(), attribute.to_owned(), file.to_owned()));
            }
            "--parse" => {
                let name = value()?;
                policy = Policy::from_name(name).ok_or_else(|| {
                    let known: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
                    CliError::Usage(format!(
                        "unknown parse policy `{name}` (known: {})",
                        known.join(", ")
                    ))
                })?;
            }
            "--format" => {
                let name = value()?;
                format = Format::from_name(name).filter(|f| f.for_tables()).ok_or_else(|| {
                    CliError::Usage(format!(
                        "unknown format `{name}` (known: json, md, latex, csv)"
                    ))
                })?;
            }
            other => {
                return Err(CliError::Usage(format!("unexpected argument `{other}`\n\n{HELP}")));
            }
        }
    }
    let dataset =
        dataset.ok_or_else(|| CliError::Usage(format!("--dataset is required\n\n{HELP}")))?;
    if runs.is_empty() {
        return Err(CliError::Usage(format!("at least one --run is required\n\n{HELP}")));
    }
    Ok(Some(Args { dataset, runs, policy, format }))
}

fn load(path: &str) -> Result<data::Loaded> {
    let bytes = std::fs::read(path).map_err(CliError::file(path))?;
    let name = std::path::Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path);
    let loaded = data::load(name, &bytes).map_err(CliError::input)?;
    for d in loaded.diagnostics.iter().filter(|d| d.severity == data::Severity::Warning) {
        eprintln!("warning: {d}");
    }
    Ok(loaded)
}

/// Runs `concord table` with the arguments after `table`.
pub fn run(args: &[String]) -> Result<()> {
    let Some(args) = parse_args(args)? else {
        print!("{HELP}");
        return Ok(());
    };
    let dataset = load(&args.dataset)?.dataset;
    let mut loaded_runs = Vec::with_capacity(args.runs.len());
    for (name, _, file) in &args.runs {
        let loaded = load(file)?;
        let run = loaded.runs.into_iter().next().ok_or_else(|| {
            CliError::Input(format!(
                "run `{name}`: {file} holds no judge responses ({}); give a judge's result file",
                loaded.summary.format
            ))
        })?;
        loaded_runs.push(run);
    }
    let specs: Vec<RunSpec<'_>> = args
        .runs
        .iter()
        .zip(&loaded_runs)
        .map(|((name, attribute, _), run)| RunSpec { name, attribute, run })
        .collect();
    let rows = scores::compute(&dataset, &specs, args.policy).map_err(CliError::input)?;
    print!("{}", report::export_table(&run_table(&rows), args.format).unwrap_or_default());
    Ok(())
}
