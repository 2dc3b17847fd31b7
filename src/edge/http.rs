//! Sending the core's [`HttpRequest`] values with `fetch`, with a timeout and cancellation, and
//! fetching a dataset from a URL.
//!
//! Each call gets its own `AbortController`, aborted by its timer (→ [`FetchError::Timeout`]),
//! by the run's [`AbortHandle`] (→ [`FetchError::Aborted`]) or when the future is dropped (so
//! a cancelled Leptos task leaves no request running). The request carries exactly the headers
//! the core built: any extra header could make a provider's CORS preflight fail.
//!
//! Failures are split by what the browser can tell: a `TypeError` before any response is
//! [`FetchError::Network`] (CORS refusal, CSP block, server not running, connection dropped —
//! browsers deliberately do not say which); a failure while reading the body after the status
//! arrived is [`FetchError::BodyInterrupted`]. Non-2xx statuses are not errors of [`send`]: the
//! caller passes them to `concord_core::run::classify_error`.
//!
//! No header value appears in an error, a log or a `Debug` output of this module: the API key
//! travels in a header.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;

use concord_core::run::{ApiError, HttpRequest, Method, NetworkCause};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, Request, RequestCache, RequestInit, Response};

use super::js;

/// A response as the page can read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    /// Header names in lower case, in the browser's order. Only headers the server exposes to
    /// pages through CORS are here (`content-type` always; `retry-after` or rate-limit headers
    /// only with `Access-Control-Expose-Headers`).
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpReply {
    /// The value of header `name` (case-insensitive), if the page could read it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Why a request produced no usable response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// The browser refused or lost the request before any response (`TypeError`): CORS not
    /// allowed for this page, blocked by the page's Content-Security-Policy, server not running,
    /// connection refused or dropped, offline. Holds the browser's own words.
    Network(String),
    /// No complete answer within the time limit; the request was cancelled.
    Timeout { after_ms: u32 },
    /// Cancelled through an [`AbortHandle`] (or the browser aborted it).
    Aborted,
    /// The status and headers arrived, then reading the body failed (connection dropped, body
    /// cut short).
    BodyInterrupted { status: u16, detail: String },
    /// The request could not be built: a header name or value the browser rejects, or a URL
    /// it cannot parse. Names the header, never its value.
    InvalidRequest(String),
    /// [`get_bytes`] only: the server answered with a non-2xx status.
    Status { status: u16, status_text: String },
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Network(detail) => write!(
                f,
                "the request did not reach the server or its answer was refused by the browser \
                 ({detail}). Usual causes: the server does not allow calls from web pages \
                 (CORS; local servers need it switched on, e.g. OLLAMA_ORIGINS or `--cors`), \
                 its address is not in this page's allowed list (Content-Security-Policy \
                 connect-src), the server is not running, or the network is down"
            ),
            FetchError::Timeout { after_ms } => write!(
                f,
                "no complete answer within {:.1} s; the request was cancelled",
                f64::from(*after_ms) / 1000.0
            ),
            FetchError::Aborted => f.write_str("the request was cancelled"),
            FetchError::BodyInterrupted { status, detail } => write!(
                f,
                "the server answered (HTTP {status}) but the connection broke while the answer \
                 was being read ({detail})"
            ),
            FetchError::InvalidRequest(what) => write!(f, "the request could not be sent: {what}"),
            FetchError::Status { status, status_text } => {
                write!(f, "the server answered HTTP {status}")?;
                if !status_text.is_empty() {
                    write!(f, " {status_text}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// The failure as the core's run engine classifies it: network failures are retryable
    /// `Network` errors and timeouts retryable `Timeout` errors (status 0), a broken body is `Malformed` (retryable) under
    /// its status. `None` for [`FetchError::Aborted`] (the user stopped it: not a failure of
    /// the call) and for errors only [`get_bytes`] returns.
    pub fn api_error(&self) -> Option<ApiError> {
        match self {
            FetchError::Network(_) => Some(ApiError::network(self.to_string())),
            FetchError::Timeout { .. } => Some(ApiError::timeout(self.to_string())),
            FetchError::BodyInterrupted { status, .. } => {
                let mut error = ApiError::malformed(self.to_string());
                error.status = *status;
                Some(error)
            }
            FetchError::InvalidRequest(_) => Some(ApiError::network(self.to_string())),
            FetchError::Aborted | FetchError::Status { .. } => None,
        }
    }
}

/// Cancels every in-flight request it was given, at once: one per run.
///
/// Cloning shares the handle. After [`AbortHandle::abort`], requests sent with it fail with
/// [`FetchError::Aborted`] immediately. It wraps an `AbortController` whose
/// [`AbortHandle::signal`] other code can pass to its own `fetch`.
#[derive(Clone)]
pub struct AbortHandle {
    inner: Rc<AbortInner>,
}

struct AbortInner {
    controller: Option<AbortController>,
    aborted: Cell<bool>,
    next_id: Cell<u64>,
    in_flight: RefCell<Vec<(u64, AbortController)>>,
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("aborted", &self.inner.aborted.get())
            .field("in_flight", &self.inner.in_flight.borrow().len())
            .finish()
    }
}

impl Default for AbortHandle {
    fn default() -> Self {
        AbortHandle::new()
    }
}

impl AbortHandle {
    pub fn new() -> AbortHandle {
        AbortHandle {
            inner: Rc::new(AbortInner {
                controller: AbortController::new().ok(),
                aborted: Cell::new(false),
                next_id: Cell::new(0),
                in_flight: RefCell::new(Vec::new()),
            }),
        }
    }

    /// Cancels every request in flight with this handle and every later one.
    pub fn abort(&self) {
        self.inner.aborted.set(true);
        if let Some(c) = &self.inner.controller {
            c.abort();
        }
        // Take the list first: aborting settles promises, whose handlers may deregister.
        let in_flight = std::mem::take(&mut *self.inner.in_flight.borrow_mut());
        for (_, controller) in in_flight {
            controller.abort();
        }
    }

    pub fn is_aborted(&self) -> bool {
        self.inner.aborted.get()
    }

    /// How many requests are in flight with this handle.
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight.borrow().len()
    }

    /// The wrapped controller's signal, for code that calls `fetch` itself.
    pub fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.inner.controller.as_ref().map(AbortController::signal)
    }

    fn register(&self, controller: &AbortController) -> u64 {
        let id = self.inner.next_id.get();
        self.inner.next_id.set(id + 1);
        self.inner.in_flight.borrow_mut().push((id, controller.clone()));
        id
    }

    fn deregister(&self, id: u64) {
        self.inner.in_flight.borrow_mut().retain(|(i, _)| *i != id);
    }
}

/// One request's controller, timer and registration; cleans all three up when dropped, and
/// aborts the request if it had not finished (the future was dropped mid-flight).
struct InFlight {
    controller: AbortController,
    timed_out: Rc<Cell<bool>>,
    timer: Option<JsValue>,
    // Kept alive until the timer is cleared: the timer calls it.
    _on_timeout: Option<Closure<dyn FnMut()>>,
    handle: Option<(AbortHandle, u64)>,
    finished: bool,
}

impl InFlight {
    fn start(timeout_ms: u32, abort: Option<&AbortHandle>) -> Result<InFlight, FetchError> {
        let controller = AbortController::new().map_err(|e| {
            FetchError::InvalidRequest(format!(
                "this browser has no AbortController ({})",
                js::error_message(&e)
            ))
        })?;
        let timed_out = Rc::new(Cell::new(false));
        let (timer, on_timeout) = if timeout_ms > 0 {
            let flag = timed_out.clone();
            let target = controller.clone();
            let closure = Closure::<dyn FnMut()>::new(move || {
                flag.set(true);
                target.abort();
            });
            let delay = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
            let id = js::set_timeout(closure.as_ref().unchecked_ref(), delay);
            (Some(id), Some(closure))
        } else {
            (None, None)
        };
        let handle = abort.map(|h| (h.clone(), h.register(&controller)));
        Ok(InFlight {
            controller,
            timed_out,
            timer,
            _on_timeout: on_timeout,
            handle,
            finished: false,
        })
    }

    /// Names a rejection: our timer, our handle, another abort, or the network.
    fn classify(&self, error: &JsValue, timeout_ms: u32) -> FetchError {
        if self.timed_out.get() {
            FetchError::Timeout { after_ms: timeout_ms }
        } else if self.handle.as_ref().is_some_and(|(h, _)| h.is_aborted())
            || js::error_name(error) == "AbortError"
        {
            FetchError::Aborted
        } else {
            FetchError::Network(js::error_message(error))
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(id) = &self.timer {
            js::clear_timeout(id);
        }
        if let Some((handle, id)) = &self.handle {
            handle.deregister(*id);
        }
        if !self.finished {
            self.controller.abort();
        }
    }
}

/// Sends `req` and reads the whole answer as text. `timeout_ms` bounds the whole exchange
/// (connection, headers and body; 0 = no limit). `abort` cancels it with the rest of a run.
///
/// Any HTTP status is `Ok`: 4xx/5xx bodies carry the provider's explanation.
pub async fn send(
    req: &HttpRequest,
    timeout_ms: u32,
    abort: Option<&AbortHandle>,
) -> Result<HttpReply, FetchError> {
    if abort.is_some_and(AbortHandle::is_aborted) {
        return Err(FetchError::Aborted);
    }
    let mut flight = InFlight::start(timeout_ms, abort)?;
    let request = build_request(req, &flight.controller, RequestCache::NoStore)?;
    let response = match JsFuture::from(js::fetch_with_request(&request)).await {
        Ok(value) => value.unchecked_into::<Response>(),
        Err(e) => return Err(flight.classify(&e, timeout_ms)),
    };
    let status = response.status();
    let headers = read_headers(&response.headers());
    let text = response
        .text()
        .map_err(|e| FetchError::BodyInterrupted { status, detail: js::error_message(&e) })?;
    let body = match JsFuture::from(text).await {
        Ok(value) => value.as_string().unwrap_or_default(),
        Err(e) => {
            return Err(match flight.classify(&e, timeout_ms) {
                FetchError::Network(detail) => FetchError::BodyInterrupted { status, detail },
                other => other,
            });
        }
    };
    flight.finished = true;
    Ok(HttpReply { status, headers, body })
}

/// Downloads `url` as bytes ("load a dataset from a URL"). A non-2xx status is
/// [`FetchError::Status`]; a CORS refusal is [`FetchError::Network`], whose message explains
/// that the host must allow pages from other sites (raw.githubusercontent.com does; most file
/// hosts' "view" pages do not, their "raw"/download links sometimes do).
pub async fn get_bytes(url: &str, timeout_ms: u32) -> Result<Vec<u8>, FetchError> {
    let mut flight = InFlight::start(timeout_ms, None)?;
    let req = HttpRequest {
        method: Method::Get,
        url: url.to_owned(),
        headers: Vec::new(),
        body: String::new(),
    };
    let request = build_request(&req, &flight.controller, RequestCache::Default)?;
    let response = match JsFuture::from(js::fetch_with_request(&request)).await {
        Ok(value) => value.unchecked_into::<Response>(),
        Err(e) => return Err(flight.classify(&e, timeout_ms)),
    };
    let status = response.status();
    if !(200..300).contains(&status) {
        flight.finished = true;
        return Err(FetchError::Status { status, status_text: response.status_text() });
    }
    let buffer = response
        .array_buffer()
        .map_err(|e| FetchError::BodyInterrupted { status, detail: js::error_message(&e) })?;
    let bytes = match JsFuture::from(buffer).await {
        Ok(value) => Uint8Array::new(&value).to_vec(),
        Err(e) => {
            return Err(match flight.classify(&e, timeout_ms) {
                FetchError::Network(detail) => FetchError::BodyInterrupted { status, detail },
                other => other,
            });
        }
    };
    flight.finished = true;
    Ok(bytes)
}

fn build_request(
    req: &HttpRequest,
    controller: &AbortController,
    cache: RequestCache,
) -> Result<Request, FetchError> {
    let headers = Headers::new().map_err(|e| {
        FetchError::InvalidRequest(format!("no Headers object ({})", js::error_message(&e)))
    })?;
    for (name, value) in &req.headers {
        // The browser's message could quote the value (the key): report the name only.
        headers.append(name, value).map_err(|_| {
            FetchError::InvalidRequest(format!(
                "the browser rejects the header `{name}` (its name or value has characters \
                 HTTP headers cannot carry, such as a line break or non-Latin-1 text)"
            ))
        })?;
    }
    let init = RequestInit::new();
    init.set_method(req.method.as_str());
    init.set_headers(&headers);
    init.set_signal(Some(&controller.signal()));
    init.set_cache(cache);
    if !req.body.is_empty() {
        init.set_body(&JsValue::from_str(&req.body));
    }
    // The browser's message quotes the whole URL: name only the part before any query.
    Request::new_with_str_and_init(&req.url, &init).map_err(|_| {
        FetchError::InvalidRequest(format!(
            "`{}` is not a URL the browser can fetch",
            url_for_message(&req.url)
        ))
    })
}

/// The URL without its query string, for messages (a key must never be in a URL, but a
/// user-typed base URL could carry one).
fn url_for_message(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or("")
}

/// All headers the page may read, names in lower case (the Fetch standard's iteration order).
fn read_headers(headers: &Headers) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(Some(iter)) = js_sys::try_iter(headers) else {
        return out;
    };
    for entry in iter.flatten() {
        let pair: Array = entry.unchecked_into();
        if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            out.push((name.to_ascii_lowercase(), value));
        }
    }
    out
}

/// Why a request to `url` got no response the page may read (a fetch's own error says only
/// "failed to fetch"): a `no-cors` probe of the same address, watched for a
/// `securitypolicyviolation` event. The page's policy refusing it is
/// [`NetworkCause::BlockedByPage`]; the probe answered (opaquely) means the server is there
/// and refused CORS; the probe failing too means nothing answered. Works in a window only
/// (the event comes from the document); in a worker it cannot tell the policy's refusal apart.
pub async fn network_cause(url: &str) -> NetworkCause {
    // A port the browser refuses fails at once, whatever listens there (ERR_UNSAFE_PORT).
    if let Some(port) = concord_core::run::connection::refused_port(url) {
        return NetworkCause::RefusedPort(port);
    }
    let blocked = Rc::new(Cell::new(false));
    let target = web_sys::window().and_then(|w| w.document());
    let listener = {
        let blocked = blocked.clone();
        let origin = origin_of(url);
        Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let uri = js::property(&event, "blockedURI").as_string().unwrap_or_default();
            if origin_of(&uri) == origin || uri.is_empty() {
                blocked.set(true);
            }
        })
    };
    if let Some(document) = &target {
        let _ = document.add_event_listener_with_callback(
            "securitypolicyviolation",
            listener.as_ref().unchecked_ref(),
        );
    }
    let init = RequestInit::new();
    init.set_mode(web_sys::RequestMode::NoCors);
    init.set_cache(RequestCache::NoStore);
    let answered = match Request::new_with_str_and_init(url, &init) {
        Ok(request) => JsFuture::from(js::fetch_with_request(&request)).await.is_ok(),
        Err(_) => false,
    };
    // The violation event is queued as a task: let it run before reading the flag.
    super::time::sleep(50).await;
    if let Some(document) = &target {
        let _ = document.remove_event_listener_with_callback(
            "securitypolicyviolation",
            listener.as_ref().unchecked_ref(),
        );
    }
    drop(listener);
    if blocked.get() {
        NetworkCause::BlockedByPage
    } else if answered {
        NetworkCause::CorsRefused
    } else {
        NetworkCause::NothingAnswered
    }
}

/// `scheme://host:port` of a URL (the whole text when it is not one).
fn origin_of(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase())
        }
        None => url.to_owned(),
    }
}
