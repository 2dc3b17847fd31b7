//! The meta-evaluation screen's controls as a value: Elo's K, initial rating, scale and base,
//! the shuffles and seed, Bradley–Terry's bootstrap resamples, the win-rate tie convention and
//! how many seeds the Elo seed spread uses, and how many pairs keep their human label for the
//! corrected win rate — read from the controls' text with errors that say which field is
//! wrong.

use serde::{Deserialize, Serialize};

use crate::meta::{EloOptions, WinRates};
use crate::stats::EloParams;

/// Confidence of the intervals beside the rates (accuracy, swap consistency, position bias).
pub const RATE_CONFIDENCE: f64 = 0.95;

/// Which win-rate convention the heatmap shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieConvention {
    /// Ties in the denominator, no credit (the paper, Eq. 1–2).
    #[default]
    Zero,
    /// Half a point per tie.
    Half,
    /// Ties dropped.
    Dropped,
}

impl TieConvention {
    pub const ALL: [TieConvention; 3] =
        [TieConvention::Zero, TieConvention::Half, TieConvention::Dropped];

    pub fn id(self) -> &'static str {
        match self {
            TieConvention::Zero => "zero",
            TieConvention::Half => "half",
            TieConvention::Dropped => "dropped",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TieConvention::Zero => "ties count, no credit (paper)",
            TieConvention::Half => "ties count half",
            TieConvention::Dropped => "ties dropped",
        }
    }

    /// The convention with this id; the paper's for an unknown one.
    pub fn from_id(id: &str) -> TieConvention {
        TieConvention::ALL.into_iter().find(|c| c.id() == id).unwrap_or(TieConvention::Zero)
    }

    pub fn matrix(self, w: &WinRates) -> &Vec<Vec<Option<f64>>> {
        match self {
            TieConvention::Zero => &w.ties_zero,
            TieConvention::Half => &w.tie_half,
            TieConvention::Dropped => &w.no_ties,
        }
    }
}

/// Everything the report depends on besides the files and runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub k: f64,
    pub init: f64,
    pub scale: f64,
    pub base: f64,
    /// Shuffled orders Elo is averaged over; 0 plays the matches once in file order.
    pub shuffles: usize,
    /// Seeds the shuffles and the Bradley–Terry bootstrap.
    pub seed: u64,
    /// Bradley–Terry bootstrap resamples.
    pub resamples: usize,
    pub ties: TieConvention,
    /// How many seeds (`seed`, `seed + 1`, …) the Elo seed spread uses; below 2 it is not
    /// computed.
    pub seeds: usize,
    /// The corrected win rate's labelled pairs: `Some(k)` keeps the human labels of k pairs
    /// (a choice seeded by `seed`, the same pairs for every evaluator) and treats the rest as
    /// unlabelled; `None`: every label. Absent in snapshots written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labelled: Option<usize>,
}

impl Default for Settings {
    /// The paper's rules (K = 4, initial 1000, scale 400, base 10, 200 shuffles), 200
    /// bootstrap resamples, the paper's tie convention, a seed spread over 5 seeds, and every
    /// human label kept.
    fn default() -> Settings {
        let p = EloParams::default();
        Settings {
            k: p.k,
            init: p.init,
            scale: p.scale,
            base: p.base,
            shuffles: 200,
            seed: 0,
            resamples: 200,
            ties: TieConvention::Zero,
            seeds: 5,
            labelled: None,
        }
    }
}

impl Settings {
    /// Elo's options (one seed; the seed spread is computed apart).
    pub fn elo(&self) -> EloOptions {
        EloOptions {
            params: EloParams { k: self.k, init: self.init, scale: self.scale, base: self.base },
            shuffles: self.shuffles,
            seed: self.seed,
            seeds: 0,
        }
    }
}

/// The most shuffles and resamples the controls accept (a few seconds of work).
pub const MAX_DRAWS: usize = 5000;

/// The seed spread's range of seeds.
pub const SEEDS: std::ops::RangeInclusive<usize> = 2..=50;

/// Why a control's text is not a setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    #[error("{field} must be a number")]
    NotANumber { field: &'static str },
    #[error("{field} must be a whole number from {min} to {max}")]
    NotACount { field: &'static str, min: usize, max: usize },
    #[error("Scale must be positive")]
    ScaleNotPositive,
    #[error("Seed must be a whole number")]
    NotASeed,
    #[error("Labelled pairs must be `all` or a whole number of pairs")]
    NotALabelledCount,
}

/// The controls' text, as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controls {
    pub k: String,
    pub init: String,
    pub scale: String,
    pub shuffles: String,
    pub seed: String,
    pub resamples: String,
}

impl Controls {
    /// The controls showing `s`.
    pub fn of(s: &Settings) -> Controls {
        Controls {
            k: s.k.to_string(),
            init: s.init.to_string(),
            scale: s.scale.to_string(),
            shuffles: s.shuffles.to_string(),
            seed: s.seed.to_string(),
            resamples: s.resamples.to_string(),
        }
    }

    /// The settings the controls say, the rest (base, tie convention, seeds) from `rest`.
    pub fn read(&self, rest: &Settings) -> Result<Settings, SettingsError> {
        let number = |s: &str, field| parse_number(s).ok_or(SettingsError::NotANumber { field });
        let count = |s: &str, field| parse_count(s, field, 0..=MAX_DRAWS);
        let k = number(&self.k, "K")?;
        let init = number(&self.init, "Initial rating")?;
        let scale = number(&self.scale, "Scale")?;
        if scale <= 0.0 {
            return Err(SettingsError::ScaleNotPositive);
        }
        let seed = self.seed.trim().parse::<u64>().map_err(|_| SettingsError::NotASeed)?;
        Ok(Settings {
            k,
            init,
            scale,
            shuffles: count(&self.shuffles, "Shuffles")?,
            seed,
            resamples: count(&self.resamples, "Bootstrap resamples")?,
            ..*rest
        })
    }
}

/// The value of a number control, if it parses and is finite.
pub fn parse_number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A whole number in `range`, or the error naming `field`.
pub fn parse_count(
    s: &str,
    field: &'static str,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize, SettingsError> {
    s.trim().parse::<usize>().ok().filter(|n| range.contains(n)).ok_or(SettingsError::NotACount {
        field,
        min: *range.start(),
        max: *range.end(),
    })
}

/// The "Labelled pairs" control (and `concord meta --labelled`): `all` (or nothing) keeps
/// every human label, a whole number that many.
pub fn parse_labelled(s: &str) -> Result<Option<usize>, SettingsError> {
    match s.trim() {
        "" => Ok(None),
        all if all.eq_ignore_ascii_case("all") => Ok(None),
        n => n.parse::<usize>().map(Some).map_err(|_| SettingsError::NotALabelledCount),
    }
}

/// What the "Labelled pairs" control shows for `labelled`.
pub fn labelled_text(labelled: Option<usize>) -> String {
    labelled.map_or_else(|| "all".to_owned(), |k| k.to_string())
}

/// The seed spread's "Seeds" control.
pub fn parse_seeds(s: &str) -> Result<usize, SettingsError> {
    parse_count(s, "Seeds", SEEDS)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

    use super::*;

    #[test]
    fn controls_read_and_say_what_is_wrong() {
        let d = Settings::default();
        let c = Controls::of(&d);
        assert_eq!(c.k, "4");
        assert_eq!(c.read(&d), Ok(d));
        let bad = |edit: fn(&mut Controls)| {
            let mut c = Controls::of(&d);
            edit(&mut c);
            c.read(&d).unwrap_err().to_string()
        };
        assert_eq!(bad(|c| c.k = "x".into()), "K must be a number");
        assert_eq!(bad(|c| c.scale = "0".into()), "Scale must be positive");
        assert_eq!(
            bad(|c| c.shuffles = "5001".into()),
            "Shuffles must be a whole number from 0 to 5000"
        );
        assert_eq!(bad(|c| c.seed = "-1".into()), "Seed must be a whole number");
        assert_eq!(
            parse_seeds("1").unwrap_err().to_string(),
            "Seeds must be a whole number from 2 to 50"
        );
        assert_eq!(parse_seeds(" 7 "), Ok(7));
        assert_eq!(parse_number(" 4 "), Some(4.0));
        assert_eq!(parse_number("inf"), None);
        assert_eq!(parse_labelled(" 50 "), Ok(Some(50)));
        assert_eq!(parse_labelled("All"), Ok(None));
        assert_eq!(parse_labelled(""), Ok(None));
        assert_eq!(
            parse_labelled("-3").unwrap_err().to_string(),
            "Labelled pairs must be `all` or a whole number of pairs"
        );
        assert_eq!(labelled_text(Some(50)), "50");
        assert_eq!(labelled_text(None), "all");
        // A snapshot written before the setting keeps every label, and one that keeps every
        // label is written as before.
        let json = serde_json::to_string(&d).unwrap();
        assert!(!json.contains("labelled"));
        let old: Settings = serde_json::from_str(&json).unwrap();
        assert_eq!(old.labelled, None);
        let some = Settings { labelled: Some(50), ..d };
        let back: Settings = serde_json::from_str(&serde_json::to_string(&some).unwrap()).unwrap();
        assert_eq!(back, some);
        assert_eq!(TieConvention::from_id("half"), TieConvention::Half);
        assert_eq!(TieConvention::from_id("?"), TieConvention::Zero);
    }
}
