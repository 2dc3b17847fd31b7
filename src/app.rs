//! The application shell: header, screen tabs, and the workspace context.

use leptos::prelude::*;

use crate::pages::data::DataPage;
use crate::state::{Screen, Workspace};

#[component]
pub fn App() -> impl IntoView {
    let ws = Workspace::new();
    provide_context(ws);
    view! {
        <header class="app-header">
            <h1>"Concord"</h1>
            <span class="tagline">"LLM-as-a-judge evaluation, in your browser"</span>
            <nav class="tabs" role="tablist" aria-label="Screens">
                {Screen::ALL
                    .into_iter()
                    .map(|screen| {
                        view! {
                            <button role="tab" type="button"
                                aria-selected=move || (ws.screen.get() == screen).to_string()
                                on:click=move |_| ws.screen.set(screen)>
                                {screen.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
        </header>
        <main>
            {move || match ws.screen.get() {
                Screen::Data => view! { <DataPage/> }.into_any(),
            }}
        </main>
    }
}
