//! The run engine end to end over real loopback sockets against the mock LLM server
//! (`xtask/src/mock_llm.rs`, compiled in here): request building, sending on worker threads,
//! parsing, error classification, retries, a cache, a "reload" midway with resumption, and the
//! mock's log proving no sample was answered successfully twice. Bounded in time and count.

#[allow(dead_code)]
#[path = "../../../xtask/src/mock_llm.rs"]
mod mock_llm;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use concord_core::judge::{ChatRequest, Message};
use concord_core::run::{
    Action, ApiError, CallOptions, Capabilities, Endpoint, Finish, HttpRequest, Job, ProviderId,
    RetryPolicy, SampleBatch, Scheduler, SchedulerConfig, build_chat, cache_key, classify_error,
    parse_chat_response,
};
use mock_llm::{Failure, ReplyMode, Scenario};

/// Status, headers, body; status 0 when no status line came back (the browser's TypeError).
fn send(http: &HttpRequest) -> (u16, Vec<(String, String)>, String) {
    let rest = http.url.trim_start_matches("http://");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let Ok(mut stream) = TcpStream::connect(host) else { return (0, Vec::new(), String::new()) };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut raw = format!(
        "{} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n",
        http.method.as_str()
    );
    for (k, v) in &http.headers {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    raw.push_str(&format!("content-length: {}\r\n\r\n{}", http.body.len(), http.body));
    if stream.write_all(raw.as_bytes()).is_err() {
        return (0, Vec::new(), String::new());
    }
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).to_string();
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return (0, Vec::new(), String::new());
    };
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// What a job asks for: one sample of one prompt.
#[derive(Clone)]
struct Payload {
    request: ChatRequest,
    sample: u32,
    expected: u32,
}

/// Runs `jobs` until done or until `stop_after` successes (the "reload"); returns the finish.
fn drive(
    endpoint: &Endpoint,
    jobs: Vec<Job<Payload>>,
    config: SchedulerConfig,
    cache: &mut HashMap<String, String>,
    stop_after: Option<usize>,
) -> (Finish, Duration) {
    let mut caps = Capabilities::for_model(endpoint.provider, &endpoint.model);
    let mut scheduler = Scheduler::new(jobs, config);
    let (tx, rx) = mpsc::channel::<(usize, (u16, Vec<(String, String)>, String))>();
    let start = Instant::now();
    let now = |start: Instant| start.elapsed().as_millis() as u64;
    let mut stored_this_run = 0;
    let deadline = start + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the run did not finish in time");
        let wait = match scheduler.next_action(now(start)) {
            Action::Send(id) => {
                let job = scheduler.job(id).expect("job");
                caps.dropped = scheduler.dropped_params().clone();
                let sample = SampleBatch { first: job.payload.sample, count: 1 };
                let call = build_chat(
                    endpoint,
                    &caps,
                    &job.payload.request,
                    sample,
                    "",
                    CallOptions::default(),
                )
                .expect("builds");
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let _ = tx.send((id, send(&call.http)));
                });
                continue;
            }
            Action::Done(finish) => return (finish, start.elapsed()),
            Action::Wait(ms) => Duration::from_millis(ms),
            _ => Duration::from_secs(15),
        };
        let Ok((id, (status, headers, body))) = rx.recv_timeout(wait) else { continue };
        let at = now(start);
        if status == 200 {
            match parse_chat_response(endpoint.provider.api(), &body) {
                Ok(response) => {
                    let key = scheduler.job(id).expect("job").key.clone();
                    // Stored the moment it arrives, before the scheduler hears of it.
                    assert!(
                        cache.insert(key, response.choices[0].text.clone()).is_none(),
                        "paid twice"
                    );
                    scheduler.on_success(id, at, response.usage).expect("in flight");
                    stored_this_run += 1;
                    if stop_after.is_some_and(|n| stored_this_run >= n) {
                        // The page goes away: nothing more is sent; what is in flight lands.
                        scheduler.cancel(at);
                    }
                }
                Err(e) => {
                    scheduler
                        .on_failure(id, at, ApiError::malformed(e.to_string()))
                        .expect("in flight");
                }
            }
        } else {
            let error = if status == 0 {
                ApiError::network("connection closed without a response")
            } else {
                classify_error(status, &headers, &body, 0)
            };
            scheduler.on_failure(id, at, error).expect("in flight");
        }
    }
}

#[test]
fn a_flaky_run_with_a_reload_midway_completes_and_pays_for_nothing_twice() {
    let scenario = Scenario {
        reply: ReplyMode::EchoRating { marker: "RATING=".into(), noisy_when: None },
        failure_rate: 0.2,
        failures: vec![
            Failure::RateLimited,
            Failure::ServerError,
            Failure::Drop,
            Failure::Truncate,
        ],
        retry_after_s: 0,
        seed: 5,
        ..Scenario::default()
    };
    let mock = mock_llm::spawn(0, scenario).expect("mock starts");
    let endpoint = Endpoint {
        provider: ProviderId::LlamaCpp,
        base_url: format!("{}/v1", mock.base_url()),
        model: "mock-model".into(),
    };
    // 30 items × 2 attributes × 3 samples, each prompt planting its expected rating.
    let mut all = Vec::new();
    for item in 0..30u32 {
        for attribute in ["coherence", "fluency"] {
            let expected = 1 + (item * 7 + attribute.len() as u32) % 5;
            let request = ChatRequest {
                messages: vec![Message::user(format!(
                    "Item {item}, {attribute}. RATING={expected}"
                ))],
                temperature: Some(1.0),
                max_tokens: Some(5),
                n: 3,
                ..ChatRequest::user("")
            };
            for sample in 0..3 {
                let key = cache_key(&endpoint, &request, sample);
                all.push(Job {
                    key,
                    payload: Payload { request: request.clone(), sample, expected },
                    estimated_cost_usd: 0.0,
                    prompt: None,
                });
            }
        }
    }
    let config = || SchedulerConfig {
        max_concurrency: 6,
        retry: RetryPolicy { max_attempts: 10, base_ms: 10, cap_ms: 200 },
        seed: 1,
        ..SchedulerConfig::default()
    };
    let mut cache = HashMap::new();
    let (first, _) = drive(&endpoint, all.clone(), config(), &mut cache, Some(80));
    assert_eq!(first, Finish::Cancelled);
    let stored_before_reload = cache.len();
    assert!((80..180).contains(&stored_before_reload), "{stored_before_reload}");
    // Reopen: only what is not cached is queued.
    let remaining: Vec<Job<Payload>> =
        all.iter().filter(|j| !cache.contains_key(&j.key)).cloned().collect();
    assert_eq!(remaining.len(), 180 - stored_before_reload);
    let (second, _) = drive(&endpoint, remaining, config(), &mut cache, None);
    assert_eq!(second, Finish::Completed);
    assert_eq!(cache.len(), 180);
    for job in &all {
        assert_eq!(cache[&job.key], format!("Rating: {}", job.payload.expected));
    }
    let summary = mock.summary();
    assert!(summary.duplicate_successes.is_empty(), "{:?}", summary.duplicate_successes);
    assert_eq!(summary.answered_ok, 180);
    assert!(summary.failed >= 20, "failures were injected: {summary:?}");
    println!(
        "loopback flaky run: {} requests, {} answered, {} failed",
        summary.total, summary.answered_ok, summary.failed
    );
    mock.stop();
}

#[test]
fn paced_run_against_a_rate_limited_mock() {
    // A 1-second window stands in for a minute so the test stays short: 30 per second.
    let scenario = Scenario { rpm_limit: Some(30), rate_window_ms: 1000, ..Scenario::default() };
    let mock = mock_llm::spawn(0, scenario).expect("mock starts");
    let endpoint = Endpoint {
        provider: ProviderId::Vllm,
        base_url: format!("{}/v1", mock.base_url()),
        model: "m".into(),
    };
    let jobs: Vec<Job<Payload>> = (0..120u32)
        .map(|i| {
            let request = ChatRequest::user(format!("item {i}"));
            Job {
                key: cache_key(&endpoint, &request, 0),
                payload: Payload { request, sample: 0, expected: 0 },
                estimated_cost_usd: 0.0,
                prompt: None,
            }
        })
        .collect();
    // The scheduler paces per minute; 30 per second is 1800 per minute.
    let config = SchedulerConfig {
        max_concurrency: 6,
        requests_per_minute: Some(1800),
        ..SchedulerConfig::default()
    };
    let mut cache = HashMap::new();
    let (finish, elapsed) = drive(&endpoint, jobs, config, &mut cache, None);
    assert_eq!(finish, Finish::Completed);
    assert_eq!(cache.len(), 120);
    let summary = mock.summary();
    let per_second = 120.0 / elapsed.as_secs_f64();
    println!(
        "loopback pacing: {per_second:.1} requests/s of a 30/s limit ({:.0}%), {} rate-limited",
        per_second / 30.0 * 100.0,
        summary.failed
    );
    assert!(summary.duplicate_successes.is_empty());
    mock.stop();
}
