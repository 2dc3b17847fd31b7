//! One report model for every screen and the CLI: a [`Report`] is the tables and figures a
//! study shows; [`table`] is the one table type, [`figure`] the one figure description, and
//! [`export`] the one writer per format.
//!
//! ```text
//! study (workbench, meta, coeval) ──► Report { tables, figures } ──► the screen renders it
//!                                                     │
//!                                                     └──► export::{csv, markdown, latex, json, svg}
//!                                                          (download buttons, `concord report`)
//! ```

pub mod export;
pub mod figure;
pub mod table;

use serde::{Deserialize, Serialize};

pub use figure::{Figure, Plot};
pub use table::{
    Cell, CellInterval, Column, Mark, P_FLOOR, Row, Table, count, format_p, format_value,
};

/// The tables and figures of one screen, in the order it shows them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Report {
    pub tables: Vec<Table>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<Figure>,
}

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Csv,
    Markdown,
    Latex,
    Json,
    Svg,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Csv, Format::Markdown, Format::Latex, Format::Json, Format::Svg];

    /// The format called `name` (`csv`, `md`/`markdown`, `latex`/`tex`, `json`, `svg`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "csv" => Some(Format::Csv),
            "md" | "markdown" => Some(Format::Markdown),
            "latex" | "tex" => Some(Format::Latex),
            "json" => Some(Format::Json),
            "svg" => Some(Format::Svg),
            _ => None,
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Latex => "tex",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// The MIME type of a saved file.
    pub fn mime(self) -> &'static str {
        match self {
            Format::Csv => "text/csv",
            Format::Markdown => "text/markdown",
            Format::Latex => "application/x-tex",
            Format::Json => "application/json",
            Format::Svg => "image/svg+xml",
        }
    }

    /// The button's word: `CSV`, `Markdown`, `LaTeX`, `JSON`, `SVG`.
    pub fn label(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Markdown => "Markdown",
            Format::Latex => "LaTeX",
            Format::Json => "JSON",
            Format::Svg => "SVG",
        }
    }

    /// Whether tables are written in this format (SVG writes figures only).
    pub fn for_tables(self) -> bool {
        self != Format::Svg
    }
}

/// One file of an export: its name and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    pub name: String,
    pub text: String,
}

/// A table in `format` (`None` for SVG, which draws figures only).
pub fn export_table(table: &Table, format: Format) -> Option<String> {
    match format {
        Format::Csv => Some(export::csv(table)),
        Format::Markdown => Some(export::markdown(table)),
        Format::Latex => Some(export::latex(table)),
        Format::Json => Some(export::json(table)),
        Format::Svg => None,
    }
}

/// The file name a table or figure is saved under: its id and the format's extension.
pub fn file_name(id: &str, format: Format) -> String {
    format!("{id}.{}", format.extension())
}

impl Report {
    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id == id)
    }

    pub fn figure(&self, id: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.id == id)
    }

    /// Every table (or, for SVG, every figure) as one file each, named by id: what
    /// `concord report --out DIR` writes and what the screen's export buttons save.
    pub fn files(&self, format: Format) -> Vec<ExportFile> {
        match format {
            Format::Svg => self
                .figures
                .iter()
                .map(|f| ExportFile { name: file_name(&f.id, format), text: export::svg(f) })
                .collect(),
            _ => self
                .tables
                .iter()
                .filter_map(|t| {
                    Some(ExportFile {
                        name: file_name(&t.id, format),
                        text: export_table(t, format)?,
                    })
                })
                .collect(),
        }
    }

    /// The whole report as one text for a terminal: every file of [`Report::files`] one after
    /// the other, separated by a blank line (JSON: one document with `tables` and `figures`).
    pub fn to_text(&self, format: Format) -> String {
        if format == Format::Json {
            let portable = Report {
                tables: self.tables.iter().map(export::portable_table).collect(),
                figures: self.figures.clone(),
            };
            let mut out = serde_json::to_string_pretty(&portable)
                .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()));
            out.push('\n');
            return out;
        }
        let sep = if format == Format::Csv { "\r\n" } else { "\n" };
        self.files(format).into_iter().map(|f| f.text).collect::<Vec<_>>().join(sep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_named_by_id_and_svg_draws_figures() {
        let mut report = Report::default();
        report.tables.push(Table::new("table1", "Table 1", "Evaluator"));
        report.figures.push(Figure::new(
            "heat",
            figure::Heatmap::new("h", vec!["a".into()], vec!["b".into()], vec![vec![Some(1.0)]]),
        ));
        let names: Vec<String> = report.files(Format::Latex).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["table1.tex"]);
        let svg = report.files(Format::Svg);
        assert_eq!(svg.len(), 1);
        assert_eq!(svg[0].name, "heat.svg");
        assert!(svg[0].text.starts_with("<svg"));
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.extension()), Some(f));
        }
    }
}
