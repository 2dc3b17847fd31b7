//! The one agreement of a rating vector with a reference (the human aggregate, an exercise's
//! reference): Pearson r, Kendall τ-b and Krippendorff's interval α, each with a seeded
//! percentile bootstrap interval over the items. A reviewed judge before and after its
//! corrections ([`super::review::measure`]), each student and each student's run in the class
//! view ([`crate::study::exercise::class`]) are measured by it.

use crate::stats::{self, KrippendorffLevel};

/// Agreement of one rating vector with the human aggregate, each with a percentile bootstrap
/// interval over the items (`None` when undefined, or undefined on every resample).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agreement {
    /// Items with both a human rating and a rating.
    pub n: usize,
    pub pearson: Option<f64>,
    pub pearson_ci: Option<[f64; 2]>,
    pub kendall_b: Option<f64>,
    pub kendall_ci: Option<[f64; 2]>,
    /// Krippendorff's α (interval) between the human aggregate and the rating.
    pub alpha: Option<f64>,
    pub alpha_ci: Option<[f64; 2]>,
}

/// How the intervals are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resampling {
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
}

fn alpha_of(h: &[f64], s: &[f64]) -> Option<f64> {
    let two = vec![
        h.iter().map(|&x| Some(x)).collect::<Vec<_>>(),
        s.iter().map(|&x| Some(x)).collect::<Vec<_>>(),
    ];
    stats::krippendorff_alpha(&two, KrippendorffLevel::Interval).value
}

/// Pearson r, Kendall τ-b and interval α of `scores` against `human`, with intervals.
pub fn agreement(human: &[Option<f64>], scores: &[Option<f64>], r: Resampling) -> Agreement {
    let (h, s): (Vec<f64>, Vec<f64>) =
        human.iter().zip(scores).filter_map(|(h, s)| Some(((*h)?, (*s)?))).unzip();
    let pearson = stats::pearson(&h, &s).value;
    let kendall_b = stats::kendall(&h, &s).tau_b.value;
    let alpha = alpha_of(&h, &s);
    let mut draws: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    if h.len() >= 3 {
        for idx in stats::BootIndices::new(h.len(), r.resamples, r.seed) {
            let hb: Vec<f64> = idx.iter().map(|&i| h[i]).collect();
            let sb: Vec<f64> = idx.iter().map(|&i| s[i]).collect();
            let values = [
                stats::pearson(&hb, &sb).value,
                stats::kendall(&hb, &sb).tau_b.value,
                alpha_of(&hb, &sb),
            ];
            for (d, v) in draws.iter_mut().zip(values) {
                if let Some(v) = v {
                    d.push(v);
                }
            }
        }
    }
    let ci = |value: Option<f64>, d: &mut Vec<f64>| {
        value?;
        // An interval from fewer than half the resamples would hide how unstable it is.
        if d.len() * 2 < r.resamples.max(1) {
            return None;
        }
        d.sort_unstable_by(f64::total_cmp);
        let tail = (1.0 - r.confidence) / 2.0;
        Some([stats::quantile_sorted(d, tail), stats::quantile_sorted(d, 1.0 - tail)])
    };
    let [dp, dk, da] = &mut draws;
    Agreement {
        n: h.len(),
        pearson_ci: ci(pearson, dp),
        kendall_ci: ci(kendall_b, dk),
        alpha_ci: ci(alpha, da),
        pearson,
        kendall_b,
        alpha,
    }
}
