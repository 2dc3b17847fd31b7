//! The mock's batch APIs: OpenAI's Files + Batch API and Anthropic's Message Batches, with
//! accelerated time (a batch ends `batch.ms` after it was created), expiry, cancelling and
//! per-line errors, so batch mode is tested offline.
//!
//! - OpenAI: `POST /v1/files` (multipart: `purpose`, `file`), `POST /v1/batches`,
//!   `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`, `GET /v1/files/{id}/content`.
//! - Anthropic: `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`,
//!   `POST /v1/messages/batches/{id}/cancel`, `GET /v1/messages/batches/{id}/results`.
//! - `GET /__mock/batches`: every batch with its status and line count.
//!
//! A batch is answered when it is first looked at after its time is up: each line is answered
//! as the chat endpoint would answer its body, logged as a request of path `batch:<id>` with
//! the samples it answered (so the summary's duplicate check covers batch answers too). With
//! `batch.expire`, the batch expires instead: the first half of its lines are answered and the
//! rest expire. `batch.line_error_rate` fails lines with a 500 (chosen by hashing the line's
//! request and how often it was seen, like the chat endpoint's failures, so a line re-run
//! later meets a new fate).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Record, Reply, Request, State, answer, fnv, json_reply, prompt_text, sample_ids, unit,
};

/// The scenario's batch settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatchScenario {
    /// How long a batch takes, from its creation.
    pub ms: u64,
    /// The batch expires instead of completing (half its lines answered).
    pub expire: bool,
    /// Fraction of lines answered with a 500.
    pub line_error_rate: f64,
    /// OpenAI's per-model enqueued-token limit (the "Batch queue limit" of the rate-limits
    /// page): a batch whose input tokens (a token for every four characters of its prompts),
    /// with those of the model's batches still in progress, would exceed it is created and
    /// fails with `errors.data[0].code = "token_limit_exceeded"`.
    #[serde(default)]
    pub enqueued_limit: Option<u64>,
    /// Input tokens of other jobs' batches of the same model (another tool, another study)
    /// in progress when the first batch arrives; they end `elsewhere_ms` later.
    #[serde(default)]
    pub enqueued_elsewhere: u64,
    #[serde(default)]
    pub elsewhere_ms: u64,
}

impl Default for BatchScenario {
    fn default() -> BatchScenario {
        BatchScenario {
            ms: 2000,
            expire: false,
            line_error_rate: 0.0,
            enqueued_limit: None,
            enqueued_elsewhere: 0,
            elsewhere_ms: 0,
        }
    }
}

/// A batch the mock holds.
pub struct MockBatch {
    id: String,
    anthropic: bool,
    created: Instant,
    created_unix: u64,
    /// Each line's custom id and chat body.
    lines: Vec<(String, Value)>,
    input_file_id: Option<String>,
    cancelled: bool,
    /// Set when the batch ends: (status, answered lines' result lines, failed ones').
    ended: Option<(String, Vec<String>, Vec<String>)>,
    succeeded: usize,
    failed: usize,
    /// Its model and input tokens (for the enqueued-token limit).
    model: String,
    tokens: u64,
    /// `errors` of a batch the queue refused (`token_limit_exceeded`).
    refused: Option<Value>,
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn openai_error(status: u16, message: &str) -> Reply {
    json_reply(
        status,
        json!({"error": {"message": message, "type": "invalid_request_error", "code": null}}),
    )
}

fn anthropic_error(status: u16, message: &str) -> Reply {
    json_reply(
        status,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
    )
}

/// The file part of a multipart body.
fn multipart_file(req: &Request) -> Option<String> {
    let ct = req.header("content-type")?;
    let boundary =
        ct.split(';').find_map(|p| p.trim().strip_prefix("boundary="))?.trim_matches('"');
    let body = String::from_utf8_lossy(&req.body);
    let delimiter = format!("--{boundary}");
    for part in body.split(delimiter.as_str()) {
        let Some((head, content)) = part.split_once("\r\n\r\n") else { continue };
        if head.contains("name=\"file\"") {
            return Some(content.strip_suffix("\r\n").unwrap_or(content).to_owned());
        }
    }
    None
}

/// Routes a batch API request; `None` when the path is not one.
pub fn route(req: &Request, state: &mut State, path: &str) -> Option<Reply> {
    let method = req.method.as_str();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    Some(match (method, parts.as_slice()) {
        ("GET", ["__mock", "batches"]) => {
            let list: Vec<Value> = state
                .batches
                .iter()
                .map(|b| {
                    json!({"id": b.id, "lines": b.lines.len(), "anthropic": b.anthropic,
                    "status": b.ended.as_ref().map_or("in_progress", |e| e.0.as_str())})
                })
                .collect();
            json_reply(200, json!({"batches": list}))
        }
        ("POST", ["v1", "files"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, false) {
                return Some(denied);
            }
            let Some(file) = multipart_file(req) else {
                return Some(openai_error(400, "expected a multipart body with a `file` part"));
            };
            state.file_seq += 1;
            let id = format!("file-mock{:04}", state.file_seq);
            let bytes = file.len();
            state.files.insert(id.clone(), file);
            json_reply(
                200,
                json!({"id": id, "object": "file", "bytes": bytes, "purpose": "batch", "filename": "batch.jsonl"}),
            )
        }
        ("GET", ["v1", "files", id, "content"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, false) {
                return Some(denied);
            }
            match state.files.get(*id) {
                Some(text) => Reply::Full {
                    status: 200,
                    headers: vec![("content-type".into(), "application/octet-stream".into())],
                    body: text.clone(),
                },
                None => openai_error(404, &format!("No such File object: {id}")),
            }
        }
        ("POST", ["v1", "batches"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, false) {
                return Some(denied);
            }
            let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let Some(file_id) = body.get("input_file_id").and_then(Value::as_str) else {
                return Some(openai_error(400, "missing input_file_id"));
            };
            let Some(text) = state.files.get(file_id).cloned() else {
                return Some(openai_error(404, &format!("No such File object: {file_id}")));
            };
            let mut lines = Vec::new();
            for (n, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let Ok(v) = serde_json::from_str::<Value>(raw) else {
                    return Some(openai_error(
                        400,
                        &format!("line {} of the input file is not JSON", n + 1),
                    ));
                };
                let id = v.get("custom_id").and_then(Value::as_str).unwrap_or_default().to_owned();
                lines.push((id, v.get("body").cloned().unwrap_or(Value::Null)));
            }
            let id = new_batch(state, false, lines, Some(file_id.to_owned()));
            let reply = openai_object(state, &id);
            queue_limit(state, &id);
            reply
        }
        ("GET", ["v1", "batches", id]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, false) {
                return Some(denied);
            }
            advance(state, id);
            openai_object(state, id)
        }
        ("POST", ["v1", "batches", id, "cancel"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, false) {
                return Some(denied);
            }
            cancel(state, id);
            openai_object(state, id)
        }
        ("POST", ["v1", "messages", "batches"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, true) {
                return Some(denied);
            }
            let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let Some(requests) = body.get("requests").and_then(Value::as_array) else {
                return Some(anthropic_error(400, "requests: field required"));
            };
            let lines = requests
                .iter()
                .map(|r| {
                    let id =
                        r.get("custom_id").and_then(Value::as_str).unwrap_or_default().to_owned();
                    (id, r.get("params").cloned().unwrap_or(Value::Null))
                })
                .collect();
            let id = new_batch(state, true, lines, None);
            anthropic_object(state, &id)
        }
        ("GET", ["v1", "messages", "batches", id]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, true) {
                return Some(denied);
            }
            advance(state, id);
            anthropic_object(state, id)
        }
        ("POST", ["v1", "messages", "batches", id, "cancel"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, true) {
                return Some(denied);
            }
            cancel(state, id);
            anthropic_object(state, id)
        }
        ("GET", ["v1", "messages", "batches", id, "results"]) => {
            if let Some(denied) = super::check_key(req, &state.scenario, true) {
                return Some(denied);
            }
            advance(state, id);
            match state.batches.iter().find(|b| b.id == *id) {
                Some(MockBatch { ended: Some((_, ok, failed)), .. }) => {
                    let mut text = String::new();
                    for line in ok.iter().chain(failed) {
                        text.push_str(line);
                        text.push('\n');
                    }
                    Reply::Full {
                        status: 200,
                        headers: vec![("content-type".into(), "application/x-jsonl".into())],
                        body: text,
                    }
                }
                Some(_) => anthropic_error(400, "the batch is still processing"),
                None => json_reply(
                    404,
                    json!({"type": "error", "error": {"type": "not_found_error", "message": "batch not found"}}),
                ),
            }
        }
        _ => return None,
    })
}

fn new_batch(
    state: &mut State,
    anthropic: bool,
    lines: Vec<(String, Value)>,
    input_file_id: Option<String>,
) -> String {
    state.batch_seq += 1;
    let id = if anthropic {
        format!("msgbatch_mock{:04}", state.batch_seq)
    } else {
        format!("batch_mock{:04}", state.batch_seq)
    };
    let model = lines
        .first()
        .and_then(|(_, b)| b.get("model"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let tokens = lines
        .iter()
        .map(|(_, b)| (prompt_text(b, anthropic).chars().count() as u64).div_ceil(4))
        .sum();
    state.batches.push(MockBatch {
        model,
        tokens,
        refused: None,
        id: id.clone(),
        anthropic,
        created: Instant::now(),
        created_unix: unix_now(),
        lines,
        input_file_id,
        cancelled: false,
        ended: None,
        succeeded: 0,
        failed: 0,
    });
    id
}

/// Refuses the batch `id` (just created: answered as `validating`, as OpenAI answers a create)
/// when the model's queue cannot take it: its tokens and those of the model's batches in
/// progress, here and elsewhere, over the scenario's `enqueued_limit`. The batch then reads
/// `failed` with the error openai/openai-python#2084 shows: `BatchError(code=
/// 'token_limit_exceeded', line=None, message='Enqueued token limit reached for gpt-4o-mini in
/// organization org-…. Limit: 2,000,000 enqueued tokens. Please try again once some
/// in_progress batches have been completed.', param=None)`.
fn queue_limit(state: &mut State, id: &str) {
    let Some(limit) = state.scenario.batch.enqueued_limit else { return };
    let Some(at) = state.batches.iter().position(|b| b.id == id) else { return };
    let (model, tokens) = (state.batches[at].model.clone(), state.batches[at].tokens);
    let since = *state.elsewhere_since.get_or_insert_with(Instant::now);
    let elsewhere = if since.elapsed() < Duration::from_millis(state.scenario.batch.elsewhere_ms) {
        state.scenario.batch.enqueued_elsewhere
    } else {
        0
    };
    let here: u64 = state
        .batches
        .iter()
        .filter(|b| b.id != id && b.model == model && b.ended.is_none() && !b.cancelled)
        .map(|b| b.tokens)
        .sum();
    if here + elsewhere + tokens <= limit {
        return;
    }
    let limit_text = thousands(limit);
    let batch = &mut state.batches[at];
    batch.refused = Some(json!({"object": "list", "data": [{
        "code": "token_limit_exceeded",
        "message": format!("Enqueued token limit reached for {model} in organization org-mock. Limit: {limit_text} enqueued tokens. Please try again once some in_progress batches have been completed."),
        "param": null,
        "line": null,
    }]}));
    batch.ended = Some(("failed".to_owned(), Vec::new(), Vec::new()));
}

/// `2000000` as `2,000,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn cancel(state: &mut State, id: &str) {
    if let Some(b) = state.batches.iter_mut().find(|b| b.id == id)
        && b.ended.is_none()
    {
        b.cancelled = true;
    }
    advance(state, id);
}

/// Ends the batch when its time is up (or it was cancelled): answers its lines.
fn advance(state: &mut State, id: &str) {
    let scenario = state.scenario.clone();
    let Some(at) = state.batches.iter().position(|b| b.id == id) else { return };
    let batch = &state.batches[at];
    let due = batch.created.elapsed() >= Duration::from_millis(scenario.batch.ms);
    if batch.ended.is_some() || !(due || batch.cancelled) {
        return;
    }
    let anthropic = batch.anthropic;
    let cancelled = batch.cancelled;
    let expire = scenario.batch.expire && !cancelled;
    let lines = batch.lines.clone();
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    for (i, (custom_id, body)) in lines.iter().enumerate() {
        let prompt = prompt_text(body, anthropic);
        let messages_hash = fnv(&[prompt.as_bytes()]);
        let (n, seed, samples, request_key) = sample_ids(body, messages_hash, anthropic);
        let gone = if cancelled {
            Some(if anthropic { "canceled" } else { "batch_cancelled" })
        } else if expire && i >= lines.len().div_ceil(2) {
            Some(if anthropic { "expired" } else { "batch_expired" })
        } else {
            None
        };
        if let Some(kind) = gone {
            failed.push(if anthropic {
                json!({"custom_id": custom_id, "result": {"type": kind}})
            } else {
                json!({"id": format!("req_{i}"), "custom_id": custom_id, "response": null,
                    "error": {"code": kind, "message": "This request could not be executed before the batch ended."}})
            }.to_string());
            continue;
        }
        let occurrence = {
            let count = state.seen.entry(format!("batch:{request_key}")).or_insert(0);
            *count += 1;
            *count
        };
        let fate = fnv(&[
            &scenario.seed.to_le_bytes(),
            b"batch",
            request_key.as_bytes(),
            &occurrence.to_le_bytes(),
        ]);
        state.seq += 1;
        let mut record = Record {
            seq: state.seq,
            t_ms: state.started.elapsed().as_millis() as u64,
            method: "POST".into(),
            path: format!("batch:{id}"),
            samples,
            status: 200,
            outcome: "ok".into(),
            answered_ok: true,
        };
        if unit(fate) < scenario.batch.line_error_rate {
            record.status = 500;
            record.outcome = "server_error".into();
            record.answered_ok = false;
            failed.push(if anthropic {
                json!({"custom_id": custom_id, "result": {"type": "errored", "error": {"type": "error",
                    "error": {"type": "api_error", "message": "Internal server error (injected)"}}}})
            } else {
                json!({"id": format!("req_{i}"), "custom_id": custom_id, "response": {"status_code": 500,
                    "request_id": format!("req_{i}"), "body": {"error": {"message": "The server had an error (injected)", "type": "server_error"}}}, "error": null})
            }.to_string());
        } else {
            let answered = state.log.iter().filter(|r| r.answered_ok).count() as u64;
            match answer(&scenario, body, &prompt, messages_hash, seed, n, anthropic, answered) {
                // The answer is the chat endpoint's own body, `usage` included: OpenAI's batch
                // output line is `{id, custom_id, response: {status_code, request_id, body},
                // error}` with `body` the Chat Completions object (its `usage` holds
                // `prompt_tokens`/`completion_tokens`; API reference, "The request output
                // object"); Anthropic's results line is `{custom_id, result: {type: "succeeded",
                // message}}` with `message` a Messages response, `usage.input_tokens`/
                // `output_tokens` included (API reference, "Retrieve Message Batch results",
                // MessageBatchSucceededResult). Concord prices a batch's answers from this usage,
                // on its card and in Results.
                Ok(full) => {
                    let answer: Value = serde_json::from_str(&full).unwrap_or(Value::Null);
                    ok.push(if anthropic {
                        json!({"custom_id": custom_id, "result": {"type": "succeeded", "message": answer}})
                    } else {
                        json!({"id": format!("req_{i}"), "custom_id": custom_id,
                            "response": {"status_code": 200, "request_id": format!("req_{i}"), "body": answer}, "error": null})
                    }.to_string());
                }
                // A refused line, as the batch APIs report one: Anthropic's `errored` result
                // with the API's error, OpenAI's response with its status and error body.
                Err((status, refusal)) => {
                    record.status = status;
                    record.outcome = "bad_request".into();
                    record.answered_ok = false;
                    failed.push(if anthropic {
                        json!({"custom_id": custom_id, "result": {"type": "errored", "error": refusal}})
                    } else {
                        json!({"id": format!("req_{i}"), "custom_id": custom_id, "response": {"status_code": status,
                            "request_id": format!("req_{i}"), "body": refusal}, "error": null})
                    }.to_string());
                }
            }
        }
        state.log.push(record);
    }
    let status = if cancelled {
        "cancelled"
    } else if expire {
        "expired"
    } else {
        "completed"
    };
    let batch = &mut state.batches[at];
    batch.succeeded = ok.len();
    batch.failed = failed.len();
    batch.ended = Some((status.to_owned(), ok, failed));
}

fn openai_object(state: &mut State, id: &str) -> Reply {
    let Some(at) = state.batches.iter().position(|b| b.id == id) else {
        return openai_error(404, &format!("No batch found with id '{id}'."));
    };
    // The output and error files exist once the batch has ended.
    let files =
        state.batches[at].ended.as_ref().map(|(_, ok, failed)| (ok.join("\n"), failed.join("\n")));
    let (mut output, mut errors) = (None, None);
    if let Some((ok, failed)) = files {
        let out_id = format!("file-out-{id}");
        let err_id = format!("file-err-{id}");
        if !ok.is_empty() {
            state.files.insert(out_id.clone(), format!("{ok}\n"));
            output = Some(out_id);
        }
        if !failed.is_empty() {
            state.files.insert(err_id.clone(), format!("{failed}\n"));
            errors = Some(err_id);
        }
    }
    let b = &state.batches[at];
    let total = b.lines.len();
    let (status, completed, failed) = match &b.ended {
        Some((status, _, _)) => (status.clone(), b.succeeded, b.failed),
        None if b.cancelled => ("cancelling".to_owned(), 0, 0),
        None => {
            let ms = state.scenario.batch.ms.max(1) as f64;
            let done = ((b.created.elapsed().as_millis() as f64 / ms) * total as f64) as usize;
            ("in_progress".to_owned(), done.min(total.saturating_sub(1)), 0)
        }
    };
    json_reply(
        200,
        json!({
            "id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": b.refused,
            "input_file_id": b.input_file_id, "completion_window": "24h", "status": status,
            "output_file_id": output, "error_file_id": errors,
            "created_at": b.created_unix, "expires_at": b.created_unix + 86_400,
            "request_counts": {"total": total, "completed": completed, "failed": failed},
            "metadata": null,
        }),
    )
}

fn anthropic_object(state: &State, id: &str) -> Reply {
    let Some(b) = state.batches.iter().find(|b| b.id == id) else {
        return json_reply(
            404,
            json!({"type": "error", "error": {"type": "not_found_error", "message": "batch not found"}}),
        );
    };
    let total = b.lines.len();
    let mut counts =
        json!({"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0});
    let status = match &b.ended {
        Some((_, ok, failed)) => {
            let kind = |k: &str| {
                failed.iter().filter(|l| l.contains(&format!("\"type\":\"{k}\""))).count()
            };
            counts = json!({"processing": 0, "succeeded": ok.len(), "errored": kind("errored"),
                "canceled": kind("canceled"), "expired": kind("expired")});
            "ended"
        }
        None if b.cancelled => "canceling",
        None => "in_progress",
    };
    json_reply(
        200,
        json!({
            "id": b.id, "type": "message_batch", "processing_status": status, "request_counts": counts,
            "created_at": b.created_unix.to_string(), "expires_at": (b.created_unix + 86_400).to_string(),
            "results_url": b.ended.as_ref().map(|_| format!("/v1/messages/batches/{}/results", b.id)),
        }),
    )
}
