//! The only writers of tables and figures: CSV (RFC 4180), Markdown (GitHub tables, escaped),
//! LaTeX (booktabs, every special character escaped), JSON and SVG. The app's download buttons
//! and `concord report` call these, so a file saved from the page and the CLI's output for the
//! same bundle are the same bytes.
//!
//! What each format carries of a [`Cell`]:
//!
//! | | value | shown text | interval | spread | p, n, note | bold |
//! |---|---|---|---|---|---|---|
//! | CSV | full precision | where no value | `… low`, `… high` columns | `… sd` | `… p`, `… n`, `… note` | — |
//! | Markdown, LaTeX | — | yes | `[low, high]` after the text | `(sd)` | — | `**…**`, `\textbf{…}` |
//! | JSON | everything | | | | | |
//!
//! Companion CSV columns appear only for a column where some cell has them.

use super::figure::Figure;
use super::table::{Cell, Table};

/// A CSV field, quoted when it holds a comma, a quote, a CR or an LF (RFC 4180 §2.6–2.7).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// RFC 4180 records end with CRLF.
const CRLF: &str = "\r\n";

/// A value as exported: rounded to 13 significant digits. That is more than any statistic
/// here is accurate to, and it makes the export the same natively and in WebAssembly, whose
/// math libraries may differ in the last bit of a logarithm or an exponential (a p-value of
/// 0.29135605597314773 in one is 0.2913560559731475 in the other).
pub fn portable(v: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    format!("{v:.12e}").parse().unwrap_or(v)
}

fn full(v: f64) -> String {
    portable(v).to_string()
}

/// `table` with every number [`portable`]: what the JSON export writes.
pub fn portable_table(table: &Table) -> Table {
    let mut out = table.clone();
    for cell in out.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
        cell.value = cell.value.map(portable);
        cell.spread = cell.spread.map(portable);
        cell.p = cell.p.map(portable);
        if let Some(i) = cell.interval.as_mut() {
            i.low = portable(i.low);
            i.high = portable(i.high);
        }
    }
    out
}

/// The table as CSV: a header row, then one record per row; values at full precision, the
/// shown text where a cell has no value, empty where it is blank.
pub fn csv(table: &Table) -> String {
    let companions = |i: usize| {
        [
            table.column_has(i, |c| c.interval.is_some()),
            table.column_has(i, |c| c.spread.is_some()),
            table.column_has(i, |c| c.p.is_some()),
            table.column_has(i, |c| c.n.is_some()),
            table.column_has(i, |c| c.note.is_some()),
        ]
    };
    let mut header = vec![csv_field(&table.corner)];
    for (i, column) in table.columns.iter().enumerate() {
        let name = column.full_label();
        header.push(csv_field(&name));
        let [interval, spread, p, n, note] = companions(i);
        if interval {
            header.push(csv_field(&format!("{name} low")));
            header.push(csv_field(&format!("{name} high")));
        }
        for (has, suffix) in [(spread, "sd"), (p, "p"), (n, "n"), (note, "note")] {
            if has {
                header.push(csv_field(&format!("{name} {suffix}")));
            }
        }
    }
    let mut out = header.join(",");
    out.push_str(CRLF);
    let empty = Cell::empty();
    for row in &table.rows {
        let mut fields = vec![csv_field(&row.label)];
        for i in 0..table.columns.len() {
            let cell = row.cells.get(i).unwrap_or(&empty);
            fields.push(match cell.value {
                Some(v) => full(v),
                None if cell.is_blank() => String::new(),
                None => csv_field(&cell.text),
            });
            let [interval, spread, p, n, note] = companions(i);
            if interval {
                fields.push(cell.interval.map(|x| full(x.low)).unwrap_or_default());
                fields.push(cell.interval.map(|x| full(x.high)).unwrap_or_default());
            }
            if spread {
                fields.push(cell.spread.map(full).unwrap_or_default());
            }
            if p {
                fields.push(cell.p.map(full).unwrap_or_default());
            }
            if n {
                fields.push(cell.n.map(|n| n.to_string()).unwrap_or_default());
            }
            if note {
                fields.push(cell.note.as_deref().map(csv_field).unwrap_or_default());
            }
        }
        out.push_str(&fields.join(","));
        out.push_str(CRLF);
    }
    out
}

/// Escapes text for a Markdown table cell: the characters that would start markup or end the
/// cell are backslash-escaped (CommonMark escapes any ASCII punctuation), line breaks become
/// spaces.
pub fn markdown_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn markdown_cell(cell: &Cell) -> String {
    let text = markdown_escape(&cell.text);
    let mut out = if cell.is_bold() && !text.is_empty() { format!("**{text}**") } else { text };
    for extra in [cell.spread_text(), cell.interval_text()].into_iter().flatten() {
        out.push(' ');
        out.push_str(&markdown_escape(&extra));
    }
    out
}

/// The table as GitHub-flavoured Markdown: the title in bold, the table (a grouped column's
/// heading says its group), then the notes.
pub fn markdown(table: &Table) -> String {
    let mut out = String::new();
    if !table.title.is_empty() {
        out.push_str(&format!("**{}**\n\n", markdown_escape(&table.title)));
    }
    out.push_str(&format!("| {} |", markdown_escape(&table.corner)));
    for c in &table.columns {
        out.push_str(&format!(" {} |", markdown_escape(&c.full_label())));
    }
    out.push_str("\n|---|");
    for c in &table.columns {
        out.push_str(if c.text { "---|" } else { "---:|" });
    }
    out.push('\n');
    let empty = Cell::empty();
    for row in &table.rows {
        out.push_str(&format!("| {} |", markdown_escape(&row.label)));
        for i in 0..table.columns.len() {
            out.push_str(&format!(" {} |", markdown_cell(row.cells.get(i).unwrap_or(&empty))));
        }
        out.push('\n');
    }
    for note in &table.notes {
        out.push_str(&format!("\n{}\n", markdown_escape(note)));
    }
    out
}

/// Escapes text for LaTeX: the ten special characters (`& % $ # _ { } ~ ^ \`), the three that
/// print wrongly outside math in the default encoding (`< > |`), and the Unicode the tables use
/// (dashes, Greek letters, operators) as LaTeX commands, so the output compiles with pdflatex.
pub fn latex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '–' => out.push_str("--"),
            '—' => out.push_str("---"),
            'τ' => out.push_str("$\\tau$"),
            'ρ' => out.push_str("$\\rho$"),
            'α' => out.push_str("$\\alpha$"),
            'κ' => out.push_str("$\\kappa$"),
            'λ' => out.push_str("$\\lambda$"),
            'σ' => out.push_str("$\\sigma$"),
            'ε' => out.push_str("$\\varepsilon$"),
            '±' => out.push_str("$\\pm$"),
            '×' => out.push_str("$\\times$"),
            '·' => out.push_str("$\\cdot$"),
            '≥' => out.push_str("$\\geq$"),
            '≤' => out.push_str("$\\leq$"),
            '→' => out.push_str("$\\rightarrow$"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn latex_cell(cell: &Cell) -> String {
    let text = latex_escape(&cell.text);
    let mut out =
        if cell.is_bold() && !text.is_empty() { format!("\\textbf{{{text}}}") } else { text };
    for extra in [cell.spread_text(), cell.interval_text()].into_iter().flatten() {
        out.push(' ');
        out.push_str(&latex_escape(&extra));
    }
    out
}

/// The table as a LaTeX `table` float: caption, label `tab:<id>`, a booktabs `tabular` (group
/// headings as `\multicolumn` with a `\cmidrule` under each), the notes after it in small type.
/// Needs `\usepackage{booktabs}`.
pub fn latex(table: &Table) -> String {
    let spec: String = std::iter::once('l')
        .chain(table.columns.iter().map(|c| if c.text { 'l' } else { 'r' }))
        .collect();
    let mut out = String::from("\\begin{table}[t]\n\\centering\n");
    out.push_str(&format!("\\caption{{{}}}\n", latex_escape(&table.title)));
    out.push_str(&format!("\\label{{tab:{}}}\n", latex_label(&table.id)));
    out.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));
    let heading =
        |c: &super::table::Column| c.latex.clone().unwrap_or_else(|| latex_escape(&c.label));
    if table.has_groups() {
        out.push_str(&latex_escape(&table.corner));
        let mut rules = Vec::new();
        for (group, first, count) in table.groups() {
            match group {
                Some(g) => {
                    out.push_str(&format!(
                        " & \\multicolumn{{{count}}}{{c}}{{{}}}",
                        latex_escape(g)
                    ));
                    rules.push(format!("\\cmidrule(lr){{{}-{}}}", first + 2, first + count + 1));
                }
                None => out.push_str(" &"),
            }
        }
        out.push_str(" \\\\\n");
        if !rules.is_empty() {
            out.push_str(&rules.join(" "));
            out.push('\n');
        }
        for c in &table.columns {
            out.push_str(&format!(" & {}", heading(c)));
        }
    } else {
        out.push_str(&latex_escape(&table.corner));
        for c in &table.columns {
            out.push_str(&format!(" & {}", heading(c)));
        }
    }
    out.push_str(" \\\\\n\\midrule\n");
    let empty = Cell::empty();
    for row in &table.rows {
        out.push_str(&latex_escape(&row.label));
        for i in 0..table.columns.len() {
            out.push_str(&format!(" & {}", latex_cell(row.cells.get(i).unwrap_or(&empty))));
        }
        out.push_str(" \\\\\n");
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    for note in &table.notes {
        out.push_str(&format!("\\par\\smallskip{{\\footnotesize {}}}\n", latex_escape(note)));
    }
    out.push_str("\\end{table}\n");
    out
}

/// A `\label` key: letters, digits, `-` and `:` kept, anything else `-`.
fn latex_label(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == ':' { c } else { '-' })
        .collect()
}

/// The table as pretty-printed JSON (every field of every cell).
pub fn json(table: &Table) -> String {
    let mut out = serde_json::to_string_pretty(&portable_table(table)).unwrap_or_else(|e| {
        // A table is plain data; this cannot fail, but a message beats a panic.
        format!("{{\"error\": {:?}}}", e.to_string())
    });
    out.push('\n');
    out
}

/// The figure as a standalone SVG document.
pub fn svg(figure: &Figure) -> String {
    figure.to_svg()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_numbers_do_not_depend_on_the_last_bits() {
        // The same p-value natively and in WebAssembly (seen in the audit's length table).
        assert_eq!(full(0.29135605597314773), full(0.2913560559731475));
        assert_eq!(full(0.29135605597314773), "0.2913560559731");
        assert_eq!(full(3.0), "3");
        assert_eq!(full(-0.5), "-0.5");
        assert_eq!(full(1.5e-5), "0.000015");
        assert_eq!(full(0.0), "0");
    }
    use crate::report::table::{Column, Row};

    fn sample() -> Table {
        let mut t = Table::new("t_1", "T_1 & co", "Who");
        t.columns = vec![
            Column::number("r").in_group("a|b").with_latex("$r$"),
            Column::number("τ").in_group("a|b"),
            Column::text("note"),
        ];
        t.rows = vec![
            Row::new(
                "x,1",
                vec![
                    Cell::number(Some(0.123456), 3).bold(true).with_p(Some(0.01)).with_n(30),
                    Cell::number(Some(1000.5), 1).with_spread(Some(2.25)),
                    Cell::text("say \"hi\""),
                ],
            ),
            Row::new(
                "y|2",
                vec![Cell::blank("too few items"), Cell::number(None, 3), Cell::empty()],
            ),
        ];
        t.notes = vec!["Bold: p < 0.05.".into()];
        t
    }

    #[test]
    fn csv_is_rfc_4180_with_companion_columns() {
        assert_eq!(
            csv(&sample()),
            "Who,a|b r,a|b r p,a|b r n,a|b r note,a|b τ,a|b τ sd,note\r\n\
             \"x,1\",0.123456,0.01,30,,1000.5,2.25,\"say \"\"hi\"\"\"\r\n\
             y|2,,,,too few items,,,\r\n"
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_marks_bold() {
        let md = markdown(&sample());
        assert_eq!(
            md,
            "**T\\_1 & co**\n\n| Who | a\\|b r | a\\|b τ | note |\n|---|---:|---:|---|\n\
             | x,1 | **0.123** | 1,000.5 (2.2) | say \"hi\" |\n| y\\|2 | – | – |  |\n\nBold: p \\< 0.05.\n"
        );
    }

    #[test]
    fn latex_escapes_all_ten_specials() {
        assert_eq!(
            latex_escape("& % $ # _ { } ~ ^ \\"),
            "\\& \\% \\$ \\# \\_ \\{ \\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
        );
        assert_eq!(
            latex_escape("τ–ρ | <>"),
            "$\\tau$--$\\rho$ \\textbar{} \\textless{}\\textgreater{}"
        );
    }

    #[test]
    fn latex_is_a_booktabs_float_with_groups() {
        let tex = latex(&sample());
        assert!(tex.starts_with("\\begin{table}[t]\n\\centering\n\\caption{T\\_1 \\& co}\n\\label{tab:t-1}\n\\begin{tabular}{lrrl}\n\\toprule\n"), "{tex}");
        assert!(tex.contains("Who & \\multicolumn{2}{c}{a\\textbar{}b} & \\\\\n\\cmidrule(lr){2-3}\n & $r$ & $\\tau$ & note \\\\\n\\midrule\n"), "{tex}");
        assert!(tex.contains("x,1 & \\textbf{0.123} & 1,000.5 (2.2) & say \"hi\" \\\\\n"), "{tex}");
        assert!(tex.contains("y\\textbar{}2 & -- & -- &  \\\\\n"), "{tex}");
        assert!(tex.ends_with("\\bottomrule\n\\end{tabular}\n\\par\\smallskip{\\footnotesize Bold: p \\textless{} 0.05.}\n\\end{table}\n"), "{tex}");
    }

    #[test]
    fn json_round_trips() {
        let t = sample();
        let back: Table = serde_json::from_str(&json(&t)).expect("json");
        assert_eq!(back, t);
    }
}
