//! Submissions merged: duplicates, conflicts where the later file wins, files of other
//! exercises, and for a review the decisions compared (the class view and its CoEval part read
//! the merge). A student's later file replaces the earlier whole; what it changes or drops is
//! found by the annotation model's [`annotation::replaced`], CoEval's scrutiny merged by
//! [`crate::coeval::merge`] over [`annotation::merge`].

use std::collections::BTreeMap;

use crate::annotation;

use super::file::Exercise;
use super::submission::Submission;

/// What became of one submission file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Used,
    /// The same student and ratings as the file named.
    Duplicate {
        of: String,
    },
    /// The same student as a later file with other ratings, which replaced this one.
    Overridden {
        by: String,
    },
    /// It answers another exercise (or another version of this one).
    OtherExercise {
        title: String,
    },
}

impl Status {
    pub fn describe(&self) -> String {
        match self {
            Status::Used => "used".to_owned(),
            Status::Duplicate { of } => format!("duplicate of {of}, left out"),
            Status::Overridden { by } => format!("conflicts with {by}, which replaces it"),
            Status::OtherExercise { title } => {
                format!("answers another exercise (“{title}”, or another version), left out")
            }
        }
    }
}

/// One submission file in the merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub file: String,
    pub student: String,
    pub items_rated: usize,
    /// Seconds spent on the items.
    pub seconds: f64,
    pub status: Status,
    /// Items of the judge run the student decided on (correct-judge exercises).
    pub items_reviewed: usize,
}

/// An item a student rated differently in two files.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub student: String,
    pub attribute: String,
    pub item: String,
    pub kept: Option<f64>,
    pub kept_from: String,
    pub overridden: Option<f64>,
    pub overridden_from: String,
}

/// An item of the judge run a student decided differently in two files.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewConflict {
    pub student: String,
    pub item: String,
    /// The decisions as a reader reads them (`changed to 4`), `not reviewed` when none.
    pub kept: String,
    pub kept_from: String,
    pub overridden: String,
    pub overridden_from: String,
}

/// The submissions merged: one per student, in order of first appearance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    pub entries: Vec<Entry>,
    /// Index into the files of each student's kept submission.
    pub kept: Vec<usize>,
    pub conflicts: Vec<Conflict>,
    /// Correct-judge exercises: the decisions that differ between a student's files.
    pub review_conflicts: Vec<ReviewConflict>,
}

/// Merges `files` (name, submission) answering `exercise`.
pub fn merge(exercise: &Exercise, files: &[(String, Submission)]) -> Merged {
    let sha = exercise.sha256();
    let mut merged = Merged::default();
    for (i, (file, s)) in files.iter().enumerate() {
        let status = if s.exercise.sha256 != sha {
            Status::OtherExercise { title: s.exercise.title.clone() }
        } else if let Some(k) = merged.kept.iter().position(|&j| files[j].1.student == s.student) {
            let j = merged.kept[k];
            let (earlier_file, earlier) = &files[j];
            if earlier.ratings == s.ratings
                && same_decisions(earlier, s)
                && earlier.coeval == s.coeval
                && earlier.runs == s.runs
            {
                Status::Duplicate { of: earlier_file.clone() }
            } else {
                merged.conflicts.extend(conflicts(exercise, &files[j], &files[i]));
                merged.review_conflicts.extend(review_conflicts(exercise, &files[j], &files[i]));
                merged.entries[j].status = Status::Overridden { by: file.clone() };
                merged.kept[k] = i;
                Status::Used
            }
        } else {
            merged.kept.push(i);
            Status::Used
        };
        merged.entries.push(Entry {
            file: file.clone(),
            student: s.student.clone(),
            items_rated: s.items_rated(),
            seconds: s.seconds(),
            status,
            items_reviewed: s.review.as_ref().map_or(0, |r| r.decisions.len()),
        });
    }
    merged
}

/// Whether two submissions decided the judge's ratings alike (the time may differ).
fn same_decisions(a: &Submission, b: &Submission) -> bool {
    let decisions = |s: &Submission| s.review.as_ref().map(|r| r.decisions.clone());
    decisions(a).unwrap_or_default() == decisions(b).unwrap_or_default()
}

/// A submission's decisions on the judge's ratings as they read (`changed to 4`), by the
/// item's position in the exercise.
fn verdicts(exercise: &Exercise, s: &Submission) -> BTreeMap<usize, String> {
    let Some(review) = &s.review else { return BTreeMap::new() };
    let items = exercise.dataset.embedded.items.iter().enumerate();
    items.filter_map(|(i, item)| Some((i, review.verdict(&item.id)?.describe()))).collect()
}

/// A later file of a student replaces the earlier whole: the items whose decision it changes
/// or drops ([`annotation::replaced`]).
fn review_conflicts(
    exercise: &Exercise,
    (old_file, old): &(String, Submission),
    (new_file, new): &(String, Submission),
) -> Vec<ReviewConflict> {
    let items = &exercise.dataset.embedded.items;
    annotation::replaced(&verdicts(exercise, old), 0, &verdicts(exercise, new), 1)
        .into_iter()
        .map(|c| ReviewConflict {
            student: new.student.clone(),
            item: items[c.key].id.clone(),
            kept: c.kept.unwrap_or_else(|| "not reviewed".to_owned()),
            kept_from: new_file.clone(),
            overridden: c.overridden,
            overridden_from: old_file.clone(),
        })
        .collect()
}

fn score_of(s: &Submission, attribute: &str, item: &str) -> Option<f64> {
    let r = s.ratings.iter().find(|r| r.attribute == attribute)?;
    r.scores.iter().find(|(id, _)| id == item).map(|(_, x)| *x)
}

/// A submission's ratings by the positions of the attribute and the item in the exercise.
fn ratings(exercise: &Exercise, s: &Submission) -> BTreeMap<(usize, usize), f64> {
    let mut out = BTreeMap::new();
    for (a, attribute) in exercise.attributes().into_iter().enumerate() {
        for (i, item) in exercise.dataset.embedded.items.iter().enumerate() {
            if let Some(x) = score_of(s, attribute, &item.id) {
                out.insert((a, i), x);
            }
        }
    }
    out
}

/// A later file of a student replaces the earlier whole: the ratings it changes or drops
/// ([`annotation::replaced`]).
fn conflicts(
    exercise: &Exercise,
    (old_file, old): &(String, Submission),
    (new_file, new): &(String, Submission),
) -> Vec<Conflict> {
    let attributes = exercise.attributes();
    let items = &exercise.dataset.embedded.items;
    annotation::replaced(&ratings(exercise, old), 0, &ratings(exercise, new), 1)
        .into_iter()
        .map(|c| Conflict {
            student: new.student.clone(),
            attribute: attributes[c.key.0].to_owned(),
            item: items[c.key.1].id.clone(),
            kept: c.kept,
            kept_from: new_file.clone(),
            overridden: Some(c.overridden),
            overridden_from: old_file.clone(),
        })
        .collect()
}
