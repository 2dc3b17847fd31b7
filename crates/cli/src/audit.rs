//! `concord audit`: the judge audit of a bundle's runs — judge against judge, juries and the
//! prediction-powered corrected means — as the Results screen's "Judge audit" panel shows it,
//! written by the core's exporters (the same bytes as the panel's export buttons).

use std::path::PathBuf;

use concord_core::report::Format;
use concord_core::study::workbench::report::bundle_audit;

use crate::error::{CliError, Result};
use crate::report::{read_bundle, write};

const HELP: &str = "\
concord audit BUNDLE [--labelled N|all] [--own SYSTEM,...] [--format md|csv|latex|json]
                     [--out DIR]

  BUNDLE          a bundle exported by the app (Results → Export bundle)
  --labelled N    keep the human labels of only N items per attribute (a choice seeded by the
                  bundle's seed) and treat the rest as unlabelled, to see what a correction
                  from N labels gives; `all` keeps every label. Default: as the bundle says.
  --own S,...     the systems the judges' own model family wrote (comma-separated), for
                  the self-preference probe; default: as the bundle says
  --format F      md (default), csv, latex or json
  --out DIR       write one file per table into DIR (audit-judges.csv, …) instead of printing

The tables: Krippendorff's α (with a bootstrap interval under the bundle's resamples, seed and
confidence), Cohen's κ, Gwet's AC1 and the correlation of errors for every two judges of an
attribute; juries (mean and median) against each member with Williams' test; per system the
judge-only, human-only, PPI and PPI++ means with their intervals; the length probe (the
judge's errors against the output's length) and the self-preference probe (its errors on its
own family's systems against the others).
";

/// Runs `concord audit` with the arguments after `audit`.
pub fn run(args: &[String]) -> Result<()> {
    let mut bundle = None;
    let mut labelled: Option<Option<usize>> = None;
    let mut format = Format::Markdown;
    let mut out = None;
    let mut own: Option<Vec<String>> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value =
            || it.next().ok_or_else(|| CliError::Usage(format!("{arg} needs a value\n\n{HELP}")));
        match arg.as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                return Ok(());
            }
            "--labelled" | "--labeled" => {
                let v = value()?;
                labelled = Some(match v.as_str() {
                    "all" => None,
                    n => Some(n.parse::<usize>().map_err(|_| {
                        CliError::Usage(format!(
                            "--labelled takes a number of items or `all`, not `{n}`"
                        ))
                    })?),
                });
            }
            "--format" => {
                let name = value()?;
                format = Format::from_name(name).filter(|f| f.for_tables()).ok_or_else(|| {
                    CliError::Usage(format!(
                        "unknown format `{name}` (known: md, csv, latex, json)"
                    ))
                })?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            "--own" => {
                own = Some(
                    value()?
                        .split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect(),
                );
            }
            other if other.starts_with("--") => {
                return Err(CliError::Usage(format!("unexpected argument `{other}`\n\n{HELP}")));
            }
            path if bundle.is_none() => bundle = Some(PathBuf::from(path)),
            other => {
                return Err(CliError::Usage(format!(
                    "unexpected argument `{other}` (one bundle at a time)"
                )));
            }
        }
    }
    let path =
        bundle.ok_or_else(|| CliError::Usage(format!("a bundle file is required\n\n{HELP}")))?;
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
    write(&bundle_audit(&bundle), format, out.as_deref())
}
