//! A study's outcome over its annotators: stage 1 (final criteria by majority, Table 5),
//! the merge of every annotator's work, and [`StudyResults`] — Tables 5 and 6, the share of
//! LLM scores revised, α among the LLM and the annotators (Figure 3), mean Pearson (Table 8),
//! score distributions (Figure 2), time per sample (Table 7) — with [`StudyResults::report`],
//! the tables and figures of the screen's Results panel in its order.

use std::collections::BTreeMap;

use super::study::{LLM, Study};
use super::tables::{
    alpha_figure, alpha_table, distribution_figure, distribution_table, rates_table,
};
use crate::coeval::{
    self, ActionCounts, Annotation, AnnotatorFile, ComponentCounts, FinalCriterion, ImportError,
    Log, Merge, ScoreTable, results::level_name,
};
use crate::judge::coeval::Recurrence;
use crate::report::{Cell, Column, Report, Row, Table};
use crate::stats::KrippendorffLevel;

/// Why the annotators' files could not be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: {error}")]
pub struct MergeError {
    /// Where the file came from (`this device (Ann)` or the imported file's name).
    pub source_name: String,
    pub error: ImportError,
}

/// Every annotator's work on the study's task: this device's logs (by annotator), then the
/// imported files of the same task, merged by [`coeval::merge`] (the same annotator in
/// several files: conflicts). Returns the merge and a name for each merged file (by index).
pub fn merge_annotators(
    study: &Study,
    logs: &BTreeMap<String, Log>,
    imported: &[(String, AnnotatorFile)],
) -> Result<(Merge, Vec<String>), MergeError> {
    let mut files: Vec<AnnotatorFile> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for (name, log) in logs {
        if !log.events().is_empty() {
            files.push(AnnotatorFile::new(name, &study.task, log));
            sources.push(format!("this device ({name})"));
        }
    }
    for (file, f) in imported.iter().filter(|(_, f)| f.scope == study.task) {
        files.push(f.clone());
        sources.push(file.clone());
    }
    coeval::merge(&files).map(|m| (m, sources.clone())).map_err(|(i, error)| MergeError {
        source_name: sources.get(i).cloned().unwrap_or_else(|| "?".to_owned()),
        error,
    })
}

/// The annotators' (name, state) of a merge, in merge order.
pub fn annotations_of(merge: Merge) -> Vec<(String, Annotation)> {
    merge.annotators.into_iter().map(|a| (a.annotator, a.state)).collect()
}

/// The merge as the coordinator sees it: who was merged from which files, and every conflict.
pub fn merge_tables(merge: &Merge, sources: &[String]) -> (Table, Table) {
    let source = |i: usize| sources.get(i).cloned().unwrap_or_else(|| format!("file {i}"));
    let mut who = Table::new("coeval-merged-annotators", "Merged annotators", "annotator");
    who.columns = vec![
        Column::text("from"),
        Column::number("criteria decisions"),
        Column::number("part decisions"),
        Column::number("own scores"),
        Column::number("minutes"),
    ];
    who.rows = merge
        .annotators
        .iter()
        .map(|a| {
            let parts: usize = a.state.reviews.values().map(|r| r.parts.len()).sum();
            let scores = a.state.reviews.values().filter(|r| r.score.is_some()).count();
            let minutes = a.state.time_ms.values().sum::<u64>() as f64 / 60_000.0;
            let from = a.sources.iter().map(|&i| source(i)).collect::<Vec<_>>().join(", ");
            Row::new(
                a.annotator.clone(),
                vec![
                    Cell::text(from),
                    Cell::count(a.state.criteria.len()),
                    Cell::count(parts),
                    Cell::count(scores),
                    Cell::number(Some(minutes), 1),
                ],
            )
        })
        .collect();
    let mut conflicts = Table::new(
        "coeval-conflicts",
        format!("Conflicts ({})", merge.conflicts.len()),
        "annotator",
    );
    conflicts.columns =
        ["what", "kept", "from", "overridden", "from"].into_iter().map(Column::text).collect();
    conflicts.rows = merge
        .conflicts
        .iter()
        .map(|c| {
            Row::new(
                c.annotator.clone(),
                vec![
                    Cell::text(c.key.clone()),
                    Cell::text(c.kept.clone()),
                    Cell::text(source(c.kept_from)),
                    Cell::text(c.overridden.clone()),
                    Cell::text(source(c.overridden_from)),
                ],
            )
        })
        .collect();
    (who, conflicts)
}

/// How often each criterion recurs over `answers` ideation answers.
pub fn recurrence_table(recurrence: &[Recurrence], answers: usize) -> Table {
    let mut t = Table::new(
        "coeval-ideation-recurrence",
        format!("How often each criterion recurs in {answers} answers"),
        "criterion (first wording)",
    );
    t.columns = vec![
        Column::number("answers listing it"),
        Column::number("share"),
        Column::number("wordings").described("distinct wordings; hover for them"),
    ];
    t.rows = recurrence
        .iter()
        .map(|r| {
            Row::new(
                r.wording.clone(),
                vec![
                    Cell::count(r.samples),
                    Cell {
                        value: Some(r.share),
                        text: format!("{:.0} %", 100.0 * r.share),
                        ..Cell::default()
                    },
                    Cell::count(r.variants.len()).with_note(r.variants.join("\n")),
                ],
            )
        })
        .collect();
    t
}

/// The criteria listed in at least `k` of the answers, in recurrence order.
pub fn recurring_criteria(recurrence: &[Recurrence], k: usize) -> Vec<String> {
    recurrence.iter().filter(|r| r.samples >= k).map(|r| r.wording.clone()).collect()
}

/// Stage 1 over the annotators: the final criteria by majority and Table 5.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage1 {
    pub finals: Vec<FinalCriterion>,
    pub counts: ActionCounts,
    /// Annotators who decided on at least one criterion.
    pub voters: usize,
}

impl Stage1 {
    pub fn compute(study: &Study, annotators: &[(String, Annotation)]) -> Stage1 {
        let states: Vec<&Annotation> = annotators.iter().map(|(_, a)| a).collect();
        Stage1 {
            finals: coeval::majority_criteria(&study.criteria, &states),
            counts: coeval::criterion_actions(states.iter().copied()),
            voters: states.iter().filter(|a| !a.criteria.is_empty()).count(),
        }
    }

    /// Each final criterion as the screen lists it: `2. Sharper. (revised from “2. Old.”) —
    /// kept by 1 of 1`.
    pub fn lines(&self) -> Vec<String> {
        self.finals
            .iter()
            .map(|f| {
                let origin = match &f.original {
                    Some(o) if *o != f.criterion => format!(" (revised from “{o}”)"),
                    Some(_) => String::new(),
                    None => " (added)".to_owned(),
                };
                format!("{}{origin} — kept by {} of {}", f.criterion, f.keep, f.voters)
            })
            .collect()
    }

    /// Table 5 of stage 1 as the criteria panel shows it.
    pub fn table5(&self) -> Table {
        rates_table("coeval-table5", "Table 5: criteria scrutiny", &[("criteria", &self.counts)])
    }
}

/// Everything the results panel shows for a study and a set of annotators.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyResults {
    pub level: KrippendorffLevel,
    /// Table 5: stage-1 decisions on criteria.
    pub criteria_actions: ActionCounts,
    /// Final criteria by majority vote.
    pub finals: Vec<FinalCriterion>,
    /// Table 6: stage-2 decisions per component.
    pub part_actions: ComponentCounts,
    /// Share (0–1) of the LLM's scores annotators revised.
    pub share_revised: Option<f64>,
    pub raters: Vec<String>,
    pub alpha: Vec<Vec<Option<f64>>>,
    /// Table 8: mean Pearson between the LLM and each annotator, and among annotators.
    pub pearson_llm_annotators: Option<f64>,
    pub pearson_annotators: Option<f64>,
    pub scores: ScoreTable,
    pub minutes_per_sample: Option<f64>,
}

impl StudyResults {
    /// Computes the results over the annotators' (name, state) at α level `level`.
    pub fn compute(
        study: &Study,
        annotators: &[(String, Annotation)],
        level: KrippendorffLevel,
    ) -> StudyResults {
        let states: Vec<&Annotation> = annotators.iter().map(|(_, a)| a).collect();
        let llm: BTreeMap<(String, String), f64> = study
            .evaluations
            .iter()
            .filter_map(|e| Some(((e.instance.clone(), e.criterion.clone()), e.score?)))
            .collect();
        let share_revised = coeval::share_scores_revised(states.iter().copied(), |i, c| {
            llm.get(&(i.to_owned(), c.to_owned())).copied()
        });
        let named: Vec<(&str, &Annotation)> =
            annotators.iter().map(|(n, a)| (n.as_str(), a)).collect();
        let scores =
            ScoreTable::from_annotations(LLM, &study.llm_scores(), &named, |i| study.system_of(i));
        let names: Vec<&str> = annotators.iter().map(|(n, _)| n.as_str()).collect();
        StudyResults {
            level,
            criteria_actions: coeval::criterion_actions(states.iter().copied()),
            finals: coeval::majority_criteria(&study.criteria, &states),
            part_actions: coeval::part_actions(states.iter().copied()),
            share_revised,
            raters: scores.raters.clone(),
            alpha: scores.alpha_matrix(level),
            pearson_llm_annotators: scores.mean_pearson(&[LLM], Some(&names)),
            pearson_annotators: scores.mean_pearson(&names, None),
            minutes_per_sample: coeval::minutes_per_sample(states.iter().copied()),
            scores,
        }
    }

    /// The summary measures: share of scores revised, Table 8's means, Table 7's minutes.
    pub fn summary(&self) -> Table {
        let mut t = Table::new("coeval-summary", "Summary", "measure");
        t.columns = vec![Column::number("value")];
        t.rows = vec![
            Row::new(
                "share of LLM scores revised (%)",
                vec![Cell::number(self.share_revised.map(|s| 100.0 * s), 2)],
            ),
            Row::new(
                "mean Pearson r, LLM vs annotators (Table 8)",
                vec![Cell::number(self.pearson_llm_annotators, 3)],
            ),
            Row::new(
                "mean Pearson r, among annotators (Table 8)",
                vec![Cell::number(self.pearson_annotators, 3)],
            ),
            Row::new(
                "minutes per sample (Table 7)",
                vec![Cell::number(self.minutes_per_sample, 2)],
            ),
        ];
        t
    }

    /// Table 6 over the study's part decisions.
    pub fn table6(&self) -> Table {
        let c = &self.part_actions;
        rates_table(
            "coeval-table6",
            "Table 6: instance scrutiny (stage 2)",
            &[
                ("overall", &c.all),
                ("conclusion", &c.conclusion),
                ("score", &c.score),
                ("evidence", &c.evidence),
            ],
        )
    }

    /// Table 5 over the study's criteria decisions.
    pub fn table5(&self) -> Table {
        rates_table(
            "coeval-table5",
            "Table 5: criteria scrutiny (stage 1)",
            &[("criteria", &self.criteria_actions)],
        )
    }

    fn alpha_title(&self) -> String {
        format!("Figure 3: Krippendorff's α ({})", level_name(self.level))
    }

    /// Figure 3 as a table.
    pub fn alpha_table(&self) -> Table {
        alpha_table("coeval-alpha", &self.alpha_title(), &self.raters, &self.alpha)
    }

    /// Figure 2 as a table.
    pub fn distribution_table(&self) -> Table {
        distribution_table(
            "coeval-distribution",
            "Figure 2: score distribution by generating model",
            &self.scores.distribution(None),
        )
    }

    /// Every table and figure of the Results panel, in its order: the summary, Table 6,
    /// Table 5, the α matrix and Figure 2's counts; the α heatmap and Figure 2's heatmap.
    pub fn report(&self) -> Report {
        Report {
            tables: vec![
                self.summary(),
                self.table6(),
                self.table5(),
                self.alpha_table(),
                self.distribution_table(),
            ],
            figures: vec![
                alpha_figure("coeval-alpha", &self.alpha_title(), &self.raters, &self.alpha),
                distribution_figure(
                    "coeval-distribution",
                    "Figure 2: share of each score by generating model and rater",
                    &self.scores.distribution(None),
                ),
            ],
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::super::study::tests::{part, study};
    use super::*;
    use crate::coeval::{Action, Event, Part};
    use crate::report::{Format, export_table};

    fn texts(t: &Table, row: usize) -> Vec<String> {
        t.rows[row].cells.iter().map(|c| c.text.clone()).collect()
    }

    /// Two annotators over the fixture: every result pinned by hand.
    #[test]
    fn study_results() {
        let s = study();
        let (i0, i1) = (s.instances[0].id.clone(), s.instances[1].id.clone());
        let crit = |c: &str, a: Action| Event::Criterion {
            criterion: c.to_owned(),
            action: a,
            text: (a == Action::Revise).then(|| "1. Fluency.".to_owned()),
            reason: "r".to_owned(),
        };
        let score = |i: &str, c: &str, s: f64| Event::Score {
            instance: i.to_owned(),
            criterion: c.to_owned(),
            score: s,
        };
        let mut ann = Log::new();
        for e in [
            crit("1. Fluent.", Action::Approve),
            crit("2. On topic.", Action::Delete),
            part(&i0, "1. Fluent.", Part::Conclusion, Action::Approve),
            part(&i0, "1. Fluent.", Part::Score, Action::Revise),
            score(&i0, "1. Fluent.", 3.0),
            score(&i1, "1. Fluent.", 3.0),
            Event::Timer { instance: i0.clone(), ms: 60_000 },
            Event::Timer { instance: i1.clone(), ms: 120_000 },
        ] {
            ann.push(e).unwrap();
        }
        let mut bob = Log::new();
        for e in [
            crit("1. Fluent.", Action::Approve),
            crit("2. On topic.", Action::Approve),
            part(&i0, "1. Fluent.", Part::Score, Action::Approve),
            part(&i0, "1. Fluent.", Part::Evidence(0), Action::Delete),
            score(&i0, "1. Fluent.", 4.0),
            score(&i1, "1. Fluent.", 2.0),
        ] {
            bob.push(e).unwrap();
        }
        let annotators = vec![("Ann".to_owned(), ann.replay()), ("Bob".to_owned(), bob.replay())];
        let r = StudyResults::compute(&s, &annotators, KrippendorffLevel::Interval);
        // Stage 1: 3 approvals and 1 delete of 4.
        assert_eq!(texts(&r.table5(), 0), ["75.00", "0.00", "25.00", "0.00", "4"]);
        // "2. On topic.": Bob approves, Ann deletes; the most frequent action decides (seed
        // 004 §3.1), and a tie with delete keeps it.
        assert_eq!(
            r.finals.iter().map(|f| f.criterion.as_str()).collect::<Vec<_>>(),
            ["1. Fluent.", "2. On topic."]
        );
        let stage1 = Stage1::compute(&s, &annotators);
        assert_eq!(
            stage1.lines(),
            ["1. Fluent. — kept by 2 of 2", "2. On topic. — kept by 1 of 2"]
        );
        assert_eq!((stage1.voters, stage1.table5().rows[0].cells[4].text.as_str()), (2, "4"));
        // Stage 2: conclusion approve (Ann), score revise (Ann) + approve (Bob), evidence delete.
        let t6 = r.table6();
        assert_eq!(texts(&t6, 0), ["50.00", "25.00", "25.00", "0.00", "4"]);
        assert_eq!(texts(&t6, 2), ["50.00", "50.00", "0.00", "0.00", "2"]);
        // Scores: i0 LLM 4 / Ann 3 (revised) / Bob 4 (approved); i1 LLM 3 / Ann 3 / Bob 2.
        // Reviews with a score: Ann i0 (revised part), Ann i1 (same as LLM), Bob i0
        // (approved, own = LLM), Bob i1 (differs) → 2 of 4.
        assert_eq!(r.share_revised, Some(0.5));
        assert_eq!(r.raters, ["LLM", "Ann", "Bob"]);
        // LLM has 4 scores (two criteria), annotators only criterion 1: α(Ann, Bob) over the
        // units (3, 4) and (3, 2): D_o = (2·1 + 2·1)/4 = 1; D_e over the values 3, 4, 3, 2 =
        // 16/12 = 4/3; α = 1 − 3/4 = 0.25.
        let ann_bob = r.alpha[1][2].unwrap();
        let expected = crate::stats::krippendorff_alpha(
            &[vec![Some(3.0), Some(3.0)], vec![Some(4.0), Some(2.0)]],
            KrippendorffLevel::Interval,
        )
        .value
        .unwrap();
        assert!((ann_bob - expected).abs() < 1e-12);
        assert!((expected - 0.25).abs() < 1e-12, "{expected}");
        assert_eq!(r.alpha_table().rows[1].cells[2].text, "0.250");
        // Pearson: Ann (3, 3) is constant → undefined with everyone; Bob vs LLM (4,3)/(4,2) = 1.
        assert_eq!(r.pearson_llm_annotators, Some(1.0));
        assert_eq!(r.pearson_annotators, None);
        assert_eq!(r.minutes_per_sample, Some(1.5));
        assert_eq!(
            export_table(&r.summary(), Format::Csv).unwrap(),
            "measure,value\r\nshare of LLM scores revised (%),50\r\n\
             \"mean Pearson r, LLM vs annotators (Table 8)\",1\r\n\
             \"mean Pearson r, among annotators (Table 8)\",\r\n\
             minutes per sample (Table 7),1.5\r\n"
        );
        // Figure 2: turbo's LLM scores are 4 and 5.
        let dist = r.distribution_table();
        let turbo_llm = dist
            .rows
            .iter()
            .find(|row| row.label == "turbo" && row.cells[0].text == "LLM")
            .unwrap();
        assert_eq!(
            turbo_llm.cells[1..].iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["0", "0", "0", "1", "1"]
        );
        // The report: the panel's order, every id an export file stem.
        let report = r.report();
        let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "coeval-summary",
                "coeval-table6",
                "coeval-table5",
                "coeval-alpha",
                "coeval-distribution"
            ]
        );
        let figures: Vec<&str> = report.figures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(figures, ["coeval-alpha", "coeval-distribution"]);
        assert_eq!(report.tables[3].title, "Figure 3: Krippendorff's α (interval)");
    }

    #[test]
    fn exported_file_round_trips_into_results() {
        let s = study();
        let mut log = Log::new();
        log.push(Event::Score {
            instance: s.instances[0].id.clone(),
            criterion: "1. Fluent.".into(),
            score: 4.0,
        })
        .unwrap();
        let file = AnnotatorFile::new("Ann", &s.task, &log);
        let bytes = serde_json::to_vec(&file).unwrap();
        let back = coeval::import(&bytes).unwrap();
        let merged = coeval::merge(&back).unwrap();
        let r = StudyResults::compute(&s, &annotations_of(merged), KrippendorffLevel::Interval);
        assert_eq!(r.raters, ["LLM", "Ann"]);
    }

    #[test]
    fn merging_names_every_source_and_conflict() {
        let s = study();
        let i0 = s.instances[0].id.clone();
        let mut log = Log::new();
        log.push(Event::Score { instance: i0.clone(), criterion: "1. Fluent.".into(), score: 2.0 })
            .unwrap();
        let mut logs = BTreeMap::new();
        logs.insert("Ann".to_owned(), log.clone());
        logs.insert("Empty".to_owned(), Log::new());
        let mut other = Log::new();
        other
            .push(Event::Score { instance: i0, criterion: "1. Fluent.".into(), score: 1.0 })
            .unwrap();
        let imported = vec![
            ("ann-again.json".to_owned(), AnnotatorFile::new("Ann", &s.task, &other)),
            ("elsewhere.json".to_owned(), AnnotatorFile::new("Cy", "another-task", &other)),
        ];
        let (merge, sources) = merge_annotators(&s, &logs, &imported).unwrap();
        assert_eq!(sources, ["this device (Ann)", "ann-again.json"], "other tasks are not merged");
        let (who, conflicts) = merge_tables(&merge, &sources);
        assert_eq!(who.rows.len(), 1);
        assert_eq!(who.rows[0].label, "Ann");
        assert_eq!(who.rows[0].cells[0].text, "this device (Ann), ann-again.json");
        assert_eq!(conflicts.title, "Conflicts (1)");
        let c = &conflicts.rows[0].cells;
        assert_eq!(
            [c[1].text.as_str(), c[2].text.as_str(), c[3].text.as_str(), c[4].text.as_str()],
            ["1.0", "ann-again.json", "2.0", "this device (Ann)"]
        );
        // A file that does not replay is named in the error.
        let bad = AnnotatorFile {
            events: vec![Event::Undo],
            ..AnnotatorFile::new("Dee", &s.task, &Log::new())
        };
        let err =
            merge_annotators(&s, &BTreeMap::new(), &[("dee.json".to_owned(), bad)]).unwrap_err();
        assert!(err.to_string().starts_with("dee.json: "), "{err}");
    }

    #[test]
    fn recurrence_table_and_threshold() {
        let lists = vec![
            vec!["Fluency: reads well".to_owned(), "Coherence".to_owned()],
            vec!["fluency".to_owned()],
            vec!["Relevance".to_owned()],
        ];
        let rec = crate::judge::coeval::recurrence(&lists);
        let t = recurrence_table(&rec, 3);
        assert_eq!(t.rows[0].label, "Fluency: reads well");
        assert_eq!(texts(&t, 0), ["2", "67 %", "2"]);
        assert_eq!(t.rows[0].cells[2].note.as_deref(), Some("Fluency: reads well\nfluency"));
        assert_eq!(recurring_criteria(&rec, 2), ["Fluency: reads well"]);
        assert_eq!(recurring_criteria(&rec, 1).len(), 3);
    }
}
