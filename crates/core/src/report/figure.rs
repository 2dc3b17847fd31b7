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
        /// Degrees, counter-clockwise negative as in SVG (`-90`: reads upwards); 0 level.
        angle: f64,
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
    Shape::Text { x, y, text: s.into(), anchor, size, fill: FG.to_owned(), angle: 0.0 }
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
                Shape::Text { x, y, text, anchor, size, fill, angle } => {
                    let transform = if *angle != 0.0 {
                        format!(" transform=\"rotate({} {} {})\"", num(*angle), num(*x), num(*y))
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
    Ranking(Ranking),
    Histogram(Histogram),
    Scatter(Scatter),
}

impl From<Heatmap> for Plot {
    fn from(h: Heatmap) -> Plot {
        Plot::Heatmap(h)
    }
}

impl From<Ranking> for Plot {
    fn from(r: Ranking) -> Plot {
        Plot::Ranking(r)
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
            Plot::Ranking(p) => &p.title,
            Plot::Histogram(p) => &p.title,
            Plot::Scatter(p) => &p.title,
        }
    }

    /// The figure drawn.
    pub fn scene(&self) -> Scene {
        match &self.plot {
            Plot::Heatmap(p) => p.scene(),
            Plot::Ranking(p) => p.scene(),
            Plot::Histogram(p) => p.scene(),
            Plot::Scatter(p) => p.scene(),
        }
    }

    /// The figure drawn to fit `width` units (the page's room for it): histograms and
    /// scatters narrow their plot area, down to a minimum, and keep their text at full size;
    /// heatmaps and rankings keep their size. Exports use [`Figure::scene`].
    pub fn scene_within(&self, width: f64) -> Scene {
        match &self.plot {
            Plot::Histogram(p) => p.scene_within(Some(width)),
            Plot::Scatter(p) => p.scene_within(Some(width)),
            _ => self.scene(),
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
                angle: -40.0,
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
                    angle: 0.0,
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

/// One ranked value: a label, its value and an optional interval `[lower, upper]` (absolute).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankPoint {
    pub label: String,
    pub value: Option<f64>,
    pub interval: Option<[f64; 2]>,
}

/// Ratings with intervals (Elo, Bradley–Terry): a dot per label at its value with a whisker
/// over its interval, on an axis that spans the data (not from zero: a bar from an arbitrary
/// baseline would exaggerate the gaps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    pub title: String,
    pub points: Vec<RankPoint>,
    pub range: Option<(f64, f64)>,
    pub decimals: usize,
}

/// A value axis with round ticks: steps of 1, 2, 2.5 or 5 × 10ᵏ (whole numbers only for
/// counts), the range widened to the first and last tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NiceAxis {
    pub lo: f64,
    pub hi: f64,
    pub step: f64,
    /// Decimals a tick label needs to show the step exactly.
    pub decimals: usize,
}

impl NiceAxis {
    /// About five ticks over `[lo, hi]`; `integer` keeps steps whole (counts).
    pub fn new(lo: f64, hi: f64, integer: bool) -> NiceAxis {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
        let raw = (hi - lo) / 4.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let mut step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .into_iter()
            .map(|m| m * magnitude)
            .find(|&s| s >= raw * (1.0 - 1e-9))
            .unwrap_or(10.0 * magnitude);
        if integer {
            step = step.round().max(1.0);
        }
        let first = (lo / step + 1e-9).floor() * step;
        let last = (hi / step - 1e-9).ceil() * step;
        let decimals = if step >= 1.0 && step.fract() == 0.0 {
            0
        } else {
            // 0.25 needs two decimals, 0.2 one, 2.5 one.
            (1..=6)
                .find(|&d| {
                    let scaled = step * 10f64.powi(d);
                    (scaled - scaled.round()).abs() < 1e-6
                })
                .unwrap_or(6) as usize
        };
        NiceAxis { lo: first, hi: last.max(first + step), step, decimals }
    }

    /// The tick values, first to last.
    pub fn ticks(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n.max(1))
            .map(|i| {
                let v = self.lo + i as f64 * self.step;
                // -0.0 and 0.30000000000000004 are printed as what they are meant to be.
                let rounded = (v / self.step).round() * self.step;
                if rounded == 0.0 { 0.0 } else { rounded }
            })
            .collect()
    }

    /// A tick's label.
    pub fn label(&self, v: f64) -> String {
        format_value(Some(v), self.decimals)
    }
}

/// Screen geometry of a value axis.
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

    fn nice(nice: &NiceAxis, from: f64, to: f64) -> Axis {
        Axis::new(nice.lo, nice.hi, from, to)
    }

    fn at(&self, v: f64) -> f64 {
        self.from + (v - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }
}

fn data_bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    lo.is_finite().then_some((lo, hi))
}

/// The width a text of `size` takes, about: the figures lay out labels so they never overlap
/// (a test checks it on the drawn SVG too).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// A y axis: gridlines and tick labels right-aligned left of `left`.
fn y_axis(shapes: &mut Vec<Shape>, nice: &NiceAxis, y: &Axis, left: f64, right: f64) {
    for t in nice.ticks() {
        let py = y.at(t);
        shapes.push(line(left, py, right, py, GRID));
        shapes.push(text(left - 4.0, py + 4.0, nice.label(t), Anchor::End, 10.0));
    }
}

/// An x axis: tick labels centred under each tick.
fn x_axis(shapes: &mut Vec<Shape>, nice: &NiceAxis, x: &Axis, bottom: f64) {
    for t in nice.ticks() {
        let px = x.at(t);
        shapes.push(line(px, bottom, px, bottom + 3.0, MUTED));
        shapes.push(text(px, bottom + 14.0, nice.label(t), Anchor::Middle, 10.0));
    }
}

/// An axis title along the left edge, reading upwards, centred on the plot's height.
fn y_title(shapes: &mut Vec<Shape>, label: &str, top: f64, bottom: f64) {
    shapes.push(Shape::Text {
        x: 12.0,
        y: (top + bottom) / 2.0,
        text: label.to_owned(),
        anchor: Anchor::Middle,
        size: 11.0,
        fill: FG.to_owned(),
        angle: -90.0,
    });
}

impl Ranking {
    pub fn new(title: impl Into<String>, points: Vec<RankPoint>) -> Ranking {
        Ranking { title: title.into(), points, range: None, decimals: 1 }
    }

    pub fn scene(&self) -> Scene {
        const LEFT: f64 = 64.0;
        const TOP: f64 = 36.0;
        const PLOT_H: f64 = 200.0;
        const SLOT_W: f64 = 56.0;
        let bottom = TOP + PLOT_H;
        let (lo, hi) = self.range.unwrap_or_else(|| {
            let all = self
                .points
                .iter()
                .flat_map(|b| b.value.into_iter().chain(b.interval.into_iter().flatten()));
            data_bounds(all).unwrap_or((0.0, 1.0))
        });
        let nice = NiceAxis::new(lo, hi, false);
        let y = Axis::nice(&nice, bottom, TOP);
        let width = (LEFT + self.points.len().max(1) as f64 * SLOT_W + 16.0)
            .max(text_width(&self.title, 13.0) + 8.0);
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        y_axis(&mut shapes, &nice, &y, LEFT, width - 8.0);
        for (i, point) in self.points.iter().enumerate() {
            let cx = LEFT + (i as f64 + 0.5) * SLOT_W;
            if let Some([a, b]) = point.interval.filter(|[a, b]| a.is_finite() && b.is_finite()) {
                let (ya, yb) = (y.at(a.clamp(y.lo, y.hi)), y.at(b.clamp(y.lo, y.hi)));
                shapes.push(line(cx, ya, cx, yb, FG));
                shapes.push(line(cx - 6.0, ya, cx + 6.0, ya, FG));
                shapes.push(line(cx - 6.0, yb, cx + 6.0, yb, FG));
            }
            if let Some(v) = point.value.filter(|v| v.is_finite()) {
                let interval = point
                    .interval
                    .map(|[a, b]| {
                        format!(
                            " [{}, {}]",
                            format_value(Some(a), self.decimals),
                            format_value(Some(b), self.decimals)
                        )
                    })
                    .unwrap_or_default();
                shapes.push(Shape::Circle {
                    cx,
                    cy: y.at(v.clamp(y.lo, y.hi)),
                    r: 5.0,
                    fill: ACCENT.to_owned(),
                    title: Some(format!(
                        "{}: {}{interval}",
                        point.label,
                        format_value(Some(v), self.decimals)
                    )),
                });
            }
            shapes.push(Shape::Text {
                x: cx,
                y: bottom + 14.0,
                text: point.label.clone(),
                anchor: Anchor::End,
                size: 11.0,
                fill: FG.to_owned(),
                angle: -40.0,
            });
        }
        shapes.push(line(LEFT, bottom, width - 8.0, bottom, MUTED));
        let longest = self.points.iter().map(|p| text_width(&p.label, 11.0)).fold(0.0, f64::max);
        Scene { width, height: bottom + 20.0 + longest * 0.65, title: self.title.clone(), shapes }
    }
}

/// Counts of values in equal-width bins over `[lo, hi]` (the data's range when `None`).
///
/// Ratings on a scale are binned by [`Histogram::of_ratings`]: one bin per point of the grid
/// the ratings lie on (the scale's whole points, or halves, thirds … when they are means of
/// raters or samples), centred on it, over the whole scale — so a bar stands on its tick, and
/// a judge who never said 5 on a 1–5 scale shows an empty bar at 5, not an axis that ends at 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub title: String,
    pub values: Vec<f64>,
    pub bins: usize,
    pub range: Option<(f64, f64)>,
    /// The value axis' ticks fall on bin centres, at the multiples of this step (ratings on a
    /// grid); `None`: round ticks over the range (continuous values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_step: Option<f64>,
}

/// The most bins a histogram of ratings has before it bins them as continuous values.
const MAX_GRID_BINS: usize = 41;

/// Whether every value lies on `lo + j / k` for whole `j`.
fn on_grid(values: &[f64], lo: f64, k: f64) -> bool {
    values.iter().all(|v| {
        let j = (v - lo) * k;
        (j - j.round()).abs() < 1e-6 * k.max(1.0)
    })
}

/// The tick step of a histogram whose bins are `width` wide over `span`: the smallest round
/// number (1, 2, 2.5, 5 × 10ᵏ) that is a whole number of bins and leaves at most ten ticks.
fn centre_step(width: f64, span: f64) -> f64 {
    let mut magnitude = 10f64.powf(width.log10().floor() - 1.0);
    for _ in 0..12 {
        for m in [1.0, 2.0, 2.5, 5.0] {
            let step = m * magnitude;
            let bins = step / width;
            if step >= width * (1.0 - 1e-9)
                && (bins - bins.round()).abs() < 1e-6
                && span / step <= 10.0 + 1e-9
            {
                return step;
            }
        }
        magnitude *= 10.0;
    }
    span.max(width)
}

/// Decimals a tick label needs to show multiples of `step` exactly.
fn step_decimals(step: f64) -> usize {
    (0..=6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(6)
}

/// Width of a histogram's or scatter's plot area: the design width, or what fits in
/// `within` (the page's room for it) without going below a readable minimum.
fn plot_width(design: f64, margins: f64, within: Option<f64>) -> f64 {
    match within {
        Some(w) if w.is_finite() => (w - margins).clamp(MIN_PLOT_W, design),
        _ => design,
    }
}

/// The narrowest plot area a histogram or scatter is drawn in: on a narrower screen the
/// picture scrolls rather than shrinking its text.
const MIN_PLOT_W: f64 = 180.0;

impl Histogram {
    pub fn new(title: impl Into<String>, values: Vec<f64>, bins: usize) -> Histogram {
        Histogram { title: title.into(), values, bins: bins.max(1), range: None, tick_step: None }
    }

    /// A histogram of ratings on `scale` (`(min, max)`; the data's range when `None`): one bin
    /// per point of the grid the values lie on (whole points, halves, thirds, … tenths),
    /// centred on it, when there are at most 41; else bins of a round width (about twelve)
    /// from the scale's bottom.
    pub fn of_ratings(
        title: impl Into<String>,
        values: Vec<f64>,
        scale: Option<(f64, f64)>,
    ) -> Histogram {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let data = data_bounds(finite.iter().copied());
        let (lo, hi) = match (scale, data) {
            (Some((a, b)), Some((c, d))) => (a.min(c), b.max(d)),
            (Some(s), None) => s,
            (None, Some(d)) => d,
            (None, None) => (0.0, 1.0),
        };
        let mut h = Histogram::new(title, values, 10);
        let grid = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0].into_iter().find(|&k| {
            let span = (hi - lo) * k;
            (span - span.round()).abs() < 1e-6
                && (span.round() as usize) < MAX_GRID_BINS
                && on_grid(&finite, lo, k)
        });
        match grid {
            Some(k) => {
                let width = 1.0 / k;
                h.bins = ((hi - lo) * k).round() as usize + 1;
                h.range = Some((lo - width / 2.0, hi + width / 2.0));
                h.tick_step = Some(centre_step(width, hi - lo));
            }
            None => {
                // Continuous values: bins of a round width (0.5 on a 1–5 scale, 0.1 on 0–1,
                // 10 on 0–100), so their edges fall on the ticks.
                let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
                let raw = (hi - lo) / 12.0;
                let magnitude = 10f64.powf(raw.log10().floor());
                let width = [1.0, 2.0, 2.5, 5.0, 10.0]
                    .into_iter()
                    .map(|m| m * magnitude)
                    .find(|&w| w >= raw * (1.0 - 1e-9))
                    .unwrap_or(10.0 * magnitude);
                h.bins = (((hi - lo) / width) - 1e-9).ceil().max(1.0) as usize;
                h.range = Some((lo, lo + h.bins as f64 * width));
            }
        }
        h
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

    /// The x-axis ticks: `(value, label)`.
    fn value_ticks(&self, edges: &[f64]) -> Vec<(f64, String)> {
        let (lo, hi) = (edges[0], edges[edges.len() - 1]);
        match self.tick_step {
            Some(step) => {
                let half = (hi - lo) / (edges.len() - 1) as f64 / 2.0;
                let (first, last) = (lo + half, hi - half);
                let decimals = step_decimals(step);
                let mut out = Vec::new();
                let mut j = (first / step - 1e-9).ceil() as i64;
                while (j as f64) * step <= last + 1e-9 {
                    let v = j as f64 * step;
                    out.push((v, format_value(Some(v), decimals)));
                    j += 1;
                }
                out
            }
            None => {
                let values = NiceAxis::new(lo, hi, false);
                values
                    .ticks()
                    .into_iter()
                    .filter(|t| *t >= lo - 1e-9 && *t <= hi + 1e-9)
                    .map(|t| (t, values.label(t)))
                    .collect()
            }
        }
    }

    pub fn scene(&self) -> Scene {
        self.scene_within(None)
    }

    /// The histogram drawn to fit `within` units of width (the page's room for it), its text
    /// at full size; [`Histogram::scene`] draws it at its design width.
    pub fn scene_within(&self, within: Option<f64>) -> Scene {
        const LEFT: f64 = 52.0;
        const RIGHT: f64 = 16.0;
        const TOP: f64 = 36.0;
        const PLOT_H: f64 = 180.0;
        let plot_w = plot_width(360.0, LEFT + RIGHT, within);
        let (edges, counts) = self.counts();
        let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
        let bottom = TOP + PLOT_H;
        let x = Axis::new(edges[0], edges[edges.len() - 1], LEFT, LEFT + plot_w);
        // Counts are whole numbers: so are their ticks.
        let count_axis = NiceAxis::new(0.0, max, true);
        let y = Axis::nice(&count_axis, bottom, TOP);
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        y_axis(&mut shapes, &count_axis, &y, LEFT, LEFT + plot_w);
        let centred = self.tick_step.is_some();
        for (i, &count) in counts.iter().enumerate() {
            let (a, b) = (edges[i], edges[i + 1]);
            let top = y.at(count as f64);
            let what = if centred {
                let c = (a + b) / 2.0;
                format!(
                    "{}: {}",
                    format_value(Some(c), step_decimals(b - a).min(2)),
                    count_word(count)
                )
            } else {
                format!(
                    "[{}, {}): {}",
                    format_value(Some(a), 2),
                    format_value(Some(b), 2),
                    count_word(count)
                )
            };
            shapes.push(Shape::Rect {
                x: x.at(a),
                y: top,
                w: (x.at(b) - x.at(a)).max(0.0),
                h: bottom - top,
                fill: ACCENT.to_owned(),
                stroke: Some("#ffffff".to_owned()),
                title: Some(what),
            });
        }
        // Value ticks: on the bins' centres (ratings on a grid), else round values.
        let mut right_edge = f64::NEG_INFINITY;
        for (t, label) in self.value_ticks(&edges) {
            let px = x.at(t);
            shapes.push(line(px, bottom, px, bottom + 3.0, MUTED));
            // A label that would run into the one before it is left out (its tick stays).
            let w = text_width(&label, 10.0);
            if px - w / 2.0 >= right_edge + 2.0 {
                right_edge = px + w / 2.0;
                shapes.push(text(px, bottom + 14.0, label, Anchor::Middle, 10.0));
            }
        }
        shapes.push(line(LEFT, bottom, LEFT + plot_w, bottom, MUTED));
        y_title(&mut shapes, "count", TOP, bottom);
        Scene {
            width: (LEFT + plot_w + RIGHT).max(text_width(&self.title, 13.0) + 8.0),
            height: bottom + 24.0,
            title: self.title.clone(),
            shapes,
        }
    }
}

/// `1 item`, `12 items`, as a bar's title says its count.
fn count_word(n: usize) -> String {
    crate::words::count(n, "item", "items")
}

/// Points `(x, y)` with optional labels (shown on hover and next to the point when few).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub points: Vec<(f64, f64)>,
    pub labels: Vec<String>,
    /// The ranges the axes span at least (the ratings' scales), beside the data's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_range: Option<(f64, f64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_range: Option<(f64, f64)>,
}

/// How far inside the axes the outermost points sit: the largest dot's radius and a gap, so
/// no dot covers an axis or a tick label.
const SCATTER_INSET: f64 = 16.0;

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
            x_range: None,
            y_range: None,
        }
    }

    pub fn labels(mut self, labels: Vec<String>) -> Scatter {
        self.labels = labels;
        self
    }

    /// The axes span at least these ranges (e.g. both ratings' scales).
    pub fn ranges(mut self, x: Option<(f64, f64)>, y: Option<(f64, f64)>) -> Scatter {
        self.x_range = x;
        self.y_range = y;
        self
    }

    pub fn scene(&self) -> Scene {
        self.scene_within(None)
    }

    /// The scatter drawn to fit `within` units of width, its text at full size.
    pub fn scene_within(&self, within: Option<f64>) -> Scene {
        const LEFT: f64 = 60.0;
        const TOP: f64 = 36.0;
        const PLOT_H: f64 = 240.0;
        const RIGHT: f64 = 16.0;
        let plot_w = plot_width(360.0, LEFT + RIGHT, within);
        let bottom = TOP + PLOT_H;
        let finite: Vec<(usize, (f64, f64))> = self
            .points
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, (a, b))| a.is_finite() && b.is_finite())
            .collect();
        let span = |data: Option<(f64, f64)>, range: Option<(f64, f64)>| match (data, range) {
            (Some((a, b)), Some((c, d))) => (a.min(c), b.max(d)),
            (Some(d), None) | (None, Some(d)) => d,
            (None, None) => (0.0, 1.0),
        };
        let (xl, xh) = span(data_bounds(finite.iter().map(|p| p.1.0)), self.x_range);
        let (yl, yh) = span(data_bounds(finite.iter().map(|p| p.1.1)), self.y_range);
        let (nx, ny) = (NiceAxis::new(xl, xh, false), NiceAxis::new(yl, yh, false));
        // The values span the plot inside an inset, so a dot at the range's end stays clear of
        // the axes and their labels.
        let x = Axis::nice(&nx, LEFT + SCATTER_INSET, LEFT + plot_w - SCATTER_INSET);
        let y = Axis::nice(&ny, bottom - SCATTER_INSET, TOP + SCATTER_INSET);
        let mut shapes = vec![text(4.0, 16.0, self.title.clone(), Anchor::Start, 13.0)];
        y_axis(&mut shapes, &ny, &y, LEFT, LEFT + plot_w);
        x_axis(&mut shapes, &nx, &x, bottom);
        shapes.push(line(LEFT, bottom, LEFT + plot_w, bottom, MUTED));
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
        // Labels are drawn next to their point only when there are few and they do not run
        // into each other or off the plot; otherwise a point's title names its items.
        let mut placed: Vec<[f64; 4]> = Vec::new();
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
                    "{} at ({}, {}){}",
                    count_word(members.len()),
                    format_value(Some(a), 3),
                    format_value(Some(b), 3),
                    if some.is_empty() {
                        String::new()
                    } else {
                        format!(": {}{more}", some.join(", "))
                    }
                )
            };
            let r = (4.0 + 1.5 * ((members.len() - 1) as f64).sqrt()).min(SCATTER_INSET - 2.0);
            shapes.push(Shape::Circle {
                cx: px,
                cy: py,
                r,
                fill: ACCENT.to_owned(),
                title: Some(title),
            });
            if show_labels && let Some(l) = label(members[0]) {
                let l = if members.len() > 1 { format!("{l} (+{})", members.len() - 1) } else { l };
                let w = text_width(&l, 10.0);
                // Beside the point, on whichever side keeps it on the plot and off the
                // other labels: right above, left above, right below, left below.
                let spots = [
                    (px + r + 2.0, py - 3.0, Anchor::Start),
                    (px - r - 2.0, py - 3.0, Anchor::End),
                    (px + r + 2.0, py + 13.0, Anchor::Start),
                    (px - r - 2.0, py + 13.0, Anchor::End),
                ];
                let spot = spots.into_iter().find_map(|(lx, ly, anchor)| {
                    let x0 = if anchor == Anchor::Start { lx } else { lx - w };
                    let bbox = [x0, ly - 9.0, x0 + w, ly + 1.0];
                    let inside = x0 >= LEFT
                        && bbox[2] <= LEFT + plot_w + RIGHT
                        && bbox[1] >= TOP - 10.0
                        && bbox[3] <= bottom;
                    let clear = placed.iter().all(|o| {
                        bbox[2] <= o[0] || o[2] <= bbox[0] || bbox[3] <= o[1] || o[3] <= bbox[1]
                    });
                    (inside && clear).then_some((lx, ly, anchor, bbox))
                });
                if let Some((lx, ly, anchor, bbox)) = spot {
                    placed.push(bbox);
                    shapes.push(text(lx, ly, l, anchor, 10.0));
                }
            }
        }
        shapes.push(text(
            LEFT + plot_w / 2.0,
            bottom + 32.0,
            self.x_label.clone(),
            Anchor::Middle,
            11.0,
        ));
        y_title(&mut shapes, &self.y_label, TOP, bottom);
        Scene {
            width: (LEFT + plot_w + RIGHT).max(text_width(&self.title, 13.0) + 8.0),
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

    /// A bar as (left, right, title).
    type Bar = (f64, f64, String);

    /// The bars of a scene and its x-axis tick labels as (x, text).
    fn bars_and_ticks(scene: &Scene) -> (Vec<Bar>, Vec<(f64, String)>) {
        let bars = scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Rect { x, w, title: Some(t), .. } => Some((*x, x + w, t.clone())),
                _ => None,
            })
            .collect();
        let ticks = scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { x, text, anchor: Anchor::Middle, size, angle, .. }
                    if *size == 10.0 && *angle == 0.0 =>
                {
                    Some((*x, text.clone()))
                }
                _ => None,
            })
            .collect();
        (bars, ticks)
    }

    #[test]
    fn rating_histograms_stand_each_bar_on_its_tick_over_the_whole_scale() {
        // A judge who said 1 to 4 on a 1–5 scale: five bars, the last empty, every point
        // labelled under the middle of its bar.
        let h =
            Histogram::of_ratings("judge", vec![1.0, 2.0, 2.0, 3.0, 4.0, 4.0], Some((1.0, 5.0)));
        let (edges, counts) = h.counts();
        assert_eq!(edges, vec![0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
        assert_eq!(counts, vec![1, 2, 1, 2, 0]);
        let (bars, ticks) = bars_and_ticks(&h.scene());
        assert_eq!(
            ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3", "4", "5"]
        );
        for ((left, right, title), (x, label)) in bars.iter().zip(&ticks) {
            assert!(((left + right) / 2.0 - x).abs() < 1e-9, "bar {title} centred on tick {label}");
            assert!(title.starts_with(&format!("{label}: ")), "{title}");
        }
        assert_eq!(bars[4].2, "5: 0 items");
        // Humans' means of three raters lie on thirds: one bar per third, ticks on the whole
        // points, each on the middle of a bar; never 0.4-wide bins.
        let means = vec![1.0, 4.0 / 3.0, 5.0 / 3.0, 3.0, 11.0 / 3.0, 5.0];
        let h = Histogram::of_ratings("humans", means, Some((1.0, 5.0)));
        let (edges, counts) = h.counts();
        assert_eq!(counts.len(), 13);
        assert!((edges[1] - edges[0] - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(counts.iter().sum::<usize>(), 6);
        let (bars, ticks) = bars_and_ticks(&h.scene());
        assert_eq!(
            ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3", "4", "5"]
        );
        for (x, label) in &ticks {
            assert!(
                bars.iter().any(|(l, r, _)| ((l + r) / 2.0 - x).abs() < 1e-6),
                "tick {label} on a bar's middle"
            );
        }
        // A 1–3 scale keeps whole ticks (no 1.5 between bars).
        let h = Histogram::of_ratings("t", vec![1.0, 2.0, 3.0], Some((1.0, 3.0)));
        let (_, ticks) = bars_and_ticks(&h.scene());
        assert_eq!(ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(), ["1", "2", "3"]);
        // Continuous values: bins of a round width over the scale, round ticks at their edges.
        let h = Histogram::of_ratings("c", vec![0.12, 0.5, 0.77, 0.931], Some((0.0, 1.0)));
        assert_eq!((h.bins, h.tick_step), (10, None));
        let (lo, hi) = h.range.expect("a continuous histogram has a range");
        assert!(lo == 0.0 && (hi - 1.0).abs() < 1e-9, "{lo}..{hi}");
        // Means of 20 samples on a 1–5 scale: half-point bins, not 0.4-wide ones.
        let means: Vec<f64> = (0..40).map(|i| 1.0 + f64::from(i) * 0.1).collect();
        let h =
            Histogram::of_ratings("m", means.iter().map(|m| m + 0.05).collect(), Some((1.0, 5.0)));
        let (edges, counts) = h.counts();
        assert_eq!(edges.len(), 9, "{edges:?}");
        assert!((edges[1] - edges[0] - 0.5).abs() < 1e-9);
        assert_eq!(counts.iter().sum::<usize>(), 40);
    }

    #[test]
    fn the_class_histogram_labels_every_point_of_the_scale() {
        let h = Histogram::of_ratings("class", vec![2.0, 4.0, 4.0, 5.0], Some((1.0, 5.0)));
        let (_, ticks) = bars_and_ticks(&h.scene());
        assert_eq!(
            ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3", "4", "5"]
        );
        // A 0–10 scale too, and a 1–20 one every other point.
        let h = Histogram::of_ratings("ten", vec![0.0, 10.0], Some((0.0, 10.0)));
        assert_eq!(bars_and_ticks(&h.scene()).1.len(), 11);
        let h = Histogram::of_ratings("twenty", vec![1.0, 20.0], Some((1.0, 20.0)));
        let labels: Vec<String> = bars_and_ticks(&h.scene()).1.into_iter().map(|t| t.1).collect();
        assert_eq!(labels.first().map(String::as_str), Some("2"));
        assert_eq!(labels.last().map(String::as_str), Some("20"));
    }

    #[test]
    fn scatter_dots_keep_clear_of_the_axes_and_their_labels() {
        // Points at the corners of the scale, one holding many items (the largest dot).
        let mut points = vec![(1.0, 1.0); 60];
        points.extend([(5.0, 5.0), (1.0, 5.0), (5.0, 1.0)]);
        let scene = Scatter::new("s", "human", "judge", points)
            .ranges(Some((1.0, 5.0)), Some((1.0, 5.0)))
            .scene();
        let labels = boxes(&scene);
        let (left, bottom) = (60.0, 36.0 + 240.0);
        for shape in &scene.shapes {
            let Shape::Circle { cx, cy, r, .. } = shape else { continue };
            assert!(cx - r >= left + 1.0, "a dot at x {cx} (r {r}) covers the y axis");
            assert!(cy + r <= bottom - 1.0, "a dot at y {cy} (r {r}) covers the x axis");
            for (text, b) in &labels {
                let apart = cx + r <= b[0] || b[2] <= cx - r || cy + r <= b[1] || b[3] <= cy - r;
                assert!(apart, "the dot at ({cx}, {cy}) covers {text:?}");
            }
        }
        // The judge's axis spans the whole scale even when the judge never said 5.
        let scene = Scatter::new("s", "h", "j", vec![(1.0, 1.0), (3.0, 4.0)])
            .ranges(Some((1.0, 5.0)), Some((1.0, 5.0)))
            .scene();
        let t = texts(&scene);
        assert!(t.iter().filter(|x| *x == "5").count() >= 2, "both axes reach 5: {t:?}");
    }

    #[test]
    fn a_narrow_page_gets_a_narrower_plot_with_full_size_text() {
        let h = Histogram::of_ratings("Humans: coherence", vec![1.0, 2.0, 5.0], Some((1.0, 5.0)));
        let s = Scatter::new(
            "rate-explain vs humans: coherence",
            "human rating",
            "judge rating",
            vec![(1.0, 2.0), (4.0, 5.0)],
        );
        for scene in [
            Figure::new("h", h.clone()).scene_within(300.0),
            Figure::new("s", s.clone()).scene_within(300.0),
        ] {
            assert!(scene.width <= 300.0, "{} wide", scene.width);
            assert_no_overlap(&scene);
            for shape in &scene.shapes {
                if let Shape::Text { size, .. } = shape {
                    assert!(*size >= 10.0);
                }
            }
        }
        // The design width is what exports use.
        assert_eq!(Figure::new("h", h.clone()).scene(), h.scene_within(None));
        assert!(h.scene().width > 300.0);
        // Never narrower than the minimum: a tiny room scrolls instead.
        assert!(Figure::new("h", h).scene_within(50.0).width >= MIN_PLOT_W);
    }

    #[test]
    fn ranking_draws_dots_with_whiskers_at_the_interval() {
        let chart = Ranking {
            title: "Elo".into(),
            points: vec![
                RankPoint { label: "a".into(), value: Some(10.0), interval: Some([5.0, 15.0]) },
                RankPoint { label: "b".into(), value: None, interval: None },
            ],
            range: Some((0.0, 20.0)),
            decimals: 1,
        };
        let scene = chart.scene();
        // Plot height 200 from y=36, axis 0–20: value 5 at 186, 15 at 86.
        let vertical = scene.shapes.iter().any(|s| {
            matches!(s, Shape::Line { y1, y2, x1, x2, .. } if x1 == x2 && (*y1 - 186.0).abs() < 1e-9 && (*y2 - 86.0).abs() < 1e-9)
        });
        assert!(vertical, "whisker from 5 to 15");
        let dots = scene.shapes.iter().filter(|s| matches!(s, Shape::Circle { .. })).count();
        assert_eq!(dots, 1, "no dot for an undefined value");
        assert!(!scene.shapes.iter().any(|s| matches!(s, Shape::Rect { .. })), "no bars");
    }

    #[test]
    fn nice_axes_have_round_increasing_ticks() {
        let check = |lo: f64, hi: f64, integer: bool, want: &[&str]| {
            let axis = NiceAxis::new(lo, hi, integer);
            let labels: Vec<String> = axis.ticks().iter().map(|&t| axis.label(t)).collect();
            assert_eq!(labels, want, "{lo}..{hi}");
            assert!(axis.lo <= lo && axis.hi >= hi, "{lo}..{hi} inside {}..{}", axis.lo, axis.hi);
        };
        // The histogram of six counts: whole numbers, never 1.5 or 4.5.
        check(0.0, 6.0, true, &["0", "2", "4", "6"]);
        check(0.0, 3.0, true, &["0", "1", "2", "3"]);
        check(0.0, 1.0, true, &["0", "1"]);
        // Ratings and correlations.
        check(0.95, 1.5, false, &["0.8", "1.0", "1.2", "1.4", "1.6"]);
        check(1.0, 5.0, false, &["1", "2", "3", "4", "5"]);
        check(-0.14, 0.64, false, &["-0.2", "0.0", "0.2", "0.4", "0.6", "0.8"]);
        // Elo near 1000.
        check(932.4, 1100.5, false, &["900", "950", "1,000", "1,050", "1,100", "1,150"]);
        check(0.0, 1.0, false, &["0.00", "0.25", "0.50", "0.75", "1.00"]);
    }

    /// The approximate boxes of a scene's texts (level texts only; slanted ones are skipped).
    fn boxes(scene: &Scene) -> Vec<(String, [f64; 4])> {
        scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { x, y, text, anchor, size, angle, .. } if *angle == 0.0 => {
                    let w = text_width(text, *size);
                    let x0 = match anchor {
                        Anchor::Start => *x,
                        Anchor::Middle => x - w / 2.0,
                        Anchor::End => x - w,
                    };
                    Some((text.clone(), [x0, y - size * 0.8, x0 + w, *y]))
                }
                _ => None,
            })
            .collect()
    }

    fn assert_no_overlap(scene: &Scene) {
        let b = boxes(scene);
        for (i, (t1, a)) in b.iter().enumerate() {
            for (t2, c) in &b[i + 1..] {
                let apart = a[2] <= c[0] || c[2] <= a[0] || a[3] <= c[1] || c[3] <= a[1];
                assert!(apart, "{t1:?} {a:?} overlaps {t2:?} {c:?}");
            }
            assert!(a[0] >= 0.0 && a[2] <= scene.width, "{t1:?} leaves the picture");
        }
    }

    #[test]
    fn no_text_overlaps_another() {
        let points: Vec<(f64, f64)> =
            (0..12).map(|i| (1.0 + f64::from(i % 5), 1.0 + f64::from((i * 3) % 5))).collect();
        let labels = (0..12).map(|i| format!("item-{i}")).collect();
        let scatter = Scatter::new(
            "rate-explain vs humans: coherence",
            "human rating",
            "judge rating",
            points,
        )
        .labels(labels);
        assert_no_overlap(&scatter.scene());
        // A point at the right edge keeps its label inside the plot.
        let edge = Scatter::new("s", "x", "y", vec![(0.0, 0.0), (1.0, 1.0)])
            .labels(vec!["a long label here".into(), "another long label".into()]);
        assert_no_overlap(&edge.scene());
        let hist = Histogram::new("Humans: coherence", vec![1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 5.0], 10);
        assert_no_overlap(&hist.scene());
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
