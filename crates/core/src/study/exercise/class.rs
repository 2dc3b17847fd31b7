//! The class view: a teacher's submissions merged and measured.
//!
//! [`merge`] reads the submissions in the order given. A submission for another exercise (its
//! SHA-256 differs) is named and left out; one with the same student and the same ratings as
//! an earlier one is a duplicate and left out; one with the same student and different ratings
//! is a conflict — the later file wins, and every item the two rated differently is listed.
//!
//! [`class_report`] is the class view's report and `concord class`'s: the submissions, each
//! student against the reference and against each judge (Pearson r, Kendall τ-b and
//! Krippendorff's interval α, each with a seeded percentile bootstrap interval over the items:
//! [`review::agreement`], the same measure as a reviewed judge's), the students' agreement
//! among themselves (α with its interval), the conflicts, and one histogram of the students'
//! ratings per attribute.
//!
//! An exercise with a correct-judge task adds [`CORRECTIONS_TABLE`]: per student the shares of
//! the judge's ratings they accepted, changed and flagged, the mean |change|, the minutes, and
//! the agreement with the reference of the judge alone and of the judge with this student's
//! changes applied ([`review::measure_against`] and [`review::review_table`], the Results
//! screen's "Review and correct" measure); [`CHANGED_TABLE`], the items most students changed;
//! and, when a student's two files decided an item differently, [`REVIEW_CONFLICTS_TABLE`].
//!
//! An exercise with a run-judges task adds [`RUNS_TABLE`]: per student, method and attribute
//! the model the student ran it on, the items it rated and its Pearson r, Kendall τ-b and
//! Krippendorff's α against the reference, each with its interval ([`review::agreement`]), and
//! [`RUNS_AGREEMENT_TABLE`]: per method and attribute the α among the students' runs
//! ([`alpha_among`]). A later file of the same student with other runs replaces the earlier.
//!
//! An exercise with the alternative annotator test as a task ([`Exercise::alt_test`]) adds the
//! Results panel's alt-test tables ([`crate::study::validity::alt_test_report`]: the summary
//! per judge, then each student left out in turn) with the students as the annotators and the
//! exercise's judges as the judges ([`alt_test_inputs`]).

use crate::data::{Dataset, ScaleKind};
use crate::report::figure::Histogram;
use crate::report::{Cell, Column, Figure, Report, Row, Table};
use crate::stats::{self, KrippendorffLevel};
use crate::study::workbench::agreement::{Agreement, Resampling};
use crate::study::workbench::review::{self, Correction};
use crate::study::workbench::score_run;
use crate::study::workbench::settings::ExtraRater;

use super::file::Exercise;
pub use super::merge::{Conflict, Entry, Merged, ReviewConflict, Status, merge};
use super::submission::{JudgeReview, Submission};

pub const SUBMISSIONS_TABLE: &str = "class-submissions";
pub const STUDENTS_TABLE: &str = "class-students";
pub const AGREEMENT_TABLE: &str = "class-agreement";
pub const CONFLICTS_TABLE: &str = "class-conflicts";
/// Correct-judge exercises: each student's corrections of the judge.
pub const CORRECTIONS_TABLE: &str = "class-corrections";
/// Correct-judge exercises: the items the students changed, most changed first.
pub const CHANGED_TABLE: &str = "class-changed-items";
/// Correct-judge exercises: items a student decided differently in two files.
pub const REVIEW_CONFLICTS_TABLE: &str = "class-review-conflicts";
/// Run-judges exercises: each student's runs of the given judges against the reference.
pub const RUNS_TABLE: &str = "class-runs";
/// Run-judges exercises: the agreement among the students' runs of each given judge.
pub const RUNS_AGREEMENT_TABLE: &str = "class-runs-agreement";
/// Figure ids are this followed by the attribute's name made safe for a file name.
pub const DISTRIBUTION_FIGURE: &str = "class-distribution-";

/// The intervals of the class view: 1,000 resamples, seed 26, 95 %.
pub const RESAMPLING: Resampling = Resampling { resamples: 1000, seed: 26, confidence: 0.95 };

/// The class view's report and the merge it was built from.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassReport {
    pub merged: Merged,
    pub report: Report,
}

/// Scores aligned with the exercise's items.
fn aligned(dataset: &Dataset, rater: Option<&ExtraRater>) -> Vec<Option<f64>> {
    rater.map_or_else(|| vec![None; dataset.items.len()], |r| r.aligned(dataset))
}

fn stat(value: Option<f64>, ci: Option<[f64; 2]>, n: usize, r: Resampling, key: String) -> Cell {
    let mut cell = Cell::number(value, 3).with_n(n).keyed(key);
    if let Some([lo, hi]) = ci {
        cell = cell.with_interval(lo, hi, r.confidence);
    }
    if value.is_none() {
        cell = cell.with_note("undefined: constant ratings or fewer than two items in common");
    }
    cell
}

/// The n, r, τ-b and α cells of one agreement, keyed `{key}/pearson` and so on.
fn agreement_cells(a: &Agreement, key: &str, r: Resampling) -> [Cell; 4] {
    [
        Cell::count(a.n),
        stat(a.pearson, a.pearson_ci, a.n, r, format!("{key}/pearson")),
        stat(a.kendall_b, a.kendall_ci, a.n, r, format!("{key}/kendall_b")),
        stat(a.alpha, a.alpha_ci, a.n, r, format!("{key}/alpha")),
    ]
}

/// The α cell of an agreement among raters, keyed `key`; when undefined, `needs` (fewer than
/// two raters) or `undefined` says why.
fn among_cell(a: &Among, key: String, r: Resampling, needs: &str, undefined: &str) -> Cell {
    let mut cell = Cell::number(a.alpha, 3).with_n(a.items).keyed(key);
    if let Some([lo, hi]) = a.ci {
        cell = cell.with_interval(lo, hi, r.confidence);
    }
    if a.alpha.is_none() {
        cell = cell.with_note(if a.raters < 2 { needs } else { undefined });
    }
    cell
}

/// Krippendorff's interval α among `raters` (item-aligned) with a percentile bootstrap
/// interval over the items, drawn as [`review::agreement`] draws its own.
pub fn alpha_among(raters: &[Vec<Option<f64>>], r: Resampling) -> (Option<f64>, Option<[f64; 2]>) {
    let level = KrippendorffLevel::Interval;
    if raters.len() < 2 {
        return (None, None);
    }
    let value = stats::krippendorff_alpha(raters, level).value;
    let items = raters[0].len();
    if value.is_none() || items < 3 {
        return (value, None);
    }
    let mut draws = Vec::with_capacity(r.resamples);
    for idx in stats::BootIndices::new(items, r.resamples, r.seed) {
        let sample: Vec<Vec<Option<f64>>> =
            raters.iter().map(|v| idx.iter().map(|&i| v[i]).collect()).collect();
        if let Some(a) = stats::krippendorff_alpha(&sample, level).value {
            draws.push(a);
        }
    }
    // An interval from fewer than half the resamples would hide how unstable it is.
    if draws.len() * 2 < r.resamples.max(1) {
        return (value, None);
    }
    draws.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - r.confidence) / 2.0;
    (
        value,
        Some([stats::quantile_sorted(&draws, tail), stats::quantile_sorted(&draws, 1.0 - tail)]),
    )
}

fn slug(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

fn intervals_note(r: Resampling) -> String {
    format!(
        "Intervals: {:.0} % percentile bootstrap over items ({} resamples, seed {}).",
        r.confidence * 100.0,
        r.resamples,
        r.seed
    )
}

/// One measurement of the class view: a student against the reference or a judge on one
/// attribute, or the students' α on one attribute.
enum Job {
    Pair {
        student: String,
        attribute: String,
        against: String,
        other: Vec<Option<f64>>,
        mine: Vec<Option<f64>>,
    },
    Among {
        attribute: String,
        matrix: Vec<Vec<Option<f64>>>,
    },
    /// A student's corrections of the judge run measured against the reference.
    Correct {
        student: String,
        review: Option<JudgeReview>,
    },
    /// A student's run of a given judge against the reference (`None`: the exercise has no
    /// reference of the attribute).
    Run {
        student: String,
        method: String,
        attribute: String,
        model: String,
        reference: Option<Vec<Option<f64>>>,
        mine: Vec<Option<f64>>,
    },
    /// The students' runs of one given judge, item-aligned.
    RunAmong {
        method: String,
        attribute: String,
        matrix: Vec<Vec<Option<f64>>>,
    },
    /// The alternative annotator test of the exercise's judges against the students.
    AltTest,
}

/// One student's run of a given judge, measured.
struct RunRow {
    student: String,
    method: String,
    attribute: String,
    model: String,
    /// `None`: no reference to measure against.
    agreement: Option<Agreement>,
}

/// What a correct-judge exercise measures against: the run's key, the judge's item-aligned
/// ratings (read from the embedded run as the Results table reads it) and the reference's.
struct CorrectSetup {
    run: String,
    judge: Vec<Option<f64>>,
    reference: Vec<Option<f64>>,
}

fn correct_setup(exercise: &Exercise) -> Option<CorrectSetup> {
    let run = exercise.correct_judge()?;
    let dataset = &exercise.dataset.embedded;
    let judge = match score_run(dataset, run) {
        Some(Ok(scores)) => scores.scores,
        _ => vec![None; dataset.items.len()],
    };
    Some(CorrectSetup {
        run: exercise.correct_judge_key()?,
        judge,
        reference: aligned(dataset, exercise.reference_of(&run.attribute)),
    })
}

/// The students' agreement on one attribute: students, items rated by two or more, α and its
/// interval.
struct Among {
    attribute: String,
    raters: usize,
    items: usize,
    alpha: Option<f64>,
    ci: Option<[f64; 2]>,
}

/// The α among item-aligned `matrix` on `attribute`, with the items two or more rated.
fn among(attribute: &str, matrix: &[Vec<Option<f64>>], r: Resampling) -> Among {
    let items = matrix.first().map_or(0, Vec::len);
    let items =
        (0..items).filter(|&i| matrix.iter().filter(|v| v[i].is_some()).count() >= 2).count();
    let (alpha, ci) = alpha_among(matrix, r);
    Among { attribute: attribute.to_owned(), raters: matrix.len(), items, alpha, ci }
}

/// The class view built a measurement at a time ([`ClassBuilder::step`]), so a page can yield
/// between steps: each bootstraps one agreement (1,000 resamples by default).
/// [`class_report`] runs it to the end.
pub struct ClassBuilder {
    exercise: Exercise,
    files: Vec<(String, Submission)>,
    resampling: Resampling,
    merged: Merged,
    jobs: Vec<Job>,
    next: usize,
    pairs: Vec<(String, String, String, Agreement)>,
    among: Vec<Among>,
    correct: Option<CorrectSetup>,
    corrections: Vec<Correction>,
    runs: Vec<RunRow>,
    runs_among: Vec<(String, String, Among)>,
    alt_test: Option<Report>,
}

impl ClassBuilder {
    /// Merges the submissions and lists the measurements to make.
    pub fn new(
        exercise: &Exercise,
        files: &[(String, Submission)],
        resampling: Resampling,
    ) -> ClassBuilder {
        let merged = merge(exercise, files);
        let dataset = &exercise.dataset.embedded;
        let students: Vec<&Submission> = merged.kept.iter().map(|&i| &files[i].1).collect();
        let mut jobs = Vec::new();
        for s in &students {
            for attribute in exercise.attributes() {
                let mine = aligned(dataset, s.ratings.iter().find(|r| r.attribute == attribute));
                if let Some(reference) = exercise.reference_of(attribute) {
                    jobs.push(Job::Pair {
                        student: s.student.clone(),
                        attribute: attribute.to_owned(),
                        against: super::file::REFERENCE.to_owned(),
                        other: reference.aligned(dataset),
                        mine: mine.clone(),
                    });
                }
                for j in exercise.judges.iter().filter(|j| j.attribute == attribute) {
                    jobs.push(Job::Pair {
                        student: s.student.clone(),
                        attribute: attribute.to_owned(),
                        against: format!("judge {}", j.name),
                        other: j.aligned(dataset),
                        mine: mine.clone(),
                    });
                }
            }
        }
        for attribute in exercise.attributes() {
            let matrix: Vec<Vec<Option<f64>>> = students
                .iter()
                .filter_map(|s| s.ratings.iter().find(|r| r.attribute == attribute))
                .map(|r| r.aligned(dataset))
                .collect();
            jobs.push(Job::Among { attribute: attribute.to_owned(), matrix });
        }
        let correct = correct_setup(exercise);
        if correct.is_some() {
            for s in &students {
                jobs.push(Job::Correct { student: s.student.clone(), review: s.review.clone() });
            }
        }
        // Per student, then per given judge; then the agreement among the runs of each judge.
        let given = exercise.run_judges();
        let run_of = |s: &Submission, method: &str, attribute: &str| {
            let run = s.runs.iter().find(|r| r.method == method && r.attribute == attribute)?;
            let scores = ExtraRater {
                name: s.student.clone(),
                attribute: attribute.to_owned(),
                scores: run.scores.clone(),
            }
            .aligned(dataset);
            Some((run.model.clone(), scores))
        };
        for s in &students {
            for &(method, attribute) in &given {
                let Some((model, mine)) = run_of(s, method, attribute) else { continue };
                jobs.push(Job::Run {
                    student: s.student.clone(),
                    method: method.to_owned(),
                    attribute: attribute.to_owned(),
                    model,
                    reference: exercise.reference_of(attribute).map(|r| r.aligned(dataset)),
                    mine,
                });
            }
        }
        for &(method, attribute) in &given {
            let matrix = students
                .iter()
                .filter_map(|s| run_of(s, method, attribute))
                .map(|(_, m)| m)
                .collect();
            jobs.push(Job::RunAmong {
                method: method.to_owned(),
                attribute: attribute.to_owned(),
                matrix,
            });
        }
        if exercise.alt_test().is_some() {
            jobs.push(Job::AltTest);
        }
        ClassBuilder {
            exercise: exercise.clone(),
            files: files.to_vec(),
            resampling,
            merged,
            jobs,
            next: 0,
            pairs: Vec::new(),
            among: Vec::new(),
            correct,
            corrections: Vec::new(),
            runs: Vec::new(),
            runs_among: Vec::new(),
            alt_test: None,
        }
    }

    /// (steps done, steps in all).
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.jobs.len())
    }

    /// Makes one measurement; `true` when every one is made.
    pub fn step(&mut self) -> bool {
        let Some(job) = self.jobs.get(self.next) else { return true };
        self.next += 1;
        match job {
            Job::Pair { student, attribute, against, other, mine } => {
                let a = review::agreement(other, mine, self.resampling);
                self.pairs.push((student.clone(), attribute.clone(), against.clone(), a));
            }
            Job::Among { attribute, matrix } => {
                let among = among(attribute, matrix, self.resampling);
                self.among.push(among);
            }
            Job::Run { student, method, attribute, model, reference, mine } => {
                let agreement =
                    reference.as_ref().map(|r| review::agreement(r, mine, self.resampling));
                self.runs.push(RunRow {
                    student: student.clone(),
                    method: method.clone(),
                    attribute: attribute.clone(),
                    model: model.clone(),
                    agreement,
                });
            }
            Job::RunAmong { method, attribute, matrix } => {
                let among = among(attribute, matrix, self.resampling);
                self.runs_among.push((method.clone(), attribute.clone(), among));
            }
            Job::AltTest => {
                let students: Vec<&Submission> =
                    self.merged.kept.iter().map(|&i| &self.files[i].1).collect();
                let (dataset, runs, settings) = alt_test_inputs(&self.exercise, &students);
                self.alt_test =
                    Some(crate::study::validity::alt_test_report(&dataset, &runs, &settings));
            }
            Job::Correct { student, review } => {
                if let Some(setup) = &self.correct {
                    let reviews = review.as_ref().map(JudgeReview::reviews).unwrap_or_default();
                    let mut c = review::measure_against(
                        &self.exercise.dataset.embedded,
                        &setup.reference,
                        &setup.run,
                        &setup.judge,
                        &reviews,
                        self.resampling,
                    );
                    c.run = student.clone();
                    self.corrections.push(c);
                }
            }
        }
        self.next >= self.jobs.len()
    }

    /// The report of the measurements made (run [`ClassBuilder::step`] to the end first).
    pub fn finish(self) -> ClassReport {
        build_report(self)
    }
}

/// The class view of `files` (name, submission) answering `exercise`.
pub fn class_report(
    exercise: &Exercise,
    files: &[(String, Submission)],
    resampling: Resampling,
) -> ClassReport {
    let mut builder = ClassBuilder::new(exercise, files, resampling);
    while !builder.step() {}
    builder.finish()
}

/// A duration as people say it, from whole seconds: `under 1 s`, `1 s` … `59 s`, `1 min`,
/// `12 min 5 s`, `1 h`, `2 h 5 min` (an hour and more to the minute).
pub fn format_duration(seconds: f64) -> String {
    let total = seconds.max(0.0).round() as u64;
    if total == 0 {
        return "under 1 s".to_owned();
    }
    if total < 60 {
        return format!("{total} s");
    }
    if total < 3600 {
        let (m, s) = (total / 60, total % 60);
        return if s == 0 { format!("{m} min") } else { format!("{m} min {s} s") };
    }
    let minutes = (total + 30) / 60;
    let (h, m) = (minutes / 60, minutes % 60);
    if m == 0 { format!("{h} h") } else { format!("{h} h {m} min") }
}

/// The Time cell: the seconds as the value (CSV, JSON), [`format_duration`] as the text.
fn time_cell(seconds: f64) -> Cell {
    Cell { text: format_duration(seconds), ..Cell::number(Some(seconds), 0) }
}

/// The students table's words on its judge rows, naming the exercise's first judge as the
/// example (nothing when the exercise carries no judge).
fn judges_note(exercise: &Exercise) -> String {
    let mut names: Vec<&str> = Vec::new();
    for j in &exercise.judges {
        if !names.contains(&j.name.as_str()) {
            names.push(&j.name);
        }
    }
    match names.as_slice() {
        [] => String::new(),
        [one] => format!(
            ", and “judge {one}” the ratings of the teacher's judge run “{one}”, carried in the exercise"
        ),
        [first, ..] => format!(
            ", and “judge {first}” the ratings of the teacher's judge run “{first}”, carried in the exercise (likewise for the other judges)"
        ),
    }
}

fn build_report(built: ClassBuilder) -> ClassReport {
    let ClassBuilder {
        exercise,
        files,
        resampling,
        merged,
        pairs,
        among,
        correct,
        corrections,
        runs,
        runs_among,
        alt_test,
        ..
    } = built;
    let exercise = &exercise;
    let dataset = &exercise.dataset.embedded;
    let students: Vec<&Submission> = merged.kept.iter().map(|&i| &files[i].1).collect();
    let mut report = Report::default();

    let mut subs = Table::new(SUBMISSIONS_TABLE, "Submissions", "File");
    subs.columns = vec![
        Column::text("Student"),
        Column::number("Items rated"),
        Column::number("Time").described(
            "time spent on the items, as the student's page measured it (in seconds in CSV and JSON)",
        ),
        Column::text("Status"),
    ];
    let scrutinises = exercise.coeval.is_some();
    if scrutinises {
        subs.columns.insert(
            2,
            Column::number("CoEval decisions")
                .described("decisions on the CoEval study's criteria and evaluations' parts"),
        );
    }
    for (e, (_, s)) in merged.entries.iter().zip(&files) {
        let mut cells = vec![
            Cell::text(e.student.clone()),
            Cell::count(e.items_rated),
            time_cell(e.seconds),
            Cell::text(e.status.describe()),
        ];
        if scrutinises {
            cells.insert(
                2,
                super::scrutiny::decisions(s).map_or(Cell::number(None, 0), Cell::count),
            );
        }
        subs.rows.push(Row::new(e.file.clone(), cells));
    }
    const TIME_NOTE: &str = "Time is in seconds under a minute, then in minutes and seconds (the page counts half a second and more on an item).";
    let runs_judges = !exercise.run_judges().is_empty();
    subs.notes.push(if !exercise.rates() && correct.is_none() && !runs_judges && scrutinises {
        format!("The exercise asks for a scrutiny of its CoEval study only; a later file of the same student with other decisions wins each decision they differ on. {TIME_NOTE}")
    } else { format!(
        "{} of {} exercise items; a later file of the same student with other ratings replaces the earlier one. {TIME_NOTE}",
        exercise.dataset.items,
        exercise.sample.map_or_else(
            || "every".to_owned(),
            |s| format!("a sample (seed {}) of {}", s.seed, s.of)
        )
    )});
    if correct.is_some() {
        // After "Items rated": the judge's ratings decided on.
        subs.columns.insert(
            2,
            Column::number("Items reviewed")
                .described("the judge's ratings the student decided on"),
        );
        for (row, e) in subs.rows.iter_mut().zip(&merged.entries) {
            row.cells.insert(2, Cell::count(e.items_reviewed));
        }
    }
    if runs_judges {
        // Before "Time": the given judges' runs in the file.
        let at = subs.columns.iter().position(|c| c.label == "Time").unwrap_or(1);
        subs.columns.insert(
            at,
            Column::number("Judge runs")
                .described("runs of the given judges (method × attribute) in the file"),
        );
        for (row, (_, s)) in subs.rows.iter_mut().zip(&files) {
            row.cells.insert(at, Cell::count(s.runs.len()));
        }
    }
    report.tables.push(subs);

    let mut table =
        Table::new(STUDENTS_TABLE, "Each student against the reference and the judges", "Student");
    table.columns = vec![
        Column::text("Attribute"),
        Column::text("Against"),
        Column::number("n").described("items both rated"),
        Column::number("r").described("Pearson r"),
        Column::number("τ-b").with_latex("$\\tau_b$").described("Kendall τ-b"),
        Column::number("α").with_latex("$\\alpha$").described("Krippendorff's α (interval)"),
    ];
    for (student, attribute, name, a) in &pairs {
        let key = format!("{student}/{attribute}/{name}");
        let mut cells = vec![Cell::text(attribute.clone()), Cell::text(name.clone())];
        cells.extend(agreement_cells(a, &key, resampling));
        table.rows.push(Row::new(student.clone(), cells));
    }
    table.notes.push(format!(
        "In the Against column, “reference” is the dataset's human rating (the aggregate of its raters){}. α is between the student and the one compared. {}",
        judges_note(exercise),
        intervals_note(resampling)
    ));
    if exercise.rates() {
        report.tables.push(table);
    }

    let mut agree = Table::new(AGREEMENT_TABLE, "Agreement among the students", "Attribute");
    agree.columns = vec![
        Column::number("Students"),
        Column::number("Items").described("items rated by at least two students"),
        Column::number("α")
            .with_latex("$\\alpha$")
            .described("Krippendorff's α (interval) among the students"),
    ];
    for a in &among {
        let cell = among_cell(
            a,
            format!("{}/alpha", a.attribute),
            resampling,
            "needs two students' ratings",
            "undefined: no item rated by two students, or every rating the same",
        );
        agree.rows.push(Row::new(
            a.attribute.clone(),
            vec![Cell::count(a.raters), Cell::count(a.items), cell],
        ));
    }
    agree.notes.push(intervals_note(resampling));
    if exercise.rates() {
        report.tables.push(agree);
    }

    if !merged.conflicts.is_empty() {
        let mut t = Table::new(
            CONFLICTS_TABLE,
            "Items a student rated differently in two files",
            "Student",
        );
        t.columns = vec![
            Column::text("Attribute"),
            Column::text("Item"),
            Column::number("Kept"),
            Column::text("Kept from"),
            Column::number("Overridden"),
            Column::text("Overridden from"),
        ];
        for c in &merged.conflicts {
            t.rows.push(Row::new(
                c.student.clone(),
                vec![
                    Cell::text(c.attribute.clone()),
                    Cell::text(c.item.clone()),
                    Cell::number(c.kept, 2),
                    Cell::text(c.kept_from.clone()),
                    Cell::number(c.overridden, 2),
                    Cell::text(c.overridden_from.clone()),
                ],
            ));
        }
        t.notes.push(
            "The later file wins; give the files in another order to keep the other ratings."
                .to_owned(),
        );
        report.tables.push(t);
    }

    // Correct-judge tables, after the rating ones.
    if let Some(setup) = &correct {
        report.tables.extend(correct_tables(
            exercise,
            setup,
            &students,
            &corrections,
            &merged,
            resampling,
        ));
    }
    if !exercise.run_judges().is_empty() {
        report.tables.extend(run_tables(exercise, &runs, &runs_among, students.len(), resampling));
    }
    if let Some(alt) = alt_test {
        report.tables.extend(alt.tables);
    }
    let rated = exercise.attributes();

    for a in dataset.attributes.iter().filter(|a| rated.contains(&a.name.as_str())) {
        let values: Vec<f64> = students
            .iter()
            .filter_map(|s| s.ratings.iter().find(|r| r.attribute == a.name))
            .flat_map(|r| r.scores.iter().map(|(_, x)| *x))
            .collect();
        // One bar per point of the scale, on its tick (bins of a round width over a continuous one).
        let h = Histogram::of_ratings(
            format!("The students' ratings of {}", a.name),
            values,
            Some((a.scale.min, a.scale.max)),
        );
        report.figures.push(Figure::new(format!("{DISTRIBUTION_FIGURE}{}", slug(&a.name)), h));
    }
    let (tables, figures) = super::scrutiny::tables(exercise, &files, &merged);
    report.tables.extend(tables);
    report.figures.extend(figures);
    ClassReport { merged, report }
}

/// What the alternative annotator test of a class reads: the exercise's items with each
/// student's ratings as an annotator's (under the student's name), the exercise's judges as
/// judge runs (their item scores as the records' values), and the panel's settings at the
/// task's ε (accuracy for labels, negative RMSE for scores).
pub fn alt_test_inputs(
    exercise: &Exercise,
    students: &[&Submission],
) -> (Dataset, Vec<crate::study::workbench::JudgedRun>, crate::study::validity::Settings) {
    use crate::data::{HumanRating, JudgeRecord, JudgeRun, RaterScore, RecordKey};
    let mut dataset = exercise.dataset.embedded.clone();
    let rated = exercise.attributes();
    for (a, attribute) in dataset.attributes.clone().iter().enumerate() {
        if !rated.contains(&attribute.name.as_str()) {
            continue;
        }
        let per_student: Vec<(&str, Vec<Option<f64>>)> = students
            .iter()
            .filter_map(|s| {
                let r = s.ratings.iter().find(|r| r.attribute == attribute.name)?;
                Some((s.student.as_str(), r.aligned(&exercise.dataset.embedded)))
            })
            .collect();
        for (i, item) in dataset.items.iter_mut().enumerate() {
            let raters: Vec<RaterScore> = per_student
                .iter()
                .filter_map(|(who, v)| Some(RaterScore { rater: (*who).to_owned(), score: v[i]? }))
                .collect();
            let rating = if attribute.scale.kind == ScaleKind::Categorical {
                let codes: Vec<f64> = raters.iter().map(|r| r.score).collect();
                crate::data::annotations::majority(&codes).map(|m| HumanRating {
                    raters,
                    aggregate: m,
                    how: crate::data::Aggregate::Majority,
                })
            } else {
                HumanRating::from_raters(raters)
            };
            item.ratings[a] = rating;
        }
    }
    let runs = exercise
        .judges
        .iter()
        .filter(|j| rated.contains(&j.attribute.as_str()))
        .map(|j| crate::study::workbench::JudgedRun {
            method: j.name.clone(),
            attribute: j.attribute.clone(),
            policy: crate::judge::parse::Policy::Concord,
            weighting: None,
            run: JudgeRun {
                name: j.name.clone(),
                attribute: Some(j.attribute.clone()),
                records: j
                    .scores
                    .iter()
                    .map(|(id, x)| JudgeRecord {
                        key: RecordKey::Id(id.clone()),
                        prompt: None,
                        prompt_chars: None,
                        responses: Vec::new(),
                        cut_off: Vec::new(),
                        logprobs: Vec::new(),
                        reasoning_tokens: Vec::new(),
                        parsed: vec![(j.attribute.clone(), *x)],
                        line: 0,
                        meta: None,
                        calls: Vec::new(),
                    })
                    .collect(),
            },
            origin: "exercise".to_owned(),
        })
        .collect();
    let settings = crate::study::validity::Settings {
        epsilon: exercise.alt_test().unwrap_or(0.2),
        ..crate::study::validity::Settings::default()
    };
    (dataset, runs, settings)
}

/// The run-judges tables: each student's runs against the reference, and the agreement among
/// the students' runs of each given judge.
fn run_tables(
    exercise: &Exercise,
    runs: &[RunRow],
    among: &[(String, String, Among)],
    students: usize,
    resampling: Resampling,
) -> Vec<Table> {
    let mut table = Table::new(
        RUNS_TABLE,
        "Each student's runs of the given judges against the reference",
        "Student",
    );
    table.columns = vec![
        Column::text("Method"),
        Column::text("Attribute"),
        Column::text("Model").described("the model the student ran the judge on"),
        Column::number("n").described("items both the run and the reference rated"),
        Column::number("r").described("Pearson r"),
        Column::number("τ-b").with_latex("$\\tau_b$").described("Kendall τ-b"),
        Column::number("α").with_latex("$\\alpha$").described("Krippendorff's α (interval)"),
    ];
    for row in runs {
        let key = format!("{}/{}/{}", row.student, row.method, row.attribute);
        let mut cells = vec![
            Cell::text(row.method.clone()),
            Cell::text(row.attribute.clone()),
            Cell::text(row.model.clone()),
        ];
        match &row.agreement {
            Some(a) => cells.extend(agreement_cells(a, &key, resampling)),
            None => {
                const NO_REFERENCE: &str =
                    "no reference: the dataset has no human rating of this attribute";
                cells.push(Cell::count(0));
                for what in ["pearson", "kendall_b", "alpha"] {
                    cells.push(
                        Cell::number(None, 3)
                            .keyed(format!("{key}/{what}"))
                            .with_note(NO_REFERENCE),
                    );
                }
            }
        }
        table.rows.push(Row::new(row.student.clone(), cells));
    }
    if runs.is_empty() {
        table.notes.push(format!(
            "No submission holds a run of the given judges ({}) yet.",
            exercise
                .run_judges()
                .iter()
                .map(|(m, a)| review::run_key_of(m, a))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    table.notes.push(format!(
        "Each student ran the exercise's judges on its items with a provider and model of their own; the scores are read as the Results table reads them. “reference” is the dataset's human rating (the aggregate of its raters). {}",
        intervals_note(resampling)
    ));

    let mut agree = Table::new(
        RUNS_AGREEMENT_TABLE,
        "Agreement among the students' runs of each judge",
        "Method",
    );
    agree.columns = vec![
        Column::text("Attribute"),
        Column::number("Runs").described("students who submitted a run of the judge"),
        Column::number("Items").described("items at least two runs rated"),
        Column::number("α")
            .with_latex("$\\alpha$")
            .described("Krippendorff's α (interval) among the students' runs"),
    ];
    for (method, attribute, a) in among {
        let cell = among_cell(
            a,
            format!("{method}/{attribute}/alpha"),
            resampling,
            "needs two students' runs of this judge",
            "undefined: no item rated by two runs, or every score the same",
        );
        agree.rows.push(Row::new(
            method.clone(),
            vec![Cell::text(attribute.clone()), Cell::count(a.raters), Cell::count(a.items), cell],
        ));
    }
    agree.notes.push(format!(
        "α among the runs of the {} whose submissions are used; each run is one rater. {}",
        crate::words::count(students, "student", "students"),
        intervals_note(resampling)
    ));
    vec![table, agree]
}

/// The correct-judge tables: each student's corrections, the items most changed, and the
/// conflicts between a student's files.
fn correct_tables(
    exercise: &Exercise,
    setup: &CorrectSetup,
    students: &[&Submission],
    corrections: &[Correction],
    merged: &Merged,
    resampling: Resampling,
) -> Vec<Table> {
    let mut out = Vec::new();
    let mut table = review::review_table(corrections, resampling);
    table.id = CORRECTIONS_TABLE.to_owned();
    table.title = format!("Each student's corrections of the judge {}", setup.run);
    table.corner = "Student".to_owned();
    table.notes.insert(
        0,
        "Per student two rows: \"judge\", the judge's ratings alone, and \"judge + review\", with this student's changes applied; r, τ-b and α are against the reference (the dataset's human aggregate). Minutes are the student's time on the judge's items.".to_owned(),
    );
    out.push(table);

    let dataset = &exercise.dataset.embedded;
    let mut changed = Table::new(CHANGED_TABLE, "Items the students changed most", "Item");
    changed.columns = vec![
        Column::number("Judge").described("the judge's rating"),
        Column::number("Reference"),
        Column::number("Changed by").described("students who changed the judge's rating"),
        Column::number("Reviewed by").described("students who decided on the item"),
        Column::number("Mean new rating").described("the mean of the students' changed ratings"),
        Column::number("Flagged by").described("students who flagged the item"),
    ];
    let mut rows: Vec<(usize, usize, Row)> = Vec::new();
    // A change off the scale counts in no number (`review::counted_verdict`).
    let scale = review::run_attribute(dataset, &setup.run).map(|a| a.scale);
    for (i, item) in dataset.items.iter().enumerate() {
        let verdicts: Vec<&review::Verdict> =
            students.iter().filter_map(|s| s.review.as_ref()?.verdict(&item.id)).collect();
        let new: Vec<f64> = verdicts
            .iter()
            .filter_map(|v| match v {
                review::Verdict::Change { rating }
                    if scale.as_ref().is_none_or(|s| review::on_scale(s, *rating)) =>
                {
                    Some(*rating)
                }
                _ => None,
            })
            .collect();
        if new.is_empty() {
            continue;
        }
        let flagged = verdicts.iter().filter(|v| matches!(v, review::Verdict::Flag { .. })).count();
        let mean = new.iter().sum::<f64>() / new.len() as f64;
        let key = |what: &str| format!("{}/{what}", item.id);
        rows.push((
            new.len(),
            i,
            Row::new(
                item.id.clone(),
                vec![
                    Cell::number(setup.judge.get(i).copied().flatten(), 2),
                    Cell::number(setup.reference.get(i).copied().flatten(), 2),
                    Cell::count(new.len()).keyed(key("changed")),
                    Cell::count(verdicts.len()).keyed(key("reviewed")),
                    Cell::number(Some(mean), 2).keyed(key("mean_new")),
                    Cell::count(flagged).keyed(key("flagged")),
                ],
            ),
        ));
    }
    // Most changed first; ties in the exercise's item order.
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    changed.rows = rows.into_iter().map(|(_, _, r)| r).collect();
    changed.notes.push(format!(
        "Every item at least one of the {} changed, the most changed first.",
        crate::words::count(students.len(), "student", "students")
    ));
    out.push(changed);

    if !merged.review_conflicts.is_empty() {
        let mut t = Table::new(
            REVIEW_CONFLICTS_TABLE,
            "Items a student decided differently in two files",
            "Student",
        );
        t.columns = vec![
            Column::text("Item"),
            Column::text("Kept"),
            Column::text("Kept from"),
            Column::text("Overridden"),
            Column::text("Overridden from"),
        ];
        for c in &merged.review_conflicts {
            t.rows.push(Row::new(
                c.student.clone(),
                vec![
                    Cell::text(c.item.clone()),
                    Cell::text(c.kept.clone()),
                    Cell::text(c.kept_from.clone()),
                    Cell::text(c.overridden.clone()),
                    Cell::text(c.overridden_from.clone()),
                ],
            ));
        }
        t.notes.push(
            "The later file wins; give the files in another order to keep the other decisions."
                .to_owned(),
        );
        out.push(t);
    }
    out
}
