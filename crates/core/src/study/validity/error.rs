//! Why a judge run cannot be measured against the raters (every part of the validity study
//! returns it).

/// Why a judge run cannot be measured against the raters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidityError {
    #[error("the dataset has no attribute `{0}`")]
    NoAttribute(String),
    #[error(
        "`{attribute}` has no individual raters (only an aggregate): the alt-test needs each annotator's ratings"
    )]
    NoRaters { attribute: String },
    #[error("run `{run}`: none of its records matches an item of the dataset")]
    NothingJoined { run: String },
    #[error("scoring {scoring} needs numbers, but `{attribute}` has labels: use accuracy")]
    LabelsNeedAccuracy { scoring: &'static str, attribute: String },
    #[error(transparent)]
    AltTest(#[from] crate::stats::AltTestError),
    #[error(transparent)]
    Trust(#[from] crate::stats::TrustError),
}
