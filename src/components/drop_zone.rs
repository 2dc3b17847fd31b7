//! The one file drop zone: a labelled file input with "or drop … here", highlighted while a
//! file is dragged over it. Picked and dropped files go to the same callback; picking the same
//! file again loads it again (the input is cleared after each pick).

use leptos::prelude::*;
use web_sys::{DragEvent, File, HtmlInputElement};

/// The files of a file list, in order.
fn files_of(list: Option<web_sys::FileList>, multiple: bool) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    let n = if multiple { list.length() } else { list.length().min(1) };
    (0..n).filter_map(|i| list.get(i)).collect()
}

/// A file input (`id`, labelled `label`) inside a drop zone. `children` go on the same row
/// (e.g. more buttons).
#[component]
pub fn DropZone(
    #[prop(into)] id: String,
    #[prop(into)] label: String,
    /// The input's `accept` list.
    #[prop(into)]
    accept: String,
    #[prop(default = false)] multiple: bool,
    on_files: Callback<Vec<File>>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let dragging = RwSignal::new(false);
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let files = files_of(input.files(), multiple);
        // Picking the same file again must load it again.
        input.set_value("");
        if !files.is_empty() {
            on_files.run(files);
        }
    };
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let files = files_of(ev.data_transfer().and_then(|dt| dt.files()), multiple);
        if !files.is_empty() {
            on_files.run(files);
        }
    };
    let on_drag_over = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    };
    let hint = if multiple { "or drop files here" } else { "or drop a file here" };
    view! {
        <div class="dropzone" class:active=move || dragging.get()
            on:dragover=on_drag_over on:dragleave=move |_| dragging.set(false) on:drop=on_drop>
            <div class="row">
                <label for=id.clone()>{label}</label>
                <input id=id type="file" accept=accept multiple=multiple on:change=on_pick/>
                <span class="muted">{hint}</span>
                {children.map(|c| c())}
            </div>
        </div>
    }
}
