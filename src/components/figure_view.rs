//! Draws a core figure ([`concord_core::report::figure`]) in the page: the same [`Scene`] the
//! core writes as SVG, inserted as SVG elements, with "Export SVG" (and PNG) buttons that save
//! the core's SVG of the same scene.

use concord_core::report::figure::{Anchor, Figure, Scene, Shape, num};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::download::{SaveError, save_svg_as_png, save_text};

/// The scene as an `<svg role="img">` labelled `label`, scaling to its container (the `plot`
/// class in the stylesheet).
pub fn scene_view(scene: &Scene, label: &str) -> impl IntoView + use<> {
    let shapes = scene
        .shapes
        .iter()
        .map(|shape| match shape.clone() {
            Shape::Rect { x, y, w, h, fill, stroke, title } => view! {
                <rect x=num(x) y=num(y) width=num(w) height=num(h) fill=fill stroke=stroke>
                    {title.map(|t| view! { <title>{t}</title> })}
                </rect>
            }
            .into_any(),
            Shape::Line { x1, y1, x2, y2, stroke, width } => view! {
                <line x1=num(x1) y1=num(y1) x2=num(x2) y2=num(y2) stroke=stroke stroke-width=num(width)/>
            }
            .into_any(),
            Shape::Circle { cx, cy, r, fill, title } => view! {
                <circle cx=num(cx) cy=num(cy) r=num(r) fill=fill>
                    {title.map(|t| view! { <title>{t}</title> })}
                </circle>
            }
            .into_any(),
            Shape::Text { x, y, text, anchor, size, fill, angle } => {
                let transform =
                    (angle != 0.0).then(|| format!("rotate({} {} {})", num(angle), num(x), num(y)));
                let anchor: Anchor = anchor;
                view! {
                    <text x=num(x) y=num(y) text-anchor=anchor.as_str() font-size=num(size)
                        fill=fill transform=transform>{text}</text>
                }
                .into_any()
            }
        })
        .collect_view();
    view! {
        <svg class="plot" role="img" aria-label=label.to_owned()
            viewBox=format!("0 0 {} {}", num(scene.width), num(scene.height))
            width=num(scene.width) height=num(scene.height)>
            <title>{scene.title.clone()}</title>
            {shapes}
        </svg>
    }
}

/// A figure with its export buttons: `Export <label> SVG` (and `… PNG` with `png`), saving
/// `<file>.svg` / `<file>.png` (the figure's id when `file` is not given).
#[component]
pub fn FigureView(
    figure: Figure,
    #[prop(into)] label: String,
    /// The picture's accessible name (the export label when not given).
    #[prop(optional, into)]
    alt: Option<String>,
    #[prop(optional, into)] file: Option<String>,
    #[prop(optional, into)] testid: Option<String>,
    #[prop(default = false)] png: bool,
    #[prop(optional, into)] on_error: Option<Callback<String>>,
) -> impl IntoView {
    // Exports are the design-width scene; the page draws one that fits the room it has (on a
    // phone, a narrower plot with text at full size, not the design scaled down).
    let svg = figure.to_svg();
    let figure_ref = NodeRef::<leptos::html::Figure>::new();
    let room = RwSignal::new(None::<f64>);
    let measure = move || {
        let parent = figure_ref.try_get_untracked().flatten().and_then(|el| el.parent_element());
        if let Some(parent) = parent {
            let width = f64::from(parent.client_width());
            // Hidden (no layout yet): keep the design width.
            if width > 0.0 && room.try_get_untracked() != Some(Some(width)) {
                room.try_set(Some(width));
            }
        }
    };
    Effect::new(move |_| {
        if figure_ref.get().is_some() {
            measure();
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    let scene = {
        let figure = figure.clone();
        // A few units short of the room, for the figure's border.
        Memo::new(move |_| match room.get() {
            Some(width) => figure.scene_within(width - 4.0),
            None => figure.scene(),
        })
    };
    let alt = alt.unwrap_or_else(|| label.clone());
    let file = file.unwrap_or_else(|| figure.id.clone());
    let report = move |r: Result<(), SaveError>| {
        if let Err(e) = r {
            let e = e.to_string();
            web_sys::console::warn_1(&e.clone().into());
            if let Some(cb) = on_error {
                cb.run(e);
            }
        }
    };
    let svg_button = {
        let (svg, file, label) = (svg.clone(), file.clone(), label.clone());
        view! {
            <button type="button" class="secondary small" on:click=move |_| report(save_text(&format!("{file}.svg"), "image/svg+xml", &svg))>
                {format!("Export {label} SVG")}
            </button>
        }
    };
    let png_button = png.then(|| {
        view! {
            <button type="button" class="secondary small" on:click=move |_| {
                let (svg, file) = (svg.clone(), file.clone());
                spawn_local(async move { report(save_svg_as_png(&format!("{file}.png"), &svg).await) });
            }>{format!("Export {label} PNG")}</button>
        }
    });
    view! {
        <figure class="report-figure" data-testid=testid node_ref=figure_ref>
            {move || scene.with(|scene| scene_view(scene, &alt))}
            <figcaption class="row exports">{svg_button}{png_button}</figcaption>
        </figure>
    }
}
