//! The value types of the command line shared by several commands: output formats, parse
//! policies, α levels, the alt-test's scoring, the confidence source, `--labelled` counts.
//!
//! Each is a clap [`ValueEnum`] (so `--help` lists the values and a wrong one is refused with
//! them) that converts into the core's type; a test checks that every name matches the core's
//! own `from_name`, so the CLI accepts exactly what the core names.

use clap::ValueEnum;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use concord_core::judge::parse::Policy;
use concord_core::report::Format;
use concord_core::stats::{KrippendorffLevel, Scoring};
use concord_core::study::validity::ConfidenceSource;

/// An output format: tables, or svg for the figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Markdown tables
    #[value(alias = "markdown")]
    Md,
    /// comma-separated values
    Csv,
    /// LaTeX `table` environments
    #[value(alias = "tex")]
    Latex,
    /// JSON, for programs (a table's: every cell's full-precision value, n and notes)
    Json,
    /// the figures, as SVG
    Svg,
}

impl From<OutputFormat> for Format {
    fn from(f: OutputFormat) -> Format {
        match f {
            OutputFormat::Md => Format::Markdown,
            OutputFormat::Csv => Format::Csv,
            OutputFormat::Latex => Format::Latex,
            OutputFormat::Json => Format::Json,
            OutputFormat::Svg => Format::Svg,
        }
    }
}

/// `--format` of a command without figures: the formats but `svg`, refused with the others
/// listed.
pub fn tables_only() -> impl TypedValueParser<Value = OutputFormat> {
    let tables = OutputFormat::value_variants()
        .iter()
        .filter(|f| Format::from(**f).for_tables())
        .filter_map(ValueEnum::to_possible_value);
    PossibleValuesParser::new(tables).try_map(|name| OutputFormat::from_str(&name, false))
}

/// How a judge's responses are read into ratings (`concord_core::judge::parse::Policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParsePolicy {
    /// Concord's: the number after the last `Rating:`/`Score:` label (or the first number),
    /// only values on the scale; failures stay failures
    Concord,
    /// G-Eval's: a leading number, anything else is 0
    Geval,
    /// Chiang & Lee's: an unparseable response is missing
    CloserLook,
    /// Chiang & Lee's released `all_eval.py`: an unparseable response counts as 0
    CloserLookZero,
    /// CoEval's: the first number after removing `2.`, `out of 5` and `/5`
    Coeval,
    /// a structured answer: the number under `"rating"` in the first JSON object
    Json,
}

impl From<ParsePolicy> for Policy {
    fn from(p: ParsePolicy) -> Policy {
        match p {
            ParsePolicy::Concord => Policy::Concord,
            ParsePolicy::Geval => Policy::Geval,
            ParsePolicy::CloserLook => Policy::CloserLook,
            ParsePolicy::CloserLookZero => Policy::CloserLookZero,
            ParsePolicy::Coeval => Policy::Coeval,
            ParsePolicy::Json => Policy::Json,
        }
    }
}

/// Krippendorff's α level of measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Level {
    /// categories without order
    Nominal,
    /// ranks
    Ordinal,
    /// differences count (the CoEval screen's default)
    Interval,
    /// ratios count
    Ratio,
}

impl From<Level> for KrippendorffLevel {
    fn from(l: Level) -> KrippendorffLevel {
        match l {
            Level::Nominal => KrippendorffLevel::Nominal,
            Level::Ordinal => KrippendorffLevel::Ordinal,
            Level::Interval => KrippendorffLevel::Interval,
            Level::Ratio => KrippendorffLevel::Ratio,
        }
    }
}

/// The alternative annotator test's scoring of a value against the other annotators'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScoringArg {
    /// the share of the other annotators who gave the same value (labels)
    Accuracy,
    /// minus the root mean squared difference to the other annotators' values (scores)
    #[value(name = "neg_rmse")]
    NegRmse,
}

impl From<ScoringArg> for Scoring {
    fn from(s: ScoringArg) -> Scoring {
        match s {
            ScoringArg::Accuracy => Scoring::Accuracy,
            ScoringArg::NegRmse => Scoring::NegRmse,
        }
    }
}

/// Where a judge's confidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Confidence {
    /// samples when there are two or more per item, else log-probabilities
    Auto,
    /// the share of the judge's samples giving its majority rating
    Samples,
    /// the probability of the chosen rating's token
    Logprobs,
}

impl From<Confidence> for ConfidenceSource {
    fn from(c: Confidence) -> ConfidenceSource {
        match c {
            Confidence::Auto => ConfidenceSource::Auto,
            Confidence::Samples => ConfidenceSource::Samples,
            Confidence::Logprobs => ConfidenceSource::Logprobs,
        }
    }
}

/// `--labelled N|all`: keep the human labels of N items (or pairs), or of all (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Labelled(pub Option<usize>);

/// Why a value on the command line is refused; clap prints it after the option it was given to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// `--labelled`: a count of `what` (pairs, items) or `all`.
    #[error("a number of {what} or `all`")]
    NotALabelledCount { what: &'static str },
    #[error("expected NAME=ATTRIBUTE:FILE")]
    NotARunSpec,
    #[error("NAME, ATTRIBUTE and FILE must not be empty")]
    EmptyRunSpecPart,
}

/// A finite number (`--k`, `--epsilon`, …): `inf` and `NaN` are refused.
pub fn finite(v: &str) -> Result<f64, ValueError> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| ValueError::NotANumber(v.to_owned()))
}

/// `concord meta --labelled`: pairs, as the meta-evaluation screen reads its control.
pub fn labelled_pairs(v: &str) -> Result<Labelled, ValueError> {
    concord_core::study::meta::settings::parse_labelled(v)
        .map(Labelled)
        .map_err(|_| ValueError::NotALabelledCount { what: "pairs" })
}

/// `concord audit --labelled`: items per attribute.
pub fn labelled_items(v: &str) -> Result<Labelled, ValueError> {
    match v {
        "all" => Ok(Labelled(None)),
        n => n
            .parse()
            .map(|n| Labelled(Some(n)))
            .map_err(|_| ValueError::NotALabelledCount { what: "items" }),
    }
}

/// Parses `args` (after the command's name) into one command's arguments, as `concord NAME`
/// would: for the commands' own tests.
#[cfg(test)]
pub fn parse<A: clap::Args>(name: &'static str, args: &[&str]) -> Result<A, clap::Error> {
    let command = A::augment_args(clap::Command::new(name));
    let matches =
        command.try_get_matches_from(std::iter::once(name).chain(args.iter().copied()))?;
    A::from_arg_matches(&matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value's name (and alias) is one the core reads as the same value, and every
    /// value the core names is offered.
    #[test]
    fn the_names_are_the_cores() {
        fn names<T: ValueEnum>(v: &T) -> Vec<String> {
            let p = v.to_possible_value().expect("no value is skipped");
            p.get_name_and_aliases().map(str::to_owned).collect()
        }
        for f in OutputFormat::value_variants() {
            for n in names(f) {
                assert_eq!(Format::from_name(&n), Some(Format::from(*f)), "{n}");
            }
        }
        assert_eq!(OutputFormat::value_variants().len(), Format::ALL.len());
        // Without figures: every format but svg, aliases included.
        let tables = clap::Command::new("t")
            .arg(clap::Arg::new("format").long("format").value_parser(tables_only()));
        for (name, want) in [("md", Some(OutputFormat::Md)), ("tex", Some(OutputFormat::Latex))]
            .into_iter()
            .chain([("json", Some(OutputFormat::Json)), ("svg", None)])
        {
            let m = tables.clone().try_get_matches_from(["t", "--format", name]);
            assert_eq!(m.ok().and_then(|m| m.get_one::<OutputFormat>("format").copied()), want);
        }
        for p in ParsePolicy::value_variants() {
            assert_eq!(names(p), [Policy::from(*p).name()]);
        }
        assert_eq!(ParsePolicy::value_variants().len(), Policy::ALL.len());
        for l in Level::value_variants() {
            let n = &names(l)[0];
            assert_eq!(concord_core::coeval::parse_level(n), Some(KrippendorffLevel::from(*l)));
        }
        for s in ScoringArg::value_variants() {
            assert_eq!(names(s), [Scoring::from(*s).name()]);
        }
        assert_eq!(ScoringArg::value_variants().len(), Scoring::ALL.len());
        for c in Confidence::value_variants() {
            assert_eq!(names(c), [ConfidenceSource::from(*c).name()]);
        }
    }

    #[test]
    fn numbers_are_finite() {
        assert_eq!(finite("4"), Ok(4.0));
        assert_eq!(finite("inf").map_err(|e| e.to_string()), Err("`inf` is not a number".into()));
        assert_eq!(finite("x"), Err(ValueError::NotANumber("x".into())));
        assert_eq!(labelled_pairs(" ALL "), Ok(Labelled(None)));
        assert_eq!(labelled_pairs("50"), Ok(Labelled(Some(50))));
        assert_eq!(labelled_items("all"), Ok(Labelled(None)));
        let err = labelled_items("some").map_err(|e| e.to_string());
        assert_eq!(err, Err("a number of items or `all`".into()));
    }
}
