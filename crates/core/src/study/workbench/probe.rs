//! The counterfactual length probe: every output judged again as a *variant* — padded with
//! neutral filler, or truncated to its first sentences — by the same methods, so the audit can
//! measure how far the judge's rating moves with length alone (the paired shift of
//! STATS_SPEC §15.5).
//!
//! A probe run is an ordinary run of [`variant_study`] (the study's methods renamed with the
//! variant's suffix) on [`variant_dataset`] (the same items, ids, documents and systems, with
//! each output replaced): it is planned, priced, cached and resumed like any run, and its
//! records join the original items by id. Its runs carry the origin [`Variant::origin`].

use serde::{Deserialize, Serialize};

use crate::data::Dataset;

use super::study::Study;

/// How an output is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The output followed by neutral filler sentences adding half its length again.
    Padded,
    /// The output cut to its first sentences, about half its length.
    Truncated,
}

/// Neutral sentences that say nothing about the input: padding made of them adds length and
/// no content.
pub const FILLER: [&str; 4] = [
    "This point is stated here once more for completeness.",
    "The text above is summarised again in these words.",
    "Nothing further is added by this sentence.",
    "The same content is repeated here in other words.",
];

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Padded, Variant::Truncated];

    /// `padded`, `truncated`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Padded => "padded",
            Variant::Truncated => "truncated",
        }
    }

    /// What the variant does, for people.
    pub fn label(self) -> &'static str {
        match self {
            Variant::Padded => "outputs padded with neutral filler",
            Variant::Truncated => "outputs truncated to their first sentences",
        }
    }

    /// The suffix of a method's name in a probe run: `score-only [padded]`.
    pub fn suffix(self) -> String {
        format!(" [{}]", self.name())
    }

    /// The origin of a probe run's runs: `probe:padded`.
    pub fn origin(self) -> String {
        format!("probe:{}", self.name())
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// `output` changed by this variant.
    pub fn apply(self, output: &str) -> String {
        match self {
            Variant::Padded => padded(output),
            Variant::Truncated => truncated(output),
        }
    }
}

/// The original method of a probe run's method name and its variant: `score-only [padded]`
/// → (`score-only`, padded).
pub fn variant_of(method: &str) -> Option<(&str, Variant)> {
    Variant::ALL.into_iter().find_map(|v| Some((method.strip_suffix(v.suffix().as_str())?, v)))
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// `output` followed by filler sentences until it has at least half as many words again
/// (at least one sentence).
pub fn padded(output: &str) -> String {
    let target = words(output).div_ceil(2).max(1);
    let mut out = output.trim_end().to_owned();
    let mut added = 0;
    for sentence in FILLER.iter().cycle() {
        if added >= target {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(sentence);
        added += words(sentence);
    }
    out
}

/// The sentences of `text`: each ends after `.`, `!` or `?` followed by white space (or at the
/// end), its white space kept with it.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, next)| next.is_whitespace())
        {
            let end = i + c.len_utf8();
            out.push(&text[start..end]);
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out
}

/// The first sentences of `output` holding at most half its words (always the first
/// sentence); a single sentence is cut to the first half of its words.
pub fn truncated(output: &str) -> String {
    let total = words(output);
    let half = total.div_ceil(2);
    let parts = sentences(output);
    if parts.len() <= 1 {
        return output.split_whitespace().take(half.max(1)).collect::<Vec<_>>().join(" ");
    }
    let mut out = String::new();
    let mut kept = 0;
    for (k, sentence) in parts.iter().enumerate() {
        let n = words(sentence);
        if k > 0 && kept + n > half {
            break;
        }
        out.push_str(sentence);
        kept += n;
    }
    out.trim().to_owned()
}

/// `dataset` with every output changed by `variant` (ids, documents, systems, inputs and
/// human ratings kept).
pub fn variant_dataset(dataset: &Dataset, variant: Variant) -> Dataset {
    let mut out = dataset.clone();
    for item in &mut out.items {
        item.output = variant.apply(&item.output);
    }
    out
}

/// `study` with each method renamed with the variant's suffix (prompts unchanged).
pub fn variant_study(study: &Study, variant: Variant) -> Study {
    let mut out = study.clone();
    for method in &mut out.methods {
        method.name.push_str(&variant.suffix());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn padding_adds_half_the_length_in_neutral_sentences() {
        let text = "RATING=3. The council voted. The library opens in spring.";
        let p = padded(text);
        assert!(p.starts_with(text));
        assert!(words(&p) >= words(text) * 3 / 2, "{p}");
        assert!(p.contains(FILLER[0]));
        assert_eq!(padded(""), FILLER[0]);
    }

    #[test]
    fn truncation_keeps_the_first_sentences() {
        let text =
            "RATING=3. The council voted on Tuesday. The library opens in spring. It cost a lot.";
        assert_eq!(truncated(text), "RATING=3. The council voted on Tuesday.");
        assert_eq!(truncated("one two three four five"), "one two three");
        // Decimals and abbreviations without a following space do not end a sentence.
        assert_eq!(sentences("Pi is 3.14 here. Next."), vec!["Pi is 3.14 here.", " Next."]);
        assert_eq!(truncated("Only one sentence here."), "Only one");
    }

    #[test]
    fn variant_names_round_trip() {
        for v in Variant::ALL {
            let name = format!("score-only{}", v.suffix());
            assert_eq!(variant_of(&name), Some(("score-only", v)));
            assert_eq!(Variant::from_name(v.name()), Some(v));
        }
        assert_eq!(variant_of("score-only"), None);
    }
}
