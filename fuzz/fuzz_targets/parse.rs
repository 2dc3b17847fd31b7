//! Fuzzes the response parsers: every rating policy (with and without a scale), the verdict
//! tags, `tag`, numeric tags, MDEval questions, CoEval's criterion reading and the
//! meta-evaluation list splitter. The first byte picks the tag name and the scale.
#![no_main]

use concord_core::judge::parse::{self, Policy};
use concord_core::judge::{coeval, meta_eval};
use libfuzzer_sys::fuzz_target;

const TAGS: &[&str] =
    &["Winner", "Better_answer", "Better_assistant", "Rating", "Score_for_story", "Question"];
const SCALES: &[Option<(f64, f64)>] = &[None, Some((1.0, 5.0)), Some((0.0, 1.0)), Some((1.0, 3.0))];

fuzz_target!(|input: &[u8]| {
    let Some((&selector, bytes)) = input.split_first() else { return };
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let tag = TAGS[usize::from(selector) % TAGS.len()];
    let scale = SCALES[usize::from(selector >> 4) % SCALES.len()];
    for policy in Policy::ALL {
        if let Ok(x) = policy.parse(text, scale) {
            assert!(x.is_finite() || policy != Policy::Concord, "{policy:?} read {x}");
        }
        let _ = parse::rating_tag(text, tag, policy, scale);
        let evaluation = coeval::read_evaluation("criterion", text, policy);
        let _ = format!("{evaluation:?}");
    }
    if let Some(body) = parse::tag(text, tag) {
        // The tag's content is a slice of the response.
        assert!(text.contains(body));
    }
    let _ = parse::winner(text);
    let _ = parse::better_answer(text);
    let _ = parse::better_assistant(text);
    let _ = parse::question(text);
    // CoEval's repeated ideation: every line as its own sample, and all in one.
    let items = meta_eval::list_items(text);
    let samples: Vec<Vec<String>> = text.lines().map(|l| vec![l.to_owned()]).collect();
    for r in coeval::recurrence(&samples).iter().chain(&coeval::recurrence(&[items])) {
        assert!(r.samples >= 1 && r.share <= 1.0 && !r.key.is_empty());
    }
    if let Some(step) = coeval::score_step(text) {
        assert!(text.contains(step));
    }
});
