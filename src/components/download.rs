//! Saving exports: hands the browser a file to download, built from text in memory.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Why a file could not be offered for download: which file, and what the browser refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not save {file}: {what}; try again, or allow downloads for this page")]
pub struct SaveError {
    pub file: String,
    pub what: &'static str,
}

fn fail(file: &str, what: &'static str) -> SaveError {
    SaveError { file: file.to_owned(), what }
}

/// Offers `contents` as a download named `file_name` with the given MIME type.
pub fn save_text(file_name: &str, mime: &str, contents: &str) -> Result<(), SaveError> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(contents));
    save_parts(file_name, mime, &parts)
}

/// Offers `bytes` as a download (PNG images, binary exports).
pub fn save_bytes(file_name: &str, mime: &str, bytes: &[u8]) -> Result<(), SaveError> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    save_parts(file_name, mime, &parts)
}

/// Offers the bytes of `buffer` (e.g. a file written by the worker) as a download, without
/// copying them into wasm memory.
pub fn save_buffer(
    file_name: &str,
    mime: &str,
    buffer: &js_sys::ArrayBuffer,
) -> Result<(), SaveError> {
    let parts = js_sys::Array::of1(buffer);
    save_parts(file_name, mime, &parts)
}

fn save_parts(file_name: &str, mime: &str, parts: &js_sys::Array) -> Result<(), SaveError> {
    let fail = |what: &'static str| fail(file_name, what);
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(parts, &options)
        .map_err(|_| fail("the browser refused to build the file"))?;
    let url = Url::create_object_url_with_blob(&blob).map_err(|_| fail("no object URL"))?;
    click_download(&url, file_name)?;
    // The click only asks for the download: the browser reads the blob later, and revoking
    // the URL at once loses the file when it is busy (seen: one of a dozen quick exports
    // never arrived). The URL goes a minute later.
    wasm_bindgen_futures::spawn_local(async move {
        crate::edge::time::sleep(60_000).await;
        let _ = Url::revoke_object_url(&url);
    });
    Ok(())
}

/// Starts the download of `href` as `file_name` through a detached link.
fn click_download(href: &str, file_name: &str) -> Result<(), SaveError> {
    let fail = |what: &'static str| fail(file_name, what);
    let document =
        web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("no document"))?;
    let anchor: HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| fail("no anchor"))?
        .dyn_into()
        .map_err(|_| fail("no anchor"))?;
    anchor.set_href(href);
    anchor.set_download(file_name);
    anchor.click();
    Ok(())
}

/// Rasterises an SVG document (as exported by `components::plot`) to PNG at twice its size
/// and offers it as a download.
pub async fn save_svg_as_png(file_name: &str, svg: &str) -> Result<(), SaveError> {
    let fail = |what: &'static str| fail(file_name, what);
    let document =
        web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("no document"))?;
    let image = web_sys::HtmlImageElement::new().map_err(|_| fail("no image"))?;
    let encoded: String = js_sys::encode_uri_component(svg).into();
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        image.set_onload(Some(&resolve));
        image.set_onerror(Some(&reject));
    });
    image.set_src(&format!("data:image/svg+xml;charset=utf-8,{encoded}"));
    wasm_bindgen_futures::JsFuture::from(loaded)
        .await
        .map_err(|_| fail("the SVG could not be drawn"))?;
    let scale = 2;
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(|_| fail("no canvas"))?
        .dyn_into()
        .map_err(|_| fail("no canvas"))?;
    canvas.set_width(image.natural_width().max(1) * scale);
    canvas.set_height(image.natural_height().max(1) * scale);
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| fail("no 2D context"))?;
    context.set_fill_style_str("#ffffff");
    context.fill_rect(0.0, 0.0, f64::from(canvas.width()), f64::from(canvas.height()));
    context
        .draw_image_with_html_image_element_and_dw_and_dh(
            &image,
            0.0,
            0.0,
            f64::from(canvas.width()),
            f64::from(canvas.height()),
        )
        .map_err(|_| fail("drawing failed"))?;
    let url = canvas.to_data_url_with_type("image/png").map_err(|_| fail("no PNG"))?;
    click_download(&url, file_name)
}
