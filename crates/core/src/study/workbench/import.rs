//! Released judge outputs (Chiang & Lee's result files, UniEval predictions…) turned into the
//! workbench's runs: which attribute each run rates, and one method name per file. Also the
//! raters of other bundles and of students' submissions added to the open workspace's
//! ([`add_raters`]: those already there are never replaced).

use crate::data::{Dataset, Loaded};
use crate::judge::parse::Policy;

use super::results::JudgedRun;

/// Why a file's judge outputs could not join the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportProblem {
    #[error(
        "{file}: cannot tell which attribute it rates (the dataset has {attributes}); open the dataset it was made for"
    )]
    UnknownAttribute { file: String, attributes: String },
    #[error("{file}: no judge outputs in this file (detected as {format}); import a result file")]
    NoOutputs { file: String, format: String },
}

/// The file name without its extension.
pub fn file_stem(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The method a released file's run is shown as: its file stem, with Chiang & Lee's attribute
/// abbreviation dropped (`gpt3.5_nat_rate_explain` → `gpt3.5 rate_explain`) so one method
/// gets one row across attributes.
pub fn method_name(file: &str) -> String {
    let stem = file_stem(file);
    ["_nat_", "_coh_", "_eng_", "_gro_", "_con_", "_flu_", "_rel_"]
        .iter()
        .find_map(|abbr| stem.split_once(abbr).map(|(a, b)| format!("{a} {b}")))
        .unwrap_or_else(|| stem.to_owned())
}

/// The judge runs `loaded` (the file `file`) carries, as table runs read with `policy`. A run
/// rates the attribute it names, or the dataset's only attribute.
pub fn imported_runs(
    dataset: &Dataset,
    loaded: &Loaded,
    file: &str,
    policy: Policy,
) -> (Vec<JudgedRun>, Vec<ImportProblem>) {
    let mut runs = Vec::new();
    let mut problems = Vec::new();
    for run in &loaded.runs {
        let attribute =
            run.attribute.clone().filter(|a| dataset.attribute_index(a).is_some()).or_else(|| {
                (dataset.attributes.len() == 1).then(|| dataset.attributes[0].name.clone())
            });
        let Some(attribute) = attribute else {
            problems.push(ImportProblem::UnknownAttribute {
                file: file.to_owned(),
                attributes: dataset
                    .attributes
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
            continue;
        };
        // An annotations file (AltTest's LLMs) carries one run per LLM, each named after it.
        let method = if loaded.format == crate::data::Format::Annotations {
            run.name.clone()
        } else {
            method_name(file)
        };
        runs.push(JudgedRun {
            method,
            attribute,
            policy,
            weighting: None,
            run: run.clone(),
            origin: file.to_owned(),
        });
    }
    if loaded.runs.is_empty() {
        problems.push(ImportProblem::NoOutputs {
            file: file.to_owned(),
            format: loaded.format.name().to_owned(),
        });
    }
    (runs, problems)
}

/// Adds `new` runs to `runs`, replacing those of the same file and attribute.
pub fn merge_runs(runs: &mut Vec<JudgedRun>, new: Vec<JudgedRun>) {
    runs.retain(|x| !new.iter().any(|n| n.origin == x.origin && n.attribute == x.attribute));
    runs.extend(new);
}

/// A rater of another file who could not be added: someone of the same name rated the same
/// attribute here with other scores.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}: “{name}” already rated {attribute} here with other scores; the ones here are kept (rename the rater in one of the files to keep both)"
)]
pub struct RaterConflict {
    pub file: String,
    pub name: String,
    pub attribute: String,
}

/// What [`add_raters`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddedRaters {
    pub added: usize,
    /// Raters already here with the same scores (nothing to do).
    pub already_here: usize,
    /// Raters none of whose items are in the open dataset.
    pub unmatched: Vec<String>,
    pub conflicts: Vec<RaterConflict>,
}

/// Adds the raters of `file` (another bundle's, a student's submission) to `raters`, the open
/// workspace's: a new name and attribute is added; the same with the same scores is already
/// here; the same with other scores is a conflict, named, and the one here is kept. A rater
/// none of whose items `dataset` has is left out and named.
pub fn add_raters(
    dataset: &Dataset,
    raters: &mut Vec<super::settings::ExtraRater>,
    incoming: Vec<super::settings::ExtraRater>,
    file: &str,
) -> AddedRaters {
    let mut out = AddedRaters::default();
    for rater in incoming {
        if !rater.scores.iter().any(|(id, _)| dataset.items.iter().any(|i| i.id == *id)) {
            out.unmatched.push(format!("{} ({})", rater.name, rater.attribute));
            continue;
        }
        match raters.iter().find(|r| r.name == rater.name && r.attribute == rater.attribute) {
            Some(here) if here.scores == rater.scores => out.already_here += 1,
            Some(_) => out.conflicts.push(RaterConflict {
                file: file.to_owned(),
                name: rater.name,
                attribute: rater.attribute,
            }),
            None => {
                raters.push(rater);
                out.added += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chiang_and_lee_names_lose_their_attribute() {
        assert_eq!(method_name("gpt3.5_nat_rate_explain.json"), "gpt3.5 rate_explain");
        assert_eq!(method_name("unieval.json"), "unieval");
        assert_eq!(method_name("noext"), "noext");
    }
}
