//! The mock LLM server over real loopback sockets: CORS, OpenAI and Anthropic shapes, `n`,
//! logprobs, rate limits, injected failures, the request log and the control endpoints.
//! Every test starts its own server on a free port and stops it; all loops are bounded.

#[allow(dead_code)]
#[path = "../src/mock_llm.rs"]
mod mock_llm;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mock_llm::{Failure, ReplyMode, Scenario, spawn};
use serde_json::{Value, json};

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    /// The declared content-length, to detect truncation.
    declared_length: Option<usize>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("JSON body")
    }
}

/// One request on a fresh connection. `None` when the server closed without a status line.
fn call(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Option<Response> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut req = format!("{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).expect("write");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_response(&String::from_utf8_lossy(&raw))
}

fn parse_response(raw: &str) -> Option<Response> {
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let mut lines = head.lines();
    let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let declared_length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok());
    Some(Response { status, headers, body: body.to_string(), declared_length })
}

fn chat(port: u16, body: &Value) -> Option<Response> {
    call(
        port,
        "POST",
        "/v1/chat/completions",
        &[("content-type", "application/json")],
        &body.to_string(),
    )
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

fn texts(response: &Response) -> Vec<String> {
    response.json()["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .map(|c| c["message"]["content"].as_str().expect("content").to_string())
        .collect()
}

#[test]
fn preflight_allows_provider_headers_and_exposes_rate_limit_headers() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let r = call(
        mock.port(),
        "OPTIONS",
        "/v1/messages",
        &[
            ("origin", "http://127.0.0.1:8080"),
            ("access-control-request-method", "POST"),
            ("access-control-request-headers", "x-api-key,anthropic-version"),
        ],
        "",
    )
    .expect("response");
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("http://127.0.0.1:8080"));
    let allowed = r.header("access-control-allow-headers").expect("allow-headers");
    for h in [
        "authorization",
        "x-api-key",
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "content-type",
    ] {
        assert!(allowed.contains(h), "{h} not in {allowed}");
    }
    let exposed = r.header("access-control-expose-headers").expect("expose-headers");
    for h in ["retry-after", "x-ratelimit-reset-requests", "x-ratelimit-limit-requests"] {
        assert!(exposed.contains(h), "{h} not in {exposed}");
    }
    mock.stop();
}

#[test]
fn echo_mode_answers_n_choices_with_logprobs_peaked_at_the_planted_rating() {
    let scenario = Scenario {
        reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
        ..Scenario::default()
    };
    let mock = spawn(0, scenario).expect("spawn");
    let body = json!({
        "model": "mock-model",
        "messages": [{"role": "user", "content": "Rate this. RATING=4"}],
        "n": 3, "seed": 10, "logprobs": true, "top_logprobs": 5
    });
    let r = chat(mock.port(), &body).expect("response");
    assert_eq!(r.status, 200);
    assert_eq!(texts(&r), vec!["Rating: 4", "Rating: 4", "Rating: 4"]);
    let v = r.json();
    let tokens = v["choices"][0]["logprobs"]["content"].as_array().expect("logprob tokens");
    assert_eq!(tokens.len(), 2, "`Rating: ` and `4`");
    assert_eq!(tokens[1]["token"], "4");
    let top = tokens[1]["top_logprobs"].as_array().expect("top_logprobs");
    assert_eq!(top.len(), 5);
    assert_eq!(top[0]["token"], "4");
    // p(r) ∝ exp(−1.5·|r − 4|) over 1..5: the weights are e^-4.5, e^-3, e^-1.5, 1, e^-1.5.
    let z: f64 = [-4.5f64, -3.0, -1.5, 0.0, -1.5].iter().map(|l| l.exp()).sum();
    let expected = -z.ln();
    assert!((top[0]["logprob"].as_f64().expect("logprob") - expected).abs() < 1e-12);
    assert_eq!(v["usage"]["prompt_tokens"], 5, "⌈20 chars / 4⌉ (with the newline)");
    // No marker: an unparseable answer, as a bad small model would give.
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "no marker"}]});
    assert_eq!(texts(&chat(mock.port(), &body).expect("response")), vec!["I cannot rate this."]);
    mock.stop();
}

#[test]
fn hash_ratings_are_deterministic_vary_with_length_and_stay_on_the_scale() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let ask = |content: &str, seed: u64| {
        let body =
            json!({"model": "m", "messages": [{"role": "user", "content": content}], "seed": seed});
        texts(&chat(mock.port(), &body).expect("response"))[0].clone()
    };
    let short = ask("short text", 0);
    assert_eq!(short, ask("short text", 0), "same prompt and sample, same answer");
    // Pinned: the algorithm is part of what the browser tests' expectations mean.
    assert_eq!(short, "Rating: 3");
    // Over prompts of growing length, ratings follow length but not perfectly.
    let (mut lengths, mut ratings) = (Vec::new(), Vec::new());
    for i in 0..40u64 {
        let text = format!("item {i} ") + &"word ".repeat(20 * i as usize);
        let reply = ask(&text, i);
        let value: f64 = reply.trim_start_matches("Rating: ").parse().expect("a number");
        assert!((1.0..=5.0).contains(&value), "{reply}");
        lengths.push(text.len() as f64);
        ratings.push(value);
    }
    let r = pearson(&lengths, &ratings);
    assert!(r > 0.5 && r < 0.99, "correlation of rating with length: {r}");
    mock.stop();
}

#[test]
fn rate_limit_answers_429_with_readable_retry_after_and_recovers() {
    let scenario = Scenario { rpm_limit: Some(3), rate_window_ms: 600, ..Scenario::default() };
    let mock = spawn(0, scenario).expect("spawn");
    let body = |i: u32| json!({"model": "m", "messages": [{"role": "user", "content": format!("item {i}")}]});
    for i in 0..3 {
        assert_eq!(chat(mock.port(), &body(i)).expect("response").status, 200);
    }
    let limited = chat(mock.port(), &body(3)).expect("response");
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("1"));
    assert_eq!(limited.header("x-ratelimit-limit-requests"), Some("3"));
    assert!(limited.header("x-ratelimit-reset-requests").is_some_and(|v| v.ends_with("ms")));
    assert_eq!(limited.json()["error"]["code"], "rate_limit_exceeded");
    std::thread::sleep(Duration::from_millis(650));
    assert_eq!(chat(mock.port(), &body(3)).expect("response").status, 200);
    let summary = mock.summary();
    assert_eq!((summary.total, summary.answered_ok, summary.failed), (5, 4, 1));
    mock.stop();
}

#[test]
fn injected_failures_are_deterministic_and_near_the_configured_fraction() {
    let scenario = Scenario {
        failure_rate: 0.5,
        failures: vec![Failure::RateLimited, Failure::ServerError, Failure::Overloaded],
        seed: 7,
        ..Scenario::default()
    };
    let outcomes = |scenario: &Scenario| {
        let mock = spawn(0, scenario.clone()).expect("spawn");
        let statuses: Vec<u16> = (0..40)
            .map(|i| {
                let body = json!({"model": "m", "messages": [{"role": "user", "content": format!("item {}", i % 20)}]});
                chat(mock.port(), &body).expect("response").status
            })
            .collect();
        mock.stop();
        statuses
    };
    let first = outcomes(&scenario);
    assert_eq!(first, outcomes(&scenario), "same seed, same fates");
    let failed = first.iter().filter(|&&s| s != 200).count();
    assert!((10..=30).contains(&failed), "{failed} of 40 failed at rate 0.5");
    assert!(first.iter().all(|s| [200, 429, 500, 529].contains(s)), "{first:?}");
    assert!(first.contains(&529) && first.contains(&500) && first.contains(&429));
    let other = outcomes(&Scenario { seed: 8, ..scenario });
    assert_ne!(first, other, "another seed, other fates");
}

#[test]
fn dropped_and_truncated_responses() {
    let drop = Scenario { failure_rate: 1.0, failures: vec![Failure::Drop], ..Scenario::default() };
    let mock = spawn(0, drop).expect("spawn");
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
    assert!(chat(mock.port(), &body).is_none(), "no status line on a dropped connection");
    assert_eq!(mock.requests()[0].outcome, "dropped");
    assert_eq!(mock.requests()[0].status, 0);
    mock.set_scenario(Scenario {
        failure_rate: 1.0,
        failures: vec![Failure::Truncate],
        ..Scenario::default()
    });
    let r = chat(mock.port(), &body).expect("status line");
    assert_eq!(r.status, 200);
    let declared = r.declared_length.expect("content-length");
    assert!(r.body.len() < declared, "{} of {declared} bytes", r.body.len());
    assert!(serde_json::from_str::<Value>(&r.body).is_err());
    assert!(!mock.requests()[1].answered_ok);
    mock.stop();
}

#[test]
fn anthropic_messages_shape_and_key_check() {
    let scenario = Scenario {
        require_key: Some("sk-test".into()),
        reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
        ..Scenario::default()
    };
    let mock = spawn(0, scenario).expect("spawn");
    let body = json!({"model": "claude-x", "max_tokens": 10, "system": "Be strict.",
        "messages": [{"role": "user", "content": "RATING=2"}]})
    .to_string();
    let denied = call(mock.port(), "POST", "/v1/messages", &[], &body).expect("response");
    assert_eq!(denied.status, 401);
    assert_eq!(denied.json()["error"]["type"], "authentication_error");
    let ok = call(mock.port(), "POST", "/v1/messages", &[("x-api-key", "sk-test")], &body)
        .expect("response");
    assert_eq!(ok.status, 200);
    let v = ok.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["content"][0]["text"], "Rating: 2");
    assert_eq!(v["usage"]["input_tokens"], 5, "⌈(10 + 1 + 8 + 1) / 4⌉");
    let models = call(mock.port(), "GET", "/v1/models", &[("authorization", "Bearer sk-test")], "")
        .expect("response");
    assert_eq!(models.json()["data"][0]["id"], "mock-model");
    mock.stop();
}

#[test]
fn rejected_parameters_and_unsupported_n() {
    let scenario = Scenario {
        reject_params: vec!["logprobs".into()],
        supports_n: false,
        ..Scenario::default()
    };
    let mock = spawn(0, scenario).expect("spawn");
    let with_logprobs =
        json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "logprobs": true});
    let r = chat(mock.port(), &with_logprobs).expect("response");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "unsupported_parameter");
    assert_eq!(r.json()["error"]["param"], "logprobs");
    let with_n = json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "n": 2});
    let r = chat(mock.port(), &with_n).expect("response");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["message"], "Only one completion choice is allowed");
    mock.stop();
}

#[test]
fn control_endpoints_script_log_duplicates_and_reset() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let port = mock.port();
    let scenario = json!({
        "reply": {"mode": "canned", "text": "Rating: 3"},
        "script": [{"status": 503, "body": {"error": {"message": "scripted"}}, "headers": [["retry-after", "2"]]}]
    });
    let set = call(port, "POST", "/__mock/scenario", &[], &scenario.to_string()).expect("response");
    assert_eq!(set.status, 200);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "same"}], "seed": 4});
    let scripted = chat(port, &body).expect("response");
    assert_eq!((scripted.status, scripted.header("retry-after")), (503, Some("2")));
    assert_eq!(texts(&chat(port, &body).expect("response")), vec!["Rating: 3"]);
    // The same sample answered twice: exactly what the run engine must never cause.
    chat(port, &body).expect("response");
    let log = call(port, "GET", "/__mock/requests", &[], "").expect("response").json();
    assert_eq!(log["requests"].as_array().expect("requests").len(), 3);
    assert_eq!(log["requests"][0]["outcome"], "scripted");
    assert_eq!(log["summary"]["answered_ok"], 2);
    let dups = log["summary"]["duplicate_successes"].as_array().expect("duplicates");
    assert_eq!(dups.len(), 1);
    assert!(dups[0].as_str().expect("key").ends_with(":4"), "sample 4: {dups:?}");
    assert_eq!(call(port, "POST", "/__mock/reset", &[], "").expect("response").status, 200);
    let summary = call(port, "GET", "/__mock/summary", &[], "").expect("response").json();
    assert_eq!(summary["total"], 0);
    let bad = call(port, "POST", "/__mock/scenario", &[], "{\"latency_ms\": \"slow\"}")
        .expect("response");
    assert_eq!(bad.status, 400);
    mock.stop();
}

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let mut stream = TcpStream::connect(("127.0.0.1", mock.port())).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let request = "GET /v1/models HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n";
    let mut seen = 0;
    for _ in 0..2 {
        stream.write_all(request.as_bytes()).expect("write");
        // Read exactly one response: the head, then content-length bytes.
        let mut raw = Vec::new();
        let mut byte = [0u8; 1];
        while !raw.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).expect("head");
            raw.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&raw).to_string();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(head.contains("connection: keep-alive"));
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|v| v.trim().parse().ok())
            .expect("content-length");
        let mut body = vec![0u8; length];
        stream.read_exact(&mut body).expect("body");
        assert!(String::from_utf8_lossy(&body).contains("mock-model"));
        seen += 1;
    }
    assert_eq!(seen, 2);
    mock.stop();
}

#[test]
fn more_failure_kinds_and_a_storm() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
    let only =
        |failure| Scenario { failure_rate: 1.0, failures: vec![failure], ..Scenario::default() };
    let mock = spawn(0, only(Failure::RateLimitedBare)).expect("spawn");
    let r = chat(mock.port(), &body).expect("429");
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_none(), "no wait advertised");
    mock.set_scenario(only(Failure::BadGateway));
    let r = chat(mock.port(), &body).expect("502");
    assert_eq!((r.status, r.header("content-type")), (502, Some("text/html")));
    assert!(r.body.contains("Bad Gateway"));
    mock.set_scenario(only(Failure::Unavailable));
    assert_eq!(chat(mock.port(), &body).expect("503").status, 503);
    mock.set_scenario(only(Failure::MalformedJson));
    let r = chat(mock.port(), &body).expect("200");
    assert_eq!(r.status, 200);
    assert_eq!(Some(r.body.len()), r.declared_length, "complete, not cut short");
    assert!(serde_json::from_str::<Value>(&r.body).is_err(), "but not JSON");
    assert!(!mock.requests().last().expect("logged").answered_ok);

    // A hung request: no answer until the client gives up.
    mock.set_scenario(only(Failure::Hang));
    let mut stream = TcpStream::connect(("127.0.0.1", mock.port())).expect("connect");
    stream.set_read_timeout(Some(Duration::from_millis(400))).expect("timeout");
    let text = body.to_string();
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    stream.write_all(req.as_bytes()).expect("write");
    let mut buf = [0u8; 64];
    let err = stream.read(&mut buf).expect_err("nothing arrives");
    assert!(matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
    drop(stream);
    let hung = mock.requests().last().cloned().expect("logged");
    assert_eq!((hung.outcome.as_str(), hung.status, hung.answered_ok), ("hung", 0, false));

    // A storm: every request refused for 300 ms after a reset, with or without retry-after.
    for retry_after_s in [Some(2), None] {
        mock.set_scenario(Scenario {
            storm: Some(mock_llm::Storm { ms: 300, retry_after_s }),
            ..Scenario::default()
        });
        assert!(call(mock.port(), "POST", "/__mock/reset", &[], "").is_some());
        let r = chat(mock.port(), &body).expect("429");
        assert_eq!(r.status, 429);
        assert_eq!(r.header("retry-after"), retry_after_s.map(|s| s.to_string()).as_deref());
        std::thread::sleep(Duration::from_millis(350));
        assert_eq!(chat(mock.port(), &body).expect("200").status, 200, "healthy after the storm");
    }
}

#[test]
fn rules_mode_matches_the_last_user_message_first_rule_first() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let port = mock.port();
    // A scenario file's `reply`, as a test or `--scenario FILE` gives it.
    let scenario = json!({"reply": {"mode": "rules", "default": "no idea", "rules": [
        {"contains": "Round 1", "model": "judge", "reply": "<Better_assistant>Assistant1</Better_assistant>"},
        {"contains": "Round 1", "reply": "debater answer"},
        {"contains": "(no debate yet)", "reply": "<Question>Why?</Question>"},
        {"contains": "(no debate yet)", "reply": "never: an earlier rule matches first"}
    ]}});
    let set = call(port, "POST", "/__mock/scenario", &[], &scenario.to_string()).expect("response");
    assert_eq!(set.status, 200);
    let ask = |model: &str, messages: Value| {
        let r = chat(port, &json!({"model": model, "messages": messages})).expect("response");
        assert_eq!(r.status, 200);
        texts(&r).remove(0)
    };
    // Only the last user message counts: the system message mentions "Round 1" too.
    let opening = json!([
        {"role": "system", "content": "Round 1 rules apply"},
        {"role": "user", "content": "transcript: (no debate yet)"}
    ]);
    assert_eq!(ask("judge", opening), "<Question>Why?</Question>");
    let later = json!([
        {"role": "user", "content": "Round 1: old question"},
        {"role": "assistant", "content": "whatever"},
        {"role": "user", "content": "transcript: Round 1 ..."}
    ]);
    // The model-specific rule for the judge, the general one for anyone else.
    assert_eq!(ask("judge", later.clone()), "<Better_assistant>Assistant1</Better_assistant>");
    assert_eq!(ask("debater", later), "debater answer");
    assert_eq!(ask("judge", json!([{"role": "user", "content": "nothing known"}])), "no idea");
    // The Anthropic shape reads the same rules (content blocks joined).
    let r = call(
        port,
        "POST",
        "/v1/messages",
        &[("content-type", "application/json")],
        &json!({"model": "x", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "text", "text": "(no debate yet)"}]}]}).to_string(),
    )
    .expect("response");
    assert_eq!(r.json()["content"][0]["text"], "<Question>Why?</Question>");
    // The default reply when the scenario leaves it out.
    let mode: ReplyMode =
        serde_json::from_value(json!({"mode": "rules", "rules": []})).expect("rules mode");
    assert_eq!(
        mode,
        ReplyMode::Rules { rules: Vec::new(), default: "No rule matched this prompt.".into() }
    );
    mock.stop();
}

#[test]
fn before_rules_answer_first_and_the_reply_mode_answers_the_rest() {
    let mock = spawn(0, Scenario::default()).expect("spawn");
    let port = mock.port();
    let steps = "1. Read the text.\n2. Rate it.";
    let scenario = json!({
        "before": [{"contains": "Evaluation Steps:", "at_end": true, "reply": steps}],
        "reply": {"mode": "echo_rating", "marker": "RATING="}
    });
    let set = call(port, "POST", "/__mock/scenario", &[], &scenario.to_string()).expect("response");
    assert_eq!(set.status, 200);
    let ask = |content: &str, n: u64| {
        let body =
            json!({"model": "m", "n": n, "messages": [{"role": "user", "content": content}]});
        let r = chat(port, &body).expect("response");
        assert_eq!(r.status, 200);
        texts(&r)
    };
    // The steps request (G-Eval's prompt ends with "Evaluation Steps:") gets the script.
    assert_eq!(ask("Task. Criteria.\n\nEvaluation Steps:\n", 1), [steps]);
    // A rating prompt gets the reply mode's answer, every sample, even with the steps inside.
    assert_eq!(ask("Rate this. RATING=4", 2), ["Rating: 4", "Rating: 4"]);
    let rating = "Evaluation Steps:\n\n1. Read.\n\nText: RATING=2";
    assert_eq!(ask(rating, 1), ["Rating: 2"]);
    // Without `before`, the same steps request is the reply mode's (no marker: no rating).
    let plain = json!({"reply": {"mode": "echo_rating", "marker": "RATING="}});
    call(port, "POST", "/__mock/scenario", &[], &plain.to_string()).expect("response");
    assert_eq!(ask("Task. Criteria.\n\nEvaluation Steps:\n", 1), ["I cannot rate this."]);
    assert_eq!(Scenario::default().before, Vec::new());
    mock.stop();
}

/// A batch line's chat body: the rating is planted with `RATING=`.
fn batch_body(i: usize) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": format!("item {i} RATING={}", 1 + i % 5)}], "seed": 0, "max_tokens": 20})
}

/// Polls a batch until it is no longer running (bounded).
fn poll(port: u16, path: &str, running: &[&str], field: &str) -> Value {
    for _ in 0..100 {
        let v = call(port, "GET", path, &[], "").expect("status").json();
        if !running.contains(&v[field].as_str().unwrap_or_default()) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{path} still running");
}

#[test]
fn openai_batches_upload_run_expire_fail_lines_and_count_every_answer_once() {
    let mut scenario = Scenario {
        reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
        ..Scenario::default()
    };
    scenario.batch.ms = 150;
    let mock = spawn(0, scenario.clone()).expect("spawn");
    let port = mock.port();
    let jsonl: String = (0..6)
        .map(|i| format!("{}\n", json!({"custom_id": format!("c{i}"), "method": "POST", "url": "/v1/chat/completions", "body": batch_body(i)})))
        .collect();
    let multipart = format!(
        "--XB\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--XB\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.jsonl\"\r\n\r\n{jsonl}\r\n--XB--\r\n"
    );
    let up = call(
        port,
        "POST",
        "/v1/files",
        &[("content-type", "multipart/form-data; boundary=XB")],
        &multipart,
    )
    .expect("upload");
    assert_eq!(up.status, 200, "{}", up.body);
    let file = up.json()["id"].as_str().expect("file id").to_owned();
    let create = json!({"input_file_id": file, "endpoint": "/v1/chat/completions", "completion_window": "24h"});
    let made = call(port, "POST", "/v1/batches", &[], &create.to_string()).expect("create").json();
    assert_eq!(made["status"], "in_progress");
    assert_eq!(made["request_counts"]["total"], 6);
    let id = made["id"].as_str().expect("id").to_owned();
    let done = poll(port, &format!("/v1/batches/{id}"), &["in_progress"], "status");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["request_counts"], json!({"total": 6, "completed": 6, "failed": 0}));
    assert!(done["error_file_id"].is_null());
    let out = call(
        port,
        "GET",
        &format!("/v1/files/{}/content", done["output_file_id"].as_str().expect("file")),
        &[],
        "",
    )
    .expect("out");
    let lines: Vec<Value> =
        out.body.lines().map(|l| serde_json::from_str(l).expect("line")).collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[2]["custom_id"], "c2");
    assert_eq!(lines[2]["response"]["body"]["choices"][0]["message"]["content"], "Rating: 3");
    // The same sample answered by the chat endpoint too is a duplicate the summary names.
    chat(port, &batch_body(2)).expect("chat");
    let summary = call(port, "GET", "/__mock/summary", &[], "").expect("summary").json();
    assert_eq!(summary["answered_ok"], 7);
    assert_eq!(summary["duplicate_successes"].as_array().map(Vec::len), Some(1));

    // Expiry: half the lines answered, the rest in the error file as expired.
    scenario.batch.expire = true;
    call(port, "POST", "/__mock/scenario", &[], &serde_json::to_string(&scenario).expect("json"))
        .expect("set");
    let made = call(port, "POST", "/v1/batches", &[], &create.to_string()).expect("create").json();
    let id = made["id"].as_str().expect("id").to_owned();
    let expired = poll(port, &format!("/v1/batches/{id}"), &["in_progress"], "status");
    assert_eq!(expired["status"], "expired");
    assert_eq!(expired["request_counts"], json!({"total": 6, "completed": 3, "failed": 3}));
    let errors = call(
        port,
        "GET",
        &format!("/v1/files/{}/content", expired["error_file_id"].as_str().expect("file")),
        &[],
        "",
    )
    .expect("err");
    assert_eq!(errors.body.matches("batch_expired").count(), 3);

    // Per-line errors: about the configured share, with a 500 in the error file.
    scenario.batch.expire = false;
    scenario.batch.line_error_rate = 0.5;
    call(port, "POST", "/__mock/scenario", &[], &serde_json::to_string(&scenario).expect("json"))
        .expect("set");
    let made = call(port, "POST", "/v1/batches", &[], &create.to_string()).expect("create").json();
    let id = made["id"].as_str().expect("id").to_owned();
    let mixed = poll(port, &format!("/v1/batches/{id}"), &["in_progress"], "status");
    let failed = mixed["request_counts"]["failed"].as_u64().expect("failed");
    assert!((1..6).contains(&failed), "{failed} of 6 lines failed");
    let errors = call(
        port,
        "GET",
        &format!("/v1/files/{}/content", mixed["error_file_id"].as_str().expect("file")),
        &[],
        "",
    )
    .expect("err");
    assert_eq!(errors.body.matches("\"status_code\":500").count() as u64, failed);

    // Cancelling a running batch: nothing answered.
    scenario.batch.ms = 60_000;
    call(port, "POST", "/__mock/scenario", &[], &serde_json::to_string(&scenario).expect("json"))
        .expect("set");
    let made = call(port, "POST", "/v1/batches", &[], &create.to_string()).expect("create").json();
    let id = made["id"].as_str().expect("id").to_owned();
    let cancelled =
        call(port, "POST", &format!("/v1/batches/{id}/cancel"), &[], "").expect("cancel").json();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["request_counts"]["completed"], 0);
    let missing = call(port, "GET", "/v1/batches/nope", &[], "").expect("404");
    assert_eq!(missing.status, 404);
    let listed = call(port, "GET", "/__mock/batches", &[], "").expect("list").json();
    assert_eq!(listed["batches"].as_array().map(Vec::len), Some(4));
    mock.stop();
}

#[test]
fn anthropic_message_batches_end_with_typed_results() {
    let mut scenario = Scenario {
        reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
        require_key: Some("sk-ant".into()),
        ..Scenario::default()
    };
    scenario.batch.ms = 100;
    scenario.batch.expire = true;
    let mock = spawn(0, scenario).expect("spawn");
    let port = mock.port();
    let requests: Vec<Value> =
        (0..4).map(|i| json!({"custom_id": format!("c{i}"), "params": batch_body(i)})).collect();
    let body = json!({"requests": requests}).to_string();
    let denied = call(port, "POST", "/v1/messages/batches", &[], &body).expect("denied");
    assert_eq!(denied.status, 401);
    let key = [("x-api-key", "sk-ant")];
    let made = call(port, "POST", "/v1/messages/batches", &key, &body).expect("create").json();
    assert_eq!(made["processing_status"], "in_progress");
    let id = made["id"].as_str().expect("id").to_owned();
    let mut ended = Value::Null;
    for _ in 0..100 {
        ended = call(port, "GET", &format!("/v1/messages/batches/{id}"), &key, "")
            .expect("status")
            .json();
        if ended["processing_status"] == "ended" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(ended["processing_status"], "ended");
    assert_eq!(
        ended["request_counts"],
        json!({"processing": 0, "succeeded": 2, "errored": 0, "canceled": 0, "expired": 2})
    );
    let results = call(port, "GET", &format!("/v1/messages/batches/{id}/results"), &key, "")
        .expect("results");
    let lines: Vec<Value> =
        results.body.lines().map(|l| serde_json::from_str(l).expect("line")).collect();
    assert_eq!(lines[0]["result"]["type"], "succeeded");
    assert_eq!(lines[0]["result"]["message"]["content"][0]["text"], "Rating: 1");
    assert_eq!(lines[3]["result"]["type"], "expired");
    mock.stop();
}

#[test]
fn a_reasoning_model_thinks_within_the_token_limit_before_it_answers() {
    let scenario = Scenario { reasoning_tokens: 200, ..Scenario::default() };
    let mock = spawn(0, scenario).expect("spawn");
    let port = mock.port();
    let ask = |limit: u64| {
        let body = json!({"model": "o3-mini", "messages": [{"role": "user", "content": "Rate"}], "max_completion_tokens": limit});
        chat(port, &body).expect("response").json()
    };
    let starved = ask(128);
    assert_eq!(starved["choices"][0]["message"]["content"], "");
    assert_eq!(starved["choices"][0]["finish_reason"], "length");
    assert_eq!(starved["usage"]["completion_tokens_details"]["reasoning_tokens"], 128);
    let roomy = ask(4096);
    assert!(
        roomy["choices"][0]["message"]["content"].as_str().expect("text").starts_with("Rating: ")
    );
    assert_eq!(roomy["choices"][0]["finish_reason"], "stop");
    assert_eq!(roomy["usage"]["completion_tokens_details"]["reasoning_tokens"], 200);
    assert!(roomy["usage"]["completion_tokens"].as_u64().expect("tokens") > 200);
    mock.stop();
}

#[test]
fn structured_output_requests_get_the_rating_as_json() {
    let mock = spawn(
        0,
        Scenario {
            reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
            ..Scenario::default()
        },
    )
    .expect("spawn");
    let port = mock.port();
    let schema = json!({"type": "object", "properties": {"rating": {"type": "number"}, "rationale": {"type": "string"}}, "required": ["rating", "rationale"], "additionalProperties": false});
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "RATING=4"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "rating", "strict": true, "schema": schema}}});
    let text = texts(&chat(port, &body).expect("response"))[0].clone();
    let answer: Value = serde_json::from_str(&text).expect("json answer");
    assert_eq!(answer["rating"], 4);
    assert!(answer["rationale"].is_string());
    let anthropic = json!({"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "RATING=2"}],
        "tools": [{"name": "record_rating", "input_schema": schema}], "tool_choice": {"type": "tool", "name": "record_rating"}});
    let reply = call(
        port,
        "POST",
        "/v1/messages",
        &[("content-type", "application/json")],
        &anthropic.to_string(),
    )
    .expect("response")
    .json();
    assert_eq!(reply["stop_reason"], "tool_use");
    assert_eq!(reply["content"][0]["type"], "tool_use");
    assert_eq!(reply["content"][0]["input"]["rating"], 2);
    mock.stop();
}

/// A personality's scenario.
fn personality(name: &str) -> Scenario {
    let s = Scenario { provider: mock_llm::Personality::from_name(name), ..Scenario::default() };
    assert!(s.provider.is_some(), "{name}");
    s
}

fn post(port: u16, path: &str, body: &Value) -> Response {
    call(port, "POST", path, &[("content-type", "application/json")], &body.to_string())
        .expect("answer")
}

#[test]
fn gemini_personalities_answer_the_native_api_in_gemini_words() {
    let server = spawn(0, personality("gemini-2.5")).expect("mock");
    let port = server.port();
    let ask = |config: Value| {
        json!({"systemInstruction": {"parts": [{"text": "You judge."}]},
            "contents": [{"role": "user", "parts": [{"text": "Rate this. RATING=4"}]}],
            "generationConfig": config})
    };
    // Log-probabilities refused in the provider's words.
    let r = post(
        port,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        &ask(json!({"responseLogprobs": true, "logprobs": 5})),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["message"], "Logprobs is not enabled for models/gemini-2.5-flash");
    assert_eq!(r.json()["error"]["status"], "INVALID_ARGUMENT");
    // Thinking on by default: it eats a short maxOutputTokens, the answer is cut empty.
    let r = post(
        port,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        &ask(json!({"maxOutputTokens": 128})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["candidates"][0]["finishReason"], "MAX_TOKENS", "{v}");
    assert_eq!(v["usageMetadata"]["thoughtsTokenCount"], 128);
    // Off: the answer is there, no thoughts.
    let r = post(
        port,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        &ask(
            json!({"maxOutputTokens": 128, "thinkingConfig": {"thinkingBudget": 0}, "candidateCount": 3, "seed": 0}),
        ),
    );
    let v = r.json();
    assert_eq!(v["candidates"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(v["candidates"][0]["finishReason"], "STOP");
    assert!(v["usageMetadata"].get("thoughtsTokenCount").is_none());
    // A blocked prompt and an over-long one.
    let blocked =
        json!({"contents": [{"role": "user", "parts": [{"text": "[[blocked]] RATING=2"}]}]});
    let v = post(port, "/v1beta/models/gemini-2.5-flash:generateContent", &blocked).json();
    assert_eq!(v["promptFeedback"]["blockReason"], "SAFETY");
    let long = json!({"contents": [{"role": "user", "parts": [{"text": "[[too long]]"}]}]});
    let r = post(port, "/v1beta/models/gemini-2.5-flash:generateContent", &long);
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .expect("text")
            .contains("exceeds the maximum number of tokens allowed")
    );
    server.stop();

    let server = spawn(0, personality("gemini-3")).expect("mock");
    let r = post(
        server.port(),
        "/v1beta/models/gemini-3-pro-preview:generateContent",
        &ask(json!({"candidateCount": 2})),
    );
    assert_eq!(r.json()["error"]["message"], "Multiple candidates is not enabled for this model");
    let r = post(
        server.port(),
        "/v1beta/models/gemini-3-pro-preview:generateContent",
        &ask(json!({"thinkingConfig": {"thinkingBudget": 0}})),
    );
    assert_eq!(
        r.json()["error"]["message"],
        "Budget 0 is invalid. This model only works in thinking mode."
    );
    let r = call(server.port(), "GET", "/v1beta/models", &[], "").expect("list");
    assert_eq!(r.json()["models"][0]["name"], "models/mock-model");
    server.stop();
}

#[test]
fn openai_style_personalities_refuse_and_answer_as_their_providers() {
    let chat_body = |extra: Value| {
        let mut b = json!({"model": "m", "messages": [{"role": "user", "content": "Rate. RATING=3"}], "seed": 0});
        for (k, v) in extra.as_object().expect("object") {
            b[k] = v.clone();
        }
        b
    };
    let server = spawn(0, personality("deepseek")).expect("mock");
    let r = chat(
        server.port(),
        &chat_body(
            json!({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}}),
        ),
    )
    .expect("answer");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["message"], "This response_format type is unavailable now");
    let schema =
        r#"{"type":"object","properties":{"rating":{"type":"number"}},"required":["rating"]}"#;
    let r = chat(server.port(), &chat_body(json!({"response_format": {"type": "json_object"},
        "messages": [{"role": "user", "content": format!("Rate. RATING=3\n\nAnswer with a JSON object that follows this JSON schema: {schema}")}]}))).expect("answer");
    assert_eq!(r.status, 200);
    let answer: Value = serde_json::from_str(&texts(&r)[0]).expect("a JSON answer");
    assert!(answer["rating"].is_number(), "{answer}");
    let r = chat(server.port(), &chat_body(json!({"model": "deepseek-reasoner"}))).expect("answer");
    assert_eq!(r.json()["usage"]["completion_tokens_details"]["reasoning_tokens"], 120);
    assert!(r.json()["choices"][0]["message"]["reasoning_content"].is_string());
    server.stop();

    let server = spawn(0, personality("together-legacy")).expect("mock");
    let r = chat(server.port(), &chat_body(json!({"logprobs": true, "top_logprobs": 5})))
        .expect("answer");
    let lp = &r.json()["choices"][0]["logprobs"];
    assert!(
        lp["tokens"].is_array()
            && lp["token_logprobs"].is_array()
            && lp["top_logprobs"][0].is_object(),
        "{lp}"
    );
    server.stop();

    let server = spawn(0, personality("openrouter-byok")).expect("mock");
    let usage = chat(server.port(), &chat_body(json!({}))).expect("answer").json()["usage"].clone();
    assert_eq!(usage["is_byok"], true);
    let (fee, upstream) = (
        usage["cost"].as_f64().expect("cost"),
        usage["cost_details"]["upstream_inference_cost"].as_f64().expect("upstream"),
    );
    assert!(upstream > 0.0 && (fee - upstream * 0.05).abs() < 1e-15, "{usage}");
    server.stop();

    let mut small = personality("llamacpp-small-ctx");
    small.context_tokens = Some(20);
    let server = spawn(0, small).expect("mock");
    let r = chat(server.port(), &chat_body(json!({"n": 2}))).expect("answer");
    assert_eq!(r.json()["error"]["message"], "Only one completion choice is allowed");
    let long = "x".repeat(200);
    let r =
        chat(server.port(), &chat_body(json!({"messages": [{"role": "user", "content": long}]})))
            .expect("answer");
    assert_eq!(r.json()["error"]["type"], "exceed_context_size_error");
    server.stop();

    let mut claude = personality("anthropic-4.5");
    claude.credit_after = Some(1);
    let server = spawn(0, claude).expect("mock");
    let msg = |extra: Value| {
        let mut b = json!({"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Rate. RATING=2"}]});
        for (k, v) in extra.as_object().expect("object") {
            b[k] = v.clone();
        }
        post(server.port(), "/v1/messages", &b)
    };
    let r = msg(json!({"temperature": 0.5, "top_p": 0.9}));
    assert_eq!(
        r.json()["error"]["message"],
        "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    );
    assert_eq!(msg(json!({"temperature": 0.5})).status, 200);
    let r = msg(json!({}));
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .expect("text")
            .starts_with("Your credit balance is too low")
    );
    server.stop();
}
