//! The one table type every screen shows and every exporter writes: titled, with an optional
//! group above each column, rows of cells that carry a value, the text shown, an interval, a
//! spread, the p-value and n behind them, marks and a note saying why a cell is blank.

use serde::{Deserialize, Serialize};

/// How a p-value below 0.001 is shown in a table's `p` column.
pub const P_FLOOR: &str = "< 0.001";

/// A p-value as a table cell shows it: three decimals, [`P_FLOOR`] below 0.001
/// ([`crate::words::p_number`]).
pub fn format_p(p: f64) -> String {
    crate::words::p_number(p)
}

/// A number with a fixed number of decimals and thousands separators; `None` and non-finite
/// values are an en dash ([`crate::words::decimal`]).
pub fn format_value(x: Option<f64>, decimals: usize) -> String {
    crate::words::decimal(x, decimals)
}

/// `n` with its noun in the right number: `1 response`, `1,656 responses`, `0 responses`
/// ([`crate::words::count`]).
pub fn count(n: usize, one: &str, many: &str) -> String {
    crate::words::count(n, one, many)
}

/// What a blank or undefined cell shows.
pub const DASH: &str = crate::words::DASH;

/// A table: rows with a label each, columns with an optional group heading.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Table {
    /// Stable id: the export's file stem (`table1.csv`) and the page's `data-table` attribute.
    pub id: String,
    pub title: String,
    /// The heading of the row-label column.
    pub corner: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Sentences printed under the table: what a mark means, what a test compared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One column: its heading, and the group heading above it when several columns share one
/// (an attribute above `r (dataset)` and `τ (document)`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Column {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub label: String,
    /// The heading in LaTeX when it needs math (`$r$ (dataset)`); escaped `label` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latex: Option<String>,
    /// What the column holds, in words (a heading's tooltip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Text columns are left-aligned; numbers right-aligned.
    #[serde(default)]
    pub text: bool,
}

impl Column {
    /// A numeric column.
    pub fn number(label: impl Into<String>) -> Column {
        Column { label: label.into(), ..Column::default() }
    }

    /// A text column (left-aligned).
    pub fn text(label: impl Into<String>) -> Column {
        Column { label: label.into(), text: true, ..Column::default() }
    }

    pub fn in_group(mut self, group: impl Into<String>) -> Column {
        self.group = Some(group.into());
        self
    }

    pub fn with_latex(mut self, latex: impl Into<String>) -> Column {
        self.latex = Some(latex.into());
        self
    }

    pub fn described(mut self, description: impl Into<String>) -> Column {
        self.description = Some(description.into());
        self
    }

    /// The heading with its group, as one line (CSV and Markdown headers): `coherence r (dataset)`.
    pub fn full_label(&self) -> String {
        match &self.group {
            Some(g) if !g.is_empty() => format!("{g} {}", self.label),
            _ => self.label.clone(),
        }
    }
}

/// One row: its label and one cell per column.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Row {
    pub label: String,
    pub cells: Vec<Cell>,
}

impl Row {
    pub fn new(label: impl Into<String>, cells: Vec<Cell>) -> Row {
        Row { label: label.into(), cells }
    }
}

/// A mark on a cell; the table's notes say what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// Bold: a test says this cell beats the baseline.
    Bold,
}

/// A confidence interval `[low, high]` at `confidence` (0.95).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CellInterval {
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Cell {
    /// The value at full precision (CSV, JSON); `None` for text cells and undefined values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// What is shown: the value rounded (`0.512`), a count, a word, or an en dash.
    pub text: String,
    /// Decimals of the shown value, used for the interval and spread beside it.
    #[serde(default)]
    pub decimals: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<CellInterval>,
    /// A standard deviation shown beside the value in parentheses (Elo over shuffles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
    /// The p-value of the test behind the cell's mark (Williams' test against a baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// How many items the value rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
    /// Why the cell is blank, or what else to know about it (a tooltip, a CSV column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A name for tests and tools (`gpt-4/accuracy`); not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl Cell {
    /// A number shown with `decimals` decimals (an en dash when `None`).
    pub fn number(value: Option<f64>, decimals: usize) -> Cell {
        let value = value.filter(|v| v.is_finite());
        Cell { value, text: format_value(value, decimals), decimals, ..Cell::default() }
    }

    /// A p-value: three decimals, `< 0.001` below that (the value itself is kept).
    pub fn p_value(p: Option<f64>) -> Cell {
        match p {
            Some(p) if p < 0.001 => {
                Cell { value: Some(p), text: P_FLOOR.to_owned(), decimals: 3, ..Cell::default() }
            }
            p => Cell::number(p, 3),
        }
    }

    /// A count (shown and exported as an integer).
    pub fn count(n: usize) -> Cell {
        Cell { value: Some(n as f64), text: crate::words::int(n), ..Cell::default() }
    }

    /// A text cell.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell { text: text.into(), ..Cell::default() }
    }

    /// An en dash that says why in its note.
    pub fn blank(why: impl Into<String>) -> Cell {
        Cell { text: DASH.to_owned(), note: Some(why.into()), ..Cell::default() }
    }

    /// An empty cell (nothing to say).
    pub fn empty() -> Cell {
        Cell::default()
    }

    pub fn keyed(mut self, key: impl Into<String>) -> Cell {
        self.key = Some(key.into());
        self
    }

    pub fn with_interval(mut self, low: f64, high: f64, confidence: f64) -> Cell {
        self.interval = Some(CellInterval { low, high, confidence });
        self
    }

    pub fn with_spread(mut self, sd: Option<f64>) -> Cell {
        self.spread = sd.filter(|s| s.is_finite());
        self
    }

    pub fn with_p(mut self, p: Option<f64>) -> Cell {
        self.p = p;
        self
    }

    pub fn with_n(mut self, n: usize) -> Cell {
        self.n = Some(n);
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Cell {
        self.note = Some(note.into());
        self
    }

    pub fn bold(mut self, bold: bool) -> Cell {
        if bold && !self.marks.contains(&Mark::Bold) {
            self.marks.push(Mark::Bold);
        }
        self
    }

    pub fn is_bold(&self) -> bool {
        self.marks.contains(&Mark::Bold)
    }

    /// A blank cell: no value and nothing but a dash (or nothing) to show.
    pub fn is_blank(&self) -> bool {
        self.value.is_none() && (self.text.is_empty() || self.text == DASH)
    }

    /// The spread as shown beside the value: `(2.3)`.
    pub fn spread_text(&self) -> Option<String> {
        self.spread.map(|s| format!("({})", format_value(Some(s), self.decimals)))
    }

    /// The interval as shown beside the value: `[0.401, 0.610]`.
    pub fn interval_text(&self) -> Option<String> {
        self.interval.map(|i| {
            format!(
                "[{}, {}]",
                format_value(Some(i.low), self.decimals),
                format_value(Some(i.high), self.decimals)
            )
        })
    }

    /// Everything shown in the cell on one line: the text, then the spread and the interval.
    pub fn display(&self) -> String {
        let mut out = self.text.clone();
        for extra in [self.spread_text(), self.interval_text()].into_iter().flatten() {
            out.push(' ');
            out.push_str(&extra);
        }
        out
    }
}

impl Table {
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        corner: impl Into<String>,
    ) -> Table {
        Table { id: id.into(), title: title.into(), corner: corner.into(), ..Table::default() }
    }

    /// The cell at `row`, `column`.
    pub fn cell(&self, row: usize, column: usize) -> Option<&Cell> {
        self.rows.get(row)?.cells.get(column)
    }

    /// The cell whose key is `key`.
    pub fn keyed(&self, key: &str) -> Option<&Cell> {
        self.rows.iter().flat_map(|r| &r.cells).find(|c| c.key.as_deref() == Some(key))
    }

    /// Runs of consecutive columns under the same group: `(group, first column, count)`; a
    /// column with no group is a run of its own with `None`.
    pub fn groups(&self) -> Vec<(Option<&str>, usize, usize)> {
        let mut out: Vec<(Option<&str>, usize, usize)> = Vec::new();
        for (i, c) in self.columns.iter().enumerate() {
            let g = c.group.as_deref();
            match out.last_mut() {
                Some((last, _, count)) if g.is_some() && *last == g => *count += 1,
                _ => out.push((g, i, 1)),
            }
        }
        out
    }

    /// Whether any column has a group heading.
    pub fn has_groups(&self) -> bool {
        self.columns.iter().any(|c| c.group.is_some())
    }

    /// Whether any cell of `column` has `what`.
    pub(crate) fn column_has(&self, column: usize, what: impl Fn(&Cell) -> bool) -> bool {
        self.rows.iter().any(|r| r.cells.get(column).is_some_and(&what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_puts_spread_and_interval_after_the_text() {
        let c = Cell::number(Some(1000.46), 1)
            .with_spread(Some(2.25))
            .with_interval(990.0, 1010.04, 0.95);
        assert_eq!(c.display(), "1,000.5 (2.2) [990.0, 1,010.0]");
        assert_eq!(Cell::number(None, 3).display(), "–");
        assert!(Cell::number(Some(f64::NAN), 3).is_blank());
        assert!(!Cell::count(0).is_blank());
    }

    #[test]
    fn groups_are_runs_of_the_same_heading() {
        let mut t = Table::new("t", "T", "m");
        t.columns = vec![
            Column::number("r").in_group("a"),
            Column::number("τ").in_group("a"),
            Column::number("n"),
            Column::number("r").in_group("b"),
        ];
        assert_eq!(t.groups(), vec![(Some("a"), 0, 2), (None, 2, 1), (Some("b"), 3, 1)]);
    }
}
