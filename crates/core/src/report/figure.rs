//! Figures: a heatmap (colour legend, value in each cell), bars with error bars, a histogram
//! and a scatter, described as data and drawn by a pure function into a [`Scene`] of
//! positioned rectangles, lines, circles and texts in SVG user units.
//!
//! A scene is drawn two ways from the same geometry, so what is shown is what is exported:
//! [`Scene::to_svg`] writes a standalone SVG document (the only SVG writer, used by every
//! export and by `concord report --format svg`), and the app's `components::figure_view`
//! inserts the same shapes into the page.
//!
//! ```
//! use concord_core::report::figure::{Figure, Heatmap};
//! let map = Heatmap::new("Win rate", vec!["a".into()], vec!["b".into()], vec![vec![Some(0.5)]])
//!     .decimals(2)
//!     .range(0.0, 1.0);
//! let svg = Figure::new("win-rates", map).to_svg();
//! assert!(svg.starts_with("<svg xmlns="));
//! ```
//!
//! Colours are SVG presentation attributes (`fill`, `stroke`), not `style=`, so the page's CSP
//! (`style-src 'self'`) allows them and the exported file keeps them. Labels are text (escaped
//! in the SVG string, text nodes in the page): dataset text can never become markup. Undefined
//! values (`None`) are drawn as a grey cell or left out, never as 0.

use serde::{Deserialize, Serialize};

use super::table::format_value;

/// One drawing primitive, in SVG user units (y grows downwards).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: String,
        stroke: Option<String>,
        title: Option<String>,
    },
    Line {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: String,
        width: f64,
    },
    Circle {
        cx: f64,
        cy: f64,
        r: f64,
        fill: String,
        title: Option<String>,
    },
    Text {
        x: f64,
        y: f64,
        text: String,
        anchor: Anchor,
        size: f64,
        fill: String,
        rotate: bool,
    },
}

/// Horizontal alignment of a text at its `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A finished plot: its size, an accessible title and its shapes in drawing order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub width: f64,
    pub height: f64,
    pub title: String,
    pub shapes: Vec<Shape>,
}

const FG: &str = "#1d2230";
const MUTED: &str = "#5b6275";
const GRID: &str = "#dde1ea";
const ACCENT: &str = "#2456c9";
const MISSING: &str = "#eceef3";

fn text(x: f64, y: f64, s: impl Into<String>, anchor: Anchor, size: f64) -> Shape {
    Shape::Text { x, y, text: s.into(), anchor, size, fill: FG.to_owned(), rotate: false }
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) -> Shape {
    Shape::Line { x1, y1, x2, y2, stroke: stroke.to_owned(), width: 1.0 }
}

/// Escapes text for an SVG/XML text node or attribute value.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A number for SVG attributes: two decimals at most, no trailing zeros (`12.5`, `3`).
pub fn num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_owned() } else { s.to_owned() }
}

impl Scene {
    /// The scene as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             font-family=\"system-ui, sans-serif\" role=\"img\">\n<title>{t}</title>\n\
             <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
            w = num(self.width),
            h = num(self.height),
            t = escape(&self.title)
        );
        for shape in &self.shapes {
            match shape {
                Shape::Rect { x, y, w, h, fill, stroke, title } => {
                    let stroke = stroke
                        .as_ref()
                        .map(|s| format!(" stroke=\"{}\"", escape(s)))
                        .unwrap_or_default();
                    let body = match title {
                        Some(t) => format!("><title>{}</title></rect>", escape(t)),
                        None => "/>".to_owned(),
                    };
                    out.push_str(&format!(
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{stroke}{body}\n",
                        num(*x),
                        num(*y),
                        num(*w),
                        num(*h),
                        escape(fill)
                    ));
                }
                Shape::Line { x1, y1, x2, y2, stroke, width } => out.push_str(&format!(
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>\n",
                    num(*x1),
                    num(*y1),
                    num(*x2),
                    num(*y2),
                    escape(stroke),
                    num(*width)
                )),
                Shape::Circle { cx, cy, r, fill, title } => {
                    let body = match title {
                        Some(t) => format!("><title>{}</title></circle>", escape(t)),
                        None => "/>".to_owned(),
                    };
                    out.push_str(&format!(
                        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"{body}\n",
                        num(*cx),
                        num(*cy),
                        num(*r),
                        escape(fill)
                    ));
                }
                Shape::Text { x, y, text, anchor, size, fill, rotate } => {
                    let transform = if *rotate {
                        format!(" transform=\"rotate(-40 {} {})\"", num(*x), num(*y))
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\"{transform}>{}</text>\n",
                        num(*x),
                        num(*y),
                        anchor.as_str(),
                        num(*size),
                        escape(fill),
                        escape(text)
                    ));
                }
            }
        }
        out.push_str("</svg>\n");
        out
    }
}

/// One of the figures a report holds, with a stable id (the export's file stem).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub id: String,
    pub plot: Plot,
}

/// What a figure draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Plot {
    Heatmap(Heatmap),
    Bars(BarChart),
    Histogram(Histogram),
    Scatter(Scatter),
}

impl From<Heatmap> for Plot {
    fn from(h: Heatmap) -> Plot {
        Plot::Heatmap(h)
    }
}

impl From<BarChart> for Plot {
    fn from(b: BarChart) -> Plot {
        Plot::Bars(b)
    }
}

impl From<Histogram> for Plot {
    fn from(h: Histogram) -> Plot {
        Plot::Histogram(h)
    }
}

impl From<Scatter> for Plot {
    fn from(s: Scatter) -> Plot {
        Plot::Scatter(s)
    }
}

impl Figure {
    pub fn new(id: impl Into<String>, plot: impl Into<Plot>) -> Figure {
        Figure { id: id.into(), plot: plot.into() }
    }

    pub fn title(&self) -> &str {
        match &self.plot {
            Plot::Heatmap(p) => &p.title,
            Plot::Bars(p) => &p.title,
            Plot::Histogram(p) => &p.title,
            Plot::Scatter(p) => &p.title,
        }
    }

    /// The figure drawn.
    pub fn scene(&self) -> Scene {
        match &self.plot {
            Plot::Heatmap(p) => p.scene(),
            Plot::Bars(p) => p.scene(),
            Plot::Histogram(p) => p.scene(),
            Plot::Scatter(p) => p.scene(),
        }
    }

    /// The figure as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        self.scene().to_svg()
    }
}

/// A sequential colour scale from near-white to the accent blue, `t` in [0, 1].
pub fn colour(t: f64) -> String {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let (lo, hi) = ([0xf4, 0xf7, 0xfd], [0x1a, 0x3f, 0x94]);
    let mix = |a: u8, b: u8| (f64::from(a) + t * (f64::from(b) - f64::from(a))).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(lo[0], hi[0]), mix(lo[1], hi[1]), mix(lo[2], hi[2]))
}

/// Text colour readable on [`colour`]`(t)`.
fn ink_on(t: f64) -> &'static str {
    if t > 0.55 { "#ffffff" } else { FG }
}

/// A matrix of values with row and column labels (e.g. win rate of row over column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heatmap {
    pub title: String,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    /// `values[r][c]`; `None` (diagonal, never met) is drawn grey with a dash.
    pub values: Vec<Vec<Option<f64>>>,
    /// The colour range; the data's min and max when `None`.
    pub range: Option<(f64, f64)>,
    pub decimals: usize,
}

impl Heatmap {
    pub fn new(
        title: impl Into<String>,
        rows: Vec<String>,
        columns: Vec<String>,
        values: Vec<Vec<Option<f64>>>,
    ) -> Heatmap {
        Heatmap { title: title.into(), rows, columns, values, range: None, decimals: 2 }
    }

    pub fn decimals(mut self, decimals: usize) -> Heatmap {
        self.decimals = decimals;
        self
    }

    pub fn range(mut self, lo: f64, hi: f64) -> Heatmap {
        self.range = Some((lo, hi));
        self
    }

    fn bounds(&self) -> (f64, f64) {
        if let Some(r) = self.range {
            return r;
        }
        let finite = self.values.iter().flatten().flatten().copied().filter(|x| x.is_finite());
        let (lo, hi) =
            finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
        if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) }
    }

    /// Cells with their values, row labels on the left, column labels above (slanted), and a
    /// colour legend with its range on the right.
    pub fn scene(&self) -> Scene {
        const CELL_W: f64 = 64.0;
        const CELL_H: f64 = 34.0;
        let label_w =
            10.0 + 7.0 * self.rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
        let top =
            30.0 + 5.0 * self.columns.iter().map(|c| c.chars().count()).max().unwrap_or(4) as f64;
        let (lo, hi) = self.bounds();
        let span = if hi > lo { hi - lo } else { 1.0 };
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        for (c, name) in self.columns.iter().enumerate() {
            let x = label_w + (c as f64 + 0.5) * CELL_W;
            shapes.push(Shape::Text {
                x,
                y: top - 6.0,
                text: name.clone(),
                anchor: Anchor::Start,
                size: 11.0,
                fill: FG.to_owned(),
                rotate: true,
            });
        }
        for (r, name) in self.rows.iter().enumerate() {
            let y = top + r as f64 * CELL_H;
            shapes.push(text(
                label_w - 6.0,
                y + CELL_H / 2.0 + 4.0,
                name.clone(),
                Anchor::End,
                11.0,
            ));
            for c in 0..self.columns.len() {
                let x = label_w + c as f64 * CELL_W;
                let value = self.values.get(r).and_then(|row| row.get(c)).copied().flatten();
                let cell = format_value(value, self.decimals);
                let col_name = self.columns.get(c).map(String::as_str).unwrap_or_default();
                let (fill, ink) = match value {
                    Some(v) if v.is_finite() => {
                        let t = (v - lo) / span;
                        (colour(t), ink_on(t))
                    }
                    _ => (MISSING.to_owned(), MUTED),
                };
                shapes.push(Shape::Rect {
                    x,
                    y,
                    w: CELL_W,
                    h: CELL_H,
                    fill,
                    stroke: Some("#ffffff".to_owned()),
                    title: Some(format!("{name} vs {col_name}: {cell}")),
                });
                shapes.push(Shape::Text {
                    x: x + CELL_W / 2.0,
                    y: y + CELL_H / 2.0 + 4.0,
                    text: cell,
                    anchor: Anchor::Middle,
                    size: 11.0,
                    fill: ink.to_owned(),
                    rotate: false,
                });
            }
        }
        // The legend: ten steps of the scale with the range's ends labelled.
        let legend_x = label_w + self.columns.len() as f64 * CELL_W + 24.0;
        let steps = 10;
        let legend_h = (self.rows.len().max(3) as f64 * CELL_H).min(200.0);
        let step_h = legend_h / steps as f64;
        for i in 0..steps {
            let t = 1.0 - (i as f64 + 0.5) / steps as f64;
            shapes.push(Shape::Rect {
                x: legend_x,
                y: top + i as f64 * step_h,
                w: 16.0,
                h: step_h,
                fill: colour(t),
                stroke: None,
                title: None,
            });
        }
        shapes.push(text(
            legend_x + 22.0,
            top + 10.0,
            format_value(Some(hi), self.decimals),
            Anchor::Start,
            10.0,
        ));
        shapes.push(text(
            legend_x + 22.0,
            top + legend_h,
            format_value(Some(lo), self.decimals),
            Anchor::Start,
            10.0,
        ));
        let height = top + (self.rows.len() as f64 * CELL_H).max(legend_h) + 12.0;
        Scene { width: legend_x + 70.0, height, title: self.title.clone(), shapes }
    }
}

/// One bar: a label, its value and an optional error interval `[lower, upper]` (absolute).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    pub interval: Option<[f64; 2]>,
}

/// Vertical bars with error bars; the value axis spans `range` or the data (intervals included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BarChart {
    pub title: String,
    pub bars: Vec<Bar>,
    pub range: Option<(f64, f64)>,
    pub decimals: usize,
}

/// Value axis geometry shared by the bar chart, histogram and scatter.
struct Axis {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Axis {
    fn new(lo: f64, hi: f64, from: f64, to: f64) -> Axis {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
        Axis { lo, hi, from, to }
    }

    fn at(&self, v: f64) -> f64 {
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }

    /// Five evenly spaced tick values.
    fn ticks(&self) -> Vec<f64> {
        (0..5).map(|i| self.lo + (self.hi - self.lo) * i as f64 / 4.0).collect()
    }
}

fn data_bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    lo.is_finite().then_some((lo, hi))
}

/// Pads a data range by 5 % on each side so marks do not sit on the frame.
fn padded((lo, hi): (f64, f64)) -> (f64, f64) {
    let pad = if hi > lo { (hi - lo) * 0.05 } else { 0.5 };
    (lo - pad, hi + pad)
}

impl BarChart {
    pub fn new(title: impl Into<String>, bars: Vec<Bar>) -> BarChart {
        BarChart { title: title.into(), bars, range: None, decimals: 1 }
    }

    pub fn scene(&self) -> Scene {
        const LEFT: f64 = 56.0;
        const TOP: f64 = 28.0;
        const PLOT_H: f64 = 200.0;
        const BAR_W: f64 = 56.0;
        let bottom = TOP + PLOT_H;
        let range = self.range.unwrap_or_else(|| {
            let all = self
                .bars
                .iter()
                .flat_map(|b| b.value.into_iter().chain(b.interval.into_iter().flatten()));
            padded(data_bounds(all).unwrap_or((0.0, 1.0)))
        });
        let y = Axis::new(range.0, range.1, bottom, TOP);
        let width = LEFT + self.bars.len().max(1) as f64 * BAR_W + 16.0;
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        for t in y.ticks() {
            let py = y.at(t);
            shapes.push(line(LEFT, py, width - 8.0, py, GRID));
            shapes.push(text(
                LEFT - 4.0,
                py + 4.0,
                format_value(Some(t), self.decimals),
                Anchor::End,
                10.0,
            ));
        }
        // Bars grow from the axis minimum (the axis need not start at 0: Elo sits near 1000).
        for (i, bar) in self.bars.iter().enumerate() {
            let x = LEFT + i as f64 * BAR_W + 10.0;
            let w = BAR_W - 20.0;
            if let Some(v) = bar.value.filter(|v| v.is_finite()) {
                let top = y.at(v.clamp(y.lo, y.hi));
                let interval = bar
                    .interval
                    .map(|[a, b]| {
                        format!(
                            " [{}, {}]",
                            format_value(Some(a), self.decimals),
                            format_value(Some(b), self.decimals)
                        )
                    })
                    .unwrap_or_default();
                shapes.push(Shape::Rect {
                    x,
                    y: top,
                    w,
                    h: (bottom - top).max(0.0),
                    fill: ACCENT.to_owned(),
                    stroke: None,
                    title: Some(format!(
                        "{}: {}{interval}",
                        bar.label,
                        format_value(Some(v), self.decimals)
                    )),
                });
            }
            if let Some([a, b]) = bar.interval.filter(|[a, b]| a.is_finite() && b.is_finite()) {
                let (ya, yb) = (y.at(a.clamp(y.lo, y.hi)), y.at(b.clamp(y.lo, y.hi)));
                let cx = x + w / 2.0;
                shapes.push(line(cx, ya, cx, yb, FG));
                shapes.push(line(cx - 6.0, ya, cx + 6.0, ya, FG));
                shapes.push(line(cx - 6.0, yb, cx + 6.0, yb, FG));
            }
            shapes.push(Shape::Text {
                x: x + w / 2.0,
                y: bottom + 14.0,
                text: bar.label.clone(),
                anchor: Anchor::End,
                size: 11.0,
                fill: FG.to_owned(),
                rotate: true,
            });
        }
        shapes.push(line(LEFT, bottom, width - 8.0, bottom, MUTED));
        Scene { width, height: bottom + 80.0, title: self.title.clone(), shapes }
    }
}

/// Counts of values in equal-width bins over `[lo, hi]` (the data's range when `None`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub title: String,
    pub values: Vec<f64>,
    pub bins: usize,
    pub range: Option<(f64, f64)>,
}

impl Histogram {
    pub fn new(title: impl Into<String>, values: Vec<f64>, bins: usize) -> Histogram {
        Histogram { title: title.into(), values, bins: bins.max(1), range: None }
    }

    /// Bin edges and counts; a value equal to the upper edge falls in the last bin, values
    /// outside the range and non-finite values are not counted.
    pub fn counts(&self) -> (Vec<f64>, Vec<usize>) {
        let (lo, hi) =
            self.range.or_else(|| data_bounds(self.values.iter().copied())).unwrap_or((0.0, 1.0));
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
        let n = self.bins.max(1);
        let width = (hi - lo) / n as f64;
        let edges = (0..=n).map(|i| lo + width * i as f64).collect();
        let mut counts = vec![0; n];
        for &v in self.values.iter().filter(|v| v.is_finite() && **v >= lo && **v <= hi) {
            let i = (((v - lo) / width) as usize).min(n - 1);
            counts[i] += 1;
        }
        (edges, counts)
    }

    pub fn scene(&self) -> Scene {
        const LEFT: f64 = 44.0;
        const TOP: f64 = 28.0;
        const PLOT_W: f64 = 360.0;
        const PLOT_H: f64 = 180.0;
        let (edges, counts) = self.counts();
        let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
        let bottom = TOP + PLOT_H;
        let x = Axis::new(edges[0], edges[edges.len() - 1], LEFT, LEFT + PLOT_W);
        let y = Axis::new(0.0, max, bottom, TOP);
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        for t in y.ticks() {
            let py = y.at(t);
            shapes.push(line(LEFT, py, LEFT + PLOT_W, py, GRID));
            shapes.push(text(LEFT - 4.0, py + 4.0, format!("{t:.0}"), Anchor::End, 10.0));
        }
        for (i, &count) in counts.iter().enumerate() {
            let (a, b) = (edges[i], edges[i + 1]);
            let top = y.at(count as f64);
            shapes.push(Shape::Rect {
                x: x.at(a),
                y: top,
                w: (x.at(b) - x.at(a)).max(0.0),
                h: bottom - top,
                fill: ACCENT.to_owned(),
                stroke: Some("#ffffff".to_owned()),
                title: Some(format!(
                    "[{}, {}): {count}",
                    format_value(Some(a), 2),
                    format_value(Some(b), 2)
                )),
            });
        }
        for t in x.ticks() {
            shapes.push(text(
                x.at(t),
                bottom + 14.0,
                format_value(Some(t), 2),
                Anchor::Middle,
                10.0,
            ));
        }
        shapes.push(line(LEFT, bottom, LEFT + PLOT_W, bottom, MUTED));
        Scene {
            width: LEFT + PLOT_W + 16.0,
            height: bottom + 24.0,
            title: self.title.clone(),
            shapes,
        }
    }
}

/// Points `(x, y)` with optional labels (shown on hover and next to the point when few).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub points: Vec<(f64, f64)>,
    pub labels: Vec<String>,
}

impl Scatter {
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        points: Vec<(f64, f64)>,
    ) -> Scatter {
        Scatter {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            points,
            labels: Vec::new(),
        }
    }

    pub fn labels(mut self, labels: Vec<String>) -> Scatter {
        self.labels = labels;
        self
    }

    pub fn scene(&self) -> Scene {
        const LEFT: f64 = 56.0;
        const TOP: f64 = 28.0;
        const PLOT_W: f64 = 360.0;
        const PLOT_H: f64 = 240.0;
        let bottom = TOP + PLOT_H;
        let finite: Vec<(usize, (f64, f64))> = self
            .points
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, (a, b))| a.is_finite() && b.is_finite())
            .collect();
        let (xl, xh) = padded(data_bounds(finite.iter().map(|p| p.1.0)).unwrap_or((0.0, 1.0)));
        let (yl, yh) = padded(data_bounds(finite.iter().map(|p| p.1.1)).unwrap_or((0.0, 1.0)));
        let x = Axis::new(xl, xh, LEFT, LEFT + PLOT_W);
        let y = Axis::new(yl, yh, bottom, TOP);
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        for t in y.ticks() {
            let py = y.at(t);
            shapes.push(line(LEFT, py, LEFT + PLOT_W, py, GRID));
            shapes.push(text(LEFT - 4.0, py + 4.0, format_value(Some(t), 2), Anchor::End, 10.0));
        }
        for t in x.ticks() {
            shapes.push(text(
                x.at(t),
                bottom + 14.0,
                format_value(Some(t), 2),
                Anchor::Middle,
                10.0,
            ));
        }
        shapes.push(line(LEFT, bottom, LEFT + PLOT_W, bottom, MUTED));
        shapes.push(line(LEFT, TOP, LEFT, bottom, MUTED));
        // Points on the same pixel are drawn once, larger the more items they hold: ratings are
        // discrete, so a 10,000-item run has a few hundred distinct positions, and one circle
        // per item would both hide how many items sit under a dot and cost a DOM node each.
        let mut groups: Vec<((f64, f64), Vec<usize>)> = Vec::new();
        let mut at: std::collections::HashMap<(i64, i64), usize> = std::collections::HashMap::new();
        for &(i, (a, b)) in &finite {
            let key = (x.at(a).round() as i64, y.at(b).round() as i64);
            let g = *at.entry(key).or_insert_with(|| {
                groups.push(((a, b), Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(i);
        }
        let show_labels = groups.len() <= 12;
        for ((a, b), members) in groups {
            let (px, py) = (x.at(a), y.at(b));
            let label = |i: usize| self.labels.get(i).cloned();
            let title = if members.len() == 1 {
                format!(
                    "{}({}, {})",
                    label(members[0]).map(|l| format!("{l}: ")).unwrap_or_default(),
                    format_value(Some(a), 3),
                    format_value(Some(b), 3)
                )
            } else {
                let some: Vec<String> = members.iter().take(5).filter_map(|&i| label(i)).collect();
                let more = if members.len() > 5 { ", …" } else { "" };
                format!(
                    "{} items at ({}, {}){}",
                    members.len(),
                    format_value(Some(a), 3),
                    format_value(Some(b), 3),
                    if some.is_empty() {
                        String::new()
                    } else {
                        format!(": {}{more}", some.join(", "))
                    }
                )
            };
            shapes.push(Shape::Circle {
                cx: px,
                cy: py,
                r: (4.0 + 1.5 * ((members.len() - 1) as f64).sqrt()).min(14.0),
                fill: ACCENT.to_owned(),
                title: Some(title),
            });
            if show_labels && let Some(l) = label(members[0]) {
                let l = if members.len() > 1 { format!("{l} (+{})", members.len() - 1) } else { l };
                shapes.push(text(px + 6.0, py - 6.0, l, Anchor::Start, 10.0));
            }
        }
        shapes.push(text(
            LEFT + PLOT_W / 2.0,
            bottom + 32.0,
            self.x_label.clone(),
            Anchor::Middle,
            11.0,
        ));
        shapes.push(text(4.0, TOP - 6.0, self.y_label.clone(), Anchor::Start, 11.0));
        Scene {
            width: LEFT + PLOT_W + 60.0,
            height: bottom + 40.0,
            title: self.title.clone(),
            shapes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(scene: &Scene) -> Vec<String> {
        scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn heatmap_shows_every_value_and_the_legend_range() {
        let map = Heatmap::new(
            "Win rate",
            vec!["a".into(), "b".into()],
            vec!["a".into(), "b".into()],
            vec![vec![None, Some(0.25)], vec![Some(0.5), None]],
        )
        .range(0.0, 1.0);
        let scene = map.scene();
        let t = texts(&scene);
        for want in ["0.25", "0.50", "–", "1.00", "0.00", "Win rate"] {
            assert!(t.iter().any(|s| s == want), "missing {want} in {t:?}");
        }
        // 4 cells + 10 legend steps.
        let rects = scene.shapes.iter().filter(|s| matches!(s, Shape::Rect { .. })).count();
        assert_eq!(rects, 14);
        // The 0.25 cell is a quarter of the way along the scale.
        let fill = scene.shapes.iter().find_map(|s| match s {
            Shape::Rect { fill, title: Some(t), .. } if t == "a vs b: 0.25" => Some(fill.clone()),
            _ => None,
        });
        assert_eq!(fill.as_deref(), Some(colour(0.25).as_str()));
    }

    #[test]
    fn colour_scale_ends() {
        assert_eq!(colour(0.0), "#f4f7fd");
        assert_eq!(colour(1.0), "#1a3f94");
        assert_eq!(colour(f64::NAN), "#f4f7fd");
        assert_eq!(colour(2.0), "#1a3f94");
    }

    #[test]
    fn svg_is_standalone_and_escapes_labels() {
        let map =
            Heatmap::new("<x> & y", vec!["r\"1".into()], vec!["c'1".into()], vec![vec![Some(1.0)]]);
        let svg = map.scene().to_svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("<title>&lt;x&gt; &amp; y</title>"));
        assert!(svg.contains("r&quot;1"));
        assert!(svg.contains("c&apos;1"));
        assert!(!svg.contains("<x>"));
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn histogram_bins_include_the_upper_edge() {
        let h = Histogram::new("h", vec![1.0, 2.0, 2.5, 3.0, 5.0, f64::NAN], 4);
        let (edges, counts) = h.counts();
        assert_eq!(edges, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(counts, vec![1, 2, 1, 1]);
    }

    #[test]
    fn bar_chart_draws_error_bars_at_the_interval() {
        let chart = BarChart {
            title: "Elo".into(),
            bars: vec![
                Bar { label: "a".into(), value: Some(10.0), interval: Some([5.0, 15.0]) },
                Bar { label: "b".into(), value: None, interval: None },
            ],
            range: Some((0.0, 20.0)),
            decimals: 1,
        };
        let scene = chart.scene();
        // Plot height 200 from y=28: value 5 at 178, 15 at 78.
        let vertical = scene.shapes.iter().any(|s| {
            matches!(s, Shape::Line { y1, y2, x1, x2, .. } if x1 == x2 && (*y1 - 178.0).abs() < 1e-9 && (*y2 - 78.0).abs() < 1e-9)
        });
        assert!(vertical, "error bar from 5 to 15");
        let bars = scene.shapes.iter().filter(|s| matches!(s, Shape::Rect { .. })).count();
        assert_eq!(bars, 1, "no bar for an undefined value");
    }

    #[test]
    fn scatter_skips_non_finite_points() {
        let s = Scatter::new("s", "x", "y", vec![(0.0, 0.0), (1.0, f64::NAN), (2.0, 1.0)])
            .labels(vec!["p".into(), "q".into(), "r".into()]);
        let scene = s.scene();
        let circles = scene.shapes.iter().filter(|s| matches!(s, Shape::Circle { .. })).count();
        assert_eq!(circles, 2);
        assert!(texts(&scene).contains(&"r".to_owned()));
        assert!(!texts(&scene).contains(&"q".to_owned()));
    }

    #[test]
    fn coincident_points_are_one_larger_circle_that_counts_them() {
        // 10,000 points on 9 × 5 positions: 45 circles, each titled with its count.
        let points: Vec<(f64, f64)> =
            (0..10_000).map(|i| (1.0 + f64::from(i % 9) * 0.5, 1.0 + f64::from(i % 5))).collect();
        let labels = (0..10_000).map(|i| format!("item {i}")).collect();
        let scene = Scatter::new("s", "x", "y", points).labels(labels).scene();
        let circles: Vec<(f64, String)> = scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Circle { r, title, .. } => Some((*r, title.clone().unwrap_or_default())),
                _ => None,
            })
            .collect();
        assert_eq!(circles.len(), 45);
        let counted: usize = circles
            .iter()
            .map(|(_, t)| t.split(' ').next().unwrap_or("0").parse::<usize>().unwrap_or(0))
            .sum();
        assert_eq!(counted, 10_000, "every point is counted once");
        assert!(
            circles[0].1.starts_with("223 items at (1.000, 1.000): item 0, item 45,"),
            "{}",
            circles[0].1
        );
        assert!(circles.iter().all(|(r, _)| *r > 4.0 && *r <= 14.0));
        // Distinct points stay single, labelled circles.
        let two = Scatter::new("s", "x", "y", vec![(0.0, 0.0), (1.0, 1.0)])
            .labels(vec!["a".into(), "b".into()])
            .scene();
        assert!(texts(&two).contains(&"a".to_owned()) && texts(&two).contains(&"b".to_owned()));
    }
}
