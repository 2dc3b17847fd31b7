//! Reading the files the user picks or drops (the browser edge: a read failure arrives as the
//! browser's text).

use js_sys::Uint8Array;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

/// Reads a whole file into memory. Errors name the file and say what the browser reported.
pub async fn read_file(file: &File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("the browser could not read {}: {e:?}", file.name()))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}
