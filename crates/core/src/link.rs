//! Links to a view: the page's address holds the screen and, on Results, the statistic, level,
//! baseline and the selected cell and item, as query parameters (so any static host serves
//! them). Read back tolerantly: other parameters are kept, a wrong value is named and ignored.
//!
//! ```text
//! ?exercise=class/week3.json                 (a student opens an exercise on the Class screen)
//! ?bundle=demo/run.json&screen=results&stat=spearman&level=document&baseline=score-only
//!     &method=rate-explain&attribute=coherence&item=d3-s1
//! ```

use crate::bundle::Settings;
use crate::study::workbench::{Granularity, Statistic};

/// The screens a link can name, in tab order.
pub const SCREENS: [&str; 8] =
    ["data", "judge", "run", "results", "rate", "meta", "coeval", "class"];

/// The `stat` value of seed 002's layout (r at dataset level and τ at document level).
pub const PAPER: &str = "paper";

/// The parameters this module reads and writes (every other one is left as it is).
const OURS: [&str; 9] =
    ["screen", "stat", "level", "baseline", "method", "attribute", "item", "bundle", "exercise"];

/// What a link shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewLink {
    /// One of [`SCREENS`].
    pub screen: Option<&'static str>,
    /// The Results table: seed 002's layout (`None` inside) or one statistic.
    pub table: Option<Option<Statistic>>,
    pub level: Option<Granularity>,
    /// The baseline method; `Some(None)`: none.
    pub baseline: Option<Option<String>>,
    /// The selected cell: (method, attribute).
    pub cell: Option<(String, String)>,
    /// The item shown under the selected cell, by id.
    pub item: Option<String>,
    /// A bundle to open first (`?bundle=`).
    pub bundle: Option<String>,
    /// An exercise file for a student to open (`?exercise=`, the Class screen).
    pub exercise: Option<String>,
}

/// A parameter a link holds that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LinkProblem {
    #[error("the link names the screen “{0}”; the screens are {screens}", screens = SCREENS.join(", "))]
    Screen(String),
    #[error("the link asks for the statistic “{0}”; use paper, pearson, spearman or kendall_b")]
    Statistic(String),
    #[error("the link asks for the level “{0}”; use dataset or document")]
    Level(String),
    #[error(
        "the link names a method but no attribute (or the other way round): both are needed to select a cell"
    )]
    HalfCell,
}

impl ViewLink {
    /// Reads the query string of an address (`?a=b&…`, with or without the `?`). What cannot be
    /// used is left out and said.
    pub fn parse(query: &str) -> (ViewLink, Vec<LinkProblem>) {
        let mut link = ViewLink::default();
        let mut problems = Vec::new();
        let (mut method, mut attribute) = (None, None);
        for (key, value) in form_urlencoded::parse(query.trim_start_matches('?').as_bytes()) {
            let value = value.trim().to_owned();
            match key.as_ref() {
                "screen" => match SCREENS.iter().find(|s| **s == value) {
                    Some(s) => link.screen = Some(s),
                    None => problems.push(LinkProblem::Screen(value)),
                },
                "stat" => {
                    if value == PAPER {
                        link.table = Some(None);
                    } else {
                        match Statistic::ALL.into_iter().find(|s| s.name() == value) {
                            Some(s) => link.table = Some(Some(s)),
                            None => problems.push(LinkProblem::Statistic(value)),
                        }
                    }
                }
                "level" => match value.as_str() {
                    "dataset" => link.level = Some(Granularity::Dataset),
                    "document" => link.level = Some(Granularity::Document),
                    _ => problems.push(LinkProblem::Level(value)),
                },
                "baseline" => link.baseline = Some((!value.is_empty()).then_some(value)),
                "method" if !value.is_empty() => method = Some(value),
                "attribute" if !value.is_empty() => attribute = Some(value),
                "item" if !value.is_empty() => link.item = Some(value),
                "bundle" if !value.is_empty() => link.bundle = Some(value),
                "exercise" if !value.is_empty() => link.exercise = Some(value),
                _ => {}
            }
        }
        match (method, attribute) {
            (Some(m), Some(a)) => link.cell = Some((m, a)),
            (None, None) => {}
            _ => problems.push(LinkProblem::HalfCell),
        }
        if link.cell.is_none() {
            link.item = None;
        }
        (link, problems)
    }

    /// The link of a view: `screen`, the Results `settings`, the selected cell and item.
    pub fn of(
        screen: &'static str,
        settings: &Settings,
        cell: Option<(String, String)>,
        item: Option<String>,
    ) -> ViewLink {
        let results = screen == "results";
        ViewLink {
            screen: Some(screen),
            table: results.then_some((!settings.paper_layout).then_some(settings.statistic)),
            level: (results && !settings.paper_layout).then_some(settings.level),
            baseline: results.then(|| settings.baseline.clone()),
            item: if results && cell.is_some() { item } else { None },
            cell: if results { cell } else { None },
            bundle: None,
            exercise: None,
        }
    }

    /// Puts what the link says into the Results `settings` (what it does not say stays).
    pub fn apply(&self, settings: &mut Settings) {
        match self.table {
            Some(None) => settings.paper_layout = true,
            Some(Some(s)) => {
                settings.paper_layout = false;
                settings.statistic = s;
            }
            None => {}
        }
        if let Some(level) = self.level {
            settings.level = level;
        }
        if let Some(b) = &self.baseline {
            settings.baseline = b.clone();
        }
    }

    /// The query string (`?…`) of `query` with this link's parameters in place of any it had;
    /// other parameters are kept, in their order, before ours.
    pub fn into_query(&self, query: &str) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        for (k, v) in form_urlencoded::parse(query.trim_start_matches('?').as_bytes()) {
            if !OURS.contains(&k.as_ref()) {
                out.append_pair(&k, &v);
            }
        }
        if let Some(b) = &self.bundle {
            out.append_pair("bundle", b);
        }
        if let Some(e) = &self.exercise {
            out.append_pair("exercise", e);
        }
        if let Some(s) = self.screen {
            out.append_pair("screen", s);
        }
        match self.table {
            Some(None) => {
                out.append_pair("stat", PAPER);
            }
            Some(Some(s)) => {
                out.append_pair("stat", s.name());
            }
            None => {}
        }
        if let Some(l) = self.level {
            out.append_pair("level", l.name());
        }
        if let Some(b) = &self.baseline {
            out.append_pair("baseline", b.as_deref().unwrap_or(""));
        }
        if let Some((m, a)) = &self.cell {
            out.append_pair("method", m);
            out.append_pair("attribute", a);
        }
        if let Some(i) = &self.item {
            out.append_pair("item", i);
        }
        let q = out.finish();
        if q.is_empty() { q } else { format!("?{q}") }
    }

    /// Whether going from `self` to `next` is a move to another view (a new history entry),
    /// rather than a change of how the same view is shown (the entry is replaced).
    pub fn is_new_view(&self, next: &ViewLink) -> bool {
        self.screen != next.screen || self.cell != next.cell || self.item != next.item
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_link_round_trips_and_keeps_other_parameters() {
        let settings = Settings {
            paper_layout: false,
            statistic: Statistic::Spearman,
            level: Granularity::Document,
            baseline: Some("score only & more".into()),
            ..Settings::default()
        };
        let cell = Some(("rate-explain".to_owned(), "coherence".to_owned()));
        let link = ViewLink::of("results", &settings, cell, Some("d1/s 2".into()));
        let q = link.into_query("?utm=x&screen=data");
        assert_eq!(
            q,
            "?utm=x&screen=results&stat=spearman&level=document&baseline=score+only+%26+more&method=rate-explain&attribute=coherence&item=d1%2Fs+2"
        );
        let (back, problems) = ViewLink::parse(&q);
        assert!(problems.is_empty());
        assert_eq!(back, link);
        let mut other = Settings::default();
        back.apply(&mut other);
        assert_eq!(
            (other.paper_layout, other.statistic, other.level, other.baseline),
            (false, Statistic::Spearman, Granularity::Document, Some("score only & more".into()))
        );
    }

    #[test]
    fn other_screens_carry_only_their_name() {
        let link =
            ViewLink::of("judge", &Settings::default(), Some(("a".into(), "b".into())), None);
        assert_eq!(link.into_query(""), "?screen=judge");
        let paper = ViewLink::of("results", &Settings::default(), None, Some("x".into()));
        assert_eq!(paper.into_query(""), "?screen=results&stat=paper&baseline=");
        assert!(paper.is_new_view(&link));
        let mut spearman = paper.clone();
        spearman.table = Some(Some(Statistic::Spearman));
        assert!(!paper.is_new_view(&spearman));
    }

    #[test]
    fn wrong_values_are_named_and_ignored() {
        let (link, problems) =
            ViewLink::parse("screen=graphs&stat=mean&level=item&method=m&bundle=demo/b.json");
        assert_eq!(link.screen, None);
        assert_eq!(link.table, None);
        assert_eq!(link.cell, None);
        assert_eq!(link.bundle.as_deref(), Some("demo/b.json"));
        let (ex, _) = ViewLink::parse("exercise=https%3A%2F%2Fa.b%2Fe.json&screen=class");
        assert_eq!(ex.exercise.as_deref(), Some("https://a.b/e.json"));
        assert_eq!(ex.screen, Some("class"));
        assert_eq!(ex.into_query("?x=1"), "?x=1&exercise=https%3A%2F%2Fa.b%2Fe.json&screen=class");
        let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 4, "{said:?}");
        assert!(
            said[0].starts_with("the link names the screen “graphs”; the screens are data, judge,")
        );
        assert!(said[3].contains("both are needed"));
        // An item without a cell selects nothing.
        assert_eq!(ViewLink::parse("item=x").0.item, None);
    }
}
