//! The public statistics API as the judging engine calls it: `&[Option<f64>]` and `&[f64]`
//! (NaN = missing) slices, group ids, explicit resamples. Values pinned to STATS_SPEC's worked
//! examples and to scipy 1.17.1.

use concord_core::stats::{
    EloParams, GroupOptions, Level, Match, NullOutcome, Outcome, ResampleInput, ResampleStat,
    Undefined, bootstrap, bradley_terry, draw_boot_indices, group_correlations, kendall, pearson,
    permutation_test, spearman, system_correlations, williams_vectors,
};

/// |got − expected| ≤ tol, with a message naming the quantity.
fn check(what: &str, got: Option<f64>, expected: f64, tol: f64) {
    let got = got.unwrap_or_else(|| panic!("{what}: undefined, expected {expected}"));
    assert!((got - expected).abs() <= tol, "{what}: got {got}, expected {expected}");
}

#[test]
fn option_and_nan_slices_delete_pairwise() {
    // Spec E5: x = 1,·,3,4,5,6; y = 2,2,·,5,4,6 → n = 4.
    let x = [Some(1.0), None, Some(3.0), Some(4.0), Some(5.0), Some(6.0)];
    let y = [2.0, 2.0, f64::NAN, 5.0, 4.0, 6.0];
    let r = pearson(&x, &y);
    assert_eq!(r.n, 4);
    check("E5 pearson r", r.value, 0.9035079029052514, 1e-12);
    check("E5 pearson p", r.p_value, 0.09649209709474871, 1e-9);
    check("E5 spearman", spearman(&x, &y).value, 0.8, 1e-12);
    check("E5 kendall tau-b", kendall(&x, &y).tau_b.value, 0.6666666666666669, 1e-12);
}

#[test]
fn undefined_values_carry_a_reason() {
    let r = pearson(&[3.0, 3.0, 3.0], &[1.0, 2.0, 3.0]);
    assert_eq!((r.value, r.undefined), (None, Some(Undefined::ConstantX)));
    let r = spearman(&[1.0], &[2.0]);
    assert_eq!(r.undefined, Some(Undefined::TooFewItems { n: 1, needed: 2 }));
    assert_eq!(
        r.undefined.map(|u| u.to_string()).as_deref(),
        Some("needs at least 2 paired items, has 1")
    );
}

#[test]
fn document_level_uses_string_group_ids() {
    // Spec E6.
    let x = [1., 2., 3., 4., 3., 3., 3., 3., 5., 4., f64::NAN, 2., 2., 1.];
    let y = [0.2, 0.1, 0.5, 0.9, 0.3, 0.6, 0.2, 0.8, 0.9, 0.7, 0.5, 0.6, 0.4, 0.4];
    let docs = ["d1", "d1", "d1", "d1", "d2", "d2", "d2", "d2", "d3", "d3", "d3", "d3", "d4", "d4"];
    let options = GroupOptions { kendall_like_thresh: 1.0, epsilon: 0.0 };
    let g = group_correlations(&x, &y, &docs, &options);
    assert_eq!(g.group_sizes_used, vec![4, 4, 3, 2]);
    check("E6 pearson mean", g.pearson.mean, 0.9132989693526514, 1e-12);
    check("E6 pearson nan-as-zero", g.pearson.mean_nan_as_zero, 0.4566494846763257, 1e-12);
    assert_eq!(g.pearson.n_valid, 2);
    check("E6 kendall-like micro", g.kendall_like_micro, 0.6, 1e-12);
}

#[test]
fn system_level_correlates_system_means() {
    // scipy.stats.pearsonr / kendalltau on the per-system means [1.5, 3.5, 3, 4.33], [.2, .65, .47, .5].
    let x = [1., 2., 3., f64::NAN, 5., 2., 4., 4., 1., 3., 5., 5.];
    let y = [0.1, 0.3, f64::NAN, 0.2, 0.9, 0.4, 0.5, 0.7, 0.2, 0.1, 0.8, 0.6];
    let systems = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4];
    let s = system_correlations(&x, &y, &systems, &GroupOptions::default());
    assert_eq!(s.system_ids, vec![1, 2, 3, 4]);
    check("system pearson", s.correlations.pearson.value, 0.8079743418919171, 1e-12);
    check("system pearson p", s.correlations.pearson.p_value, 0.1920256581080828, 1e-9);
    check("system tau-b", s.correlations.kendall.tau_b.value, 0.6666666666666669, 1e-12);
}

#[test]
fn williams_on_vectors() {
    // Spec E9c.
    let h: Vec<f64> = (1..=8).map(f64::from).collect();
    let a = [1.1, 1.9, 3.2, 3.8, 5.3, 5.9, 7.2, 7.7];
    let b = [2., 1., 3., 5., 4., 7., 6., 8.];
    let w = williams_vectors(&h, &a, &b);
    check("E9c t", w.t, 4.55732594631661, 1e-9);
    check("E9c p_greater", w.p_greater, 0.0030358596298481495, 1e-9);
}

#[test]
fn resampling_on_given_and_seeded_indices() {
    // Spec E10.
    let h = [1., 2., 3., 4., 5., 6.];
    let a = [1.0, 2.5, 2.0, 4.5, 5.0, 6.5];
    let b = [10., 30., 20., 40., 70., 50.];
    let input = ResampleInput { human: &h, metric_a: &a, metric_b: &b, groups: None };
    let draws = vec![
        vec![0, 1, 2, 3, 4, 5],
        vec![0, 0, 2, 3, 5, 5],
        vec![1, 1, 1, 4, 4, 5],
        vec![0, 2, 2, 3, 3, 4],
        vec![5, 4, 3, 2, 1, 0],
        vec![0, 1, 1, 2, 5, 5],
    ];
    let boot = bootstrap(&input, ResampleStat::Pearson, Level::Dataset, 0.8, &draws)
        .expect("indices are in range");
    let ci = boot.ci_delta.expect("defined");
    check("E10 ci_delta low", Some(ci[0]), 0.009568515672912946, 1e-9);
    check("E10 ci_delta high", Some(ci[1]), 0.1376860122008074, 1e-9);
    let masks: Vec<Vec<bool>> = ["000000", "101010", "110011", "011100"]
        .iter()
        .map(|m| m.chars().map(|c| c == '1').collect())
        .collect();
    let perm = permutation_test(&input, ResampleStat::KendallB, Level::Dataset, &masks)
        .expect("masks fit");
    check("E10 tau-b perm p_greater", perm.p_greater, 0.5, 0.0);
    check("E10 tau-b perm p_two_sided", perm.p_two_sided, 0.75, 0.0);
    // Seeded draws are reproducible and in range.
    let seeded = draw_boot_indices(6, 50, 42);
    assert_eq!(seeded, draw_boot_indices(6, 50, 42));
    assert!(seeded.iter().flatten().all(|&i| i < 6));
    assert_ne!(seeded, draw_boot_indices(6, 50, 43));
}

#[test]
fn bradley_terry_existence() {
    // Spec E15b: m1 undefeated → no finite MLE; the L2 variant exists.
    let games = [(0, 1, Outcome::AWins), (1, 2, Outcome::Tie), (0, 2, Outcome::AWins)]
        .map(|(a, b, o)| Match { a, b, outcome: Some(o) });
    let params = EloParams::default();
    let plain = bradley_terry(3, &games, NullOutcome::Tie, 0.0, &params);
    assert_eq!((plain.ratings, plain.undefined), (None, Some(Undefined::NoFiniteMle)));
    let l2 = bradley_terry(3, &games, NullOutcome::Tie, 0.01, &params).ratings.expect("exists");
    check("E15b bt_l2 m1", Some(l2[0]), 1491.5082120683226, 1e-6);
    check("E15b bt_l2 m2", Some(l2[1]), 754.2458939658387, 1e-6);
}
