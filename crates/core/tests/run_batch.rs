//! Batch APIs as values: lines equal to interactive calls, splitting under limits, the spend
//! cap at the batch price, the requests of each step, reading batch objects and result files.

use concord_core::judge::{ChatRequest, Message};
use concord_core::run::batch::{
    BATCH_DISCOUNT, BatchApi, BatchCounts, BatchError, BatchLimits, BatchPhase, BatchRecord,
    BatchState, CollectedSummary, LineRef, batch_line, batch_price, cancel_request, collect,
    create_request, failure_causes, fit_under_cap, line_json, parse_batch, parse_upload,
    results_requests, split, status_request, upload_request,
};
use concord_core::run::{
    CallOptions, Capabilities, Endpoint, ErrorKind, Method, Price, ProviderId, SampleBatch,
    build_chat, cache_key,
};
use serde_json::{Value, json};

fn request(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("You are a judge."), Message::user(text)],
        temperature: Some(1.0),
        top_p: None,
        n: 3,
        max_tokens: Some(20),
        logprobs: None,
        stop: Vec::new(),
        tag: "t".into(),
        schema: None,
    }
}

fn endpoint(provider: ProviderId) -> Endpoint {
    Endpoint { provider, base_url: "http://127.0.0.1:9/v1".into(), model: "m".into() }
}

fn keys(endpoint: &Endpoint, req: &ChatRequest) -> Vec<String> {
    (0..req.n).map(|i| cache_key(endpoint, req, i)).collect()
}

fn line(provider: ProviderId, text: &str) -> concord_core::run::batch::BatchLine {
    let ep = endpoint(provider);
    let req = request(text);
    let caps = Capabilities::for_model(provider, "m");
    let batch = SampleBatch { first: 0, count: caps.samples_per_call().min(3) };
    batch_line(&ep, &caps, &req, batch, &keys(&ep, &req), "sk-secret").expect("line")
}

#[test]
fn only_openai_and_anthropic_have_a_batch_mode() {
    assert_eq!(BatchApi::for_provider(ProviderId::OpenAi), Some(BatchApi::OpenAi));
    assert_eq!(BatchApi::for_provider(ProviderId::Anthropic), Some(BatchApi::Anthropic));
    for p in [ProviderId::OpenRouter, ProviderId::Groq, ProviderId::Custom, ProviderId::Gemini] {
        assert_eq!(BatchApi::for_provider(p), None, "{p}");
    }
    assert!(
        concord_core::run::batch::no_batch_api(ProviderId::Groq).contains("Groq has no batch API")
    );
    assert!(BatchApi::Anthropic.cors_note().contains("proxy"));
}

#[test]
fn a_line_is_the_interactive_call_body_keyed_by_its_first_sample() {
    let ep = endpoint(ProviderId::OpenAi);
    let req = request("Rate this summary.");
    let caps = Capabilities::for_model(ProviderId::OpenAi, "m");
    let batch = SampleBatch { first: 0, count: 3 };
    let k = keys(&ep, &req);
    let built = batch_line(&ep, &caps, &req, batch, &k, "sk-secret").expect("line");
    let interactive =
        build_chat(&ep, &caps, &req, batch, "sk-secret", CallOptions::default()).expect("call");
    assert_eq!(built.body, interactive.http.body, "the same body, so the same answers");
    assert_eq!(built.custom_id, k[0]);
    assert_eq!(built.keys, k);
    assert!(!built.body.contains("sk-secret"));
    let v: Value = serde_json::from_str(&line_json(BatchApi::OpenAi, &built)).expect("json");
    assert_eq!(v["url"], "/v1/chat/completions");
    assert_eq!(v["method"], "POST");
    assert_eq!(v["body"]["n"], 3);
    assert_eq!(v["custom_id"].as_str().map(str::len), Some(64));

    // Anthropic: one sample a line (no `n`), its params the messages body.
    let a = line(ProviderId::Anthropic, "Rate this summary.");
    assert_eq!(a.keys.len(), 1);
    let v: Value = serde_json::from_str(&line_json(BatchApi::Anthropic, &a)).expect("json");
    assert_eq!(v["params"]["system"], "You are a judge.");
    assert_eq!(v["params"]["max_tokens"], 20);
}

#[test]
fn lines_are_split_under_the_count_and_byte_limits_in_order() {
    let lines: Vec<_> = (0..7).map(|i| line(ProviderId::OpenAi, &format!("item {i}"))).collect();
    let ids: Vec<String> = lines.iter().map(|l| l.custom_id.clone()).collect();
    let by_count = split(
        BatchApi::OpenAi,
        lines.clone(),
        BatchLimits { max_requests: 3, max_bytes: usize::MAX },
    );
    assert_eq!(by_count.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 1]);
    let size = line_json(BatchApi::OpenAi, &lines[0]).len() + 1;
    let by_bytes = split(
        BatchApi::OpenAi,
        lines.clone(),
        BatchLimits { max_requests: 100, max_bytes: 2 * size + 1 },
    );
    assert_eq!(by_bytes.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2, 1]);
    let flat: Vec<String> = by_bytes.into_iter().flatten().map(|l| l.custom_id).collect();
    assert_eq!(flat, ids, "order kept, nothing lost");
    assert_eq!(split(BatchApi::OpenAi, Vec::new(), BatchApi::OpenAi.limits()).len(), 0);
    assert_eq!(BatchApi::OpenAi.limits().max_requests, 50_000);
    assert_eq!(BatchApi::Anthropic.limits().max_requests, 100_000);
}

#[test]
fn the_spend_cap_counts_lines_at_the_batch_price() {
    let lines: Vec<_> = (0..10).map(|i| line(ProviderId::OpenAi, &format!("item {i}"))).collect();
    let price = Price { input_per_million: 1000.0, output_per_million: 1000.0 };
    let one = price.reserve_usd(lines[0].size);
    assert_eq!(batch_price(price).input_per_million, 500.0);
    assert_eq!(BATCH_DISCOUNT, 0.5);
    // A cap of four interactive calls holds eight batch lines (all lines are the same size
    // to within a character or two; the cap leaves a little room).
    let n = fit_under_cap(&lines, price, 4.0 * one + one * 0.1);
    assert_eq!(n, 8);
    assert_eq!(fit_under_cap(&lines, price, 1e9), 10);
    assert_eq!(fit_under_cap(&lines, price, 0.0), 0);
}

#[test]
fn each_step_is_a_request_with_the_key_in_a_header_only() {
    let ep = endpoint(ProviderId::OpenAi);
    let lines: Vec<_> = (0..2).map(|i| line(ProviderId::OpenAi, &format!("item {i}"))).collect();
    let up = upload_request(&ep, "sk-secret", &lines).expect("upload");
    assert_eq!(up.url, "http://127.0.0.1:9/v1/files");
    let ct =
        up.headers.iter().find(|(k, _)| k == "content-type").map(|(_, v)| v.clone()).expect("type");
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").expect("multipart");
    assert!(up.body.starts_with(&format!("--{boundary}\r\n")));
    assert!(up.body.ends_with(&format!("--{boundary}--\r\n")));
    assert!(up.body.contains("name=\"purpose\"\r\n\r\nbatch\r\n"));
    assert_eq!(up.body.matches("\"custom_id\"").count(), 2);
    assert!(!up.body.contains("sk-secret") && !up.url.contains("sk-secret"));
    assert!(up.headers.contains(&("authorization".into(), "Bearer sk-secret".into())));

    let create =
        create_request(BatchApi::OpenAi, &ep, "sk-secret", "file-1", &lines).expect("create");
    assert_eq!(create.url, "http://127.0.0.1:9/v1/batches");
    let v: Value = serde_json::from_str(&create.body).expect("json");
    assert_eq!(
        v,
        json!({"input_file_id": "file-1", "endpoint": "/v1/chat/completions", "completion_window": "24h"})
    );

    let a_ep = endpoint(ProviderId::Anthropic);
    let a_lines: Vec<_> =
        (0..2).map(|i| line(ProviderId::Anthropic, &format!("item {i}"))).collect();
    let create =
        create_request(BatchApi::Anthropic, &a_ep, "sk-ant", "", &a_lines).expect("create");
    assert_eq!(create.url, "http://127.0.0.1:9/v1/messages/batches");
    let v: Value = serde_json::from_str(&create.body).expect("json");
    assert_eq!(v["requests"].as_array().map(Vec::len), Some(2));
    assert!(create.headers.contains(&("x-api-key".into(), "sk-ant".into())));

    let status = status_request(BatchApi::OpenAi, &ep, "k", "batch/1").expect("status");
    assert_eq!(
        (status.method, status.url.as_str()),
        (Method::Get, "http://127.0.0.1:9/v1/batches/batch%2F1")
    );
    let cancel = cancel_request(BatchApi::Anthropic, &a_ep, "k", "msgbatch_1").expect("cancel");
    assert_eq!(
        (cancel.method, cancel.url.as_str()),
        (Method::Post, "http://127.0.0.1:9/v1/messages/batches/msgbatch_1/cancel")
    );
    let state = BatchState {
        id: "b".into(),
        phase: BatchPhase::Ended,
        counts: BatchCounts::default(),
        output_file_id: Some("file-out".into()),
        error_file_id: Some("file-err".into()),
    };
    let urls: Vec<String> = results_requests(BatchApi::OpenAi, &ep, "k", &state)
        .expect("results")
        .into_iter()
        .map(|r| r.url)
        .collect();
    assert_eq!(
        urls,
        [
            "http://127.0.0.1:9/v1/files/file-out/content",
            "http://127.0.0.1:9/v1/files/file-err/content"
        ]
    );
    let urls: Vec<String> = results_requests(BatchApi::Anthropic, &a_ep, "k", &state)
        .expect("results")
        .into_iter()
        .map(|r| r.url)
        .collect();
    assert_eq!(urls, ["http://127.0.0.1:9/v1/messages/batches/b/results"]);
    let bad = Endpoint { base_url: "ftp://x".into(), ..ep };
    assert!(status_request(BatchApi::OpenAi, &bad, "k", "b").is_err());
}

#[test]
fn batch_objects_are_read_into_phases_and_counts() {
    let read = |api, body: Value| parse_batch(api, 200, &[], &body.to_string(), 0).expect("batch");
    let running = read(
        BatchApi::OpenAi,
        json!({"id": "b1", "status": "in_progress", "request_counts": {"total": 5, "completed": 2, "failed": 1}}),
    );
    assert_eq!(running.phase, BatchPhase::Running { status: "in_progress".into() });
    assert_eq!(running.counts, BatchCounts { total: 5, succeeded: 2, failed: 1 });
    assert!(!running.phase.is_over());
    let done = read(
        BatchApi::OpenAi,
        json!({"id": "b1", "status": "completed", "output_file_id": "f1", "error_file_id": null, "request_counts": {"total": 5, "completed": 5, "failed": 0}}),
    );
    assert_eq!(
        (done.phase, done.output_file_id.as_deref(), done.error_file_id),
        (BatchPhase::Ended, Some("f1"), None)
    );
    assert_eq!(
        read(BatchApi::OpenAi, json!({"id": "b", "status": "expired"})).phase,
        BatchPhase::Expired
    );
    let failed = read(
        BatchApi::OpenAi,
        json!({"id": "b", "status": "failed", "errors": {"data": [{"message": "line 3 is not JSON"}]}}),
    );
    assert_eq!(failed.phase, BatchPhase::Failed { reason: "line 3 is not JSON".into() });
    assert_eq!(failed.phase.describe(), "failed: line 3 is not JSON");

    let a = read(
        BatchApi::Anthropic,
        json!({"id": "m", "processing_status": "in_progress", "request_counts": {"processing": 4, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0}}),
    );
    assert_eq!(
        (a.phase, a.counts.total),
        (BatchPhase::Running { status: "in_progress".into() }, 5)
    );
    let a = read(
        BatchApi::Anthropic,
        json!({"id": "m", "processing_status": "ended", "request_counts": {"processing": 0, "succeeded": 3, "errored": 1, "canceled": 0, "expired": 1}}),
    );
    assert_eq!(
        (a.phase, a.counts),
        (BatchPhase::Expired, BatchCounts { total: 5, succeeded: 3, failed: 2 })
    );

    let denied = parse_batch(
        BatchApi::OpenAi,
        401,
        &[],
        r#"{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}"#,
        0,
    );
    match denied {
        Err(BatchError::Api(e)) => assert_eq!(e.kind, ErrorKind::Auth),
        other => panic!("expected an API error, got {other:?}"),
    }
    assert!(matches!(
        parse_batch(BatchApi::OpenAi, 200, &[], "{", 0),
        Err(BatchError::Malformed(_))
    ));
    assert!(matches!(
        parse_batch(BatchApi::OpenAi, 200, &[], "{\"status\":\"x\"}", 0),
        Err(BatchError::Malformed(_))
    ));
    assert_eq!(
        parse_upload(200, &[], r#"{"id":"file-9","purpose":"batch"}"#, 0).expect("id"),
        "file-9"
    );
}

fn refs() -> Vec<LineRef> {
    vec![
        LineRef { custom_id: "a".into(), keys: vec!["ka0".into(), "ka1".into()] },
        LineRef { custom_id: "b".into(), keys: vec!["kb0".into()] },
        LineRef { custom_id: "c".into(), keys: vec!["kc0".into()] },
        LineRef { custom_id: "d".into(), keys: vec!["kd0".into()] },
    ]
}

#[test]
fn openai_results_fill_every_key_and_name_every_failure() {
    let ok = json!({"custom_id": "a", "response": {"status_code": 200, "body": {
        "model": "m-1", "choices": [
            {"message": {"content": "Rating: 4"}, "finish_reason": "stop"},
            {"message": {"content": "Rating"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4}}}, "error": null});
    let server = json!({"custom_id": "b", "response": {"status_code": 500, "body": {"error": {"message": "The server had an error"}}}, "error": null});
    let expired = json!({"custom_id": "c", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}});
    let output = format!("{ok}\n\nnot json\n");
    let errors =
        format!("{server}\n{expired}\n{}\n", json!({"custom_id": "zzz", "error": {"code": "x"}}));
    let got = collect(BatchApi::OpenAi, &refs(), &[output, errors], &BatchPhase::Expired);
    let answers: Vec<(&str, &str, bool)> =
        got.answers.iter().map(|a| (a.key.as_str(), a.text.as_str(), a.cut_off)).collect();
    assert_eq!(answers, [("ka0", "Rating: 4", false), ("ka1", "Rating", true)]);
    assert_eq!(got.answers[0].model, "m-1");
    assert_eq!((got.usage.prompt_tokens, got.usage.completion_tokens), (10, 4));
    let causes: Vec<(&str, &str)> =
        got.failures.iter().map(|f| (f.custom_id.as_str(), f.cause.as_str())).collect();
    assert_eq!(
        causes,
        [
            ("b", "HTTP 500: The server had an error"),
            ("c", "expired: the batch's 24 hours ran out before it was answered"),
            ("d", "expired: the batch's 24 hours ran out before it was answered"),
        ]
    );
    assert_eq!(
        got.unreadable,
        ["file 1, line 3: not JSON", "file 2, line 3: custom_id zzz is not in this batch"]
    );
    assert_eq!(
        failure_causes(&got.failures),
        [
            ("HTTP 500: The server had an error".to_owned(), 1),
            ("expired: the batch's 24 hours ran out before it was answered".to_owned(), 2)
        ]
    );
}

#[test]
fn anthropic_results_are_read_by_type() {
    let lines = &refs()[1..];
    let ok = json!({"custom_id": "b", "result": {"type": "succeeded", "message": {"model": "claude", "content": [{"type": "text", "text": "Rating: 2"}], "stop_reason": "end_turn", "usage": {"input_tokens": 7, "output_tokens": 3}}}});
    let err = json!({"custom_id": "c", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too large"}}}});
    let gone = json!({"custom_id": "d", "result": {"type": "canceled"}});
    let got = collect(
        BatchApi::Anthropic,
        lines,
        &[format!("{ok}\n{err}\n{gone}\n")],
        &BatchPhase::Cancelled,
    );
    assert_eq!(got.answers.len(), 1);
    assert_eq!((got.answers[0].key.as_str(), got.answers[0].text.as_str()), ("kb0", "Rating: 2"));
    let causes: Vec<&str> = got.failures.iter().map(|f| f.cause.as_str()).collect();
    assert_eq!(
        causes,
        ["invalid_request_error: max_tokens: too large", "cancelled before it was answered"]
    );
}

#[test]
fn a_record_says_what_its_answers_cost_and_saved() {
    let record = BatchRecord {
        api: BatchApi::OpenAi,
        provider: "openai".into(),
        base_url: "https://api.openai.com/v1".into(),
        model: "m".into(),
        submitted_at: 1_700_000_000_000,
        label: "x".into(),
        item_limit: None,
        probe: None,
        lines: refs(),
        reserved_usd: None,
        state: BatchState {
            id: "batch_1".into(),
            phase: BatchPhase::Ended,
            counts: BatchCounts::default(),
            output_file_id: None,
            error_file_id: None,
        },
        collected: Some(CollectedSummary {
            at: 1,
            answers: 4,
            failures: Vec::new(),
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            unreadable: Vec::new(),
            rejected: Vec::new(),
        }),
        follow_up: false,
        proxy: false,
    };
    let price = Price { input_per_million: 2.0, output_per_million: 8.0 };
    let (batch, interactive) = record.cost(Some(price)).expect("priced");
    assert!(
        (batch - 3.0).abs() < 1e-12 && (interactive - 6.0).abs() < 1e-12,
        "{batch} {interactive}"
    );
    assert_eq!(record.cost(None), None);
    assert!(!record.is_pending());
    assert_eq!(record.store_key(), "batch/1700000000000/batch_1");
    let json = serde_json::to_string(&record).expect("json");
    assert!(!json.contains("sk-"), "no key in a record");
    let back: BatchRecord = serde_json::from_str(&json).expect("back");
    assert_eq!(back, record);
}
