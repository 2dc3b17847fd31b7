//! Williams' (1959) test for two dependent correlations sharing the human variable (§7), as
//! used by Graham & Baldwin (2014) and R `psych::r.test`, with df = n − 3.

use super::basics::{Score, Undefined, is_positive};
use super::correlation::pearson_clean;
use statrs::function::beta::checked_beta_reg;

/// Result of Williams' test. `t` and the p-values are `None` when undefined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Williams {
    /// r(human, A), r(human, B), r(A, B).
    pub r12: Option<f64>,
    pub r13: Option<f64>,
    pub r23: Option<f64>,
    pub n: usize,
    /// Degrees of freedom, n − 3.
    pub df: Option<usize>,
    pub t: Option<f64>,
    /// P(T > t): "A correlates better with humans than B". Primary.
    pub p_greater: Option<f64>,
    /// P(T > |t|): psych `r.test(twotailed=FALSE)`, mtme `WilliamsTest(one_sided=True)`.
    pub p_abs_one_sided: Option<f64>,
    /// 2·P(T > |t|), capped at 1.
    pub p_two_sided: Option<f64>,
    pub undefined: Option<Undefined>,
}

/// Williams' test from the three correlations and the number of items.
pub fn williams(r12: f64, r13: f64, r23: f64, n: usize) -> Williams {
    let mut out = Williams {
        r12: Some(r12),
        r13: Some(r13),
        r23: Some(r23),
        n,
        df: None,
        t: None,
        p_greater: None,
        p_abs_one_sided: None,
        p_two_sided: None,
        undefined: None,
    };
    if n <= 3 {
        out.undefined = Some(Undefined::TooFewItems { n, needed: 4 });
        return out;
    }
    let nf = n as f64;
    let k = 1.0 - r12 * r12 - r13 * r13 - r23 * r23 + 2.0 * r12 * r13 * r23;
    let rbar = (r12 + r13) / 2.0;
    let denominator = 2.0 * k * (nf - 1.0) / (nf - 3.0) + rbar * rbar * (1.0 - r23).powi(3);
    if !is_positive(denominator) || (1.0 + r23).is_nan() || 1.0 + r23 < 0.0 {
        out.undefined = Some(Undefined::DegenerateDenominator);
        return out;
    }
    let t = (r12 - r13) * ((nf - 1.0) * (1.0 + r23)).sqrt() / denominator.sqrt();
    let df = n - 3;
    let upper = student_t_upper(t.abs(), df as f64);
    let (Some(upper), false) = (upper, t.is_nan()) else {
        out.undefined = Some(Undefined::DegenerateDenominator);
        return out;
    };
    out.df = Some(df);
    out.t = Some(t);
    out.p_greater = Some(if t >= 0.0 { upper } else { 1.0 - upper });
    out.p_abs_one_sided = Some(upper);
    out.p_two_sided = Some((2.0 * upper).min(1.0));
    out
}

/// Williams' test on raw vectors: items missing in any of the three are dropped first.
pub fn williams_vectors<S: Score>(human: &[S], metric_a: &[S], metric_b: &[S]) -> Williams {
    let (mut h, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for ((x, y), z) in human.iter().zip(metric_a).zip(metric_b) {
        if let (Some(x), Some(y), Some(z)) = (x.get(), y.get(), z.get()) {
            h.push(x);
            a.push(y);
            b.push(z);
        }
    }
    let n = h.len();
    let (r12, r13, r23) = (pearson_clean(&h, &a), pearson_clean(&h, &b), pearson_clean(&a, &b));
    match (r12.value, r13.value, r23.value) {
        (Some(r12), Some(r13), Some(r23)) => williams(r12, r13, r23, n),
        _ => {
            let why = [r12, r13, r23]
                .iter()
                .find_map(|r| r.undefined)
                .unwrap_or(Undefined::DegenerateDenominator);
            Williams {
                r12: r12.value,
                r13: r13.value,
                r23: r23.value,
                n,
                df: None,
                t: None,
                p_greater: None,
                p_abs_one_sided: None,
                p_two_sided: None,
                undefined: Some(why),
            }
        }
    }
}

/// P(T_df > t) for t ≥ 0: `I_{df/(df+t²)}(df/2, 1/2) / 2`.
pub(crate) fn student_t_upper(t: f64, df: f64) -> Option<f64> {
    if t.is_infinite() {
        return Some(0.0);
    }
    let x = df / (df + t * t);
    checked_beta_reg(df / 2.0, 0.5, x).ok().map(|p| (p / 2.0).clamp(0.0, 0.5))
}
