//! Bindings to functions of the global scope (`globalThis`), so the edge runs the same in a
//! window and in a worker; `web_sys::Window` would tie it to the page.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `globalThis.setTimeout(handler, ms)`; returns the timer id.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &Function, ms: i32) -> JsValue;

    /// `globalThis.clearTimeout(id)`.
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(id: &JsValue);

    /// `globalThis.fetch(request)`.
    #[wasm_bindgen(js_name = fetch)]
    pub fn fetch_with_request(request: &web_sys::Request) -> Promise;
}

/// A property of the global object, `undefined` when absent.
pub fn global_property(name: &str) -> JsValue {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// A property of any value, `undefined` when absent or when `value` is not an object.
pub fn property(value: &JsValue, name: &str) -> JsValue {
    if value.is_object() || value.is_function() {
        Reflect::get(value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// The `name` of a thrown value (`"TypeError"`, `"AbortError"`, `"QuotaExceededError"`…).
pub fn error_name(value: &JsValue) -> String {
    property(value, "name").as_string().unwrap_or_default()
}

/// The `message` of a thrown value, or its string form.
pub fn error_message(value: &JsValue) -> String {
    property(value, "message")
        .as_string()
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "no details".to_owned())
}
