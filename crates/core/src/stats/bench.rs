//! The benchmark workload, as pure functions so native (`cargo bench`) and wasm (the browser
//! harness) time exactly the same computations: [`bench_inputs`] makes seeded inputs,
//! [`BenchCase::run`] computes one statistic, [`bench_suite`] runs them all.
//!
//! The core has no clock (wasm32 has no `Instant`); callers time each [`BenchCase::run`].

use super::agreement::{KrippendorffLevel, krippendorff_alpha};
use super::correlation::{kendall_ranked, pearson_clean, spearman_ranked};
use super::rank::Ranking;
use super::resample::{Level, ResampleStat, Triples, bootstrap_triples, draw_boot_indices};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Seeded inputs of size n.
#[derive(Debug, Clone)]
pub struct BenchInputs {
    /// Continuous human and metric scores (metric = human + noise).
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// The same rounded to a 1–5 Likert scale (heavy ties).
    pub x_likert: Vec<f64>,
    pub y_likert: Vec<f64>,
    /// 3 raters × n units, Likert 1–5, 10 % missing.
    pub ratings: Vec<Vec<Option<f64>>>,
    /// A second metric for the paired bootstrap.
    pub z: Vec<f64>,
    pub seed: u64,
}

fn unit(rng: &mut ChaCha8Rng) -> f64 {
    // 53 random bits → [0, 1).
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn likert(v: f64) -> f64 {
    (v * 5.0).floor().clamp(0.0, 4.0) + 1.0
}

/// Inputs for [`bench_suite`], reproducible from `seed` on every platform.
pub fn bench_inputs(n: usize, seed: u64) -> BenchInputs {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n).map(|_| unit(&mut rng)).collect();
    let y: Vec<f64> = x.iter().map(|&v| 0.7 * v + 0.3 * unit(&mut rng)).collect();
    let z: Vec<f64> = x.iter().map(|&v| 0.5 * v + 0.5 * unit(&mut rng)).collect();
    let ratings = (0..3)
        .map(|_| {
            x.iter()
                .map(|&v| {
                    let missing = unit(&mut rng) < 0.1;
                    (!missing).then(|| likert(0.8 * v + 0.2 * unit(&mut rng)))
                })
                .collect()
        })
        .collect();
    BenchInputs {
        x_likert: x.iter().map(|&v| likert(v)).collect(),
        y_likert: y.iter().map(|&v| likert(v)).collect(),
        x,
        y,
        z,
        ratings,
        seed,
    }
}

/// One timed computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BenchCase {
    Pearson,
    Spearman,
    KendallB,
    KendallBLikert,
    KendallC,
    KrippendorffNominal,
    KrippendorffOrdinal,
    KrippendorffInterval,
    /// 1,000 item resamples, Pearson + τ-b for two metrics (uses the first 1,600 items).
    Bootstrap,
    /// 1,000 group resamples of 100 documents × 16 systems, Pearson + τ-b.
    GroupBootstrap,
}

impl BenchCase {
    /// Every case, in table order.
    pub const ALL: [BenchCase; 10] = [
        BenchCase::Pearson,
        BenchCase::Spearman,
        BenchCase::KendallB,
        BenchCase::KendallBLikert,
        BenchCase::KendallC,
        BenchCase::KrippendorffNominal,
        BenchCase::KrippendorffOrdinal,
        BenchCase::KrippendorffInterval,
        BenchCase::Bootstrap,
        BenchCase::GroupBootstrap,
    ];

    /// Stable name shared with the scipy script.
    pub fn name(self) -> &'static str {
        match self {
            BenchCase::Pearson => "pearson",
            BenchCase::Spearman => "spearman",
            BenchCase::KendallB => "kendall_b",
            BenchCase::KendallBLikert => "kendall_b_likert",
            BenchCase::KendallC => "kendall_c",
            BenchCase::KrippendorffNominal => "kripp_nominal",
            BenchCase::KrippendorffOrdinal => "kripp_ordinal",
            BenchCase::KrippendorffInterval => "kripp_interval",
            BenchCase::Bootstrap => "bootstrap_1000x1600",
            BenchCase::GroupBootstrap => "group_bootstrap_1000x100x16",
        }
    }

    /// Whether the case depends on n (the two bootstraps have fixed sizes).
    pub fn scales_with_n(self) -> bool {
        !matches!(self, BenchCase::Bootstrap | BenchCase::GroupBootstrap)
    }

    /// Run the computation and return its main value (so it cannot be optimised away, and so
    /// native, wasm and scipy results can be compared).
    pub fn run(self, input: &BenchInputs) -> f64 {
        let value = match self {
            BenchCase::Pearson => pearson_clean(&input.x, &input.y).value,
            BenchCase::Spearman => {
                spearman_ranked(&Ranking::new(&input.x), &Ranking::new(&input.y)).value
            }
            BenchCase::KendallB => {
                kendall_ranked(&Ranking::new(&input.x), &Ranking::new(&input.y)).tau_b.value
            }
            BenchCase::KendallBLikert => {
                let (rx, ry) = (Ranking::new(&input.x_likert), Ranking::new(&input.y_likert));
                kendall_ranked(&rx, &ry).tau_b.value
            }
            BenchCase::KendallC => {
                kendall_ranked(&Ranking::new(&input.x), &Ranking::new(&input.y)).tau_c.value
            }
            BenchCase::KrippendorffNominal => {
                krippendorff_alpha(&input.ratings, KrippendorffLevel::Nominal).value
            }
            BenchCase::KrippendorffOrdinal => {
                krippendorff_alpha(&input.ratings, KrippendorffLevel::Ordinal).value
            }
            BenchCase::KrippendorffInterval => {
                krippendorff_alpha(&input.ratings, KrippendorffLevel::Interval).value
            }
            BenchCase::Bootstrap => {
                let n = input.x.len().min(1600);
                let t = Triples::new(&input.x[..n], &input.y[..n], &input.z[..n], None);
                let draws = draw_boot_indices(n, 1000, input.seed);
                let mut acc = 0.0;
                for stat in [ResampleStat::Pearson, ResampleStat::KendallB] {
                    if let Ok(b) = bootstrap_triples(&t, stat, Level::Dataset, 0.95, &draws) {
                        acc += b.ci_delta.map_or(0.0, |c| c[0] + c[1]);
                    }
                }
                Some(acc)
            }
            BenchCase::GroupBootstrap => {
                let n = input.x.len().min(1600);
                let groups: Vec<usize> = (0..n).map(|i| i / 16).collect();
                let t = Triples::new(&input.x[..n], &input.y[..n], &input.z[..n], Some(&groups));
                let draws = draw_boot_indices(t.groups.len(), 1000, input.seed);
                let mut acc = 0.0;
                for stat in [ResampleStat::Pearson, ResampleStat::KendallB] {
                    if let Ok(b) = bootstrap_triples(&t, stat, Level::Group, 0.95, &draws) {
                        acc += b.ci_delta.map_or(0.0, |c| c[0] + c[1]);
                    }
                }
                Some(acc)
            }
        };
        value.unwrap_or(f64::NAN)
    }
}

/// Run every case once on inputs of size n; returns (name, value) pairs.
pub fn bench_suite(n: usize, seed: u64) -> Vec<(&'static str, f64)> {
    let input = bench_inputs(n, seed);
    BenchCase::ALL.iter().map(|c| (c.name(), c.run(&input))).collect()
}
