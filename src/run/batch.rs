//! The providers' batch APIs on the wire: submitting a batch (the upload, then the batch),
//! asking how it is doing, downloading its result files, and the batch records kept in
//! IndexedDB's `runs` store. What to send and how to read the answers is the core's
//! ([`concord_core::run::batch`]); this module sends and stores, with the key it is given.
//! The Run screen (`screens/run/batch.rs`) decides when, and says what happened.

use concord_core::run::batch::{self, BatchApi, BatchError, BatchRecord, BatchState};
use concord_core::run::{Endpoint, HttpRequest, ProviderId};

use crate::edge::http::{self, FetchError, HttpReply};
use crate::edge::store::{Store, StoreName};
use crate::edge::time;

/// Where batch records are kept in the `runs` store.
const PREFIX: &str = "batch/";
/// Time limit of a batch API call (an upload of a large file takes a while).
const TIMEOUT_MS: u32 = 300_000;

/// Why a batch call (submit, check, collect, cancel) failed: said on the batch's line of the
/// Batches panel or under the Run button.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BatchCallError {
    /// The request could not be built (the provider's address or the batch's id).
    #[error("{0}")]
    Build(concord_core::run::request::BuildError),
    /// No answer from the provider.
    #[error("{}", fetch_failure(*.api, .error))]
    Fetch { api: BatchApi, error: FetchError },
    /// The provider refused, or answered what cannot be read.
    #[error("{}", batch_failure(.0))]
    Provider(BatchError),
    #[error("uploading the requests failed: {}", batch_failure(.0))]
    Upload(BatchError),
    #[error("Downloading the results failed: {what} (HTTP {status}): {message}")]
    Download { what: String, status: u16, message: String },
}

/// A batch API call's failure in words (a network failure says what the provider needs).
fn fetch_failure(api: BatchApi, e: &FetchError) -> String {
    match e {
        FetchError::Network(_) => format!("{e}. {}", api.cors_note()),
        _ => e.to_string(),
    }
}

fn batch_failure(e: &BatchError) -> String {
    match e {
        BatchError::Api(error) => {
            let status =
                if error.status == 0 { String::new() } else { format!(" (HTTP {})", error.status) };
            format!("{}{status}: {}", error.what(), error.message)
        }
        other => other.to_string(),
    }
}

/// Sends one batch API call.
pub async fn send(api: BatchApi, req: &HttpRequest) -> Result<HttpReply, BatchCallError> {
    // An upload gets time in proportion to its size (a 200 MB file takes a while).
    let timeout = TIMEOUT_MS.max(batch::transfer_timeout_ms(req.body.len()));
    http::send(req, timeout, None).await.map_err(|error| BatchCallError::Fetch { api, error })
}

/// Keeps `record` in the `runs` store (under [`BatchRecord::store_key`]); whether it was
/// written.
pub async fn save(store: &Store, record: &BatchRecord) -> bool {
    let json = serde_json::to_string(record).unwrap_or_default();
    store.put(StoreName::Runs, &record.store_key(), &json).await.is_ok()
}

/// Every batch record kept in this browser, oldest first (unreadable ones are left out).
pub async fn load_records(store: &Store) -> Vec<BatchRecord> {
    let mut records: Vec<BatchRecord> = store
        .get_with_prefix(StoreName::Runs, PREFIX)
        .await
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(_, json)| serde_json::from_str(&json).ok())
        .collect();
    records.sort_by_key(|r| r.submitted_at);
    records
}

/// The endpoint a batch was made for.
pub fn endpoint_of(record: &BatchRecord) -> Endpoint {
    Endpoint {
        provider: ProviderId::from_slug(&record.provider).unwrap_or(ProviderId::Custom),
        base_url: record.base_url.clone(),
        model: record.model.clone(),
    }
}

/// The endpoint its answers are keyed to: the provider's own address when the base URL is a
/// proxy for it.
pub fn key_endpoint_of(record: &BatchRecord) -> Endpoint {
    let mut endpoint = endpoint_of(record);
    if record.proxy {
        endpoint.base_url = endpoint.provider.preset().base_url.to_owned();
    }
    endpoint
}

/// Asks the provider how the batch `id` is doing.
pub async fn status(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    id: &str,
) -> Result<BatchState, BatchCallError> {
    let req = batch::status_request(api, endpoint, api_key, id).map_err(BatchCallError::Build)?;
    let reply = send(api, &req).await?;
    batch::parse_batch(api, reply.status, &reply.headers, &reply.body, time::now_ms())
        .map_err(BatchCallError::Provider)
}

/// Downloads a finished batch's result files (answers and errors), in the order the core's
/// `results_requests` gives them.
pub async fn download_results(
    record: &BatchRecord,
    endpoint: &Endpoint,
    api_key: &str,
) -> Result<Vec<String>, BatchCallError> {
    let mut files = Vec::new();
    for req in batch::results_requests(record.api, endpoint, api_key, &record.state)
        .map_err(BatchCallError::Build)?
    {
        let reply = send(record.api, &req).await?;
        if !reply.is_success() {
            let error = concord_core::run::classify_error(
                reply.status,
                &reply.headers,
                &reply.body,
                time::now_ms(),
            );
            return Err(BatchCallError::Download {
                what: error.what().to_string(),
                status: reply.status,
                message: error.message,
            });
        }
        files.push(reply.body);
    }
    Ok(files)
}

/// Uploads (OpenAI) and creates one batch; the provider's description of it.
pub async fn submit(
    api: BatchApi,
    endpoint: &Endpoint,
    key: &str,
    lines: &[batch::BatchLine],
) -> Result<BatchState, BatchCallError> {
    let file_id = match api {
        BatchApi::OpenAi => {
            let req = batch::upload_request(endpoint, key, lines).map_err(BatchCallError::Build)?;
            let reply = send(api, &req).await?;
            batch::parse_upload(reply.status, &reply.headers, &reply.body, time::now_ms())
                .map_err(BatchCallError::Upload)?
        }
        BatchApi::Anthropic => String::new(),
    };
    let req = batch::create_request(api, endpoint, key, &file_id, lines)
        .map_err(BatchCallError::Build)?;
    let reply = send(api, &req).await?;
    batch::parse_batch(api, reply.status, &reply.headers, &reply.body, time::now_ms())
        .map_err(BatchCallError::Provider)
}

/// Asks the provider to cancel the batch `id`; its description of it after.
pub async fn cancel(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    id: &str,
) -> Result<BatchState, BatchCallError> {
    let req = batch::cancel_request(api, endpoint, api_key, id).map_err(BatchCallError::Build)?;
    let reply = send(api, &req).await?;
    batch::parse_batch(api, reply.status, &reply.headers, &reply.body, time::now_ms())
        .map_err(BatchCallError::Provider)
}
