//! The meta-evaluation workspace: the files in the screen's list (released files, and the
//! files live runs made) and the live runs themselves, and the one report builder the screen
//! and `concord meta` share ([`Workspace::report`], [`Workspace::report_with`]).

use std::sync::Arc;

use super::compute::{self, Computed};
use super::figures;
use super::files::{self, Content, FileKind, JdEvalFile, JudgedPair, MetaFile};
use super::live::{LiveRun, PairwiseRun, ScoringRun};
use super::settings::Settings;
use super::tables::{self, Labels, PAPER_TABLES};
use super::win_rate;
use crate::judge::template::RenderError;
use crate::meta::{EloResult, MetaProtocol};
use crate::report::{Report, Table};

/// Where a file of the list comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A file the user loaded, known by its name and SHA-256.
    Released { name: String, sha256: String, kind: FileKind },
    /// A file a live run made (the run's id in the workspace).
    Live { run: u64 },
}

/// One row of the file list.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Stable within the workspace: what the screen's selections and the computed results
    /// refer to.
    pub id: u64,
    pub origin: Origin,
    /// The analysed file; `None` while a restored snapshot waits for the user to load it.
    pub file: Option<Arc<MetaFile>>,
}

impl Entry {
    /// The file's name: the analysed file's, or the one a snapshot asks for.
    pub fn name(&self) -> &str {
        match (&self.file, &self.origin) {
            (Some(f), _) => &f.name,
            (None, Origin::Released { name, .. }) => name,
            (None, Origin::Live { .. }) => "",
        }
    }

    /// What a restored snapshot still needs: the name and SHA-256 of the released file.
    pub fn needed(&self) -> Option<(&str, &str)> {
        match (&self.file, &self.origin) {
            (None, Origin::Released { name, sha256, .. }) => Some((name, sha256)),
            _ => None,
        }
    }
}

/// A live run kept by the workspace: its value and what replaying it gave.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredRun {
    pub id: u64,
    pub run: Arc<LiveRun>,
}

/// The loaded files and live-run results of the meta-evaluation screen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workspace {
    pub(crate) entries: Vec<Entry>,
    pub(crate) runs: Vec<StoredRun>,
    /// The last pairwise run: its table, and the assessments JDEval / MDEval compare.
    pub(crate) pairwise: Option<(u64, Arc<PairwiseRun>)>,
    /// The last individual-scoring run and its table.
    pub(crate) scoring: Option<(u64, Arc<ScoringRun>)>,
    pub(crate) next_id: u64,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }

    pub(crate) fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The file list, in the order files were added.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The analysed files, with their entry ids.
    pub fn files(&self) -> impl Iterator<Item = (u64, &MetaFile)> {
        self.entries.iter().filter_map(|e| e.file.as_deref().map(|f| (e.id, f)))
    }

    /// The file of entry `id`.
    pub fn file(&self, id: u64) -> Option<&Arc<MetaFile>> {
        self.entries.iter().find(|e| e.id == id)?.file.as_ref()
    }

    /// How the screen names a model: its family's spelling in Table 1 (the evaluator results
    /// file's), so `g4`, `gpt4` and `gpt-4-1106-preview` read as one model everywhere; a name
    /// of no Table 1 family as it is.
    pub fn model_label(&self, name: &str) -> String {
        let (rows, _) = files::report_rows(self.files().map(|(_, f)| f));
        Labels::from_rows(&rows).label(name)
    }

    /// The JDEval files (released and live), in list order.
    pub fn jdeval(&self) -> Vec<(u64, &JdEvalFile)> {
        self.files().filter_map(|(id, f)| Some((id, f.jdeval()?))).collect()
    }

    /// The last pairwise run, if any.
    pub fn last_pairwise(&self) -> Option<&Arc<PairwiseRun>> {
        self.pairwise.as_ref().map(|(_, r)| r)
    }

    /// The last individual-scoring run, if any.
    pub fn last_scoring(&self) -> Option<&Arc<ScoringRun>> {
        self.scoring.as_ref().map(|(_, r)| r)
    }

    /// The name a released file with this SHA-256 must be analysed under, when a restored
    /// snapshot waits for it (evaluator names are read from file names, so the snapshot's
    /// name wins over the name of the file the user picked).
    pub fn needed_name(&self, sha256: &str) -> Option<&str> {
        self.entries.iter().find_map(|e| e.needed().filter(|(_, h)| *h == sha256).map(|(n, _)| n))
    }

    /// Adds a released file already analysed (under [`Workspace::needed_name`] when a snapshot
    /// waits for it): it takes the place of the entry waiting for its SHA-256, or joins the end
    /// of the list. Returns its entry id.
    pub fn add_released(&mut self, sha256: String, file: MetaFile) -> u64 {
        if let Some(e) =
            self.entries.iter_mut().find(|e| e.needed().is_some_and(|(_, h)| h == sha256))
        {
            if let Origin::Released { kind, .. } = &mut e.origin {
                *kind = file.kind;
            }
            e.file = Some(Arc::new(file));
            return e.id;
        }
        let id = self.take_id();
        let origin = Origin::Released { name: file.name.clone(), sha256, kind: file.kind };
        self.entries.push(Entry { id, origin, file: Some(Arc::new(file)) });
        id
    }

    /// The name of a loaded released file with these bytes (same SHA-256), if one is listed:
    /// loading the same file twice would count its records twice.
    pub fn loaded_name(&self, sha256: &str) -> Option<&str> {
        self.entries.iter().find_map(|e| match &e.origin {
            Origin::Released { name, sha256: h, .. } if h == sha256 && e.file.is_some() => {
                Some(name.as_str())
            }
            _ => None,
        })
    }

    /// Analyses `bytes` as the file `name` and adds it ([`Workspace::add_released`]).
    pub fn add_bytes(&mut self, name: &str, bytes: &[u8]) -> u64 {
        let sha256 = files::sha256_hex(bytes);
        let name = self.needed_name(&sha256).unwrap_or(name).to_owned();
        self.add_released(sha256, files::analyze_file(&name, bytes))
    }

    /// Adds a live run: replays its answers, adds the files it makes (replacing the files of
    /// an earlier run with the same names) and, for a pairwise or individual-scoring run,
    /// makes it the run whose table the screen shows.
    pub fn add_run(&mut self, run: LiveRun) -> Result<(), RenderError> {
        let replayed = run.replay()?;
        let id = self.take_id();
        self.entries.retain(|e| {
            !e.file
                .as_ref()
                .is_some_and(|f| f.is_live() && replayed.files.iter().any(|n| n.name == f.name))
        });
        for file in replayed.files {
            let entry_id = self.take_id();
            self.entries.push(Entry {
                id: entry_id,
                origin: Origin::Live { run: id },
                file: Some(Arc::new(file)),
            });
        }
        if let Some(p) = replayed.pairwise {
            self.pairwise = Some((id, Arc::new(p)));
        }
        if let Some(s) = replayed.scoring {
            self.scoring = Some((id, Arc::new(s)));
        }
        self.runs.push(StoredRun { id, run: Arc::new(run) });
        self.prune_runs();
        Ok(())
    }

    /// Removes entry `id`.
    pub fn remove(&mut self, id: u64) {
        self.entries.retain(|e| e.id != id);
        self.prune_runs();
    }

    /// Removes every file (the last run tables stay, as the screen shows them beside the list).
    pub fn clear_files(&mut self) {
        self.entries.clear();
        self.prune_runs();
    }

    /// Forgets the runs nothing shows any more.
    fn prune_runs(&mut self) {
        let entries = &self.entries;
        let (p, s) = (self.pairwise.as_ref().map(|x| x.0), self.scoring.as_ref().map(|x| x.0));
        self.runs.retain(|r| {
            Some(r.id) == p
                || Some(r.id) == s
                || entries.iter().any(|e| e.origin == Origin::Live { run: r.id })
        });
    }

    /// Every costly result of the report under `settings`, in one go (the CLI and the tests;
    /// the browser computes the same steps one at a time, see [`compute`]).
    pub fn compute(&self, settings: &Settings) -> Computed {
        let jd = self.jdeval();
        Computed {
            pairwise: jd
                .iter()
                .map(|(id, f)| (*id, Arc::new(compute::pairwise_result(f, settings))))
                .collect(),
            seed_spread: if settings.seeds >= 2 {
                jd.iter().map(|(_, f)| compute::seed_spread(f, settings)).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// Every table and figure the screen shows, in its order, under `settings`.
    pub fn report(&self, settings: &Settings) -> Report {
        self.report_with(settings, &self.compute(settings))
    }

    /// Seed 003's Table 1, Table 5, Table 6 and the Elo table in the paper's layout (what
    /// `concord meta --format md|csv|latex` prints): the same tables as [`Workspace::report`].
    pub fn paper_report(&self, settings: &Settings) -> Report {
        let settings = Settings { seeds: 0, ..*settings };
        let mut report = self.report(&settings);
        report.tables.retain(|t| PAPER_TABLES.contains(&t.id.as_str()));
        report.tables.sort_by_key(|t| PAPER_TABLES.iter().position(|id| *id == t.id));
        report.figures.clear();
        report
    }

    /// The corrected win rate of output 1 of every pairwise evaluator (released files and
    /// pairwise runs, in Table 1's order) under `settings`' labelled pairs
    /// ([`win_rate::win_rate_table`]); `None` without a pairwise evaluator.
    pub fn win_rate_table(&self, settings: &Settings) -> Option<Table> {
        let mut evaluators: Vec<(&str, &[JudgedPair])> = self
            .files()
            .filter_map(|(_, f)| match &f.content {
                Content::Evaluator(row) if f.kind == FileKind::Pairwise && !f.judged.is_empty() => {
                    Some((row.name.as_str(), f.judged.as_slice()))
                }
                _ => None,
            })
            .collect();
        if evaluators.is_empty() {
            return None;
        }
        evaluators.sort_by_cached_key(|(name, _)| tables::family_rank(name));
        let rates = win_rate::win_rates(evaluators, settings);
        Some(win_rate::win_rate_table(&rates, settings))
    }

    /// The report with the costly results already computed (the browser's path): the live
    /// runs' tables, Table 1, the corrected win rate, Tables 5 and 6, Elo, its seed spread, post accuracy,
    /// Bradley–Terry per meta-evaluator and the ranking agreement; per meta-evaluator its
    /// win-rate heatmap and match distribution, and once computed its Elo and Bradley–Terry
    /// charts. Tables with nothing to show are left out.
    pub fn report_with(&self, settings: &Settings, computed: &Computed) -> Report {
        let (rows, scores) = files::report_rows(self.files().map(|(_, f)| f));
        let labels = Labels::from_rows(&rows);
        let mut report = Report::default();
        if let Some((_, run)) = &self.pairwise {
            report.tables.push(tables::pairwise_run_table(run));
        }
        if let Some((_, run)) = &self.scoring {
            report.tables.push(tables::scoring_run_table(run));
        }
        if !rows.is_empty() {
            report.tables.push(tables::table1(&rows));
        }
        if let Some(t) = self.win_rate_table(settings) {
            report.tables.push(t);
        }
        for protocol in [MetaProtocol::JdEvalI, MetaProtocol::BsmEval] {
            let t = tables::meta_table(&scores, protocol, &labels);
            if !t.rows.is_empty() {
                report.tables.push(t);
            }
        }
        let jd = self.jdeval();
        let results: Vec<(&JdEvalFile, &compute::PairwiseResult)> =
            jd.iter().filter_map(|(id, f)| Some((*f, computed.pairwise(*id)?))).collect();
        let elo: Vec<&EloResult> = results.iter().map(|(_, r)| &r.elo).collect();
        if !elo.is_empty() {
            report.tables.push(tables::elo_table(&elo, &labels));
        }
        if !computed.seed_spread.is_empty() {
            report.tables.push(tables::seed_spread_table(&computed.seed_spread, &labels));
        }
        if !jd.is_empty() {
            let files: Vec<&JdEvalFile> = jd.iter().map(|(_, f)| *f).collect();
            report.tables.push(tables::post_accuracy_table(&files, &labels));
        }
        for (f, r) in &results {
            report.tables.push(tables::bradley_terry_table(
                &f.meta_evaluator,
                &r.bradley_terry,
                &labels,
            ));
        }
        let agreements = tables::ranking_agreements(&rows, &scores, &elo);
        if !agreements.is_empty() {
            report.tables.push(tables::agreement_table(&agreements, &labels));
        }
        for (id, f) in &jd {
            report.figures.push(figures::win_rate_heatmap(f, settings.ties, &labels));
            report.figures.push(figures::match_distribution(f, &labels));
            if let Some(r) = computed.pairwise(*id) {
                report.figures.push(figures::elo_ranking(&f.meta_evaluator, &r.elo, &labels));
                report.figures.push(figures::bradley_terry_ranking(
                    &f.meta_evaluator,
                    &r.bradley_terry,
                    &labels,
                ));
            }
        }
        report
    }
}
