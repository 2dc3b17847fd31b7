//! Plain, natively tested types that the components render: no signals, no DOM.

use concord_core::data::{Diagnostic, Loaded, Severity};

/// How many rows the preview table renders at once; the full data stays in memory.
pub const PREVIEW_ROWS: usize = 200;

/// What the Data screen shows about the current dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetView {
    pub name: String,
    pub format: String,
    pub items: usize,
    pub documents: usize,
    pub systems: usize,
    pub pairs: usize,
    pub raters: usize,
    pub judge_records: usize,
    /// Attribute names with their scales, e.g. "coherence (1–5)".
    pub attributes: Vec<String>,
    pub preview: Preview,
    pub diagnostics: Vec<DiagnosticLine>,
}

/// The first rows of the dataset as text cells.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preview {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    /// Rows not shown because of [`PREVIEW_ROWS`].
    pub hidden_rows: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub title: String,
    pub numeric: bool,
}

/// A diagnostic as one readable line, with its severity as a CSS class.
#[derive(Debug, Clone, PartialEq)]
pub struct DiagnosticLine {
    pub class: &'static str,
    pub text: String,
}

impl DatasetView {
    pub fn from_loaded(loaded: &Loaded) -> DatasetView {
        let counts = &loaded.summary.counts;
        let attributes = loaded
            .summary
            .attributes
            .iter()
            .map(|a| format!("{} ({}–{})", a.name, format_number(a.min), format_number(a.max)))
            .collect();
        DatasetView {
            name: loaded.dataset.name.clone(),
            format: loaded.summary.format.clone(),
            items: counts.items,
            documents: counts.documents,
            systems: counts.systems,
            pairs: counts.pairs,
            raters: counts.raters,
            judge_records: counts.judge_records,
            attributes,
            preview: preview(loaded),
            diagnostics: loaded.diagnostics.iter().map(DiagnosticLine::from).collect(),
        }
    }
}

impl From<&Diagnostic> for DiagnosticLine {
    fn from(d: &Diagnostic) -> Self {
        let class = match d.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
        };
        DiagnosticLine { class, text: d.to_string() }
    }
}

fn preview(loaded: &Loaded) -> Preview {
    let dataset = &loaded.dataset;
    if !dataset.items.is_empty() {
        let mut columns = vec![
            Column { title: "document".into(), numeric: false },
            Column { title: "system".into(), numeric: false },
            Column { title: "output".into(), numeric: false },
        ];
        columns.extend(
            dataset.attributes.iter().map(|a| Column { title: a.name.clone(), numeric: true }),
        );
        let rows = dataset
            .items
            .iter()
            .take(PREVIEW_ROWS)
            .map(|item| {
                let mut row =
                    vec![item.document_id.clone(), item.system_id.clone(), clip(&item.output)];
                row.extend(item.ratings.iter().map(|r| match r {
                    Some(r) => format_number(r.aggregate),
                    None => "—".to_string(),
                }));
                row
            })
            .collect();
        return Preview {
            columns,
            rows,
            hidden_rows: dataset.items.len().saturating_sub(PREVIEW_ROWS),
        };
    }
    if !dataset.pairs.is_empty() {
        let columns = ["id", "output A", "output B", "gold"]
            .iter()
            .map(|t| Column { title: (*t).to_string(), numeric: false })
            .collect();
        let rows = dataset
            .pairs
            .iter()
            .take(PREVIEW_ROWS)
            .map(|p| {
                let gold = p.label.map(|l| format!("{l:?}")).unwrap_or_else(|| "—".to_string());
                vec![p.id.clone(), clip(&p.output_a), clip(&p.output_b), gold]
            })
            .collect();
        return Preview {
            columns,
            rows,
            hidden_rows: dataset.pairs.len().saturating_sub(PREVIEW_ROWS),
        };
    }
    Preview::default()
}

/// Long texts are clipped in the preview (the drill-down shows them whole).
fn clip(text: &str) -> String {
    const MAX: usize = 240;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Shortest faithful decimal: 4 → "4", 3.6666666667 → "3.667".
pub fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concord_core::data;

    #[test]
    fn example_view_counts_and_preview() {
        let loaded = data::example().expect("the example loads");
        let view = DatasetView::from_loaded(&loaded);
        assert_eq!((view.items, view.documents, view.systems), (15, 5, 3));
        assert_eq!(view.attributes, vec!["coherence (1–5)", "fluency (1–5)"]);
        assert_eq!(view.preview.rows.len(), 15);
        assert_eq!(view.preview.columns.len(), 5);
        // d1/extractive: coherence raters 4 and 4, fluency 5 and 5.
        assert_eq!(view.preview.rows[0][3..], ["4".to_string(), "5".to_string()]);
        // d1/baseline: coherence 1 and 2 → 1.5.
        assert_eq!(view.preview.rows[2][3], "1.5");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(format_number(4.0), "4");
        assert_eq!(format_number(3.6666666667), "3.667");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(-2.0), "-2");
    }

    #[test]
    fn clipping_respects_char_boundaries() {
        let long = "é".repeat(300);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), 241);
        assert!(clipped.ends_with('…'));
        assert_eq!(clip("short"), "short");
    }
}
