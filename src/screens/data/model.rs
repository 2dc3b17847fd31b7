//! The Data screen's plain, natively tested types: the open dataset's summary, preview rows
//! and diagnostics as shown, and the column-mapping editor's draft. No signals, no DOM.

use concord_core::data::{
    ColumnInfo, ColumnMapping, Diagnostic, Loaded, MappingProblem, Role, Scale, ScaleKind,
    Severity, validate_roles,
};

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
    /// Items with a human rating of any attribute: a file that ships only averaged ratings
    /// has raters = 0 but human ratings all the same.
    pub rated_items: usize,
    pub judge_records: usize,
    /// Why document-level correlations are undefined on this dataset, when they are
    /// ([`concord_core::data::documents_note`]).
    pub documents_note: Option<String>,
    /// Attribute names with their scales, e.g. "coherence (1–5)".
    pub attributes: Vec<String>,
    pub preview: Preview,
    pub diagnostics: Vec<DiagnosticLine>,
}

/// The preview table's columns and row count; rows are built as they scroll into view
/// ([`preview_row`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preview {
    pub columns: Vec<Column>,
    pub rows: usize,
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
    /// The raters figure as shown: their number, or what the file has instead of per-rater
    /// scores.
    pub fn raters_shown(&self) -> (String, &'static str) {
        if self.raters == 0 && self.rated_items > 0 {
            ("averaged".to_owned(), "human ratings (the file has no per-rater scores)")
        } else if self.raters == 1 {
            ("1".to_owned(), "rater")
        } else {
            (concord_core::words::int(self.raters), "raters")
        }
    }

    pub fn from_loaded(loaded: &Loaded) -> DatasetView {
        let counts = &loaded.summary.counts;
        let attributes = loaded
            .summary
            .attributes
            .iter()
            .map(|a| {
                // Labels are shown as labels, not as the codes' range.
                let categories = loaded
                    .dataset
                    .attributes
                    .iter()
                    .find(|x| x.name == a.name)
                    .map(|x| x.categories.as_slice())
                    .unwrap_or_default();
                if categories.is_empty() {
                    format!("{} ({}–{})", a.name, format_number(a.min), format_number(a.max))
                } else {
                    format!("{} (labels: {})", a.name, categories.join(", "))
                }
            })
            .collect();
        DatasetView {
            name: loaded.dataset.name.clone(),
            format: loaded.summary.format.clone(),
            items: counts.items,
            documents: counts.documents,
            systems: counts.systems,
            pairs: counts.pairs,
            raters: counts.raters,
            rated_items: loaded
                .dataset
                .items
                .iter()
                .filter(|it| it.ratings.iter().any(Option::is_some))
                .count(),
            judge_records: counts.judge_records,
            documents_note: concord_core::data::documents_note(loaded),
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
        return Preview { columns, rows: dataset.items.len() };
    }
    if !dataset.pairs.is_empty() {
        let columns = ["id", "output A", "output B", "gold"]
            .iter()
            .map(|t| Column { title: (*t).to_string(), numeric: false })
            .collect();
        return Preview { columns, rows: dataset.pairs.len() };
    }
    Preview::default()
}

/// The text cells of preview row `i` (rated items, else pairs), built when the row scrolls
/// into view; empty past the end.
pub fn preview_row(loaded: &Loaded, i: usize) -> Vec<String> {
    let dataset = &loaded.dataset;
    if !dataset.items.is_empty() {
        let Some(item) = dataset.items.get(i) else { return Vec::new() };
        let mut row = vec![item.document_id.clone(), item.system_id.clone(), clip(&item.output)];
        row.extend(item.ratings.iter().map(|r| match r {
            Some(r) => format_number(r.aggregate),
            None => "—".to_string(),
        }));
        return row;
    }
    match dataset.pairs.get(i) {
        Some(p) => {
            let gold = p.label.map(|l| format!("{l:?}")).unwrap_or_else(|| "—".to_string());
            vec![p.id.clone(), clip(&p.output_a), clip(&p.output_b), gold]
        }
        None => Vec::new(),
    }
}

/// One row of the column-mapping editor: a column of the file and the role being given to it,
/// as the form holds it (texts, so half-typed numbers are not lost).
#[derive(Debug, Clone, PartialEq)]
pub struct DraftRow {
    pub column: String,
    /// Example values, joined for display.
    pub samples: String,
    /// One of [`Role::NAMES`].
    pub role: &'static str,
    pub attribute: String,
    pub rater: String,
    pub scale_min: String,
    pub scale_max: String,
}

impl DraftRow {
    fn new(column: &ColumnInfo, role: &Role) -> DraftRow {
        let mut row = DraftRow {
            column: column.name.clone(),
            samples: column.samples.join(" · "),
            role: role.name(),
            attribute: String::new(),
            rater: String::new(),
            scale_min: String::new(),
            scale_max: String::new(),
        };
        if let Role::Rating { attribute, rater, scale } = role {
            row.attribute = attribute.clone();
            row.rater = rater.clone().unwrap_or_default();
            if let Some(s) = scale {
                row.scale_min = format_number(s.min);
                row.scale_max = format_number(s.max);
            }
        }
        row
    }

    /// Switches the role by name; a column that becomes a rating is named after itself until
    /// the user renames it.
    pub fn set_role(&mut self, name: &str) {
        if let Some(role) = Role::NAMES.iter().copied().find(|n| *n == name) {
            self.role = role;
            if role == "rating" && self.attribute.trim().is_empty() {
                self.attribute = self.column.clone();
            }
        }
    }
}

/// The editor's rows for a loaded tabular file (its mapping's roles); empty for other files.
pub fn draft_rows(loaded: &Loaded) -> Vec<DraftRow> {
    let Some(mapping) = &loaded.mapping else { return Vec::new() };
    let roles = mapping.roles(&loaded.columns);
    loaded.columns.iter().zip(&roles).map(|(c, r)| DraftRow::new(c, r)).collect()
}

/// The mapping the rows describe, or every problem with it; non-blocking problems (no rating
/// column) come back beside the mapping.
pub fn draft_mapping(
    columns: &[ColumnInfo],
    rows: &[DraftRow],
) -> (Option<ColumnMapping>, Vec<MappingProblem>) {
    let mut problems = Vec::new();
    let roles: Vec<Role> = rows
        .iter()
        .map(|row| match row.role {
            "item id" => Role::Id,
            "document" => Role::Document,
            "system" => Role::System,
            "input field" => Role::Input,
            "output" => Role::Output,
            "rating" => Role::Rating {
                attribute: row.attribute.clone(),
                rater: Some(row.rater.clone()),
                scale: draft_scale(row, &mut problems),
            },
            _ => Role::Ignore,
        })
        .collect();
    problems.extend(validate_roles(columns, &roles));
    let ok = !problems.iter().any(|p| p.blocking);
    (ok.then(|| ColumnMapping::from_roles(columns, &roles)), problems)
}

/// The scale typed in a row: none when both bounds are empty; integer bounds make a Likert
/// scale, others a continuous one.
fn draft_scale(row: &DraftRow, problems: &mut Vec<MappingProblem>) -> Option<Scale> {
    let (min, max) = (row.scale_min.trim(), row.scale_max.trim());
    if min.is_empty() && max.is_empty() {
        return None;
    }
    let problem = |message: String| MappingProblem {
        column: Some(row.column.clone()),
        message,
        blocking: true,
    };
    match (min.parse::<f64>(), max.parse::<f64>()) {
        (Ok(lo), Ok(hi)) if lo.is_finite() && hi.is_finite() => {
            let kind = if lo.fract() == 0.0 && hi.fract() == 0.0 {
                ScaleKind::Likert
            } else {
                ScaleKind::Continuous
            };
            Some(Scale { min: lo, max: hi, kind })
        }
        _ if min.is_empty() || max.is_empty() => {
            problems.push(problem(format!(
                "the scale of `{}` needs both a minimum and a maximum (or neither, to use the observed range)",
                row.column
            )));
            None
        }
        _ => {
            problems.push(problem(format!("the scale of `{}` must be two numbers", row.column)));
            None
        }
    }
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

/// What a set of picked or dropped files opens as: an AltTest folder (the annotators' file and
/// the LLMs'), the LLMs' file alone (it needs the annotators' file: the open one, when it is
/// theirs), or one dataset file (the others are left, and said).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChoice {
    /// Indexes of the annotators' file and of the LLMs' file, and the files left out.
    Folder { human: usize, llm: usize, left: Vec<usize> },
    /// The LLMs' file of a folder, alone.
    LlmOnly { llm: usize, left: Vec<usize> },
    /// One dataset file.
    One { file: usize, left: Vec<usize> },
}

/// Whether `name` is an AltTest folder's LLMs' file (`llm_annotations.json`, or any JSON file
/// whose name starts with `llm`).
pub fn is_llm_file(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name).to_ascii_lowercase();
    base.starts_with("llm") && base.ends_with(".json")
}

/// Whether `name` is an AltTest folder's annotators' file (`human_annotations.json`, or any
/// JSON file whose name starts with `human`).
pub fn is_human_file(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name).to_ascii_lowercase();
    base.starts_with("human") && base.ends_with(".json")
}

/// Sorts picked or dropped files by name (see [`FileChoice`]); `None` for no file.
pub fn choose_files(names: &[String]) -> Option<FileChoice> {
    if names.is_empty() {
        return None;
    }
    let llm = names.iter().position(|n| is_llm_file(n));
    let human = names.iter().position(|n| is_human_file(n));
    let left = |used: &[usize]| (0..names.len()).filter(|i| !used.contains(i)).collect();
    Some(match (human, llm) {
        (Some(h), Some(l)) => FileChoice::Folder { human: h, llm: l, left: left(&[h, l]) },
        (None, Some(l)) if names.len() == 2 => {
            let h = 1 - l;
            FileChoice::Folder { human: h, llm: l, left: Vec::new() }
        }
        (None, Some(l)) => FileChoice::LlmOnly { llm: l, left: left(&[l]) },
        (Some(h), None) => FileChoice::One { file: h, left: left(&[h]) },
        (None, None) => FileChoice::One { file: 0, left: left(&[0]) },
    })
}

/// The folder's name for the dataset: the directory a picked folder's file sits in
/// (`webkitRelativePath`), else the annotators' file name.
pub fn folder_name(relative_path: &str, human_file: &str) -> String {
    let mut parts: Vec<&str> = relative_path.split('/').filter(|p| !p.is_empty()).collect();
    parts.pop();
    parts.pop().map_or_else(|| human_file.to_owned(), str::to_owned)
}

/// What was read from an AltTest folder, in a sentence: the annotators, instances and values
/// from the annotators' file, and the LLMs from the LLMs' file (now judge runs).
pub fn folder_notice(loaded: &Loaded, human_file: &str, llm_file: Option<&str>) -> String {
    let counts = &loaded.summary.counts;
    let values = match loaded.dataset.attributes.first() {
        Some(a) if !a.categories.is_empty() => format!("labels {}", a.categories.join(", ")),
        Some(a) => {
            format!("scores from {} to {}", format_number(a.scale.min), format_number(a.scale.max))
        }
        None => "no values".to_owned(),
    };
    let rated =
        loaded.dataset.items.iter().filter(|i| i.ratings.iter().any(Option::is_some)).count();
    let mut out = format!(
        "Read {human_file}: {} annotator{}, {} instance{} with an annotation, {values}",
        counts.raters,
        if counts.raters == 1 { "" } else { "s" },
        rated,
        if rated == 1 { "" } else { "s" },
    );
    match llm_file {
        Some(file) => {
            let names: Vec<&str> = loaded.runs.iter().map(|r| r.name.as_str()).collect();
            out.push_str(&format!(
                "; and {file}: {} LLM{} ({}), now judge runs on the Results table. Results → “Can the judge replace the annotators?” tests each against the annotators.",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        None => out.push_str(
            ". Add the folder's llm_annotations.json to test its LLMs against the annotators.",
        ),
    }
    out
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
        assert_eq!(view.preview.rows, 15);
        assert_eq!(view.preview.columns.len(), 5);
        // d1/extractive: coherence raters 4 and 4, fluency 5 and 5.
        assert_eq!(preview_row(&loaded, 0)[3..], ["4".to_string(), "5".to_string()]);
        // d1/baseline: coherence 1 and 2 → 1.5.
        assert_eq!(preview_row(&loaded, 2)[3], "1.5");
        assert_eq!(preview_row(&loaded, 14).len(), 5);
        assert!(preview_row(&loaded, 15).is_empty());
    }

    #[test]
    fn mapping_editor_rows_round_trip_and_report_problems() {
        let csv = "doc,model,article,summary,coherence_a,coherence_b,notes\n\
                   d1,s1,A one,S one,4,5,7\nd1,s2,A one,S two,2,3,8\n";
        let loaded = data::load("x.csv", csv.as_bytes()).expect("loads");
        let mut rows = draft_rows(&loaded);
        assert_eq!(rows.len(), 7);
        assert_eq!(rows[3].role, "output");
        assert_eq!(rows[3].samples, "S one · S two");
        assert_eq!(
            (rows[4].role, rows[4].attribute.as_str(), rows[4].rater.as_str()),
            ("rating", "coherence", "a")
        );
        let (mapping, problems) = draft_mapping(&loaded.columns, &rows);
        assert_eq!(mapping.as_ref(), loaded.mapping.as_ref());
        assert!(problems.is_empty(), "{problems:?}");

        // `notes` is an input; coherence is on 1–5.
        rows[6].set_role("input field");
        rows[4].scale_min = "1".into();
        rows[4].scale_max = "5".into();
        let (mapping, _) = draft_mapping(&loaded.columns, &rows);
        let mapping = mapping.expect("valid");
        assert_eq!(mapping.inputs, ["article", "notes"]);
        assert_eq!(mapping.ratings[0].scale, Some(Scale::likert(1.0, 5.0)));
        assert_eq!(mapping.ratings.len(), 2);

        // Half a scale, and no output: both block.
        rows[4].scale_max.clear();
        rows[3].set_role("ignore");
        let (mapping, problems) = draft_mapping(&loaded.columns, &rows);
        assert!(mapping.is_none());
        let text: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert!(text[0].contains("needs both a minimum and a maximum"), "{text:?}");
        assert!(text.iter().any(|t| t.starts_with("no output column")), "{text:?}");

        // A column turned into a rating is named after itself.
        rows[2].set_role("rating");
        assert_eq!(rows[2].attribute, "article");
        rows[2].set_role("no such role");
        assert_eq!(rows[2].role, "rating");
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

#[cfg(test)]
mod raters_tests {
    use super::*;

    #[test]
    fn a_file_of_averages_does_not_say_zero_raters() {
        let topical = concat!(
            r#"[{"source": "s", "context": "c", "system_id": "sys", "system_output": "o", "#,
            r#""scores": {"naturalness": 2.0}}]"#
        );
        let loaded = concord_core::data::load("topical_chat.json", topical.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let view = DatasetView::from_loaded(&loaded);
        assert_eq!(view.raters, 0);
        assert_eq!(view.raters_shown().0, "averaged");
        let example = concord_core::data::example().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(DatasetView::from_loaded(&example).raters_shown(), ("2".to_owned(), "raters"));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod folder_tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn picked_files_open_as_a_folder_or_one_file() {
        let both = names(&["llm_annotations.json", "human_annotations.json"]);
        assert_eq!(
            choose_files(&both),
            Some(FileChoice::Folder { human: 1, llm: 0, left: vec![] })
        );
        // Renamed copies: a file starting with llm and another one.
        let renamed = names(&["wax-humans.json", "llm-wax.json"]);
        assert_eq!(
            choose_files(&renamed),
            Some(FileChoice::Folder { human: 0, llm: 1, left: vec![] })
        );
        assert_eq!(
            choose_files(&names(&["llm_annotations.json"])),
            Some(FileChoice::LlmOnly { llm: 0, left: vec![] })
        );
        assert_eq!(
            choose_files(&names(&["a.csv", "b.csv"])),
            Some(FileChoice::One { file: 0, left: vec![1] })
        );
        assert_eq!(
            choose_files(&names(&["notes.txt", "human_annotations.json"])),
            Some(FileChoice::One { file: 1, left: vec![0] })
        );
        assert_eq!(choose_files(&[]), None);
        assert_eq!(folder_name("wax/human_annotations.json", "human_annotations.json"), "wax");
        assert_eq!(folder_name("", "human_annotations.json"), "human_annotations.json");
    }

    #[test]
    fn the_notice_says_what_each_file_gave() {
        let h = br#"{"a": {"x": "yes", "y": "no"}, "b": {"x": "yes"}}"#;
        let l = br#"{"gpt": {"x": "yes", "y": "yes"}, "tiny": {"x": "no"}}"#;
        let loaded = concord_core::data::annotations::load_folder(
            "toy",
            ("human_annotations.json", h),
            Some(("llm_annotations.json", l)),
        )
        .unwrap();
        let text = folder_notice(&loaded, "human_annotations.json", Some("llm_annotations.json"));
        assert!(
            text.starts_with(
                "Read human_annotations.json: 2 annotators, 2 instances with an annotation, labels no, yes; and llm_annotations.json: 2 LLMs (gpt, tiny), now judge runs"
            ),
            "{text}"
        );
        let view = DatasetView::from_loaded(&loaded);
        assert_eq!(view.attributes, ["annotation (labels: no, yes)"]);
    }
}
