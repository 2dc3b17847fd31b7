//! Browser-only unit tests (wasm-bindgen-test in headless Chromium): the browser edge and
//! mounted components. Run by `cargo xtask test`; natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use concord_web::{app::App, browser::read_file};
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
fn app_mounts_on_the_example() {
    let host: web_sys::HtmlElement =
        document().create_element("div").expect("div").dyn_into().expect("an HtmlElement");
    document().body().expect("body").append_child(&host).expect("appended");
    let handle = leptos::mount::mount_to(host.clone(), App);
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
