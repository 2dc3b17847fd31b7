//! Ranking of score vectors (dense and average ranks, tie-group sums) and a Fenwick tree.
//!
//! Every rank-based statistic sorts each vector once; [`Ranking`] keeps everything the
//! statistics need from that sort so Spearman and Kendall share it.

/// The ranks of one vector, computed with one sort.
#[derive(Debug, Clone)]
pub(crate) struct Ranking {
    /// Dense rank of each item, 0-based: equal values share a rank, ranks are consecutive.
    pub dense: Vec<u32>,
    /// Number of distinct values.
    pub distinct: usize,
    /// Size of each tie group (one entry per distinct value, in value order).
    pub group_sizes: Vec<u32>,
    /// Item indices in increasing value order (ties in unspecified order); empty when not
    /// kept (see [`Ranking::sorted_order`]).
    pub order: Vec<u32>,
}

/// Up to this many distinct values a vector is ranked by coding instead of sorting.
const FEW_DISTINCT: usize = 64;

/// Sorted distinct values and each item's index into them, or `None` as soon as there are
/// more than `limit` distinct values (so continuous data bails out after a few items).
pub(crate) fn few_distinct(values: &[f64], limit: usize) -> Option<(Vec<f64>, Vec<u32>)> {
    let mut seen: Vec<f64> = Vec::new();
    let mut codes = Vec::with_capacity(values.len());
    let (mut last_value, mut last_code) = (f64::NAN, 0u32);
    for &v in values {
        let v = v + 0.0;
        if v == last_value {
            codes.push(last_code);
            continue;
        }
        let code = match seen.iter().position(|&s| s == v) {
            Some(p) => p,
            None if seen.len() == limit => return None,
            None => {
                seen.push(v);
                seen.len() - 1
            }
        } as u32;
        (last_value, last_code) = (v, code);
        codes.push(code);
    }
    let mut by_value: Vec<usize> = (0..seen.len()).collect();
    by_value.sort_unstable_by(|&a, &b| seen[a].total_cmp(&seen[b]));
    let mut remap = vec![0u32; seen.len()];
    for (rank, &i) in by_value.iter().enumerate() {
        remap[i] = rank as u32;
    }
    for c in &mut codes {
        *c = remap[*c as usize];
    }
    Some((by_value.iter().map(|&i| seen[i]).collect(), codes))
}

/// From this length on the radix sort beats the comparison sort natively. In wasm32 the
/// comparison sort is never slower (V8, n = 1,600 to 10⁶) and at n = 1,600 the radix sort takes
/// about 2–3× its native time against 1.1× for the comparison sort, which made τ-b the one
/// statistic beyond 2× of native in the browser (`benches/README.md`). Both orders are the
/// same; only the speed differs.
const RADIX_MIN_LEN: usize = 256;
/// Whether the radix sort is used at all on this target (not in wasm32, see above).
const USE_RADIX: bool = !cfg!(target_arch = "wasm32");

/// A `u64` whose integer order is the numeric order of `v` (no NaN); −0.0 and 0.0 map to the
/// same key, as `==` says they are equal. Flipping the sign bit of non-negative values and
/// every bit of negative ones is the usual total-order transform of IEEE 754 bit patterns.
#[inline]
fn order_key(v: f64) -> u64 {
    let bits = (v + 0.0).to_bits();
    let mask = ((bits as i64 >> 63) as u64) | (1 << 63);
    bits ^ mask
}

impl Ranking {
    /// Rank `values` (no NaN; ties by `f64` equality, so −0.0 ties with 0.0).
    pub fn new(values: &[f64]) -> Ranking {
        // Rating scales have a handful of distinct values: code them in one pass and place
        // items by counting sort instead of sorting.
        if let Some((distinct, codes)) = few_distinct(values, FEW_DISTINCT) {
            return Ranking::from_codes(&codes, distinct.len());
        }
        let n = values.len();
        // Sorting (key, index) pairs keeps the sort on contiguous memory, which is much faster
        // than sorting indices that point back into `values`. The key is the value's bit
        // pattern mapped so that integer order is numeric order ([`order_key`]); comparing
        // integers is cheaper than `f64::total_cmp`, in wasm32 too.
        let mut keyed: Vec<(u64, u32)> =
            values.iter().enumerate().map(|(i, &v)| (order_key(v), i as u32)).collect();
        if USE_RADIX && n >= RADIX_MIN_LEN {
            radsort::sort_by_key(&mut keyed, |p| p.0);
        } else {
            keyed.sort_unstable_by_key(|p| p.0);
        }
        let mut dense = vec![0u32; n];
        let mut group_sizes = Vec::new();
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && keyed[end].0 == keyed[start].0 {
                end += 1;
            }
            let rank = group_sizes.len() as u32;
            for &(_, i) in &keyed[start..end] {
                dense[i as usize] = rank;
            }
            group_sizes.push((end - start) as u32);
            start = end;
        }
        let order = keyed.into_iter().map(|(_, i)| i).collect();
        Ranking { dense, distinct: group_sizes.len(), group_sizes, order }
    }

    /// Rank values that are already small integers 0..k (dense ranks of a resample, say).
    pub fn from_codes(codes: &[u32], k: usize) -> Ranking {
        let mut counts = vec![0u32; k];
        for &c in codes {
            counts[c as usize] += 1;
        }
        // Re-densify: a resample may not contain every code.
        let mut remap = vec![0u32; k];
        let mut group_sizes = Vec::new();
        for (code, &count) in counts.iter().enumerate() {
            if count > 0 {
                remap[code] = group_sizes.len() as u32;
                group_sizes.push(count);
            }
        }
        let dense = codes.iter().map(|&c| remap[c as usize]).collect();
        // `order` is filled on demand by `sorted_order`: the contingency-table path of Kendall
        // and Spearman never need it.
        Ranking { dense, distinct: group_sizes.len(), group_sizes, order: Vec::new() }
    }

    /// Item indices in increasing value order (computed by counting sort when not kept).
    pub fn sorted_order(&self) -> Vec<u32> {
        if self.order.len() == self.dense.len() {
            return self.order.clone();
        }
        let mut next = Vec::with_capacity(self.distinct);
        let mut filled = 0u32;
        for &t in &self.group_sizes {
            next.push(filled);
            filled += t;
        }
        let mut order = vec![0u32; self.dense.len()];
        for (i, &r) in self.dense.iter().enumerate() {
            let slot = &mut next[r as usize];
            order[*slot as usize] = i as u32;
            *slot += 1;
        }
        order
    }

    /// Average ranks (1-based, ties get the mean of the ranks they span), as scipy's
    /// `rankdata(method='average')`.
    pub fn average(&self) -> Vec<f64> {
        let mut mid = Vec::with_capacity(self.group_sizes.len());
        let mut below = 0u64;
        for &t in &self.group_sizes {
            // Ranks below+1 ..= below+t; their mean is below + (t+1)/2.
            mid.push(below as f64 + (f64::from(t) + 1.0) / 2.0);
            below += u64::from(t);
        }
        self.dense.iter().map(|&r| mid[r as usize]).collect()
    }

    /// Σ t(t−1)/2 over tie groups: the number of tied pairs.
    pub fn tied_pairs(&self) -> u64 {
        self.group_sizes.iter().map(|&t| u64::from(t) * u64::from(t.saturating_sub(1)) / 2).sum()
    }

    /// The three tie sums of Kendall's variance (§3.2): Σ t(t−1)(2t+5), Σ t(t−1)(t−2), Σ t(t−1).
    pub fn variance_sums(&self) -> (f64, f64, f64) {
        let (mut v1, mut v2, mut v3) = (0.0, 0.0, 0.0);
        for &t in &self.group_sizes {
            if t > 1 {
                let t = f64::from(t);
                v1 += t * (t - 1.0) * (2.0 * t + 5.0);
                v2 += t * (t - 1.0) * (t - 2.0);
                v3 += t * (t - 1.0);
            }
        }
        (v1, v2, v3)
    }
}

/// A Fenwick (binary indexed) tree of counts over positions 0..len.
pub(crate) struct Fenwick {
    tree: Vec<u32>,
}

impl Fenwick {
    pub fn new(len: usize) -> Fenwick {
        Fenwick { tree: vec![0; len + 1] }
    }

    #[inline]
    pub fn add(&mut self, pos: usize) {
        let mut i = pos + 1;
        while i < self.tree.len() {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    /// Number of inserted positions `< end`.
    #[inline]
    pub fn count_below(&self, end: usize) -> u64 {
        let mut i = end.min(self.tree.len() - 1);
        let mut sum = 0u64;
        while i > 0 {
            sum += u64::from(self.tree[i]);
            i &= i - 1;
        }
        sum
    }
}

/// Indices 0..n ordered by (`primary`, `secondary`) value: the primary order with each run
/// of equal primary values sorted by the secondary rank.
pub(crate) fn order_by_ranks(primary: &Ranking, secondary: &Ranking) -> Vec<u32> {
    let mut order = primary.sorted_order();
    let mut start = 0;
    for &t in &primary.group_sizes {
        let run = &mut order[start..start + t as usize];
        if run.len() > 1 {
            run.sort_unstable_by_key(|&i| secondary.dense[i as usize]);
        }
        start += t as usize;
    }
    order
}

/// Number of pairs i < j with `seq[i] > seq[j]` (strictly); every value is below `distinct`.
///
/// One pass over a Fenwick tree of counts, no scratch buffer. It replaced a bottom-up merge
/// sort: on the benchmark's inputs it is faster at every size, about 2× at n = 1,600 natively
/// (3× in wasm32) and still 1.2–1.4× at 10⁵–10⁶, where the tree (4 bytes per value) outgrows
/// the L2 cache but its upper levels stay hot.
pub(crate) fn count_inversions(seq: &[u32], distinct: usize) -> u64 {
    let mut tree = Fenwick::new(distinct);
    let mut inversions = 0u64;
    for (seen, &r) in seq.iter().enumerate() {
        // Earlier values strictly greater than r: all seen minus those ≤ r.
        inversions += seen as u64 - tree.count_below(r as usize + 1);
        tree.add(r as usize);
    }
    inversions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_ranks_match_scipy_rankdata() {
        // scipy.stats.rankdata([3, 1, 3, 2, 3]) == [4., 1., 4., 2., 4.]
        let r = Ranking::new(&[3.0, 1.0, 3.0, 2.0, 3.0]);
        assert_eq!(r.average(), vec![4.0, 1.0, 4.0, 2.0, 4.0]);
        assert_eq!(r.dense, vec![2, 0, 2, 1, 2]);
        assert_eq!(r.tied_pairs(), 3);
    }

    #[test]
    fn inversions_match_naive_count() {
        let seq: Vec<u32> =
            (0..1000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 97).collect();
        let mut naive = 0u64;
        for i in 0..seq.len() {
            for j in i + 1..seq.len() {
                naive += u64::from(seq[i] > seq[j]);
            }
        }
        assert_eq!(count_inversions(&seq, 97), naive);
    }

    #[test]
    fn large_inputs_rank_like_small_inputs() {
        // Radix path (n ≥ 256) and comparison path agree.
        let v: Vec<f64> = (0..1000u64).map(|i| ((i * 7919) % 101) as f64 - 50.0).collect();
        let big = Ranking::new(&v);
        for (chunk, start) in v.chunks(100).zip((0..).step_by(100)) {
            let small = Ranking::new(chunk);
            for (i, &r) in small.dense.iter().enumerate() {
                for (j, &s) in small.dense.iter().enumerate() {
                    assert_eq!(r.cmp(&s), big.dense[start + i].cmp(&big.dense[start + j]));
                }
            }
        }
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let r = Ranking::new(&[0.0, -0.0, 1.0]);
        assert_eq!(r.distinct, 2);
    }
}
