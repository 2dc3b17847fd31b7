//! Response parsers: ratings under named policies that reproduce the papers' scripts, and the
//! XML-like tags of the meta-evaluation prompts (`<Winner>`, `<Better_assistant>`, …).
//!
//! A policy is chosen by name ([`Policy::from_name`]) so a table can say exactly how its
//! numbers were read. The paper policies copy their scripts' behaviour including its oddities
//! (G-Eval reads anything but a leading number as 0; Chiang & Lee read `3.5` as 3); the
//! `concord` policy never invents a rating: a failure is a [`ParseFailure`] that is counted
//! and shown.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

/// How a rating is read from a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Policy {
    /// G-Eval's `parse_output`: `^ ?([\d\.]+)` as a float; anything else is 0.
    Geval,
    /// Chiang & Lee's `parse_output` in `meta_eval_summeval.py`: an unparseable response is
    /// missing (dropped from the item's mean).
    CloserLook,
    /// The same as released in their `all_eval.py`, where an unparseable response counts as 0.
    CloserLookZero,
    /// CoEval's reading: remove `2.`, `out of 5` and `/5`, then take the first number. Meant
    /// for the score step of an answer: over a whole numbered answer it would read the `1` of
    /// "1. <conclusion>", so `judge::coeval::read_score` applies it to step "2." alone.
    Coeval,
    /// Concord's own reading: the number after the last `Rating:`/`Score:` label (or the
    /// first number when there is none), full decimals, and only values on the scale.
    /// Failures stay failures.
    #[default]
    Concord,
    /// A structured answer (JSON): the number (or numeric string) under `"rating"` in the
    /// first JSON object of the response, and only values on the scale. What a method asking
    /// for structured output reads.
    Json,
}

impl Policy {
    /// Every policy, for help texts and UI lists.
    pub const ALL: [Policy; 6] = [
        Policy::Geval,
        Policy::CloserLook,
        Policy::CloserLookZero,
        Policy::Coeval,
        Policy::Concord,
        Policy::Json,
    ];

    /// The policy's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Geval => "geval",
            Policy::CloserLook => "closer-look",
            Policy::CloserLookZero => "closer-look-zero",
            Policy::Coeval => "coeval",
            Policy::Concord => "concord",
            Policy::Json => "json",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Reads a rating from one response. `scale` (inclusive bounds) is only consulted by the
    /// `concord` policy; the paper policies accept whatever their scripts accepted.
    pub fn parse(self, response: &str, scale: Option<(f64, f64)>) -> Result<f64, ParseFailure> {
        self.read(response, scale).map(|r| r.value)
    }

    /// [`Policy::parse`], with where in `response` the rating was read (to highlight it).
    pub fn read(self, response: &str, scale: Option<(f64, f64)>) -> Result<Reading, ParseFailure> {
        let zero = Reading { value: 0.0, span: None };
        match self {
            Policy::Geval => Ok(leading_number(response).unwrap_or(zero)),
            Policy::CloserLook => closer_look(response),
            Policy::CloserLookZero => match closer_look(response) {
                Err(ParseFailure::NoNumber) => Ok(zero),
                other => other,
            },
            Policy::Coeval => coeval(response),
            Policy::Concord => concord(response, scale),
            Policy::Json => json_rating(response, scale),
        }
    }
}

/// A rating read from a response, and the byte range of `response` it was read from: the
/// number's text, or for the papers' parsers what their cleaned text's number came from
/// (Chiang & Lee read one digit; CoEval's cleaning can join digits across what it removed).
/// `None` when the policy did not read a number (G-Eval's and `closer-look-zero`'s 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub value: f64,
    pub span: Option<Range<usize>>,
}

/// A text being cleaned by replacements, remembering for each of its bytes the byte of the
/// original it came from (a replacement's bytes come from the start of what it replaced).
struct Traced {
    text: String,
    from: Vec<usize>,
}

impl Traced {
    fn new(text: String) -> Traced {
        let from = (0..text.len()).collect();
        Traced { text, from }
    }

    fn replace(self, pattern: &str, with: &str) -> Traced {
        let mut text = String::with_capacity(self.text.len());
        let mut from = Vec::with_capacity(self.from.len());
        let mut last = 0;
        for (at, _) in self.text.match_indices(pattern) {
            text.push_str(&self.text[last..at]);
            from.extend_from_slice(&self.from[last..at]);
            text.push_str(with);
            from.extend(std::iter::repeat_n(self.from[at], with.len()));
            last = at + pattern.len();
        }
        text.push_str(&self.text[last..]);
        from.extend_from_slice(&self.from[last..]);
        Traced { text, from }
    }

    /// The original range of `range` of the cleaned text.
    fn origin(&self, range: Range<usize>) -> Range<usize> {
        match range.end.checked_sub(1) {
            Some(last) if range.start < range.end => self.from[range.start]..self.from[last] + 1,
            _ => self.from.get(range.start).map_or(0..0, |&at| at..at),
        }
    }
}

/// Why no rating could be read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum ParseFailure {
    /// The response holds no number where the policy looks for one.
    NoNumber,
    /// A negative number (Chiang & Lee treat it as missing).
    Negative {
        /// The number read.
        value: f64,
    },
    /// A number outside the rating scale (`concord` policy only).
    OutOfScale {
        /// The number read.
        value: f64,
    },
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFailure::NoNumber => write!(f, "no rating found in the response"),
            ParseFailure::Negative { value } => write!(f, "negative rating {value}"),
            ParseFailure::OutOfScale { value } => write!(f, "rating {value} is outside the scale"),
        }
    }
}

impl std::error::Error for ParseFailure {}

/// `re.search("^ ?([\d\.]+)", text)` followed by Python's `float()`: `None` when there is no
/// match or the digits-and-dots run is not a float (`"1.2.3"`, `"."`).
///
/// Python's `\d` also matches non-ASCII decimal digits; we accept ASCII digits only, so a
/// response starting with e.g. `٣` is 0 here where G-Eval would read 3. No released response
/// of the papers starts that way.
fn leading_number(text: &str) -> Option<Reading> {
    let start = usize::from(text.starts_with(' '));
    let rest = &text[start..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let run = &rest[..end];
    if run.is_empty() {
        return None;
    }
    let value = run.parse::<f64>().ok()?;
    Some(Reading { value, span: Some(start..start + end) })
}

/// Chiang & Lee's parser. Their steps: lower-case; newlines → spaces; `1-3` → space; keep
/// what follows the last `rating:`; find the first match of `[a-z]*:?-? ?[0-9]\.?[0-9]?`;
/// replace every run of `[a-z]*:?-? *` in it by a space (which also splits `3.5` into
/// `3 . 5`), strip, and read `^ ?([\d\.]+)` as a float. The net effect is: the first ASCII
/// digit after the last `rating:`, as an integer 0–9 — decimals are truncated and a minus
/// sign is dropped with the letters, so their `score < 0` check never fires. When there is no
/// ASCII digit the whole remaining text goes to the final pattern, which can still read a
/// leading run of dots (a failure, like theirs).
///
/// Lower-casing is ASCII only, which keeps offsets: no other letter lower-cases to the ASCII
/// letters of `rating:`, so the results are those of Python's `lower()`.
fn closer_look(response: &str) -> Result<Reading, ParseFailure> {
    let cleaned = Traced::new(response.to_ascii_lowercase()).replace("\n", " ").replace("1-3", " ");
    let tail_at = cleaned.text.rfind("rating:").map_or(0, |at| at + "rating:".len());
    let tail = &cleaned.text[tail_at..];
    if let Some(at) = tail.bytes().position(|b| b.is_ascii_digit()) {
        let value = f64::from(tail.as_bytes()[at] - b'0');
        return Ok(Reading { value, span: Some(cleaned.origin(tail_at + at..tail_at + at + 1)) });
    }
    match leading_number(tail) {
        Some(r) if r.value < 0.0 => Err(ParseFailure::Negative { value: r.value }),
        Some(r) => Ok(Reading {
            span: r.span.map(|s| cleaned.origin(tail_at + s.start..tail_at + s.end)),
            ..r
        }),
        None => Err(ParseFailure::NoNumber),
    }
}

/// CoEval's reading: drop the strings that look like numbers but are not the score (`2.` of
/// a numbered list, `out of 5`, `/5`), then the first number (`\d+(\.\d+)?`).
fn coeval(response: &str) -> Result<Reading, ParseFailure> {
    let cleaned = Traced::new(response.to_owned())
        .replace("2.", "")
        .replace("out of 5", "")
        .replace("/5", "");
    let start =
        cleaned.text.bytes().position(|b| b.is_ascii_digit()).ok_or(ParseFailure::NoNumber)?;
    let (value, end) = number_at(&cleaned.text, start).ok_or(ParseFailure::NoNumber)?;
    Ok(Reading { value, span: Some(cleaned.origin(start..end)) })
}

fn number_at(text: &str, start: usize) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    let mut end = start;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
    }
    text[start..end].parse::<f64>().ok().map(|v| (v, end))
}

/// Concord's reading, in order of preference:
///
/// 1. after the last `rating:` or `score:` label (any case), when there is one;
/// 2. else the last line of the form `Label: N` (`- Naturalness: 2`, `Response: 1`,
///    `1. Engagingness: 3`), because score-only answers echo the form and sometimes repeat
///    the dialogue first, whose numbers are not ratings;
/// 3. else the whole response.
///
/// In the chosen text the first number counts, skipping numbers that belong to a scale range
/// (`1-3`, `1 to 5`) or a denominator (`/5`, `out of 5`); a minus sign directly before it
/// makes it negative; full decimals are kept; a value off the scale is a failure, not a clamp.
///
/// Lower-casing is ASCII only, which keeps offsets: no other letter lower-cases into the
/// labels, digits or words looked for.
fn concord(response: &str, scale: Option<(f64, f64)>) -> Result<Reading, ParseFailure> {
    let lowered = response.to_ascii_lowercase();
    let after_label = ["rating:", "score:"]
        .iter()
        .filter_map(|label| lowered.rfind(label).map(|at| at + label.len()))
        .max();
    let text = match after_label {
        Some(at) => &lowered[at..],
        None => last_label_line(&lowered).unwrap_or(lowered.as_str()),
    };
    // `text` is a slice of `lowered`, whose offsets are the response's.
    let offset = text.as_ptr() as usize - lowered.as_ptr() as usize;
    let (value, span) = first_rating(text, scale)?;
    Ok(Reading { value, span: Some(offset + span.start..offset + span.end) })
}

/// [`Policy::Json`]: the `"rating"` of the first JSON object in `response` (a model may wrap
/// it in a code fence or a sentence), with where its value was written.
fn json_rating(response: &str, scale: Option<(f64, f64)>) -> Result<Reading, ParseFailure> {
    let start = response.find('{').ok_or(ParseFailure::NoNumber)?;
    let mut stream =
        serde_json::Deserializer::from_str(&response[start..]).into_iter::<serde_json::Value>();
    let Some(Ok(object)) = stream.next() else { return Err(ParseFailure::NoNumber) };
    let value = match object.get("rating") {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .ok_or(ParseFailure::NoNumber)?;
    if value < 0.0 {
        return Err(ParseFailure::Negative { value });
    }
    if let Some((lo, hi)) = scale
        && !(lo..=hi).contains(&value)
    {
        return Err(ParseFailure::OutOfScale { value });
    }
    // Where the value is written: after `"rating"` and its colon (and a string's quote).
    let span = response[start..].find("\"rating\"").and_then(|at| {
        let after = start + at + "\"rating\"".len();
        let rest = &response[after..];
        let skip = rest.find(|c: char| c.is_ascii_digit() || c == '-' || c == '.')?;
        let from = after + skip;
        let len = response[from..]
            .find(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.' || c == 'e' || c == '+'))
            .unwrap_or(response.len() - from);
        Some(from..from + len)
    });
    Ok(Reading { value, span })
}

/// The value part of the last line shaped `Label: N…` (the label has no digits).
fn last_label_line(text: &str) -> Option<&str> {
    text.lines().rev().find_map(|line| {
        let (label, value) = line.rsplit_once(':')?;
        let value = value.trim_start();
        let label_has_digit = label
            .trim_start()
            .trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '.' | ')' | '-' | '*' | ' ')
            })
            .contains(|c: char| c.is_ascii_digit());
        (value.starts_with(|c: char| c.is_ascii_digit()) && !label_has_digit).then_some(value)
    })
}

fn first_rating(
    text: &str,
    scale: Option<(f64, f64)>,
) -> Result<(f64, Range<usize>), ParseFailure> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        if !bytes[pos].is_ascii_digit() {
            pos += 1;
            continue;
        }
        let Some((value, end)) = number_at(text, pos) else { break };
        let raw_before = &text[..pos];
        let before = raw_before.trim_end();
        let after = text[end..].trim_start();
        if is_denominator(before)
            || starts_range(after)
            || ends_range(before)
            || explains_scale(after)
        {
            pos = end;
            continue;
        }
        // A minus sign touches its number: `- 4` is a bullet, not a negative rating.
        let value = if raw_before.ends_with('-') { -value } else { value };
        // A digit run too long for f64 reads as ±inf: off every scale, never a rating (found
        // by the `parse` fuzz target, without a scale).
        if !value.is_finite() {
            return Err(ParseFailure::OutOfScale { value });
        }
        if value < 0.0 {
            return Err(ParseFailure::Negative { value });
        }
        if let Some((lo, hi)) = scale
            && (value < lo || value > hi)
        {
            return Err(ParseFailure::OutOfScale { value });
        }
        return Ok((value, pos..end));
    }
    Err(ParseFailure::NoNumber)
}

/// `1 (bad) means …`, `5 = excellent`, `1 indicates …`: a rubric the model repeats, whose
/// numbers are scale points, not its rating.
fn explains_scale(after: &str) -> bool {
    let mut rest = after;
    // An optional label in parentheses: `(bad)`.
    if let Some(inner) = rest.strip_prefix('(')
        && let Some(close) = inner.find(')')
    {
        rest = inner[close + 1..].trim_start();
    }
    ["means", "indicates", "represents", "stands for", "corresponds to", "="]
        .iter()
        .any(|w| rest.starts_with(w))
}

/// `/5`, `out of 5`: the number is the scale's maximum, not a rating.
fn is_denominator(before: &str) -> bool {
    before.ends_with('/') || before.ends_with("out of")
}

/// `1-3`, `1 to 5` seen from the first number: the rest starts with `-N` or `to N`.
fn starts_range(after: &str) -> bool {
    let starts_with_digit = |s: &str| s.trim_start().starts_with(|c: char| c.is_ascii_digit());
    after.strip_prefix('-').is_some_and(starts_with_digit)
        || after.strip_prefix("to ").is_some_and(starts_with_digit)
}

/// `1-3`, `1 to 5` seen from the second number: what precedes is `N-` or `N to`.
fn ends_range(before: &str) -> bool {
    let ends_with_digit = |s: &str| s.trim_end().ends_with(|c: char| c.is_ascii_digit());
    before.strip_suffix('-').is_some_and(ends_with_digit)
        || before.strip_suffix(" to").is_some_and(ends_with_digit)
}

/// The text between `<name>` and `</name>` (the last opening tag and the first closing tag
/// after it, trimmed). Tag names match ASCII-case-insensitively and `\_` counts as `_`,
/// because the papers' prompts went through Markdown and models copy what they see. `None`
/// when the tag is absent or unclosed.
pub fn tag<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    // Both normalisations keep byte lengths, so offsets found in `hay` index `response`.
    let hay = response.to_ascii_lowercase().replace("\\_", "__");
    let plain = name.to_ascii_lowercase();
    let escaped = plain.replace('_', "__");
    let (start, open_len) = [&plain, &escaped]
        .iter()
        .filter_map(|n| {
            let open = format!("<{n}>");
            hay.rfind(&open).map(|at| (at, open.len()))
        })
        .max()?;
    let body = start + open_len;
    let end =
        [&plain, &escaped].iter().filter_map(|n| hay[body..].find(&format!("</{n}>"))).min()?;
    response.get(body..body + end).map(str::trim)
}

/// A pairwise verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The first (A / 1 / Assistant1) is better.
    First,
    /// The second (B / 2 / Assistant2) is better.
    Second,
    /// Equally good / no winner.
    Tie,
}

impl Verdict {
    /// The verdict with first and second exchanged (for position-swapped runs).
    pub fn swapped(self) -> Verdict {
        match self {
            Verdict::First => Verdict::Second,
            Verdict::Second => Verdict::First,
            Verdict::Tie => Verdict::Tie,
        }
    }
}

/// Why a verdict could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum VerdictError {
    /// The expected tag is missing or unclosed.
    MissingTag {
        /// The tag looked for.
        tag: String,
    },
    /// The tag's content is none of the allowed answers.
    Unrecognised {
        /// The tag.
        tag: String,
        /// What it contained.
        content: String,
    },
    /// A debate ended without the judge giving a decision (MDEval).
    NoDecision {
        /// The rounds it ran.
        rounds: usize,
    },
}

impl fmt::Display for VerdictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerdictError::MissingTag { tag } => write!(f, "no <{tag}>…</{tag}> in the response"),
            VerdictError::Unrecognised { tag, content } => {
                write!(f, "<{tag}> holds `{content}`, which is not a verdict")
            }
            VerdictError::NoDecision { rounds } => write!(f, "no decision within {rounds} rounds"),
        }
    }
}

impl std::error::Error for VerdictError {}

/// Reads `<Winner>` (003 Table 7): `1`, `2` or `0` (tie).
pub fn winner(response: &str) -> Result<Verdict, VerdictError> {
    verdict_tag(response, "Winner")
}

/// Reads `<Better_answer>` (003 Table 10): `AnswerA`, `AnswerB` or `equally good`.
pub fn better_answer(response: &str) -> Result<Verdict, VerdictError> {
    verdict_tag(response, "Better_answer")
}

/// Reads `<Better_assistant>` (003 Tables 10, 11): `Assistant1`, `Assistant2` or
/// `equally good`.
pub fn better_assistant(response: &str) -> Result<Verdict, VerdictError> {
    verdict_tag(response, "Better_assistant")
}

fn verdict_tag(response: &str, name: &str) -> Result<Verdict, VerdictError> {
    let content =
        tag(response, name).ok_or_else(|| VerdictError::MissingTag { tag: name.to_owned() })?;
    classify_verdict(content).ok_or_else(|| VerdictError::Unrecognised {
        tag: name.to_owned(),
        content: content.to_owned(),
    })
}

/// Maps the answers the prompts allow (and their obvious spellings) to a verdict. An answer
/// naming both sides, or neither, is not a verdict.
fn classify_verdict(content: &str) -> Option<Verdict> {
    let c: String = content
        .to_ascii_lowercase()
        .chars()
        .filter(|ch| !matches!(ch, '(' | ')' | '"' | '\'' | '.' | '*'))
        .collect();
    let c = c.trim();
    if c.contains("equal") || c == "0" || c == "tie" {
        return Some(Verdict::Tie);
    }
    // `Answer2` / `Answer 2`: the released JDEval files name the answers by number too (5
    // cleaned `better_response` values and 2 raw `<Better_answer>` tags say `Answer2`).
    let first = [
        "1",
        "a",
        "answera",
        "answer a",
        "answer1",
        "answer 1",
        "assistant1",
        "assistant 1",
        "ai assistant 1",
    ];
    let second = [
        "2",
        "b",
        "answerb",
        "answer b",
        "answer2",
        "answer 2",
        "assistant2",
        "assistant 2",
        "ai assistant 2",
    ];
    if first.contains(&c) {
        return Some(Verdict::First);
    }
    if second.contains(&c) {
        return Some(Verdict::Second);
    }
    None
}

/// Reads a numeric tag (`<Rating>`, `<Score_for_…>`) under a policy.
pub fn rating_tag(
    response: &str,
    name: &str,
    policy: Policy,
    scale: Option<(f64, f64)>,
) -> Result<f64, TagRatingError> {
    let content =
        tag(response, name).ok_or_else(|| TagRatingError::MissingTag { tag: name.to_owned() })?;
    policy
        .parse(content, scale)
        .map_err(|failure| TagRatingError::Parse { tag: name.to_owned(), failure })
}

/// Why a numeric tag could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TagRatingError {
    /// The tag is missing or unclosed.
    MissingTag {
        /// The tag looked for.
        tag: String,
    },
    /// The tag is there but its content is not a rating.
    Parse {
        /// The tag.
        tag: String,
        /// Why.
        failure: ParseFailure,
    },
}

impl fmt::Display for TagRatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagRatingError::MissingTag { tag } => write!(f, "no <{tag}>…</{tag}> in the response"),
            TagRatingError::Parse { tag, failure } => write!(f, "<{tag}>: {failure}"),
        }
    }
}

impl std::error::Error for TagRatingError {}

/// Reads `<Question>` (MDEval): the judge asks instead of deciding.
pub fn question(response: &str) -> Option<&str> {
    tag(response, "Question").filter(|q| !q.is_empty())
}
