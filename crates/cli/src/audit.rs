//! `concord audit`: the judge audit of a bundle's runs — judge against judge, juries and the
//! prediction-powered corrected means — as the Results screen's "Judge audit" panel shows it,
//! written by the core's exporters (the same bytes as the panel's export buttons).

use std::path::PathBuf;

use concord_core::study::workbench::report::bundle_audit;

use crate::args::{Labelled, OutputFormat, labelled_items, tables_only};
use crate::error::{CliError, Result};
use crate::report::{read_bundle, write};

/// The judge audit of a bundle's runs.
///
/// As the Results screen's "Judge audit" panel shows it, the same bytes as its exports
/// (`concord report BUNDLE --screen audit` is the same). The tables: Krippendorff's α (with a bootstrap interval under the bundle's resamples, seed
/// and confidence), Cohen's κ, Gwet's AC1 and the correlation of errors for every two judges of
/// an attribute; juries (mean and median) against each member with Williams' test; per system
/// the judge-only, human-only, PPI and PPI++ means with their intervals; the length probe (the
/// judge's errors against the output's length) and the self-preference probe (its errors on
/// its own family's systems against the others).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A bundle exported by the app (Results → Export bundle)
    bundle: PathBuf,
    /// Keep the human labels of only N items per attribute (a choice seeded by the bundle's
    /// seed) and treat the rest as unlabelled, to see what a correction from N labels gives;
    /// `all` keeps every label. Default: as the bundle says
    #[arg(long, visible_alias = "labeled", value_name = "N|all", value_parser = labelled_items)]
    labelled: Option<Labelled>,
    /// The systems the judges' own model family wrote (comma-separated), for the
    /// self-preference probe; default: as the bundle says
    #[arg(long, value_name = "SYSTEM,…", value_parser = systems)]
    own: Option<Systems>,
    /// The output
    #[arg(long, value_parser = tables_only(), default_value = "md")]
    format: OutputFormat,
    /// Write one file per table into DIR (audit-judges.csv, …) instead of printing them
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `--own`'s system names.
#[derive(Debug, Clone)]
struct Systems(Vec<String>);

fn systems(v: &str) -> std::result::Result<Systems, std::convert::Infallible> {
    let names = v.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
    Ok(Systems(names))
}

/// Runs `concord audit`.
pub fn run(args: Args) -> Result<()> {
    let Args { bundle: path, labelled, own, format, out } = args;
    let labelled = labelled.map(|l| l.0);
    let own = own.map(|o| o.0);
    let mut bundle = read_bundle(&path)?;
    if let Some(labelled) = labelled {
        bundle.settings.audit_labelled = labelled;
    }
    if let Some(own) = own {
        let systems = &bundle.dataset.embedded.items;
        if let Some(unknown) = own.iter().find(|s| !systems.iter().any(|i| i.system_id == **s)) {
            return Err(CliError::Usage(format!(
                "--own: the bundle's dataset has no system `{unknown}`"
            )));
        }
        bundle.settings.audit_own_systems = own;
    }
    if bundle.runs.is_empty() {
        return Err(CliError::input(
            "this bundle has no judge runs: the audit compares the runs of the Results screen",
        ));
    }
    write(&bundle_audit(&bundle), format.into(), out.as_deref())
}
