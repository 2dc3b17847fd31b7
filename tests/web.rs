//! Browser-only unit tests (wasm-bindgen-test in headless Chromium): the browser edge and
//! mounted components. Run by `cargo xtask test`; natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use concord_web::{app::App, edge::files::read_file};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

fn text_of(testid: &str) -> Option<String> {
    document()
        .query_selector(&format!("[data-testid='{testid}']"))
        .ok()
        .flatten()
        .and_then(|el| el.text_content())
}

#[wasm_bindgen_test]
async fn read_file_returns_the_exact_bytes() {
    let bytes: Vec<u8> = vec![0, 1, 2, 200, 255, b'a', b'\n'];
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let parts = js_sys::Array::of1(&array);
    let file = web_sys::File::new_with_u8_array_sequence(&parts, "bytes.bin").expect("a File");
    assert_eq!(read_file(&file).await.expect("readable"), bytes);
}

#[wasm_bindgen_test]
async fn app_mounts_on_the_example() {
    let host: web_sys::HtmlElement =
        document().create_element("div").expect("div").dyn_into().expect("an HtmlElement");
    document().body().expect("body").append_child(&host).expect("appended");
    let handle = leptos::mount::mount_to(host.clone(), App);
    // The screens appear once the saved workspace (none here) has been looked for.
    for _ in 0..100 {
        if text_of("dataset-name").is_some() {
            break;
        }
        concord_web::edge::time::sleep(50).await;
    }
    assert_eq!(text_of("dataset-name").as_deref(), Some("concord-example.csv"));
    assert_eq!(text_of("item-count").as_deref(), Some("15"));
    assert_eq!(text_of("document-count").as_deref(), Some("5"));
    assert_eq!(text_of("system-count").as_deref(), Some("3"));
    let rows = document()
        .query_selector_all("[data-testid='preview'] tbody tr:not(.spacer)")
        .expect("rows");
    assert_eq!(rows.length(), 15);
    drop(handle);
    host.remove();
}

/// The bundle's way into the CoEval screen: a snapshot applied to a store is what the screen
/// reads back (study, annotator, every event with its undo, imported files), and a study
/// applied over another replaces its logs and imports.
#[wasm_bindgen_test]
async fn coeval_snapshot_is_stored_as_the_screen_stores_it() {
    use std::collections::BTreeMap;

    use concord_core::coeval::{AnnotatorFile, Event, Log};
    use concord_core::judge::coeval::TaskInfo;
    use concord_core::study::coeval::{Snapshot, Study};
    use concord_web::edge::store::{Store, StoreName};
    use concord_web::screens::coeval::{apply_snapshot, snapshot};

    let store = Store::memory();
    assert_eq!(snapshot(&store).await.expect("readable"), None, "no study yet");
    let info = TaskInfo {
        description: "to write a story".into(),
        input_name: "prompt".into(),
        output_name: "story".into(),
    };
    let study = Study::typed(
        "stories",
        info,
        vec!["Fluent.".into()],
        vec![("A cat.".into(), "The cat slept.".into(), "turbo".into())],
    );
    let score =
        |s: f64| Event::Score { instance: "i1".into(), criterion: "Fluent.".into(), score: s };
    let mut log = Log::new();
    for e in [score(4.0), Event::Undo, score(2.0)] {
        log.push(e).expect("a valid event");
    }
    let logs = BTreeMap::from([("Ann".to_owned(), log.clone())]);
    let imported = vec![("bob.json".to_owned(), AnnotatorFile::new("Bob", "stories", &log))];
    let first = Snapshot::capture(&study, "Ann", &logs, &imported);
    apply_snapshot(&store, &first).await.expect("applied");
    assert_eq!(snapshot(&store).await.expect("readable"), Some(first.clone()));
    let keys =
        store.keys_with_prefix(StoreName::Annotations, "coeval/stories/Ann/").await.expect("keys");
    assert_eq!(keys.len(), 3, "one record per event, the undo too");

    let second = Snapshot::capture(&study, "Cy", &BTreeMap::new(), &[]);
    apply_snapshot(&store, &second).await.expect("applied");
    assert_eq!(snapshot(&store).await.expect("readable"), Some(second));
}
