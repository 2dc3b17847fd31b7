//! The instructions' Markdown, read as a small safe subset into plain blocks: headings (`#` to
//! `######`), paragraphs (lines joined until a blank line), list items (`-`, `*`, `+` or `1.`)
//! and, inside them, `*emphasis*`, `**strong**` and `` `code` ``. Everything else — HTML,
//! links, images — stays literal text: a view renders each [`Span`] as an element holding a
//! text node, never as HTML, so a teacher's (or anyone's) `<script>` shows as the characters it
//! is.

/// How a run of text is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Emphasis,
    Strong,
    Code,
}

/// A run of text in one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub style: Style,
    pub text: String,
}

/// One block of the instructions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// `level` 1 to 6.
    Heading {
        level: u8,
        spans: Vec<Span>,
    },
    Paragraph(Vec<Span>),
    /// One list item; consecutive items of a kind form a list.
    Item {
        ordered: bool,
        spans: Vec<Span>,
    },
}

/// The blocks of `markdown`, in order.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<Block>| {
        if !paragraph.is_empty() {
            out.push(Block::Paragraph(spans(&paragraph.join(" "))));
            paragraph.clear();
        }
    };
    for line in markdown.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut out);
        } else if let Some((level, text)) = heading(trimmed) {
            flush(&mut paragraph, &mut out);
            out.push(Block::Heading { level, spans: spans(text) });
        } else if let Some((ordered, text)) = list_item(trimmed) {
            flush(&mut paragraph, &mut out);
            out.push(Block::Item { ordered, spans: spans(text) });
        } else {
            paragraph.push(trimmed);
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

fn heading(line: &str) -> Option<(u8, &str)> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| (hashes as u8, rest.trim()))
}

fn list_item(line: &str) -> Option<(bool, &str)> {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some((false, rest.trim()));
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &line[digits..];
    (digits > 0 && digits < 10).then_some(())?;
    rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")).map(|r| (true, r.trim()))
}

/// The spans of one block's text: a marker opens a style only where a closing marker follows;
/// an unmatched marker is text.
pub fn spans(text: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        // Underscores are left alone: `snake_case_names` are common in datasets' field names.
        let found = [("**", Style::Strong), ("`", Style::Code), ("*", Style::Emphasis)]
            .into_iter()
            .find_map(|(marker, style)| {
                let inner = rest.strip_prefix(marker)?;
                let end = inner.find(marker).filter(|e| *e > 0)?;
                Some((style, &inner[..end], &inner[end + marker.len()..]))
            });
        match found {
            Some((style, inner, after)) => {
                if !plain.is_empty() {
                    out.push(Span { style: Style::Plain, text: std::mem::take(&mut plain) });
                }
                out.push(Span { style, text: inner.to_owned() });
                rest = after;
            }
            None => {
                let mut chars = rest.chars();
                if let Some(c) = chars.next() {
                    plain.push(c);
                }
                rest = chars.as_str();
            }
        }
    }
    if !plain.is_empty() {
        out.push(Span { style: Style::Plain, text: plain });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(t: &str) -> Span {
        Span { style: Style::Plain, text: t.to_owned() }
    }

    #[test]
    fn headings_paragraphs_items_and_emphasis() {
        let md = "# Rate *coherence*\n\nRead each summary\ncarefully.\n\n- use **1** for nonsense\n2. then `→`\n#no heading";
        assert_eq!(
            blocks(md),
            vec![
                Block::Heading {
                    level: 1,
                    spans: vec![
                        plain("Rate "),
                        Span { style: Style::Emphasis, text: "coherence".into() }
                    ]
                },
                Block::Paragraph(vec![plain("Read each summary carefully.")]),
                Block::Item {
                    ordered: false,
                    spans: vec![
                        plain("use "),
                        Span { style: Style::Strong, text: "1".into() },
                        plain(" for nonsense")
                    ]
                },
                Block::Item {
                    ordered: true,
                    spans: vec![plain("then "), Span { style: Style::Code, text: "→".into() }]
                },
                Block::Paragraph(vec![plain("#no heading")]),
            ]
        );
    }

    #[test]
    fn html_and_unmatched_markers_stay_text() {
        assert_eq!(
            blocks("<script>alert(1)</script> 2 * 3 and [a](b)"),
            vec![Block::Paragraph(vec![plain("<script>alert(1)</script> 2 * 3 and [a](b)")])]
        );
    }
}
