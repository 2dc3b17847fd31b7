//! What Python writes that JSON does not have. `json.dump` (and pandas' `to_json` with some
//! options) writes a missing or undefined number as the bare token `NaN`, and infinities as
//! `Infinity` / `-Infinity`; serde_json, rightly, rejects them. Concord reads them as `null`
//! (missing, STATS_SPEC §0) and says so, instead of refusing the whole file.

/// What [`non_json_numbers_as_null`] replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The text with each such token replaced by `null`.
    pub text: String,
    /// How many tokens were replaced.
    pub count: usize,
    /// The byte offset of the first one in the original text.
    pub first_offset: usize,
}

const TOKENS: [&[u8]; 3] = [b"-Infinity", b"Infinity", b"NaN"];

/// Tracks, byte by byte, whether JSON text is inside a string literal.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Feeds the next byte; true when it belongs to a string literal (quotes included).
    pub(crate) fn feed(&mut self, b: u8) -> bool {
        if self.inside {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.inside = false,
                _ => {}
            }
            true
        } else {
            self.inside = b == b'"';
            self.inside
        }
    }
}

/// Replaces every `NaN`, `Infinity` and `-Infinity` token outside strings by `null`; `None`
/// when there is none (the text is then used as it is, without a copy).
pub fn non_json_numbers_as_null(text: &str) -> Option<Replaced> {
    // Most files have neither word anywhere: no scan, no copy.
    if !text.contains("NaN") && !text.contains("Infinity") {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut strings = Strings::default();
    let (mut last, mut count, mut first_offset) = (0, 0, 0);
    let mut i = 0;
    while i < bytes.len() {
        if strings.feed(bytes[i]) {
            i += 1;
            continue;
        }
        // A token starts a value: not the tail of a word (`xNaN` is not JSON anyway).
        let starts_value = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if let Some(token) = TOKENS.iter().find(|t| starts_value && bytes[i..].starts_with(t)) {
            let end = i + token.len();
            if bytes.get(end).is_none_or(|c| !c.is_ascii_alphanumeric()) {
                if count == 0 {
                    out.reserve(text.len());
                    first_offset = i;
                }
                out.push_str(&text[last..i]);
                out.push_str("null");
                count += 1;
                last = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    (count > 0).then(|| {
        out.push_str(&text[last..]);
        Replaced { text: out, count, first_offset }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn replaces_tokens_outside_strings_only() {
        let r =
            non_json_numbers_as_null(r#"{"x": [1, NaN, -Infinity, Infinity], "s": "NaN \" NaN"}"#)
                .unwrap();
        assert_eq!(r.text, r#"{"x": [1, null, null, null], "s": "NaN \" NaN"}"#);
        assert_eq!((r.count, r.first_offset), (3, 10));
        assert!(non_json_numbers_as_null(r#"{"s": "NaN and Infinity"}"#).is_none());
        assert!(non_json_numbers_as_null("[1, 2]").is_none());
        // Not a token when part of a word.
        assert!(non_json_numbers_as_null(r#"{"a": NaNx}"#).is_none());
    }
}
