//! Repeat-run stability of a judge (STATS_SPEC §16.4): a judge's N samples per item (or N
//! repeated runs) are N raters of the same items. Stability is Krippendorff's α (§10) over the
//! samples × items matrix, and the flip rate is the share of (item, pair of samples) whose
//! ratings differ, over items with two or more parsed samples, with a Wilson interval (§15.1)
//! on the pair count. Shown beside the humans' agreement with each other, it makes visible a
//! judge that agrees with itself less than people agree with each other.

use super::agreement::{KrippendorffLevel, krippendorff_alpha};
use super::audit::{AuditError, Proportion, wilson};
use super::basics::Estimate;

/// A judge's agreement with itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Stability {
    pub level: KrippendorffLevel,
    /// α among the samples.
    pub alpha: Estimate,
    /// Items with two or more parsed samples.
    pub n_items: usize,
    /// Pairs of samples of the same item (Σ C(m_i, 2)).
    pub pairs: usize,
    /// Of those, pairs whose ratings differ.
    pub flips: usize,
    /// flips / pairs with its Wilson interval.
    pub flip_rate: Proportion,
}

/// Stability of the samples × items matrix `samples` (`None`/NaN: no parsed rating).
pub fn stability(
    samples: &[Vec<Option<f64>>],
    level: KrippendorffLevel,
    confidence: f64,
) -> Result<Stability, AuditError> {
    let n_units = samples.iter().map(Vec::len).max().unwrap_or(0);
    let (mut n_items, mut pairs, mut same) = (0usize, 0usize, 0usize);
    let mut unit: Vec<f64> = Vec::with_capacity(samples.len());
    for u in 0..n_units {
        unit.clear();
        unit.extend(
            samples.iter().filter_map(|s| s.get(u).copied().flatten()).filter(|v| !v.is_nan()),
        );
        let m = unit.len();
        if m < 2 {
            continue;
        }
        n_items += 1;
        pairs += m * (m - 1) / 2;
        unit.sort_by(f64::total_cmp);
        let mut i = 0;
        while i < m {
            let mut j = i;
            while j < m && unit[j] == unit[i] {
                j += 1;
            }
            let c = j - i;
            same += c * (c - 1) / 2;
            i = j;
        }
    }
    let flips = pairs - same;
    Ok(Stability {
        level,
        alpha: krippendorff_alpha(samples, level),
        n_items,
        pairs,
        flips,
        flip_rate: wilson(flips, pairs, confidence)?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn flips_count_differing_pairs_of_samples() {
        // Item 0: 3, 3, 4 → 3 pairs, 2 differ. Item 1: 5, 5 → 1 pair, 0 differ. Item 2: one
        // sample → not counted.
        let samples = vec![
            vec![Some(3.0), Some(5.0), Some(1.0)],
            vec![Some(3.0), Some(5.0), None],
            vec![Some(4.0), None, None],
        ];
        let s = stability(&samples, KrippendorffLevel::Interval, 0.95).unwrap();
        assert_eq!((s.n_items, s.pairs, s.flips), (2, 4, 2));
        assert_eq!(s.flip_rate.p, Some(0.5));
        assert_eq!(s.alpha, krippendorff_alpha(&samples, KrippendorffLevel::Interval));
        // A judge whose samples always agree never flips (α undefined: one value per item).
        let steady = vec![vec![Some(2.0), Some(2.0)], vec![Some(2.0), Some(2.0)]];
        let s = stability(&steady, KrippendorffLevel::Nominal, 0.95).unwrap();
        assert_eq!((s.pairs, s.flips), (2, 0));
        assert_eq!(s.flip_rate.ci.unwrap()[0], 0.0);
        assert!(s.alpha.value.is_none());
        // No item with two samples: the rate is undefined, not 0.
        let thin = vec![vec![Some(1.0), None]];
        let s = stability(&thin, KrippendorffLevel::Interval, 0.95).unwrap();
        assert_eq!(s.pairs, 0);
        assert_eq!(s.flip_rate.p, None);
    }
}
