//! Links to any view: the page's address follows the screen and the Results view (the core's
//! [`concord_core::link`] reads and writes it); opening a link, or going back and forward,
//! shows that view; [`CopyLink`] hands a reviewer the address of what they see.

use concord_core::link::{LinkProblem, ViewLink};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::edge::js::property;
use crate::persist::bundle::BundleTargets;
use crate::state::Screen;

/// The page address's query string (`?…`, or empty).
fn search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Puts `query` in the address bar: a new history entry (`push`) or in place of this one.
fn set_address(query: &str, push: bool) {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let history = property(&window, "history");
    let method = if push { "pushState" } else { "replaceState" };
    if let Ok(f) = property(&history, method).dyn_into::<js_sys::Function>() {
        let url = format!("{path}{query}{hash}");
        let _ = f.call3(&history, &JsValue::NULL, &JsValue::from_str(""), &url.into());
    }
}

/// The view the page's address names, and what in it could not be used.
pub fn from_address() -> (ViewLink, Vec<LinkProblem>) {
    ViewLink::parse(&search())
}

/// Shows the view `link` names: its screen, and on Results its view, cell and item (what it
/// does not name stays as it is; a link to another screen carries nothing of Results). The
/// screen is switched last, once what it will show is in place.
pub fn show(t: BundleTargets, link: &ViewLink) {
    let screen = link.screen.and_then(Screen::from_link_name);
    if screen.is_none_or(|s| s == Screen::Results) {
        if link.table.is_some() || link.level.is_some() || link.baseline.is_some() {
            let mut settings = t.results.settings.get_untracked();
            link.apply(&mut settings);
            if settings != t.results.settings.get_untracked() {
                t.results.settings.set(settings);
            }
        }
        if link.cell.is_some() {
            t.results.selected.set(link.cell.clone());
            t.results.item.set(link.item.clone());
        }
    }
    // Set only when it changes: setting the same screen again renders it anew.
    if let Some(screen) = screen
        && t.ws.screen.get_untracked() != screen
    {
        t.ws.screen.set(screen);
    }
}

/// The link of the view shown (read tracked: an effect follows it).
fn shown(t: BundleTargets) -> ViewLink {
    let screen = t.ws.screen.get().link_name();
    t.results
        .settings
        .with(|s| ViewLink::of(screen, s, t.results.selected.get(), t.results.item.get()))
}

/// Keeps the address on the view shown, from now on: a move to another screen, cell or item is
/// a new history entry, any other change replaces the entry; back and forward show the entry's
/// view. Call once, after start-up has shown the address's view.
pub fn follow(t: BundleTargets) {
    let last = StoredValue::new(untrack(|| shown(t)));
    Effect::new(move |_| {
        let link = shown(t);
        let now = search();
        let query = link.into_query(&now);
        if query != now {
            set_address(&query, last.with_value(|l| l.is_new_view(&link)));
        }
        last.set_value(link);
    });
    let on_pop = Closure::<dyn FnMut()>::new(move || {
        let (link, _) = from_address();
        show(t, &link);
    });
    if let Some(window) = web_sys::window() {
        let _ =
            window.add_event_listener_with_callback("popstate", on_pop.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    on_pop.forget();
}

/// The address of the view shown, for someone else: with the bundle it came from, when the
/// runs on the table were downloaded from one.
pub fn shareable(t: BundleTargets) -> String {
    let mut link = untrack(|| shown(t));
    link.bundle = t.results.bundle_url.get_untracked();
    let Some(window) = web_sys::window() else { return String::new() };
    let location = window.location();
    format!(
        "{}{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        link.into_query(&search())
    )
}

/// "Copy link": puts the address of this view on the clipboard and shows it (to select and
/// copy by hand when the browser refuses the clipboard). Without a bundle from an address, the
/// link opens this view of the reader's own workspace, and says so.
#[component]
pub fn CopyLink() -> impl IntoView {
    let t = BundleTargets::from_context();
    let copied = RwSignal::new(None::<(String, String)>);
    let copy = move |_| {
        let url = shareable(t);
        let note = if t.results.bundle_url.get_untracked().is_some() {
            "Link copied: it opens the bundle at this view."
        } else {
            "Link copied. It opens this view of the reader's own workspace; for others to see these results, export the bundle, put it online and add its address to the link as ?\u{2060}bundle=\u{2060}URL."
        };
        copied.set(Some((url.clone(), note.to_owned())));
        let navigator =
            property(&web_sys::window().map(JsValue::from).unwrap_or_default(), "navigator");
        let clipboard = property(&navigator, "clipboard");
        let write = property(&clipboard, "writeText");
        let promise = write
            .dyn_into::<js_sys::Function>()
            .ok()
            .and_then(|f| f.call1(&clipboard, &JsValue::from_str(&url)).ok())
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
        leptos::task::spawn_local(async move {
            let ok = match promise {
                Some(p) => wasm_bindgen_futures::JsFuture::from(p).await.is_ok(),
                None => false,
            };
            if !ok {
                copied.try_set(Some((
                    url,
                    "The browser did not let the page use the clipboard: select the link and copy it.".to_owned(),
                )));
            }
        });
    };
    view! {
        <span class="copy-link">
            <button type="button" class="secondary small" on:click=copy>"Copy link"</button>
            {move || copied.get().map(|(url, note)| view! {
                <input type="text" readonly aria-label="Link to this view" data-testid="view-link" prop:value=url size="40"/>
                <span class="muted" role="status">{note}</span>
            })}
        </span>
    }
}
