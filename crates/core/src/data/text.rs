//! Low-level reading shared by the loaders: byte decoding, JSON/JSONL record splitting with
//! line numbers, and a field-order-preserving view of a JSON object.
//!
//! Records are split into `&RawValue`s first and interpreted second, so one broken record costs
//! one diagnostic instead of the whole file, and a truncated array still yields the records
//! before the cut.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::diag::Diagnostic;

/// Decodes bytes as UTF-8, dropping a byte-order mark. Invalid sequences are replaced by
/// What a file that is not text is, judged on its first 8 KiB: a known binary format by its
/// signature, or "binary data" when it holds NUL bytes or too many control characters or
/// invalid UTF-8 sequences for any text. `None` for text (UTF-8, UTF-16 with a byte-order mark,
/// or a single-byte encoding with few stray bytes).
pub(crate) fn binary_kind(bytes: &[u8]) -> Option<String> {
    const SIGNATURES: [(&[u8], &str); 9] = [
        (b"\x7fELF", "an executable program"),
        (b"\x89PNG", "a PNG image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive (an .xlsx or .docx file is one; export it as CSV)"),
        (b"\x1f\x8b", "a gzip archive (decompress it first)"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"\xd0\xcf\x11\xe0", "an old Office document (export it as CSV)"),
        (b"SQLite format 3", "an SQLite database"),
    ];
    if let Some((_, what)) = SIGNATURES.iter().find(|(sig, _)| bytes.starts_with(sig)) {
        return Some((*what).to_owned());
    }
    // UTF-16 text has NUL bytes; its byte-order mark says it is text.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return None;
    }
    let sample = &bytes[..bytes.len().min(8192)];
    if sample.is_empty() {
        return None;
    }
    if sample.contains(&0) {
        return Some("binary data: it contains NUL bytes".to_owned());
    }
    let controls = sample
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    // Invalid UTF-8: the bytes a lossy decoding would replace (a sequence cut at the sample's
    // end is not counted).
    let mut invalid = 0;
    let mut rest = sample;
    while let Err(e) = std::str::from_utf8(rest) {
        let Some(bad) = e.error_len() else { break };
        invalid += bad;
        rest = &rest[e.valid_up_to() + bad..];
    }
    let n = sample.len() as f64;
    if controls as f64 > 0.01 * n || invalid as f64 > 0.3 * n {
        return Some(format!(
            "binary data: {:.0} % of its first bytes are control characters or not text",
            100.0 * (controls + invalid) as f64 / n
        ));
    }
    None
}

/// U+FFFD and reported once, at the line of the first one.
pub(crate) fn decode<'a>(file: &str, bytes: &'a [u8], diags: &mut Vec<Diagnostic>) -> Cow<'a, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(e) => {
            let valid = e.valid_up_to();
            let line = 1 + bytes[..valid].iter().filter(|&&b| b == b'\n').count();
            let bad = String::from_utf8_lossy(bytes);
            let count = bad.matches('\u{FFFD}').count();
            diags.push(Diagnostic::warning(
                file,
                Some(line),
                None,
                format!(
                    "the file is not valid UTF-8 (first bad byte at offset {valid}); \
                     {} replaced by U+FFFD",
                    crate::words::count(count, "invalid sequence", "invalid sequences")
                ),
            ));
            Cow::Owned(bad.into_owned())
        }
    }
}

/// Converts byte offsets into 1-based line numbers, for offsets visited in increasing order.
pub(crate) struct LineCounter<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        LineCounter { text: text.as_bytes(), pos: 0, line: 1 }
    }

    pub(crate) fn line_at(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.pos {
            // Offsets are normally increasing; recount from the start rather than be wrong.
            self.pos = 0;
            self.line = 1;
        }
        self.line += count_newlines(&self.text[self.pos..offset]);
        self.pos = offset;
        self.line
    }
}

/// Counts `\n` bytes in fixed-size chunks so the compiler vectorises the loop; line numbers
/// for every record of a 70 MB load otherwise cost a noticeable share of the time.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(64);
    let mut n = 0;
    for chunk in &mut chunks {
        n += chunk.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>() as usize;
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// One top-level JSON record and the line it starts on.
pub(crate) struct Record<'a> {
    pub line: usize,
    pub raw: &'a RawValue,
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Splits a top-level JSON array into its elements. A record with a syntax error inside is
/// skipped with a diagnostic and the split reads on; a cut one (a truncated download) ends it,
/// keeping the elements before it.
pub(crate) fn split_array<'a>(
    file: &str,
    text: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Record<'a>> {
    let bytes = text.as_bytes();
    let mut lines = LineCounter::new(text);
    let mut out = Vec::new();
    let mut i = skip_ws(bytes, 0);
    if bytes.get(i) != Some(&b'[') {
        return out;
    }
    i = skip_ws(bytes, i + 1);
    if bytes.get(i) == Some(&b']') {
        return out;
    }
    let mut skipped = 0;
    loop {
        let start = i;
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<&RawValue>();
        match stream.next() {
            Some(Ok(raw)) => {
                let line = lines.line_at(start);
                out.push(Record { line, raw });
                i = skip_ws(bytes, start + stream.byte_offset());
            }
            Some(Err(e)) => {
                let line = lines.line_at(start) + e.line().saturating_sub(1);
                // A record broken inside (a stray token, a bad escape) still has matching
                // brackets: skip it and read on. A cut one (the file ends) stops the split.
                let resume = (!e.is_eof()).then(|| skip_value(bytes, start)).flatten();
                let Some(end) = resume else {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        None,
                        format!(
                            "JSON error in record {}: {}; kept the {} before it",
                            out.len() + 1 + skipped,
                            strip_position(&e),
                            crate::words::count(out.len(), "record", "records")
                        ),
                    ));
                    return out;
                };
                skipped += 1;
                diags.push(Diagnostic::warning(
                    file,
                    Some(line),
                    None,
                    format!(
                        "JSON error in record {}: {}; record skipped",
                        out.len() + skipped,
                        strip_position(&e)
                    ),
                ));
                i = skip_ws(bytes, end);
            }
            None => {
                diags.push(Diagnostic::warning(
                    file,
                    Some(lines.line_at(start)),
                    None,
                    format!(
                        "the array ends early (truncated file?); kept {}",
                        crate::words::count(out.len(), "record", "records")
                    ),
                ));
                return out;
            }
        }
        match bytes.get(i) {
            Some(b',') => i = skip_ws(bytes, i + 1),
            Some(b']') => {
                let rest = skip_ws(bytes, i + 1);
                if rest < bytes.len() {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(lines.line_at(rest)),
                        None,
                        "text after the closing `]` was ignored".to_owned(),
                    ));
                }
                return out;
            }
            other => {
                let what = match other {
                    None => "the file ends".to_owned(),
                    Some(b) => format!("found `{}`", char::from(*b).escape_default()),
                };
                diags.push(Diagnostic::warning(
                    file,
                    Some(lines.line_at(i)),
                    None,
                    format!(
                        "expected `,` or `]` after record {} but {what}; kept {}",
                        out.len() + skipped,
                        crate::words::count(out.len(), "record", "records")
                    ),
                ));
                return out;
            }
        }
    }
}

/// The end of the value starting at `start`, by matching brackets outside strings (whatever
/// the tokens in between); a scalar ends at the next `,` or `]`. `None` when the text ends
/// first.
fn skip_value(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut strings = crate::json_lenient::Strings::default();
    for (k, &b) in bytes.iter().enumerate().skip(start) {
        if strings.feed(b) {
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            b',' | b']' if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// Splits JSON Lines: one value per non-blank line; a bad line is reported and skipped.
pub(crate) fn split_lines<'a>(
    file: &str,
    text: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Record<'a>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        match serde_json::from_str::<&RawValue>(trimmed) {
            Ok(raw) => out.push(Record { line: n + 1, raw }),
            Err(e) => diags.push(Diagnostic::warning(
                file,
                Some(n + 1),
                None,
                format!("not a JSON value: {}; line skipped", strip_position(&e)),
            )),
        }
    }
    out
}

/// serde_json errors end in " at line L column C", which is wrong once a record was cut out of
/// a larger file; the diagnostic carries the corrected line instead.
pub(crate) fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// A JSON object as an ordered list of (key, raw value): file order is kept because input
/// fields are shown and templated under their original names, in their original order.
pub(crate) struct Obj<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

/// An object key, borrowed from the input unless it contains escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Obj<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Obj<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Obj<'a>, M::Error> {
                let mut v = Vec::new();
                while let Some((k, raw)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                    v.push((k.0, raw));
                }
                Ok(Obj(v))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// What a JSON value holds, as far as a tabular field cares.
pub(crate) enum Scalar {
    Null,
    Text(String),
    Number(f64),
    Bool(bool),
    /// Arrays and objects, kept as their JSON text.
    Nested(String),
}

impl<'a> Obj<'a> {
    pub(crate) fn parse(raw: &'a RawValue) -> Option<Obj<'a>> {
        serde_json::from_str(raw.get()).ok()
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// Reads a raw value as a scalar (strings unescaped, numbers as f64).
pub(crate) fn scalar(raw: &RawValue) -> Scalar {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<String>(s) {
            Ok(t) => Scalar::Text(t),
            Err(_) => Scalar::Nested(s.to_owned()),
        },
        Some(b'n') => Scalar::Null,
        Some(b't') => Scalar::Bool(true),
        Some(b'f') => Scalar::Bool(false),
        Some(b'[' | b'{') => Scalar::Nested(s.to_owned()),
        _ => match serde_json::from_str::<f64>(s) {
            Ok(x) => Scalar::Number(x),
            Err(_) => Scalar::Nested(s.to_owned()),
        },
    }
}

/// Field accessors that report what is wrong, naming the field and the record's line.
pub(crate) struct Fielder<'f> {
    pub file: &'f str,
    pub line: usize,
}

impl Fielder<'_> {
    fn problem(&self, diags: &mut Vec<Diagnostic>, field: &str, message: String) {
        diags.push(Diagnostic::warning(self.file, Some(self.line), Some(field), message));
    }

    /// A required string field (numbers are accepted and printed, since ids often are numbers).
    pub(crate) fn text(
        &self,
        o: &Obj<'_>,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        match o.get(field).map(scalar) {
            Some(Scalar::Text(t)) => Some(t),
            Some(Scalar::Number(x)) => Some(number_text(x)),
            None => {
                self.problem(diags, field, format!("missing field `{field}`; record skipped"));
                None
            }
            Some(_) => {
                self.problem(diags, field, format!("`{field}` should be a string; record skipped"));
                None
            }
        }
    }

    /// An optional string field: absent or null is fine, a wrong type is reported.
    pub(crate) fn opt_text(
        &self,
        o: &Obj<'_>,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        match o.get(field).map(scalar) {
            Some(Scalar::Text(t)) => Some(t),
            Some(Scalar::Number(x)) => Some(number_text(x)),
            None | Some(Scalar::Null) => None,
            Some(_) => {
                self.problem(diags, field, format!("`{field}` should be a string; ignored"));
                None
            }
        }
    }

    /// A numeric field; numeric strings ("4", " 2.5 ") are accepted because several released
    /// files store scores as strings.
    pub(crate) fn number(
        &self,
        raw: Option<&RawValue>,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<f64> {
        match raw.map(scalar) {
            Some(Scalar::Number(x)) if x.is_finite() => Some(x),
            // Several released files write a missing score as "".
            Some(Scalar::Text(t)) if t.trim().is_empty() => None,
            Some(Scalar::Text(t)) => match t.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Some(x),
                _ => {
                    self.problem(
                        diags,
                        field,
                        format!("`{field}` is not a number: {:?}", clip(&t)),
                    );
                    None
                }
            },
            None | Some(Scalar::Null) => None,
            Some(_) => {
                self.problem(diags, field, format!("`{field}` should be a number"));
                None
            }
        }
    }

    /// An array of strings (Chiang & Lee `all_responses`); non-string elements are reported.
    pub(crate) fn strings(
        &self,
        o: &Obj<'_>,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<String>> {
        match o.get(field) {
            Some(raw) => self.strings_of(raw, field, diags),
            None => {
                self.problem(diags, field, format!("missing field `{field}`"));
                None
            }
        }
    }

    /// An array of strings held in `raw`, reported under the name `field`.
    pub(crate) fn strings_of(
        &self,
        raw: &RawValue,
        field: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<String>> {
        match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
            Ok(elems) => {
                let mut out = Vec::with_capacity(elems.len());
                for (i, e) in elems.into_iter().enumerate() {
                    match scalar(e) {
                        Scalar::Text(t) => out.push(t),
                        _ => self.problem(
                            diags,
                            field,
                            format!("element {i} of `{field}` is not a string; dropped"),
                        ),
                    }
                }
                Some(out)
            }
            Err(_) => {
                self.problem(diags, field, format!("`{field}` should be an array of strings"));
                None
            }
        }
    }
}

/// Prints integral numbers without a trailing `.0`, so id 7 stays "7".
pub(crate) fn number_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

/// Shortens a value for a message.
pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn array_split_reports_lines_and_keeps_prefix_of_truncated_file() {
        let text = "[\n{\"a\": 1},\n{\"a\": 2},\n{\"a\": ";
        let mut diags = Vec::new();
        let recs = split_array("f.json", text, &mut diags);
        assert_eq!(recs.iter().map(|r| r.line).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, Some(4));
    }

    #[test]
    fn decode_reports_first_bad_line() {
        let mut diags = Vec::new();
        let s = decode("f.csv", b"a,b\n1,\xff\n", &mut diags);
        assert_eq!(s, "a,b\n1,\u{FFFD}\n");
        assert_eq!(diags[0].line, Some(2));
    }
}
