//! Seed 004's released files as tables in the paper's layout: Table 6 (rows per task and
//! component as printed), Figure 3's block (ChatGPT and Group 1), the α matrix of every task
//! (Figures 3–5) with its heatmap, the score distributions (Figures 2, 6, 7), every pairwise
//! α, and Table 7's CoEval column. [`ReleasedView::report`] is what the screen's Released
//! panel shows and what `concord coeval --format md|csv|latex` prints.

use super::tables::{
    alpha_figure, alpha_table, distribution_figure, distribution_table, rate_cells, rate_columns,
};
use crate::coeval::released::Rates;
use crate::coeval::results::level_name;
use crate::coeval::{self, ActionRates, Distribution, Reproduction};
use crate::report::{Cell, Column, Report, Row, Table};
use crate::stats::KrippendorffLevel;

/// The raters of Figure 3's ChatGPT/A3/A4/A5 block in the released ROCStories scores.
pub const FIGURE3_RATERS: [&str; 4] = [coeval::CHATGPT, "A08", "A09", "A10"];

/// How the paper names Figure 3's raters: A08–A10 of the released ROCStories files are its
/// A3–A5.
const FIGURE3_NAMES: [&str; 4] = ["ChatGPT", "A3 (A08)", "A4 (A09)", "A5 (A10)"];

/// The paper's name of a released task (`eli5` → `ELI5`).
pub fn task_title(task: &str) -> &str {
    match task {
        "eli5" => "ELI5",
        "roc" => "ROCStories",
        "self_instruct" => "Self-Instruct",
        other => other,
    }
}

/// One task's α matrix among the raters of its score file.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskMatrix {
    pub task: String,
    pub raters: Vec<String>,
    pub matrix: Vec<Vec<Option<f64>>>,
}

/// Figure 3's block: ChatGPT and the paper's Group 1 (A3–A5), from the ROCStories scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure3 {
    pub matrix: Vec<Vec<Option<f64>>>,
    /// The mean of the three ChatGPT–Group 1 values (the text's "Group 1 α ≈ 0.754").
    pub group1: Option<f64>,
}

/// What the released-file import shows: the `concord coeval` JSON report and the tables and
/// figures computed from the same files.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleasedView {
    /// `concord coeval --format json` (the panel's "Download report (JSON)").
    pub report: coeval::Report,
    pub level: KrippendorffLevel,
    /// The α matrix per task with a score file.
    pub matrices: Vec<TaskMatrix>,
    /// Score counts per generating system and rater, per task with a score file.
    pub distributions: Vec<(String, Vec<Distribution>)>,
    /// Present when the ROCStories scores have ChatGPT, A08, A09 and A10.
    pub figure3: Option<Figure3>,
}

impl ReleasedView {
    /// The view of everything `reproduction` was given, at α level `level`.
    pub fn new(reproduction: &Reproduction, level: KrippendorffLevel) -> ReleasedView {
        let mut view = ReleasedView::start(reproduction, level);
        for task in reproduction.task_names() {
            view.add_task(reproduction, task);
        }
        view
    }

    /// A view with no task yet (only the notes about the files): [`ReleasedView::new`] is
    /// this with [`ReleasedView::add_task`] of every task in `Reproduction::task_names`
    /// order, so a caller can compute one task at a time (and let a page breathe between).
    pub fn start(reproduction: &Reproduction, level: KrippendorffLevel) -> ReleasedView {
        ReleasedView {
            report: reproduction.report_start(),
            level,
            matrices: Vec::new(),
            distributions: Vec::new(),
            figure3: None,
        }
    }

    /// Adds one task: its part of the report, and its α matrix (from the report's pairs, not
    /// computed twice), score distribution and, for ROCStories, Figure 3's block.
    pub fn add_task(&mut self, reproduction: &Reproduction, task: &str) {
        let part = reproduction.report_task(task, self.level);
        if let Some(table) = reproduction.score_table(task) {
            let alpha = |a: &str, b: &str| -> Option<f64> {
                if a == b {
                    return Some(1.0);
                }
                part.alpha
                    .iter()
                    .map(|x| &x.pair)
                    .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
                    .and_then(|p| p.alpha)
            };
            let matrix_of = |raters: &[&str]| -> Vec<Vec<Option<f64>>> {
                raters.iter().map(|a| raters.iter().map(|b| alpha(a, b)).collect()).collect()
            };
            let raters: Vec<&str> = table.raters.iter().map(String::as_str).collect();
            self.matrices.push(TaskMatrix {
                task: task.to_owned(),
                raters: table.raters.clone(),
                matrix: matrix_of(&raters),
            });
            self.distributions.push((task.to_owned(), table.distribution(None)));
            if task == "roc" && FIGURE3_RATERS.iter().all(|r| raters.contains(r)) {
                let matrix = matrix_of(&FIGURE3_RATERS);
                let group: Vec<f64> = matrix[0][1..].iter().flatten().copied().collect();
                let group1 = (group.len() == 3).then(|| group.iter().sum::<f64>() / 3.0);
                self.figure3 = Some(Figure3 { matrix, group1 });
            }
        }
        self.report.extend(part);
    }

    /// Minutes per sample from the session logs, per task.
    pub fn minutes(&self) -> Vec<(String, f64)> {
        self.report
            .tasks
            .iter()
            .filter_map(|t| Some((t.task.clone(), t.minutes_per_sample?)))
            .collect()
    }

    /// The line under Figure 3's block: `Group 1 α (mean of ChatGPT–A08, –A09, –A10): 0.7536`.
    pub fn group1_text(&self) -> Option<String> {
        let f = self.figure3.as_ref()?;
        Some(format!(
            "Group 1 α (mean of ChatGPT–A08, –A09, –A10): {}",
            crate::report::format_value(f.group1, 4)
        ))
    }

    /// Seed 004 Table 6 as printed: per task a row of all actions, then `-conc.`, `-scr.`
    /// and `-evd.`; approve / revise / delete / add in percent.
    pub fn table6(&self) -> Table {
        let mut t = Table::new(
            "coeval-released-table6",
            "Table 6: correction rates of annotators on the LLM's evaluations",
            "Task",
        );
        t.columns = rate_columns();
        let actions = ["approve", "revise", "delete", "add"];
        for task in &self.report.tasks {
            let r = &task.action_rates;
            let title = task_title(&task.task);
            for (label, component, rates) in [
                (title, "all", r.all),
                ("-conc.", "conclusion", r.conclusion),
                ("-scr.", "score", r.score),
                ("-evd.", "evidence", r.evidence),
            ] {
                let cells = rate_cells(rates.map(action_rates))
                    .into_iter()
                    .zip(actions)
                    .map(|(c, a)| c.keyed(format!("{}/{component}/{a}", task.task)))
                    .collect();
                t.rows.push(Row::new(label, cells));
            }
            let source = match task.score_source.as_deref() {
                Some("session_logs") => {
                    "the session logs (the second line of each evaluation, approved when its pass flag is set)"
                }
                Some("action_file") => "the action file",
                _ => "no file",
            };
            t.notes.push(format!("{title}: the -scr. row is from {source}."));
        }
        t.notes.push(
            "Percent of all actions on each component. ROCStories' released action file is not \
             the one the paper counted (docs/reproduction-coeval.md)."
                .to_owned(),
        );
        t
    }

    /// Figure 3's block in the paper's layout (ChatGPT, A3, A4, A5).
    pub fn figure3_table(&self) -> Option<Table> {
        let f = self.figure3.as_ref()?;
        let names: Vec<String> = FIGURE3_NAMES.iter().map(|s| (*s).to_owned()).collect();
        let mut t = alpha_table(
            "coeval-figure3",
            &format!(
                "Figure 3: Krippendorff's α ({}) among ChatGPT and Group 1 (ROCStories A08–A10 = the paper's A3–A5)",
                level_name(self.level)
            ),
            &names,
            &f.matrix,
        );
        t.corner = String::new();
        t.notes.push(format!(
            "Group 1 α (mean of ChatGPT–A3, –A4, –A5): {} (the paper: ≈ 0.754).",
            crate::report::format_value(f.group1, 4)
        ));
        t.notes.push(
            "The paper's A1 and A2 match no released annotator; their rows are left out."
                .to_owned(),
        );
        Some(t)
    }

    fn alpha_title(&self, task: &str) -> String {
        format!(
            "Krippendorff's α ({}) among ChatGPT and the annotators, {}",
            level_name(self.level),
            task_title(task)
        )
    }

    fn distribution_title(task: &str) -> String {
        format!("Score distribution by generating model and rater, {}", task_title(task))
    }

    /// Every pairwise α of every task, as the JSON report lists them.
    pub fn pairs_table(&self) -> Table {
        let mut t = Table::new("coeval-alpha-pairs", "Pairwise α (all tasks)", "task");
        t.columns = vec![
            Column::text("a"),
            Column::text("b"),
            Column::text("level"),
            Column::number("α"),
            Column::number("units"),
        ];
        t.rows = self
            .report
            .alpha
            .iter()
            .map(|a| {
                Row::new(
                    a.task.clone(),
                    vec![
                        Cell::text(a.pair.a.clone()),
                        Cell::text(a.pair.b.clone()),
                        Cell::text(a.pair.level.clone()),
                        Cell::number(a.pair.alpha, 4),
                        Cell::count(a.pair.n_units),
                    ],
                )
            })
            .collect();
        t
    }

    /// Table 7 as printed (ROCStories, Self-Instruct, ELI5), with what the files give: the
    /// CoEval column from the session logs' stamps; HumanEval is not released.
    pub fn table7(&self) -> Option<Table> {
        let minutes = self.minutes();
        if minutes.is_empty() {
            return None;
        }
        let mut t = Table::new("coeval-table7", "Table 7: minutes per sample", "Task");
        t.columns = vec![
            Column::number("CoEval").described("session-log stamps summed per instance"),
            Column::number("HumanEval"),
        ];
        for task in ["roc", "self_instruct", "eli5"] {
            if let Some((_, m)) = minutes.iter().find(|(t, _)| t == task) {
                t.rows.push(Row::new(
                    task_title(task),
                    vec![
                        Cell::number(Some(*m), 2).keyed(format!("{task}/coeval")),
                        Cell::blank("not released"),
                    ],
                ));
            }
        }
        t.notes.push(
            "CoEval: the session logs' start and end stamps per criterion, summed per instance; \
             pauses and revisits are included, so this is not the paper's measure."
                .to_owned(),
        );
        Some(t)
    }

    /// Every table and figure of the Released panel, in its order: Table 6, Figure 3's block,
    /// each task's α matrix and score distribution (each with its heatmap, same id), the
    /// pairwise α, Table 7.
    pub fn report(&self) -> Report {
        let mut report = Report::default();
        if !self.report.tasks.is_empty() {
            report.tables.push(self.table6());
        }
        report.tables.extend(self.figure3_table());
        for m in &self.matrices {
            let id = format!("coeval-alpha-{}", m.task);
            let title = self.alpha_title(&m.task);
            report.tables.push(alpha_table(&id, &title, &m.raters, &m.matrix));
            report.figures.push(alpha_figure(&id, &title, &m.raters, &m.matrix));
        }
        for (task, groups) in &self.distributions {
            let id = format!("coeval-distribution-{task}");
            let title = ReleasedView::distribution_title(task);
            report.tables.push(distribution_table(&id, &title, groups));
            report.figures.push(distribution_figure(&id, &title, groups));
        }
        if !self.report.alpha.is_empty() {
            report.tables.push(self.pairs_table());
        }
        report.tables.extend(self.table7());
        report
    }
}

fn action_rates(r: Rates) -> ActionRates {
    ActionRates { approve: r.approve, revise: r.revise, delete: r.delete, add: r.add }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::*;
    use crate::report::{Format, export_table};

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/coeval/ELI5");

    fn fixtures() -> Reproduction {
        let mut r = Reproduction::new();
        for name in ["eli5_action.json", "eli5_annotator_scores.json", "A01.json"] {
            let path = format!("{FIXTURES}/{name}");
            let bytes = std::fs::read(&path).unwrap();
            r.add(&path, &bytes).unwrap();
        }
        r
    }

    #[test]
    fn table6_has_the_papers_rows() {
        let view = ReleasedView::new(&fixtures(), KrippendorffLevel::Interval);
        let t = view.table6();
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["ELI5", "-conc.", "-scr.", "-evd."]);
        let all = view.report.tasks[0].action_rates.all.unwrap();
        assert_eq!(t.keyed("eli5/all/approve").unwrap().value, Some(all.approve));
        // 9 approvals of 14 actions in the fixture's action file.
        assert_eq!(t.rows[0].cells[0].text, "64.29");
        assert!(
            t.notes[0].starts_with("ELI5: the -scr. row is from the session logs"),
            "{:?}",
            t.notes
        );
        let ids: Vec<String> = view.report().tables.iter().map(|t| t.id.clone()).collect();
        assert_eq!(
            ids,
            [
                "coeval-released-table6",
                "coeval-alpha-eli5",
                "coeval-distribution-eli5",
                "coeval-alpha-pairs",
                "coeval-table7"
            ]
        );
        let figures: Vec<String> = view.report().figures.iter().map(|f| f.id.clone()).collect();
        assert_eq!(figures, ["coeval-alpha-eli5", "coeval-distribution-eli5"]);
        let pairs = export_table(&view.pairs_table(), Format::Markdown).unwrap();
        assert!(pairs.contains("| eli5 | chatgpt | A01 | interval | 0.9038 | 12 |"), "{pairs}");
    }

    #[test]
    fn figure3_is_the_roc_block_under_the_papers_names() {
        let view = ReleasedView {
            report: Reproduction::new().report(KrippendorffLevel::Interval),
            level: KrippendorffLevel::Interval,
            matrices: Vec::new(),
            distributions: Vec::new(),
            figure3: Some(Figure3 {
                matrix: vec![
                    vec![Some(1.0), Some(0.756), Some(0.756), Some(0.749)],
                    vec![Some(0.756), Some(1.0), Some(0.967), Some(0.959)],
                    vec![Some(0.756), Some(0.967), Some(1.0), Some(0.968)],
                    vec![Some(0.749), Some(0.959), Some(0.968), Some(1.0)],
                ],
                group1: Some(0.7536),
            }),
        };
        let t = view.figure3_table().unwrap();
        let md = export_table(&t, Format::Markdown).unwrap();
        assert!(md.contains("|  | ChatGPT | A3 (A08) | A4 (A09) | A5 (A10) |"), "{md}");
        assert!(md.contains("| A3 (A08) | 0.756 | 1.000 | 0.967 | 0.959 |"), "{md}");
        assert!(md.contains("Group 1 α (mean of ChatGPT–A3, –A4, –A5): 0.7536"), "{md}");
        assert_eq!(
            view.group1_text().unwrap(),
            "Group 1 α (mean of ChatGPT–A08, –A09, –A10): 0.7536"
        );
        assert_eq!(view.report().tables[0].id, "coeval-figure3", "no Table 6 without tasks");
    }
}
