//! `concord table`: correlation tables of judge runs against a dataset's human ratings.
//!
//! Thin shell over [`concord_core::study::workbench::scores`]: declares its options, reads the
//! files, prints the table through the core's exporters. Loader diagnostics go to stderr
//! so stdout stays machine-readable.

use concord_core::data;
use concord_core::report::{self, Format};
use concord_core::study::workbench::report::run_table;
use concord_core::study::workbench::scores::{self, RunSpec};

use crate::args::{OutputFormat, ParsePolicy, ValueError, tables_only};
use crate::error::{CliError, Result};

/// Correlations of judge runs against human ratings, with Williams' test.
///
/// Each row: n, parse failures, Pearson r, Spearman rho and Kendall tau-b at dataset level and
/// at document level (per source text, averaged over documents where defined), and Williams'
/// one-sided p that the run's dataset-level r is greater than that of the first run rating the
/// same attribute.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset with human ratings (e.g. topical_chat.json)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// A judge run file (e.g. a Chiang & Lee result file) rating ATTRIBUTE of the dataset,
    /// shown as row NAME; repeat for more rows
    #[arg(long = "run", value_name = "NAME=ATTRIBUTE:FILE", required = true, value_parser = run_spec)]
    runs: Vec<RunArg>,
    /// How responses are read into ratings
    #[arg(long = "parse", value_name = "POLICY", value_enum, default_value_t = ParsePolicy::Concord)]
    policy: ParsePolicy,
    /// The output
    #[arg(long, value_parser = tables_only(), default_value = "json")]
    format: OutputFormat,
}

/// One `--run NAME=ATTRIBUTE:FILE`.
#[derive(Debug, Clone)]
struct RunArg {
    name: String,
    attribute: String,
    file: String,
}

fn run_spec(spec: &str) -> std::result::Result<RunArg, ValueError> {
    let (name, rest) = spec.split_once('=').ok_or(ValueError::NotARunSpec)?;
    let (attribute, file) = rest.split_once(':').ok_or(ValueError::NotARunSpec)?;
    if name.is_empty() || attribute.is_empty() || file.is_empty() {
        return Err(ValueError::EmptyRunSpecPart);
    }
    Ok(RunArg { name: name.to_owned(), attribute: attribute.to_owned(), file: file.to_owned() })
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

/// Runs `concord table`.
pub fn run(args: Args) -> Result<()> {
    let dataset = load(&args.dataset)?.dataset;
    let mut loaded_runs = Vec::with_capacity(args.runs.len());
    for RunArg { name, file, .. } in &args.runs {
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
        .map(|(r, run)| RunSpec { name: &r.name, attribute: &r.attribute, run })
        .collect();
    let rows = scores::compute(&dataset, &specs, args.policy.into()).map_err(CliError::input)?;
    let format: Format = args.format.into();
    print!("{}", report::export_table(&run_table(&rows), format).unwrap_or_default());
    Ok(())
}
