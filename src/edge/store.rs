//! Persistence in IndexedDB: one database, `concord`, with six object stores of string keys
//! and string (usually JSON) values — bytes in [`StoreName::Workspaces`].
//!
//! | Store | Key | Value |
//! |---|---|---|
//! | [`StoreName::Responses`] | `concord_core::run::cache_key` | the response JSON (the run cache) |
//! | [`StoreName::Runs`] | run id | the run manifest |
//! | [`StoreName::Annotations`] | [`log_key`]`(session, seq)` | one CoEval action record |
//! | [`StoreName::Settings`] | setting name | its value |
//! | [`StoreName::Workspaces`] | workspace id | its bundle's JSON, as bytes in a Blob ([`Store::put_bytes`]) |
//! | [`StoreName::Files`] | SHA-256 (hex) | a released file's bytes in a Blob (the meta-evaluation screen's files, so a workspace restores them) |
//!
//! **Durability.** Every write is its own readwrite transaction and its future resolves only
//! on the transaction's `complete` event: the data is then committed and survives a reload or
//! a closed tab (browsers may defer the disk flush — Chromium's default durability is
//! "relaxed" — so an OS crash or power loss right after can still lose the last writes).
//! [`Store::put_many`] writes a batch atomically.
//!
//! **Order.** Keys sort as IndexedDB compares strings (UTF-16 code units); [`log_key`]
//! zero-pads the sequence number so an annotation log reads back in the order it was written.
//!
//! **Without IndexedDB** (disabled storage, some private modes, sandboxed frames) [`Store::open`]
//! fails with [`StoreError::Unavailable`]; [`Store::open_or_memory`] then returns a store held in
//! memory with the same API, so the app keeps working for the session
//! ([`Store::is_persistent`] tells the UI to say so).
//!
//! Built on the `idb` crate (futures over IndexedDB requests and transactions).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use idb::{
    DatabaseEvent, Factory, KeyRange, ObjectStoreParams, Query, TransactionMode, TransactionResult,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::js;

/// The database every store lives in.
pub const DATABASE: &str = "concord";
/// Schema version; bump it (and extend `upgrade`) to add stores.
const VERSION: u32 = 3;

/// The object stores of the `concord` database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoreName {
    /// The run cache: response JSON by cache key.
    Responses,
    /// Run manifests by run id.
    Runs,
    /// CoEval action logs, one record per action, keyed by [`log_key`].
    Annotations,
    /// User settings.
    Settings,
    /// Saved workspaces: each one's bundle as bytes (the list of them is a setting).
    Workspaces,
    /// Files a workspace shows but does not carry (the meta-evaluation screen's released
    /// files), as bytes by their SHA-256.
    Files,
}

impl StoreName {
    pub const ALL: [StoreName; 6] = [
        StoreName::Responses,
        StoreName::Runs,
        StoreName::Annotations,
        StoreName::Settings,
        StoreName::Workspaces,
        StoreName::Files,
    ];

    /// The object store's name in IndexedDB.
    pub fn as_str(self) -> &'static str {
        match self {
            StoreName::Responses => "responses",
            StoreName::Runs => "runs",
            StoreName::Annotations => "annotations",
            StoreName::Settings => "settings",
            StoreName::Workspaces => "workspaces",
            StoreName::Files => "files",
        }
    }
}

/// Why a storage operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// IndexedDB cannot be used here (turned off, private browsing, sandboxed frame, blocked
    /// by the browser's settings). Nothing will persist; keep going in memory.
    Unavailable(String),
    /// The browser refused the write because the site's storage quota is full.
    QuotaExceeded,
    /// The transaction was aborted (by the browser, or another error in it); nothing of it
    /// was written.
    Aborted(String),
    /// A stored value is not a string (the database was written by something else).
    NotText { store: &'static str, key: String },
    /// A stored value is not bytes (the database was written by something else).
    NotBytes { store: &'static str, key: String },
    /// Any other failure of operation `op`.
    Failed { op: &'static str, detail: String },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(detail) => write!(
                f,
                "this browser does not let the page store data ({detail}); results are kept in \
                 memory only and are lost when the page is closed"
            ),
            StoreError::QuotaExceeded => f.write_str(
                "the browser's storage for this site is full; clear the response cache or free \
                 disk space, then retry",
            ),
            StoreError::Aborted(detail) => {
                write!(f, "the browser cancelled the write, nothing was saved ({detail})")
            }
            StoreError::NotText { store, key } => {
                write!(f, "the stored value `{key}` in `{store}` is not text")
            }
            StoreError::NotBytes { store, key } => {
                write!(f, "the stored value `{key}` in `{store}` is not bytes")
            }
            StoreError::Failed { op, detail } => write!(f, "storage {op} failed: {detail}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// Whether the app should fall back to memory (see [`Store::open_or_memory`]).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// Classifies an `idb` error by the DOMException name its text carries.
    fn from_idb(op: &'static str, error: &idb::Error) -> StoreError {
        let detail = error.to_string();
        if detail.contains("QuotaExceededError") {
            StoreError::QuotaExceeded
        } else if detail.contains("AbortError") {
            StoreError::Aborted(detail)
        } else if matches!(error, idb::Error::IndexedDbNotFound(_))
            || detail.contains("SecurityError")
            || (op == "open" && detail.contains("InvalidStateError"))
        {
            StoreError::Unavailable(detail)
        } else {
            StoreError::Failed { op, detail }
        }
    }
}

/// The key of record `seq` of an annotation session: `session/000000000042`. Zero-padding
/// makes key order equal to sequence order.
pub fn log_key(session: &str, seq: u64) -> String {
    format!("{session}/{seq:012}")
}

/// A handle on the `concord` database (or its in-memory stand-in). Cheap to clone.
#[derive(Clone)]
pub struct Store {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Idb(Rc<idb::Database>),
    Memory(Rc<RefCell<BTreeMap<StoreName, BTreeMap<String, String>>>>, Rc<RefCell<MemoryBytes>>),
}

/// The in-memory stand-in's byte values, by store and key.
type MemoryBytes = BTreeMap<(StoreName, String), Vec<u8>>;

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("persistent", &self.is_persistent()).finish()
    }
}

impl Store {
    /// Opens (creating or upgrading) the `concord` database.
    pub async fn open() -> Result<Store, StoreError> {
        Store::open_named(DATABASE).await
    }

    /// Opens `concord`, or, when IndexedDB is unavailable, an empty in-memory store; the
    /// error says why (show it once), `None` when the store persists.
    pub async fn open_or_memory() -> (Store, Option<StoreError>) {
        match Store::open().await {
            Ok(store) => (store, None),
            Err(e) => (Store::memory(), Some(e)),
        }
    }

    /// A store that lives in memory only, with the same behaviour (tests, fallback).
    pub fn memory() -> Store {
        Store { backend: Backend::Memory(Rc::default(), Rc::default()) }
    }

    /// Opens a database with this name and Concord's schema (tests use their own names).
    pub async fn open_named(name: &str) -> Result<Store, StoreError> {
        let factory = Factory::new().map_err(|e| match StoreError::from_idb("open", &e) {
            StoreError::Failed { detail, .. } => StoreError::Unavailable(detail),
            other => other,
        })?;
        let mut request = factory.open(name, Some(VERSION)).map_err(|e| {
            // open() throws synchronously only when storage is denied (e.g. SecurityError).
            StoreError::Unavailable(e.to_string())
        })?;
        request.on_upgrade_needed(|event| {
            // Errors here abort the version change, which then fails the open request.
            if let Ok(db) = event.database() {
                let existing = db.store_names();
                for store in StoreName::ALL {
                    if !existing.iter().any(|s| s == store.as_str()) {
                        let _ = db.create_object_store(store.as_str(), ObjectStoreParams::new());
                    }
                }
            }
        });
        let db = request.await.map_err(|e| match StoreError::from_idb("open", &e) {
            // An open request that errors (rather than throws) is the browser refusing storage
            // (Firefox's old private mode: InvalidStateError; UnknownError on a broken profile).
            StoreError::Failed { detail, .. } => StoreError::Unavailable(detail),
            other => other,
        })?;
        Ok(Store { backend: Backend::Idb(Rc::new(db)) })
    }

    /// Whether writes survive closing the page (false for the in-memory stand-in).
    pub fn is_persistent(&self) -> bool {
        matches!(self.backend, Backend::Idb(_))
    }

    /// The value stored under `key`, if any.
    pub async fn get(&self, store: StoreName, key: &str) -> Result<Option<String>, StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                return Ok(m.borrow().get(&store).and_then(|s| s.get(key)).cloned());
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadOnly)?;
        let os = object_store(&tx, store)?;
        let value = os
            .get(JsValue::from_str(key))
            .map_err(|e| StoreError::from_idb("read", &e))?
            .await
            .map_err(|e| StoreError::from_idb("read", &e))?;
        match value {
            None => Ok(None),
            Some(v) => v
                .as_string()
                .map(Some)
                .ok_or_else(|| StoreError::NotText { store: store.as_str(), key: key.to_owned() }),
        }
    }

    /// Stores `value` under `key` (replacing any), resolving once the transaction committed.
    pub async fn put(&self, store: StoreName, key: &str, value: &str) -> Result<(), StoreError> {
        self.put_many(store, &[(key, value)]).await
    }

    /// Stores every entry in one transaction: all or none, resolving once it committed.
    pub async fn put_many<K: AsRef<str>, V: AsRef<str>>(
        &self,
        store: StoreName,
        entries: &[(K, V)],
    ) -> Result<(), StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                let mut m = m.borrow_mut();
                let s = m.entry(store).or_default();
                for (k, v) in entries {
                    s.insert(k.as_ref().to_owned(), v.as_ref().to_owned());
                }
                return Ok(());
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadWrite)?;
        let os = object_store(&tx, store)?;
        for (key, value) in entries {
            // Requests are queued in order; their results are not needed, only the commit.
            let _request = os
                .put(&JsValue::from_str(value.as_ref()), Some(&JsValue::from_str(key.as_ref())))
                .map_err(|e| StoreError::from_idb("write", &e))?;
        }
        commit(tx, "write").await
    }

    /// Removes `key` (no error when absent), resolving once committed.
    pub async fn delete(&self, store: StoreName, key: &str) -> Result<(), StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                if let Some(s) = m.borrow_mut().get_mut(&store) {
                    s.remove(key);
                }
                return Ok(());
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadWrite)?;
        let os = object_store(&tx, store)?;
        let _request =
            os.delete(JsValue::from_str(key)).map_err(|e| StoreError::from_idb("delete", &e))?;
        commit(tx, "delete").await
    }

    /// Every key that starts with `prefix`, in key order (`""`: every key).
    pub async fn keys_with_prefix(
        &self,
        store: StoreName,
        prefix: &str,
    ) -> Result<Vec<String>, StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                return Ok(m
                    .borrow()
                    .get(&store)
                    .map(|s| s.keys().filter(|k| k.starts_with(prefix)).cloned().collect())
                    .unwrap_or_default());
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadOnly)?;
        let os = object_store(&tx, store)?;
        let keys = os
            .get_all_keys(prefix_range(prefix)?, None)
            .map_err(|e| StoreError::from_idb("read", &e))?
            .await
            .map_err(|e| StoreError::from_idb("read", &e))?;
        Ok(keys.into_iter().filter_map(|k| k.as_string()).collect())
    }

    /// Every (key, value) whose key starts with `prefix`, in key order: e.g. one annotation
    /// session's log, `get_with_prefix(Annotations, "session/")`.
    pub async fn get_with_prefix(
        &self,
        store: StoreName,
        prefix: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                return Ok(m
                    .borrow()
                    .get(&store)
                    .map(|s| {
                        s.iter()
                            .filter(|(k, _)| k.starts_with(prefix))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect()
                    })
                    .unwrap_or_default());
            }
            Backend::Idb(db) => db,
        };
        read_entries(db, store, prefix_range(prefix)?, None).await
    }

    /// Up to `limit` (key, value) entries with keys after `after` (from the first key when
    /// `None`), in key order: a store too big to read at once (a 10,000-item run stores
    /// 800,000 samples) is read page by page, the caller yielding to the page in between.
    pub async fn get_page(
        &self,
        store: StoreName,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                use std::ops::Bound;
                let lower = after.map_or(Bound::Unbounded, |a| Bound::Excluded(a.to_owned()));
                return Ok(m
                    .borrow()
                    .get(&store)
                    .map(|s| {
                        s.range((lower, Bound::Unbounded))
                            .take(limit as usize)
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect()
                    })
                    .unwrap_or_default());
            }
            Backend::Idb(db) => db,
        };
        let range = after
            .map(|a| {
                KeyRange::lower_bound(&JsValue::from_str(a), Some(true))
                    .map(Query::from)
                    .map_err(|e| StoreError::from_idb("read", &e))
            })
            .transpose()?;
        read_entries(db, store, range, Some(limit)).await
    }

    /// How many records `store` holds.
    pub async fn count(&self, store: StoreName) -> Result<u32, StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, _) => {
                let n = m.borrow().get(&store).map_or(0, BTreeMap::len);
                return Ok(u32::try_from(n).unwrap_or(u32::MAX));
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadOnly)?;
        let os = object_store(&tx, store)?;
        os.count(None)
            .map_err(|e| StoreError::from_idb("count", &e))?
            .await
            .map_err(|e| StoreError::from_idb("count", &e))
    }

    /// Removes every record of `store`, resolving once committed.
    pub async fn clear(&self, store: StoreName) -> Result<(), StoreError> {
        let db = match &self.backend {
            Backend::Memory(m, b) => {
                m.borrow_mut().remove(&store);
                b.borrow_mut().retain(|(s, _), _| *s != store);
                return Ok(());
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadWrite)?;
        let os = object_store(&tx, store)?;
        let _request = os.clear().map_err(|e| StoreError::from_idb("clear", &e))?;
        commit(tx, "clear").await
    }

    /// Stores `bytes` under `key` (replacing any), resolving once the transaction committed.
    /// The browser keeps a copy: `bytes` can be reused at once.
    pub async fn put_bytes(
        &self,
        store: StoreName,
        key: &str,
        bytes: &js_sys::Uint8Array,
    ) -> Result<(), StoreError> {
        let db = match &self.backend {
            Backend::Memory(_, b) => {
                b.borrow_mut().insert((store, key.to_owned()), bytes.to_vec());
                return Ok(());
            }
            Backend::Idb(db) => db,
        };
        // Stored as a Blob: writing an ArrayBuffer copies it into the database on the page's
        // thread (a 50 MB workspace: a task of over 100 ms); a Blob is handed over as is.
        let parts = js_sys::Array::of1(bytes);
        let blob = web_sys::Blob::new_with_u8_array_sequence(&parts)
            .map_err(|e| StoreError::Failed { op: "write", detail: js::error_message(&e) })?;
        let tx = transaction(db, store, TransactionMode::ReadWrite)?;
        let os = object_store(&tx, store)?;
        let _request = os
            .put(blob.as_ref(), Some(&JsValue::from_str(key)))
            .map_err(|e| StoreError::from_idb("write", &e))?;
        commit(tx, "write").await
    }

    /// The bytes stored under `key`, if any.
    pub async fn get_bytes(
        &self,
        store: StoreName,
        key: &str,
    ) -> Result<Option<js_sys::Uint8Array>, StoreError> {
        let db = match &self.backend {
            Backend::Memory(_, b) => {
                return Ok(b
                    .borrow()
                    .get(&(store, key.to_owned()))
                    .map(|v| js_sys::Uint8Array::from(v.as_slice())));
            }
            Backend::Idb(db) => db,
        };
        let tx = transaction(db, store, TransactionMode::ReadOnly)?;
        let os = object_store(&tx, store)?;
        let value = os
            .get(JsValue::from_str(key))
            .map_err(|e| StoreError::from_idb("read", &e))?
            .await
            .map_err(|e| StoreError::from_idb("read", &e))?;
        match value {
            None => Ok(None),
            Some(v) if v.is_instance_of::<web_sys::Blob>() => {
                // Read off the page's thread.
                let blob: web_sys::Blob = v.unchecked_into();
                let buffer = JsFuture::from(blob.array_buffer()).await.map_err(|e| {
                    StoreError::Failed { op: "read", detail: js::error_message(&e) }
                })?;
                Ok(Some(js_sys::Uint8Array::new(&buffer)))
            }
            Some(v) if v.is_instance_of::<js_sys::Uint8Array>() => Ok(Some(v.unchecked_into())),
            Some(v) if v.is_instance_of::<js_sys::ArrayBuffer>() => {
                Ok(Some(js_sys::Uint8Array::new(&v)))
            }
            Some(_) => Err(StoreError::NotBytes { store: store.as_str(), key: key.to_owned() }),
        }
    }

    /// Removes the bytes under `key` (no error when absent), resolving once committed.
    pub async fn delete_bytes(&self, store: StoreName, key: &str) -> Result<(), StoreError> {
        if let Backend::Memory(_, b) = &self.backend {
            b.borrow_mut().remove(&(store, key.to_owned()));
            return Ok(());
        }
        self.delete(store, key).await
    }

    /// Appends record `seq` of annotation session `session` (see [`log_key`]), resolving once
    /// committed.
    pub async fn append_log(
        &self,
        session: &str,
        seq: u64,
        record: &str,
    ) -> Result<(), StoreError> {
        self.put(StoreName::Annotations, &log_key(session, seq), record).await
    }

    /// The records of annotation session `session`, as (seq, record), in sequence order.
    pub async fn read_log(&self, session: &str) -> Result<Vec<(u64, String)>, StoreError> {
        let prefix = format!("{session}/");
        let entries = self.get_with_prefix(StoreName::Annotations, &prefix).await?;
        Ok(entries
            .into_iter()
            .filter_map(|(k, v)| k.strip_prefix(&prefix)?.parse::<u64>().ok().map(|seq| (seq, v)))
            .collect())
    }
}

/// What the browser reports for the whole site: (bytes used, bytes allowed), from
/// `navigator.storage.estimate()`; `None` where the browser does not say.
pub async fn origin_usage() -> Option<(u64, u64)> {
    let storage = js::property(&js::global_property("navigator"), "storage");
    let estimate = js::property(&storage, "estimate").dyn_into::<js_sys::Function>().ok()?;
    let promise = estimate.call0(&storage).ok()?.dyn_into::<js_sys::Promise>().ok()?;
    let result = JsFuture::from(promise).await.ok()?;
    let usage = js::property(&result, "usage").as_f64()?;
    let quota = js::property(&result, "quota").as_f64()?;
    Some((usage.max(0.0) as u64, quota.max(0.0) as u64))
}

fn transaction(
    db: &idb::Database,
    store: StoreName,
    mode: TransactionMode,
) -> Result<idb::Transaction, StoreError> {
    db.transaction(&[store.as_str()], mode).map_err(|e| StoreError::from_idb("transaction", &e))
}

/// The (key, value) entries of `range` (every entry when `None`), at most `limit`, in key order.
async fn read_entries(
    db: &idb::Database,
    store: StoreName,
    range: Option<Query>,
    limit: Option<u32>,
) -> Result<Vec<(String, String)>, StoreError> {
    let tx = transaction(db, store, TransactionMode::ReadOnly)?;
    let os = object_store(&tx, store)?;
    // Same range and limit in the same transaction: keys and values come in the same order.
    let keys =
        os.get_all_keys(range.clone(), limit).map_err(|e| StoreError::from_idb("read", &e))?;
    let values = os.get_all(range, limit).map_err(|e| StoreError::from_idb("read", &e))?;
    let keys = keys.await.map_err(|e| StoreError::from_idb("read", &e))?;
    let values = values.await.map_err(|e| StoreError::from_idb("read", &e))?;
    let mut out = Vec::with_capacity(keys.len());
    for (k, v) in keys.into_iter().zip(values) {
        let key = k.as_string().unwrap_or_default();
        match v.as_string() {
            Some(value) => out.push((key, value)),
            None => return Err(StoreError::NotText { store: store.as_str(), key }),
        }
    }
    Ok(out)
}

fn object_store(tx: &idb::Transaction, store: StoreName) -> Result<idb::ObjectStore, StoreError> {
    tx.object_store(store.as_str()).map_err(|e| StoreError::from_idb("transaction", &e))
}

/// Asks the database to commit now and waits for it; an abort is an error (nothing was
/// written). Every request is already queued, so `commit()` flushes them without the round
/// trip an implicit commit waits for: a page reloaded or closed right after an action (a
/// keypress followed at once by F5) would otherwise abort the transaction and lose the action.
async fn commit(tx: idb::Transaction, op: &'static str) -> Result<(), StoreError> {
    let tx = tx.commit().map_err(|e| StoreError::from_idb(op, &e))?;
    match tx.await {
        Ok(TransactionResult::Committed) => Ok(()),
        Ok(TransactionResult::Aborted) => {
            Err(StoreError::Aborted(format!("the {op} transaction was aborted")))
        }
        Err(e) => Err(StoreError::from_idb(op, &e)),
    }
}

/// The key range of keys starting with `prefix`: [prefix, prefix + U+FFFF]. IndexedDB orders
/// strings by UTF-16 code unit and U+FFFF is the largest one, so only keys with U+FFFF right
/// after the prefix (never produced by Concord) are missed. `None` (every key) for `""`.
fn prefix_range(prefix: &str) -> Result<Option<Query>, StoreError> {
    if prefix.is_empty() {
        return Ok(None);
    }
    let upper = format!("{prefix}\u{FFFF}");
    KeyRange::bound(&JsValue::from_str(prefix), &JsValue::from_str(&upper), None, None)
        .map(|r| Some(Query::from(r)))
        .map_err(|e| StoreError::from_idb("read", &e))
}
