//! An exercise's instructions shown as text: the core's safe Markdown subset
//! ([`concord_core::study::exercise::markdown`]) as elements, never HTML. The student's panel
//! and the teacher's preview both use it.

use concord_core::study::exercise::markdown::{Block, Span, Style, blocks};
use leptos::prelude::*;

fn span_view(span: Span) -> AnyView {
    match span.style {
        Style::Plain => span.text.into_any(),
        Style::Emphasis => view! { <em>{span.text}</em> }.into_any(),
        Style::Strong => view! { <strong>{span.text}</strong> }.into_any(),
        Style::Code => view! { <code>{span.text}</code> }.into_any(),
    }
}

/// Instructions' Markdown as elements holding text (never HTML).
pub fn instructions_view(markdown: &str) -> impl IntoView + use<> {
    let mut out: Vec<AnyView> = Vec::new();
    let mut list: Vec<AnyView> = Vec::new();
    let mut ordered = false;
    let flush = |list: &mut Vec<AnyView>, ordered: bool, out: &mut Vec<AnyView>| {
        if !list.is_empty() {
            let items = std::mem::take(list);
            out.push(if ordered {
                view! { <ol>{items}</ol> }.into_any()
            } else {
                view! { <ul>{items}</ul> }.into_any()
            });
        }
    };
    for block in blocks(markdown) {
        let spans = |s: Vec<Span>| s.into_iter().map(span_view).collect::<Vec<_>>();
        match block {
            Block::Item { ordered: o, spans: s } => {
                if o != ordered {
                    flush(&mut list, ordered, &mut out);
                    ordered = o;
                }
                list.push(view! { <li>{spans(s)}</li> }.into_any());
            }
            Block::Heading { level, spans: s } => {
                flush(&mut list, ordered, &mut out);
                // Inside a panel whose heading is an h2: the instructions' levels start at h3.
                out.push(match level {
                    1 => view! { <h3>{spans(s)}</h3> }.into_any(),
                    2 => view! { <h4>{spans(s)}</h4> }.into_any(),
                    3 => view! { <h5>{spans(s)}</h5> }.into_any(),
                    _ => view! { <h6>{spans(s)}</h6> }.into_any(),
                });
            }
            Block::Paragraph(s) => {
                flush(&mut list, ordered, &mut out);
                out.push(view! { <p>{spans(s)}</p> }.into_any());
            }
        }
    }
    flush(&mut list, ordered, &mut out);
    out
}
