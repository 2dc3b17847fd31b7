//! CoEval's tables and figures as [`report`](crate::report) values: action rates (seed 004
//! Tables 5 and 6), the α matrix (Figure 3) as a table and a heatmap, score distributions
//! (Figure 2) as a table and a heatmap. Shared by a study's results and the released files.

use crate::coeval::{ActionCounts, ActionRates, Distribution};
use crate::report::figure::Heatmap;
use crate::report::{Cell, Column, Figure, Row, Table};

/// Decimals of a percentage (seed 004 prints two).
pub const PCT_DECIMALS: usize = 2;
/// Decimals of an α (seed 004 prints three).
pub const ALPHA_DECIMALS: usize = 3;

/// The four action columns, in percent.
pub fn rate_columns() -> Vec<Column> {
    ["approve %", "revise %", "delete %", "add %"]
        .into_iter()
        .map(|label| Column::number(label).described("share of all actions, in percent"))
        .collect()
}

/// The four action cells of `rates` (dashes when there were no actions).
pub fn rate_cells(rates: Option<ActionRates>) -> Vec<Cell> {
    match rates {
        Some(r) => [r.approve, r.revise, r.delete, r.add]
            .into_iter()
            .map(|x| Cell::number(Some(x), PCT_DECIMALS))
            .collect(),
        None => (0..4).map(|_| Cell::number(None, PCT_DECIMALS)).collect(),
    }
}

/// Seed 004 Table 6 (or Table 5 with one row) over counted actions: approve / revise /
/// delete / add in percent, and the number of actions.
pub fn rates_table(id: &str, title: &str, rows: &[(&str, &ActionCounts)]) -> Table {
    let mut t = Table::new(id, title, "component");
    t.columns = rate_columns();
    t.columns.push(Column::number("actions"));
    t.rows = rows
        .iter()
        .map(|(name, c)| {
            let mut cells = rate_cells(c.percentages());
            cells.push(Cell::count(c.total()));
            Row::new(*name, cells)
        })
        .collect();
    t
}

/// Figure 3 as a table: the α matrix with rater names on both sides.
pub fn alpha_table(id: &str, title: &str, raters: &[String], matrix: &[Vec<Option<f64>>]) -> Table {
    let mut t = Table::new(id, title, "α");
    t.columns = raters.iter().map(|r| Column::number(r.clone())).collect();
    t.rows = raters
        .iter()
        .zip(matrix)
        .map(|(r, row)| {
            Row::new(r.clone(), row.iter().map(|v| Cell::number(*v, ALPHA_DECIMALS)).collect())
        })
        .collect();
    t
}

/// Figure 3 as a plot: the α matrix as a heatmap (values in the cells, colour from 0 to 1).
pub fn alpha_figure(
    id: &str,
    title: &str,
    raters: &[String],
    matrix: &[Vec<Option<f64>>],
) -> Figure {
    Figure::new(
        id,
        Heatmap::new(title, raters.to_vec(), raters.to_vec(), matrix.to_vec())
            .decimals(ALPHA_DECIMALS)
            .range(0.0, 1.0),
    )
}

/// Figure 2 as a table: counts of scores 1–5 per generating system and rater
/// ([`crate::coeval::ScoreTable::distribution`]).
pub fn distribution_table(id: &str, title: &str, groups: &[Distribution]) -> Table {
    let mut t = Table::new(id, title, "system");
    t.columns = vec![Column::text("rater")];
    t.columns.extend((1..=5).map(|k| Column::number(k.to_string()).in_group("score")));
    t.rows = groups
        .iter()
        .map(|d| {
            let mut cells = vec![Cell::text(d.rater.clone())];
            cells.extend(d.counts.iter().map(|&n| Cell::count(n)));
            Row::new(d.system.clone(), cells)
        })
        .collect();
    t
}

/// Figure 2 as a plot: one row per (generating system, rater), one column per score 1–5, each
/// cell the share of that row's scores.
pub fn distribution_figure(id: &str, title: &str, groups: &[Distribution]) -> Figure {
    let rows = groups.iter().map(|d| format!("{} · {}", d.system, d.rater)).collect();
    let values = groups
        .iter()
        .map(|d| {
            let total: usize = d.counts.iter().sum();
            d.counts.iter().map(|&c| (total > 0).then(|| c as f64 / total as f64)).collect()
        })
        .collect();
    let columns = (1..=5).map(|k| k.to_string()).collect();
    Figure::new(id, Heatmap::new(title, rows, columns, values).decimals(2).range(0.0, 1.0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::*;
    use crate::coeval::{ScoreTable, Unit};
    use crate::report::{Format, export_table};

    #[test]
    fn rates_are_percentages_with_two_decimals_and_a_count() {
        let c = ActionCounts { approve: 3, revise: 0, delete: 1, add: 0 };
        let t =
            rates_table("t5", "Table 5", &[("criteria", &c), ("none", &ActionCounts::default())]);
        let md = export_table(&t, Format::Markdown).unwrap();
        assert_eq!(
            md,
            "**Table 5**\n\n| component | approve % | revise % | delete % | add % | actions |\n\
             |---|---:|---:|---:|---:|---:|\n\
             | criteria | 75.00 | 0.00 | 25.00 | 0.00 | 4 |\n\
             | none | – | – | – | – | 0 |\n"
        );
        assert_eq!(
            export_table(&t, Format::Csv).unwrap(),
            "component,approve %,revise %,delete %,add %,actions\r\ncriteria,75,0,25,0,4\r\nnone,,,,,0\r\n"
        );
    }

    #[test]
    fn alpha_and_distribution_escape_names_in_every_export() {
        let raters = vec!["A".to_owned(), "B&C".to_owned()];
        let m = vec![vec![Some(1.0), None], vec![None, Some(1.0)]];
        let svg = alpha_figure("a", "α <x>", &raters, &m).to_svg();
        assert!(svg.contains("&lt;x&gt;") && svg.contains("B&amp;C"), "{svg}");
        let tex = export_table(&alpha_table("a", "α", &raters, &m), Format::Latex).unwrap();
        assert!(tex.contains("B\\&C & -- & 1.000 \\\\"), "{tex}");

        let unit =
            |i: &str| Unit { instance: i.into(), system: "turbo".into(), criterion: "c".into() };
        let scores = ScoreTable::from_triples([
            (unit("1"), "LLM".to_owned(), 4.0),
            (unit("2"), "LLM".to_owned(), 5.0),
            (unit("1"), "Ann".to_owned(), 4.0),
        ]);
        let groups = scores.distribution(None);
        let t = distribution_table("d", "Figure 2", &groups);
        let csv = export_table(&t, Format::Csv).unwrap();
        assert_eq!(
            csv,
            "system,rater,score 1,score 2,score 3,score 4,score 5\r\nturbo,LLM,0,0,0,1,1\r\nturbo,Ann,0,0,0,1,0\r\n"
        );
        let Figure { plot: crate::report::Plot::Heatmap(h), .. } =
            distribution_figure("d", "F", &groups)
        else {
            panic!("a heatmap");
        };
        assert_eq!(h.rows, ["turbo · LLM", "turbo · Ann"]);
        assert_eq!(h.values[0], [Some(0.0), Some(0.0), Some(0.0), Some(0.5), Some(0.5)]);
    }
}
