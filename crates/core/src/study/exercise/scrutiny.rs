//! The class view of a CoEval exercise: every student's scrutiny (their submission's annotator
//! file) merged as CoEval merges annotators, then each student's actions on the criteria
//! (stage 1) and on the evaluations' parts (stage 2), the share of the LLM's scores they
//! revised and their time per instance, followed by the study's own results over the class
//! (seed 004's Tables 5 and 6, α among the LLM and the students, the score distributions).

use std::collections::BTreeMap;

use crate::coeval::{self, AnnotatorFile};
use crate::report::{Cell, Column, Figure, Row, Table};
use crate::stats::KrippendorffLevel;
use crate::study::coeval::tables::rates_table;
use crate::study::coeval::{LLM, Study, StudyResults, annotations_of, merge_tables};

use super::file::Exercise;
use super::merge::{Merged, Status};
use super::submission::Submission;

pub const CRITERIA_TABLE: &str = "class-coeval-criteria";
pub const PARTS_TABLE: &str = "class-coeval-parts";
pub const STUDENTS_TABLE: &str = "class-coeval-students";
/// The prefix of the study's own tables and figures in the class view (`class-coeval-table6`).
pub const PREFIX: &str = "class-";

/// The α level of the class view's CoEval tables (the rest of the class view's α is interval).
pub const LEVEL: KrippendorffLevel = KrippendorffLevel::Interval;

/// The annotator files of the submissions that count — those of this exercise, duplicates
/// left out — in the order given (a later file of a student wins each decision they differ
/// on), with the file each came from; files left out, with why.
fn files_of(
    study: &Study,
    files: &[(String, Submission)],
    merged: &Merged,
) -> (Vec<AnnotatorFile>, Vec<String>, Vec<String>) {
    let (mut kept, mut sources, mut left_out) = (Vec::new(), Vec::new(), Vec::new());
    for ((file, s), entry) in files.iter().zip(&merged.entries) {
        if !matches!(entry.status, Status::Used | Status::Overridden { .. }) {
            continue;
        }
        let Some(f) = &s.coeval else {
            left_out.push(format!("{file} holds no scrutiny of the CoEval study"));
            continue;
        };
        if f.scope != study.task {
            left_out.push(format!(
                "{file} scrutinises the task “{}”, not this exercise's “{}”: left out",
                f.scope, study.task
            ));
            continue;
        }
        if let Err(e) = f.log() {
            left_out.push(format!("{file}: its CoEval actions do not replay ({e}): left out"));
            continue;
        }
        // Filed under the student's name, whatever the file calls the annotator.
        let mut f = f.clone();
        f.person = s.student.clone();
        kept.push(f);
        sources.push(file.clone());
    }
    (kept, sources, left_out)
}

/// Each student's row: decisions, approve/revise/delete/add shares on the criteria and on the
/// parts, the share of the LLM's scores revised, minutes per instance.
fn students_table(study: &Study, annotators: &[(String, coeval::Annotation)]) -> Table {
    let llm: BTreeMap<(String, String), f64> = study
        .evaluations
        .iter()
        .filter_map(|e| Some(((e.instance.clone(), e.criterion.clone()), e.score?)))
        .collect();
    let mut t =
        Table::new(STUDENTS_TABLE, "Each student's scrutiny of the CoEval study", "Student");
    t.columns = vec![
        Column::number("Criteria decided").described("decisions on the LLM's criteria (stage 1)"),
        Column::number("Parts decided")
            .described("decisions on conclusions, scores and evidence (stage 2)"),
        Column::number("Own scores").described("evaluations the student scored themselves"),
        Column::number("LLM scores revised %")
            .described("share of the LLM's scores the student revised or scored otherwise"),
        Column::number("Minutes per instance"),
    ];
    for (student, a) in annotators {
        let one = std::iter::once(a);
        let parts: usize = a.reviews.values().map(|r| r.parts.len()).sum();
        let own = a.reviews.values().filter(|r| r.score.is_some()).count();
        let revised = coeval::share_scores_revised(one.clone(), |i, c| {
            llm.get(&(i.to_owned(), c.to_owned())).copied()
        });
        let mut share = Cell::number(revised.map(|x| 100.0 * x), 2);
        if revised.is_none() {
            share = share.with_note("no score decided or given");
        }
        let mut minutes = Cell::number(coeval::minutes_per_sample(one), 2);
        if a.time_ms.is_empty() {
            minutes = minutes.with_note("no time measured");
        }
        t.rows.push(Row::new(
            student.clone(),
            vec![
                Cell::count(a.criteria.len()),
                Cell::count(parts),
                Cell::count(own),
                share,
                minutes,
            ],
        ));
    }
    t.notes.push(format!(
        "The LLM's study: {} criteria, {} instances, {} evaluations.",
        study.criteria.len(),
        study.instances.len(),
        study.evaluations.len()
    ));
    t
}

/// Decisions (on criteria and on parts) in a submission's scrutiny; `None` without one.
pub fn decisions(s: &Submission) -> Option<usize> {
    let state = s.coeval.as_ref()?.log().ok()?.replay();
    Some(state.criteria.len() + state.reviews.values().map(|r| r.parts.len()).sum::<usize>())
}

/// The CoEval part of the class view, or nothing when the exercise has no CoEval study.
pub fn tables(
    exercise: &Exercise,
    files: &[(String, Submission)],
    merged: &Merged,
) -> (Vec<Table>, Vec<Figure>) {
    let Ok(Some(study)) = exercise.coeval_study() else { return (Vec::new(), Vec::new()) };
    let (kept, sources, left_out) = files_of(&study, files, merged);
    let merge = match coeval::merge(&kept) {
        Ok(m) => m,
        Err((i, e)) => {
            // Every file replayed above, so this is not expected; said rather than hidden.
            let mut t = Table::new(
                STUDENTS_TABLE,
                "Each student's scrutiny of the CoEval study",
                "Student",
            );
            t.notes.push(format!(
                "The scrutinies could not be merged: {}: {e}",
                sources.get(i).map_or("a file", String::as_str)
            ));
            return (vec![t], Vec::new());
        }
    };
    let (_, conflicts) = merge_tables(&merge, &sources);
    let annotators = annotations_of(merge);
    let mut students = students_table(&study, &annotators);
    students.notes.extend(left_out);
    if annotators.is_empty() {
        students.notes.push("No submission holds a scrutiny of the CoEval study yet.".to_owned());
    }
    let criteria_counts: Vec<(String, coeval::ActionCounts)> = annotators
        .iter()
        .map(|(n, a)| (n.clone(), coeval::criterion_actions(std::iter::once(a))))
        .collect();
    let part_counts: Vec<(String, coeval::ActionCounts)> = annotators
        .iter()
        .map(|(n, a)| (n.clone(), coeval::part_actions(std::iter::once(a)).all))
        .collect();
    let by_student = |id: &str, title: &str, counts: &[(String, coeval::ActionCounts)]| {
        let named: Vec<(&str, &coeval::ActionCounts)> =
            counts.iter().map(|(n, c)| (n.as_str(), c)).collect();
        let mut t = rates_table(id, title, &named);
        t.corner = "Student".to_owned();
        t
    };
    let mut tables = vec![
        students,
        by_student(
            CRITERIA_TABLE,
            "Each student's actions on the criteria (stage 1)",
            &criteria_counts,
        ),
        by_student(
            PARTS_TABLE,
            "Each student's actions on the evaluations' parts (stage 2)",
            &part_counts,
        ),
    ];
    let results = StudyResults::compute(&study, &annotators, LEVEL);
    let mut report = results.report();
    for t in &mut report.tables {
        t.id = format!("{PREFIX}{}", t.id);
        t.title = format!("The class: {}", t.title);
    }
    for f in &mut report.figures {
        f.id = format!("{PREFIX}{}", f.id);
    }
    if let Some(alpha) = report.tables.iter_mut().find(|t| t.id.ends_with("coeval-alpha")) {
        alpha
            .notes
            .push(format!("“{LLM}” is the LLM's scores; the others are the students' own scores."));
    }
    tables.extend(report.tables);
    if !conflicts.rows.is_empty() {
        let mut conflicts = conflicts;
        conflicts.id = format!("{PREFIX}{}", conflicts.id);
        conflicts.title = format!(
            "CoEval decisions a student made differently in two files ({})",
            conflicts.rows.len()
        );
        conflicts.corner = "Student".to_owned();
        conflicts.notes.push(
            "The later file wins; give the files in another order to keep the other decision."
                .to_owned(),
        );
        tables.push(conflicts);
    }
    (tables, report.figures)
}
