//! Browser tests of the edge (`src/edge/`) in headless Chromium: IndexedDB persistence, timers,
//! fetch failures that need no server, and the worker loader's main-thread fallback. What
//! needs a live server or the served `worker.js` is in `tests/e2e/edge.test.mjs`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use std::cell::RefCell;
use std::rc::Rc;

use concord_core::data;
use concord_core::example::{EXAMPLE_CSV, EXAMPLE_NAME};
use concord_core::run::{HttpRequest, Method};
use concord_web::edge::http::{self, AbortHandle, FetchError};
use concord_web::edge::store::{Store, StoreName, log_key};
use concord_web::edge::time;
use concord_web::edge::worker::{self, LoadStage};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A database name no other test (or earlier run in the same profile) uses.
fn fresh_db_name(what: &str) -> String {
    format!("concord-test-{what}-{}", js_sys::Math::random().to_bits())
}

/// Everything a store promises, checked the same way on IndexedDB and on the in-memory
/// stand-in (which must behave identically).
async fn check_store(store: &Store) {
    use StoreName::*;
    assert_eq!(store.get(Responses, "k1").await.unwrap(), None);
    store.put(Responses, "k1", r#"{"text":"Rating: 4"}"#).await.unwrap();
    store.put(Responses, "k2", "two").await.unwrap();
    assert_eq!(
        store.get(Responses, "k1").await.unwrap().as_deref(),
        Some(r#"{"text":"Rating: 4"}"#)
    );
    // Overwrite, and stores are separate namespaces.
    store.put(Responses, "k2", "deux").await.unwrap();
    assert_eq!(store.get(Responses, "k2").await.unwrap().as_deref(), Some("deux"));
    assert_eq!(store.get(Settings, "k2").await.unwrap(), None);
    assert_eq!(store.count(Responses).await.unwrap(), 2);
    // Paging in key order: a page of one, the next after it, then nothing after the last.
    let first = store.get_page(Responses, None, 1).await.unwrap();
    assert_eq!(first, vec![("k1".to_owned(), r#"{"text":"Rating: 4"}"#.to_owned())]);
    let second = store.get_page(Responses, Some("k1"), 5).await.unwrap();
    assert_eq!(second, vec![("k2".to_owned(), "deux".to_owned())]);
    assert_eq!(store.get_page(Responses, Some("k2"), 5).await.unwrap(), vec![]);
    assert_eq!(store.get_page(Responses, Some("a"), 5).await.unwrap().len(), 2);

    // An annotation log: sequence order must survive key order (2 < 10 only with padding),
    // and one session's prefix must not match another's ("s1/" vs "s10/").
    for seq in [10_u64, 2, 1] {
        store.append_log("s1", seq, &format!("action {seq}")).await.unwrap();
    }
    store.append_log("s10", 1, "other session").await.unwrap();
    let log = store.read_log("s1").await.unwrap();
    assert_eq!(
        log,
        vec![(1, "action 1".to_owned()), (2, "action 2".to_owned()), (10, "action 10".to_owned())]
    );
    assert_eq!(
        store.keys_with_prefix(Annotations, "s1/").await.unwrap(),
        vec![log_key("s1", 1), log_key("s1", 2), log_key("s1", 10)]
    );
    assert_eq!(store.keys_with_prefix(Annotations, "").await.unwrap().len(), 4);
    assert_eq!(
        store.get_with_prefix(Annotations, "s10/").await.unwrap(),
        vec![("s10/000000000001".to_owned(), "other session".to_owned())]
    );

    store.put_many(Runs, &[("run-a", "A"), ("run-b", "B"), ("other", "O")]).await.unwrap();
    assert_eq!(store.keys_with_prefix(Runs, "run-").await.unwrap(), vec!["run-a", "run-b"]);
    store.delete(Runs, "run-a").await.unwrap();
    store.delete(Runs, "never-there").await.unwrap();
    assert_eq!(store.keys_with_prefix(Runs, "").await.unwrap(), vec!["other", "run-b"]);

    // Bytes (a saved workspace's bundle): stored, replaced, read back whole, removed; a text
    // value is not bytes, and bytes are not text.
    let bytes = |v: &[u8]| js_sys::Uint8Array::from(v);
    assert!(store.get_bytes(Workspaces, "ws-1").await.unwrap().is_none());
    store.put_bytes(Workspaces, "ws-1", &bytes(b"{\"a\":1}")).await.unwrap();
    store.put_bytes(Workspaces, "ws-1", &bytes(&[0, 255, 7])).await.unwrap();
    assert_eq!(store.get_bytes(Workspaces, "ws-1").await.unwrap().unwrap().to_vec(), [0, 255, 7]);
    if store.is_persistent() {
        assert!(matches!(
            store.get_bytes(Runs, "other").await,
            Err(concord_web::edge::store::StoreError::NotBytes { .. })
        ));
        assert!(store.get(Workspaces, "ws-1").await.is_err());
    }
    store.delete_bytes(Workspaces, "ws-1").await.unwrap();
    assert!(store.get_bytes(Workspaces, "ws-1").await.unwrap().is_none());

    store.clear(Responses).await.unwrap();
    assert_eq!(store.count(Responses).await.unwrap(), 0);
    assert_eq!(store.get(Responses, "k1").await.unwrap(), None);
    assert_eq!(store.get_page(Responses, None, 5).await.unwrap(), vec![]);
    assert_eq!(store.count(Annotations).await.unwrap(), 4, "clear touches one store only");
}

#[wasm_bindgen_test]
async fn indexeddb_store_behaves() {
    let store = Store::open_named(&fresh_db_name("behaves")).await.expect("IndexedDB in Chromium");
    assert!(store.is_persistent());
    check_store(&store).await;
}

#[wasm_bindgen_test]
async fn memory_store_behaves_the_same() {
    let store = Store::memory();
    assert!(!store.is_persistent());
    check_store(&store).await;
}

#[wasm_bindgen_test]
async fn a_committed_put_is_read_by_a_new_connection() {
    let name = fresh_db_name("durable");
    {
        let first = Store::open_named(&name).await.unwrap();
        first.put(StoreName::Responses, "cache-key", "stored the moment it arrives").await.unwrap();
    }
    let second = Store::open_named(&name).await.unwrap();
    assert_eq!(
        second.get(StoreName::Responses, "cache-key").await.unwrap().as_deref(),
        Some("stored the moment it arrives")
    );
}

#[wasm_bindgen_test]
async fn the_real_database_opens_with_all_stores() {
    let store = Store::open().await.unwrap();
    for name in StoreName::ALL {
        store.count(name).await.unwrap_or_else(|e| panic!("{}: {e}", name.as_str()));
    }
    let (fallback, problem) = Store::open_or_memory().await;
    assert!(fallback.is_persistent() && problem.is_none());
}

#[wasm_bindgen_test]
async fn sleeps_wake_in_deadline_order() {
    let order = Rc::new(RefCell::new(Vec::new()));
    for ms in [40_u32, 5, 20] {
        let order = order.clone();
        wasm_bindgen_futures::spawn_local(async move {
            time::sleep(ms).await;
            order.borrow_mut().push(ms);
        });
    }
    let before = time::monotonic_ms();
    time::sleep(80).await;
    assert!(time::monotonic_ms() - before >= 79.0, "slept at least 80 ms (timer clamping aside)");
    assert_eq!(*order.borrow(), vec![5, 20, 40]);
    time::yield_now().await;
    let wall = time::now_ms();
    assert!(wall > 1_700_000_000_000, "epoch milliseconds, got {wall}");
}

fn post(url: &str) -> HttpRequest {
    HttpRequest {
        method: Method::Post,
        url: url.to_owned(),
        headers: vec![
            ("Authorization".to_owned(), "Bearer sk-secret-never-shown".to_owned()),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ],
        body: "{}".to_owned(),
    }
}

#[wasm_bindgen_test]
async fn a_closed_loopback_port_is_a_network_error() {
    // Port 9 (discard) is closed on the test machine: the connection is refused.
    let err = http::send(&post("http://127.0.0.1:9/v1/chat/completions"), 10_000, None)
        .await
        .expect_err("nothing listens on port 9");
    assert!(matches!(err, FetchError::Network(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("CORS") && !message.contains("sk-secret"), "{message}");
    assert!(err.api_error().is_some_and(|e| e.is_retryable()));
}

#[wasm_bindgen_test]
async fn an_aborted_handle_cancels_before_sending() {
    let handle = AbortHandle::new();
    handle.abort();
    let err = http::send(&post("http://127.0.0.1:9/"), 1_000, Some(&handle)).await.unwrap_err();
    assert_eq!(err, FetchError::Aborted);
    assert_eq!(err.api_error(), None, "a cancelled call is not a failed call");
    assert_eq!(handle.in_flight(), 0);
}

#[wasm_bindgen_test]
async fn a_header_the_browser_refuses_is_named_without_its_value() {
    let mut request = post("http://127.0.0.1:9/");
    request.headers.push(("x-api-key".to_owned(), "sk-secret\nnever-shown".to_owned()));
    let err = http::send(&request, 1_000, None).await.unwrap_err();
    assert!(matches!(err, FetchError::InvalidRequest(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("x-api-key") && !message.contains("sk-secret"), "{message}");
}

#[wasm_bindgen_test]
async fn get_bytes_reports_a_missing_file_by_status() {
    // The test runner serves its own page; this path does not exist there.
    let err = http::get_bytes("/no-such-dataset.json", 10_000).await.unwrap_err();
    assert!(matches!(err, FetchError::Status { status: 404, .. }), "{err:?}");
}

#[wasm_bindgen_test]
async fn a_worker_load_equals_a_main_thread_load_whichever_path_it_takes() {
    // The test runner serves the repository root, whose `worker.js` imports a `concord.js`
    // beside it that only the built site has (`site/pkg-<hash>/`): wherever the worker can
    // start it does the job, and where it cannot the load falls back to this thread.
    let stages = Rc::new(RefCell::new(Vec::new()));
    let seen = stages.clone();
    let loaded = worker::load_in_worker(
        EXAMPLE_NAME.to_owned(),
        EXAMPLE_CSV.as_bytes().to_vec(),
        move |stage| seen.borrow_mut().push(stage),
    )
    .await
    .unwrap();
    assert_eq!(loaded, data::load(EXAMPLE_NAME, EXAMPLE_CSV.as_bytes()).unwrap());
    let stages = stages.borrow().clone();
    assert!(
        stages == [LoadStage::StartingWorker, LoadStage::Parsing { in_worker: false }]
            || stages
                == [
                    LoadStage::StartingWorker,
                    LoadStage::Parsing { in_worker: true },
                    LoadStage::Receiving
                ],
        "{stages:?}"
    );
    let err =
        worker::load_in_worker("empty.csv".to_owned(), b"  \n".to_vec(), |_| {}).await.unwrap_err();
    // The file's problem comes back as the job's own error, naming the file.
    assert!(matches!(err, worker::WorkerError::Job(_)), "{err:?}");
    assert!(err.to_string().contains("empty.csv"), "{err}");
}
