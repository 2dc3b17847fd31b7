//! The scheduler driven on a simulated clock against a simulated provider: failures and
//! retries, rate limits and pacing, spend cap, fatal errors, dropped parameters, pause/cancel.

use std::collections::{BTreeMap, VecDeque};

use concord_core::run::{
    Action, ApiError, ErrorKind, FailureOutcome, Finish, Job, NETWORK_PAUSE_MS, Param, Price,
    Scheduler, SchedulerConfig, SchedulerError, StopReason, Usage, classify_error,
};

/// What the simulated provider answers to one attempt.
#[derive(Debug, Clone)]
enum Answer {
    Ok,
    Fail { status: u16, headers: Vec<(String, String)>, body: String },
}

/// A simulated provider: latency, an optional sliding-window request limit (as the mock
/// server has), and a script deciding each (job, attempt).
struct Sim {
    latency_ms: u64,
    limit: Option<(usize, u64)>,
    accepted: VecDeque<u64>,
    script: Box<dyn FnMut(usize, u32) -> Answer>,
}

/// What a simulated run produced.
#[derive(Debug)]
struct Outcome {
    finish: Finish,
    now_ms: u64,
    successes: BTreeMap<usize, u32>,
    max_in_flight: usize,
    sends: usize,
    sends_after_stop: usize,
}

fn jobs(n: usize, cost: f64) -> Vec<Job<String>> {
    (0..n)
        .map(|i| Job {
            key: format!("key-{i}"),
            payload: format!("item {i}"),
            estimated_cost_usd: cost,
            prompt: None,
        })
        .collect()
}

/// Drives `s` to completion on a virtual clock (bounded: panics after too many steps).
fn simulate(
    s: &mut Scheduler<String>,
    sim: &mut Sim,
    mut on_step: impl FnMut(&mut Scheduler<String>, u64),
) -> Outcome {
    let mut now = 0u64;
    let mut in_flight: Vec<(u64, usize, Answer)> = Vec::new();
    let mut successes = BTreeMap::new();
    let (mut max_in_flight, mut sends, mut sends_after_stop) = (0, 0, 0);
    let mut stopped = false;
    for _ in 0..1_000_000 {
        on_step(s, now);
        let action = s.next_action(now);
        let next_arrival = in_flight.iter().map(|f| f.0).min();
        match action {
            Action::Send(id) => {
                sends += 1;
                if stopped {
                    sends_after_stop += 1;
                }
                let attempt = s.attempts(id);
                let mut answer = (sim.script)(id, attempt);
                if let Some((limit, window)) = sim.limit {
                    while sim.accepted.front().is_some_and(|&t| now - t >= window) {
                        sim.accepted.pop_front();
                    }
                    if let Some(&oldest) =
                        sim.accepted.front().filter(|_| sim.accepted.len() >= limit)
                    {
                        // Like the mock server: the true wait, rounded up to whole seconds.
                        let wait_s = (oldest + window - now).div_ceil(1000);
                        answer = Answer::Fail {
                            status: 429,
                            headers: vec![
                                ("retry-after".into(), wait_s.to_string()),
                                ("x-ratelimit-limit-requests".into(), limit.to_string()),
                            ],
                            body:
                                r#"{"error":{"code":"rate_limit_exceeded","message":"slow down"}}"#
                                    .into(),
                        };
                    } else {
                        sim.accepted.push_back(now);
                    }
                }
                in_flight.push((now + sim.latency_ms, id, answer));
                max_in_flight = max_in_flight.max(in_flight.len());
                continue;
            }
            Action::Done(finish) => {
                assert!(in_flight.is_empty(), "done with calls in flight");
                return Outcome {
                    finish,
                    now_ms: now,
                    successes,
                    max_in_flight,
                    sends,
                    sends_after_stop,
                };
            }
            Action::Wait(ms) => {
                assert!(ms > 0, "Wait(0) would spin");
                now = next_arrival.map_or(now + ms, |t| t.min(now + ms));
            }
            Action::AwaitResponses | Action::Paused => {
                now = next_arrival.expect("awaiting responses with none in flight").max(now);
            }
            other => panic!("unexpected {other:?}"),
        }
        let (arrived, rest): (Vec<_>, Vec<_>) = in_flight.drain(..).partition(|f| f.0 <= now);
        in_flight = rest;
        for (_, id, answer) in arrived {
            match answer {
                Answer::Ok => {
                    *successes.entry(id).or_insert(0) += 1;
                    s.on_success(
                        id,
                        now,
                        Some(Usage {
                            prompt_tokens: 1000,
                            completion_tokens: 10,
                            reasoning_tokens: 0,
                        }),
                    )
                    .expect("in flight");
                }
                Answer::Fail { status, headers, body } => {
                    let error = if status == 0 {
                        ApiError::network("TypeError: Failed to fetch")
                    } else {
                        classify_error(status, &headers, &body, 0)
                    };
                    if s.on_failure(id, now, error).expect("in flight")
                        == FailureOutcome::RunStopped
                    {
                        stopped = true;
                    }
                }
            }
        }
    }
    panic!("the simulation did not finish");
}

fn hash(a: u64, b: u64) -> u64 {
    let mut x = a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_add(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// 20% of attempts fail, spread over 429 + retry-after, 500, 529 and dropped connections.
fn flaky(seed: u64) -> Box<dyn FnMut(usize, u32) -> Answer> {
    Box::new(move |id, attempt| {
        let h = hash(seed ^ id as u64, u64::from(attempt));
        if h % 100 >= 20 {
            return Answer::Ok;
        }
        let (status, headers) = match (h >> 8) % 4 {
            0 => (429, vec![("retry-after".to_string(), "1".to_string())]),
            1 => (500, Vec::new()),
            2 => (529, Vec::new()),
            _ => (0, Vec::new()),
        };
        Answer::Fail { status, headers, body: String::new() }
    })
}

#[test]
fn a_flaky_provider_run_completes_with_every_job_answered_exactly_once() {
    let config = SchedulerConfig { max_concurrency: 8, seed: 3, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(1440, 0.0), config);
    let mut sim =
        Sim { latency_ms: 300, limit: None, accepted: VecDeque::new(), script: flaky(11) };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    assert_eq!(out.finish, Finish::Completed);
    assert_eq!(out.successes.len(), 1440);
    assert!(out.successes.values().all(|&n| n == 1), "no job answered twice");
    assert!(out.max_in_flight <= 8);
    let p = s.progress(out.now_ms);
    assert_eq!((p.done, p.failed, p.in_flight, p.total), (1440, 0, 0, 1440));
    // About a quarter more sends than jobs: 20% failures, retried.
    let extra = (out.sends - 1440) as f64 / 1440.0;
    assert!((0.15..0.35).contains(&extra), "{} sends", out.sends);
    assert_eq!(p.retries as usize, out.sends - 1440);
    assert_eq!(
        p.usage,
        Usage { prompt_tokens: 1_440_000, completion_tokens: 14_400, reasoning_tokens: 0 }
    );
}

#[test]
fn pacing_sustains_at_least_90_percent_of_a_known_limit() {
    let config = SchedulerConfig {
        max_concurrency: 8,
        requests_per_minute: Some(120),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(jobs(600, 0.0), config);
    let mut sim = Sim {
        latency_ms: 800,
        limit: Some((120, 60_000)),
        accepted: VecDeque::new(),
        script: Box::new(|_, _| Answer::Ok),
    };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    assert_eq!(out.finish, Finish::Completed);
    assert_eq!(out.sends, 600, "paced sends never meet a 429");
    let per_minute = 600.0 * 60_000.0 / out.now_ms as f64;
    println!("simulated, known limit: {per_minute:.1} of 120 requests per minute");
    assert!((0.9 * 120.0..=120.0).contains(&per_minute), "{per_minute:.1} requests per minute");
}

#[test]
fn a_limit_learned_from_429s_still_sustains_90_percent() {
    let config = SchedulerConfig { max_concurrency: 8, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(900, 0.0), config);
    let mut sim = Sim {
        latency_ms: 500,
        limit: Some((60, 60_000)),
        accepted: VecDeque::new(),
        script: Box::new(|_, _| Answer::Ok),
    };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    assert_eq!(out.finish, Finish::Completed);
    assert_eq!(out.successes.len(), 900);
    let per_minute = 900.0 * 60_000.0 / out.now_ms as f64;
    println!("simulated, learned limit: {per_minute:.1} of 60 requests per minute");
    assert!(per_minute >= 0.9 * 60.0, "{per_minute:.1} of 60 requests per minute");
    assert!(s.log().iter().any(|l| l.message == "pacing to 60 requests per minute"));
}

#[test]
fn concurrency_halves_on_a_rate_limit_and_grows_back() {
    let config = SchedulerConfig { max_concurrency: 8, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(40, 0.0), config);
    let sent: Vec<usize> = (0..8)
        .map(|_| match s.next_action(0) {
            Action::Send(id) => id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(s.next_action(0), Action::AwaitResponses, "8 in flight");
    let limited = classify_error(429, &[("retry-after".into(), "2".into())], "", 0);
    // The provider's wait beats the first backoff window (at most 1 s).
    assert_eq!(
        s.on_failure(sent[0], 100, limited.clone()),
        Ok(FailureOutcome::Retry { after_ms: 2000 })
    );
    assert_eq!(s.concurrency_limit(), 4);
    // The rest of the burst was sent before the decrease: no further halving.
    s.on_failure(sent[1], 110, limited).expect("in flight");
    assert_eq!(s.concurrency_limit(), 4);
    assert_eq!(s.next_action(120), Action::AwaitResponses, "6 in flight, limit 4");
    for &id in &sent[2..] {
        s.on_success(id, 200, None).expect("in flight");
    }
    // retry-after holds every send, not just the retried jobs': the later 429 said 110 + 2000.
    assert_eq!(s.next_action(300), Action::Wait(1810));
    assert!(s.concurrency_limit() >= 5, "additive increase: {}", s.concurrency_limit());
}

#[test]
fn the_spend_cap_stops_the_run_cleanly_before_it_is_exceeded() {
    let price = Price { input_per_million: 10.0, output_per_million: 100.0 };
    // Each call: 1000 × 10 + 10 × 100 = 11,000 µ$ = $0.011; estimated at $0.011 too.
    let config = SchedulerConfig {
        max_concurrency: 3,
        spend_cap_usd: Some(0.05),
        price: Some(price),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(jobs(100, 0.011), config);
    let mut sim = Sim {
        latency_ms: 100,
        limit: None,
        accepted: VecDeque::new(),
        script: Box::new(|_, _| Answer::Ok),
    };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    let Finish::Stopped(StopReason::SpendCap { spent_usd, cap_usd }) = out.finish else {
        panic!("{:?}", out.finish);
    };
    assert_eq!(cap_usd, 0.05);
    assert_eq!(out.successes.len(), 4, "a fifth call would reach $0.055");
    assert!((spent_usd - 0.044).abs() < 1e-12, "{spent_usd}");
    assert!((s.cost().total_usd() - 0.044).abs() < 1e-12);
    assert!(s.progress(out.now_ms).cost_usd <= 0.05);
}

#[test]
fn calls_in_flight_hold_their_reservation_until_they_land() {
    // Reserved at $0.02 a call, each costs $0.011 when it lands (the provider's usage).
    let price = Price { input_per_million: 10.0, output_per_million: 100.0 };
    let config = SchedulerConfig {
        max_concurrency: 4,
        spend_cap_usd: Some(0.05),
        price: Some(price),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(jobs(100, 0.02), config);
    // Two calls reserve $0.04; a third would commit $0.06: it waits for them, not the run.
    assert!(matches!(s.next_action(0), Action::Send(_)));
    assert!(matches!(s.next_action(0), Action::Send(_)));
    assert_eq!(
        s.next_action(0),
        Action::AwaitResponses,
        "$0.04 reserved, $0.02 more would pass $0.05"
    );
    let usage = Usage { prompt_tokens: 1000, completion_tokens: 10, reasoning_tokens: 0 };
    s.on_success(0, 10, Some(usage)).expect("in flight");
    s.on_success(1, 10, Some(usage)).expect("in flight");
    // $0.022 spent: a call more is $0.042 at most.
    assert!(matches!(s.next_action(20), Action::Send(_)));
    assert_eq!(s.next_action(20), Action::AwaitResponses);
    s.on_success(2, 30, Some(usage)).expect("in flight");
    // $0.033 spent: the next would be $0.053 at most; nothing in flight, so the run stops,
    // within one call's reservation of the cap.
    let Action::Done(Finish::Stopped(StopReason::SpendCap { spent_usd, .. })) = s.next_action(40)
    else {
        panic!("the cap stops the run");
    };
    assert!((spent_usd - 0.033).abs() < 1e-12, "{spent_usd}");
    assert!(0.05 - spent_usd < 0.02);
}

#[test]
fn auth_errors_stop_the_run_and_nothing_more_is_sent() {
    let config = SchedulerConfig { max_concurrency: 2, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(50, 0.0), config);
    let script = Box::new(|id: usize, _| {
        if id == 5 {
            Answer::Fail {
                status: 401,
                headers: Vec::new(),
                body: r#"{"error":{"message":"Incorrect API key provided"}}"#.into(),
            }
        } else {
            Answer::Ok
        }
    });
    let mut sim = Sim { latency_ms: 100, limit: None, accepted: VecDeque::new(), script };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    let Finish::Stopped(StopReason::Fatal(e)) = &out.finish else { panic!("{:?}", out.finish) };
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(out.sends_after_stop, 0);
    assert_eq!(s.attempts(5), 1, "never retried");
    assert!(out.successes.len() < 10);
    assert!(s.log().iter().any(|l| l.message.contains("stopping the run")));
}

#[test]
fn a_rejected_parameter_is_dropped_once_and_logged() {
    let config = SchedulerConfig { max_concurrency: 1, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(3, 0.0), config);
    let Action::Send(id) = s.next_action(0) else { panic!() };
    let rejected = classify_error(
        400,
        &[],
        r#"{"error":{"message":"Unsupported parameter: 'logprobs'","param":"logprobs","code":"unsupported_parameter"}}"#,
        0,
    );
    assert_eq!(
        s.on_failure(id, 10, rejected.clone()),
        Ok(FailureOutcome::RetryWithout(Param::Logprobs))
    );
    assert!(s.dropped_params().contains(&Param::Logprobs));
    assert!(s.log().iter().any(|l| l.message.starts_with("the API rejected `logprobs`")));
    assert_eq!(s.next_action(10), Action::Send(id), "sent again at once");
    assert_eq!(s.attempts(id), 1, "a correction is not a retry");
    // Rejected again although dropped: something else is wrong; the job fails, the run goes on.
    assert_eq!(s.on_failure(id, 20, rejected), Ok(FailureOutcome::Failed));
    assert_eq!(s.next_action(20), Action::Send(1));
    assert_eq!(s.progress(20).failed, 1);
}

#[test]
fn calls_in_flight_when_a_parameter_is_dropped_are_sent_again_without_it() {
    let config = SchedulerConfig { max_concurrency: 3, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(3, 0.0), config);
    let sent: Vec<_> = (0..3)
        .map(|_| match s.next_action(0) {
            Action::Send(id) => id,
            other => panic!("expected a send, got {other:?}"),
        })
        .collect();
    let rejected = classify_error(
        400,
        &[],
        r#"{"error":{"message":"Unsupported parameter: 'logprobs'","param":"logprobs","code":"unsupported_parameter"}}"#,
        0,
    );
    // All three were built with logprobs; each rejection is a correction, none a failure.
    for &id in &sent {
        assert_eq!(
            s.on_failure(id, 10, rejected.clone()),
            Ok(FailureOutcome::RetryWithout(Param::Logprobs))
        );
    }
    assert!(s.log().iter().any(|l| l.message.contains("before it was dropped")));
    for _ in 0..3 {
        assert!(matches!(s.next_action(10), Action::Send(_)));
    }
    assert_eq!(s.progress(10).failed, 0);
    // Sent without it and still rejected: that one fails.
    assert_eq!(s.on_failure(sent[0], 20, rejected), Ok(FailureOutcome::Failed));
}

#[test]
fn pause_resume_cancel_and_abort() {
    let config = SchedulerConfig { max_concurrency: 2, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(5, 0.0), config);
    assert_eq!(s.next_action(0), Action::Send(0));
    assert_eq!(s.next_action(0), Action::Send(1));
    s.pause(5);
    assert_eq!(s.next_action(5), Action::Paused);
    s.on_success(0, 10, None).expect("responses in flight are still accepted while paused");
    assert_eq!(s.next_action(10), Action::Paused);
    s.resume(20);
    assert_eq!(s.next_action(20), Action::Send(2));
    s.cancel(30);
    assert_eq!(s.next_action(30), Action::AwaitResponses, "two still in flight");
    s.on_success(1, 40, None).expect("in flight");
    s.on_aborted(2).expect("in flight");
    assert_eq!(s.attempts(2), 0, "an aborted call is not an attempt");
    assert_eq!(s.next_action(50), Action::Done(Finish::Cancelled));
    let messages: Vec<&str> = s.log().iter().map(|l| l.message.as_str()).collect();
    assert_eq!(messages, vec!["paused", "resumed", "cancelled"]);
    assert_eq!(s.on_success(1, 60, None), Err(SchedulerError::NotInFlight(1)), "reported twice");
    assert_eq!(s.on_success(99, 60, None), Err(SchedulerError::UnknownJob(99)));
}

#[test]
fn progress_reports_rate_and_eta() {
    let config = SchedulerConfig {
        max_concurrency: 1,
        price: Some(Price { input_per_million: 1.0, output_per_million: 2.0 }),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(jobs(10, 0.0), config);
    let mut now = 1_000;
    for id in 0..5 {
        assert_eq!(s.next_action(now), Action::Send(id));
        now += 1_000;
        s.on_success(
            id,
            now,
            Some(Usage { prompt_tokens: 100, completion_tokens: 50, reasoning_tokens: 0 }),
        )
        .expect("in flight");
    }
    let p = s.progress(now);
    assert_eq!((p.done, p.total), (5, 10));
    assert_eq!(p.rate_per_minute, 60.0, "5 in 5 s");
    assert_eq!(p.eta_ms, Some(5_000));
    assert_eq!(p.usage, Usage { prompt_tokens: 500, completion_tokens: 250, reasoning_tokens: 0 });
    assert!((p.cost_usd - 0.001).abs() < 1e-15, "500 × $1/M + 250 × $2/M");
}

#[test]
fn a_pause_neither_grows_the_eta_nor_lowers_the_rate() {
    let mut s = Scheduler::new(
        jobs(10, 0.0),
        SchedulerConfig { max_concurrency: 1, ..SchedulerConfig::default() },
    );
    let mut now = 1_000;
    for id in 0..5 {
        assert_eq!(s.next_action(now), Action::Send(id));
        now += 1_000;
        s.on_success(id, now, None).expect("in flight");
    }
    assert_eq!(s.progress(now).eta_ms, Some(5_000));
    s.pause(now);
    // Paused for a minute: no ETA meanwhile (nothing is sent, so none can be said).
    let p = s.progress(now + 60_000);
    assert_eq!(p.eta_ms, None, "no ETA while paused");
    assert_eq!(p.rate_per_minute, 60.0, "the pause is not the run's time");
    s.resume(now + 60_000);
    let p = s.progress(now + 60_000);
    assert_eq!((p.rate_per_minute, p.eta_ms), (60.0, Some(5_000)), "as before the pause");
}

#[test]
fn gives_up_after_max_attempts_and_counts_the_failure() {
    let config = SchedulerConfig { max_concurrency: 4, seed: 1, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(4, 0.0), config);
    let script = Box::new(|id: usize, _| {
        if id == 2 {
            Answer::Fail { status: 500, headers: Vec::new(), body: String::new() }
        } else {
            Answer::Ok
        }
    });
    let mut sim = Sim { latency_ms: 50, limit: None, accepted: VecDeque::new(), script };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    assert_eq!(out.finish, Finish::Completed);
    assert_eq!(s.attempts(2), 10, "the default policy's ten attempts");
    let p = s.progress(out.now_ms);
    assert_eq!((p.done, p.failed), (3, 1));
    assert!(s.log().iter().any(|l| l.message.contains("gave up after 10 attempts")));
}

#[test]
fn a_full_size_run_of_360_items_4_attributes_20_samples_completes() {
    // One job per sample, as for providers without `n`: 28,800 calls.
    let config = SchedulerConfig { max_concurrency: 8, seed: 4, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(360 * 4 * 20, 0.0), config);
    let mut sim =
        Sim { latency_ms: 250, limit: None, accepted: VecDeque::new(), script: flaky(29) };
    let out = simulate(&mut s, &mut sim, |_, _| {});
    assert_eq!(out.finish, Finish::Completed);
    assert_eq!(out.successes.len(), 28_800);
    assert!(out.successes.values().all(|&n| n == 1));
    assert_eq!(s.progress(out.now_ms).failed, 0);
}

#[test]
fn pacing_makes_up_for_late_wakeups_but_not_for_idle_gaps() {
    // 60 per minute at 95%: one send every 60,000 / 57 ≈ 1052.6 ms.
    let config = SchedulerConfig { requests_per_minute: Some(60), ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(10, 0.0), config);
    assert_eq!(s.next_action(0), Action::Send(0));
    assert_eq!(s.next_action(0), Action::Wait(1053));
    // The timer fired 447 ms late: the next slot stays on the original grid (2106 ms).
    assert_eq!(s.next_action(1500), Action::Send(1));
    assert_eq!(s.next_action(1500), Action::Wait(606));
    // After a long idle gap only one interval is made up: two sends at once (the one due and
    // one made up), then the grid again, never a longer burst.
    assert_eq!(s.next_action(10_000), Action::Send(2));
    assert_eq!(s.next_action(10_000), Action::Send(3));
    assert_eq!(s.next_action(10_000), Action::Wait(1053));
}

#[test]
fn a_call_without_any_answer_holds_new_sends_for_a_moment() {
    let config = SchedulerConfig { max_concurrency: 2, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs(4, 0.0), config);
    let Action::Send(a) = s.next_action(0) else { panic!("a first send") };
    let Action::Send(_) = s.next_action(0) else { panic!("a second send") };
    s.on_failure(a, 100, ApiError::network("TypeError: Failed to fetch"))
        .expect("the call was in flight");
    // A slot is free, yet nothing new goes out at once: the network may be gone, or the page
    // (a reload aborts every fetch in flight, and the provider bills what it received).
    assert!(!matches!(s.next_action(100), Action::Send(_)));
    assert!(!matches!(s.next_action(100 + NETWORK_PAUSE_MS - 1), Action::Send(_)));
    assert!(matches!(s.next_action(100 + NETWORK_PAUSE_MS), Action::Send(_)));
    assert!(s.log().iter().any(|l| l.message.contains("no answer from the network")));
}
