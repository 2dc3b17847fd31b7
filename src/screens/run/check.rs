//! "Check this model" on the Run screen: the model list first (is the provider reachable, does
//! it know the model), then one tiny request per capability the open study needs, each judged
//! by the core ([`concord_core::run::check`]) and shown as works / refused with the provider's
//! own words and what Concord will do. The result is kept per provider and model in this
//! browser's local storage (never the key); a run of that model starts from it and the Judge
//! screen flags the methods it cannot serve.

use std::collections::BTreeMap;

use concord_core::run::check::{
    ModelCheck, Probe, ProbeOutcome, ProbeResult, Verdict, judge_probe, probe_call, probes,
};
use concord_core::run::{
    ApiError, CallOptions, ConnectionStatus, ParseError, SampleBatch, build_chat,
    build_list_models, classify_connection, classify_error, classify_unreachable,
    parse_chat_response,
};
use concord_core::study::workbench::study::check_needs;
use leptos::prelude::*;

use crate::edge::http;
use crate::edge::time;

use super::state::{ConnectionForm, check_of};
use super::tasks::RunContext;

use super::state::{CHECKS_STORAGE, local_storage};

/// The checks kept in this browser (once, at start).
pub fn restore_checks(run: super::state::RunState) {
    let Some(text) = local_storage().and_then(|s| s.get_item(CHECKS_STORAGE).ok().flatten()) else {
        return;
    };
    if let Ok(saved) = serde_json::from_str::<BTreeMap<String, ModelCheck>>(&text) {
        run.checks.set(saved);
    }
}

fn save_checks(checks: &BTreeMap<String, ModelCheck>) {
    if let (Some(storage), Ok(json)) = (local_storage(), serde_json::to_string(checks)) {
        let _ = storage.set_item(CHECKS_STORAGE, &json);
    }
}

/// What the check's first step (the model list) found: `Ok` to go on, `Err` what to show.
/// Why the check stopped at its first step: the model list could not be had.
#[derive(Debug, Clone, thiserror::Error)]
enum ReachError {
    /// The list request could not be built (the address or the key).
    #[error("{0}")]
    Build(concord_core::run::request::BuildError),
    /// The provider did not answer, or refused: the core's reading of it, with its advice.
    #[error("{}", said(.0))]
    Refused(concord_core::run::ConnectionReport),
}

/// A connection report in words: what happened, then what to do.
fn said(report: &concord_core::run::ConnectionReport) -> String {
    if report.advice.is_empty() {
        report.summary.clone()
    } else {
        format!("{} {}", report.summary, report.advice)
    }
}

async fn reach(form: &ConnectionForm) -> Result<(String, Vec<String>), ReachError> {
    let endpoint = form.endpoint();
    let req = build_list_models(&endpoint, form.api_key.trim()).map_err(ReachError::Build)?;
    match http::send(&req, 15_000, None).await {
        // "Failed to fetch" says nothing: probe whether the page's policy, CORS, a port the
        // browser refuses or an absent server is the cause.
        Err(http::FetchError::Network(_)) => {
            let cause = http::network_cause(&req.url).await;
            Err(ReachError::Refused(classify_unreachable(&endpoint, cause)))
        }
        Err(e) => {
            let report = classify_connection(&endpoint, 0, &[], &e.to_string(), time::now_ms());
            Err(ReachError::Refused(report))
        }
        Ok(reply) => {
            let report = classify_connection(
                &endpoint,
                reply.status,
                &reply.headers,
                &reply.body,
                time::now_ms(),
            );
            if matches!(report.status, ConnectionStatus::Ok) {
                Ok((said(&report), report.models))
            } else {
                Err(ReachError::Refused(report))
            }
        }
    }
}

/// One probe sent and judged.
async fn probe(
    form: &ConnectionForm,
    probe: Probe,
    needs: &concord_core::run::check::Needs,
) -> ProbeResult {
    let endpoint = form.endpoint();
    // The table's capabilities, not the last check's: a capability refused before is asked
    // about again.
    let caps = form.caps();
    let Some((req, caps)) = probe_call(probe, needs, &endpoint, &caps) else {
        return judge_probe(probe, needs, &ProbeOutcome::NotOnThisApi);
    };
    let samples = SampleBatch { first: 0, count: req.n };
    let outcome = match build_chat(
        &endpoint,
        &caps,
        &req,
        samples,
        form.api_key.trim(),
        CallOptions::default(),
    ) {
        Err(e) => ProbeOutcome::Failed(ApiError::network(e.to_string())),
        Ok(call) => match http::send(&call.http, form.timeout_s.saturating_mul(1000), None).await {
            Err(e) => ProbeOutcome::Failed(
                e.api_error().unwrap_or_else(|| ApiError::network(e.to_string())),
            ),
            Ok(reply) if !reply.is_success() => ProbeOutcome::Failed(classify_error(
                reply.status,
                &reply.headers,
                &reply.body,
                time::now_ms(),
            )),
            Ok(reply) => match parse_chat_response(endpoint.provider.api(), &reply.body) {
                Ok(r) => ProbeOutcome::Answered(r),
                Err(e @ ParseError::Blocked { .. }) => {
                    ProbeOutcome::Failed(ApiError::blocked(e.to_string()))
                }
                Err(e) => ProbeOutcome::Failed(ApiError::malformed(e.to_string())),
            },
        },
    };
    judge_probe(probe, needs, &outcome)
}

/// The Run screen's "Check this model" button and what it found.
#[component]
pub fn CheckModel(models: RwSignal<Vec<String>>) -> impl IntoView {
    let ctx = RunContext::from_context();
    let reached = RwSignal::new(None::<(bool, String)>);
    let checking = RwSignal::new(None::<String>);
    let check = move |_| {
        let form = ctx.run.connection.get_untracked();
        let study = ctx.judge.study.get_untracked();
        reached.set(None);
        checking.set(Some("Reaching the provider…".into()));
        leptos::task::spawn_local(async move {
            let listed = reach(&form).await;
            let (text, listed) = match listed {
                Ok(v) => v,
                Err(why) => {
                    reached.try_set(Some((false, why.to_string())));
                    checking.try_set(None);
                    return;
                }
            };
            models.try_set(listed);
            reached.try_set(Some((true, text)));
            let needs = check_needs(&study);
            let caps = form.caps();
            let mut results = Vec::new();
            for p in probes(&needs, &caps) {
                checking.try_set(Some(format!("Checking {}…", p.label())));
                let r = probe(&form, p, &needs).await;
                let failed = p == Probe::Plain && r.verdict != Verdict::Works;
                results.push(r);
                if failed {
                    break;
                }
            }
            let check = ModelCheck {
                provider: form.provider.slug().to_owned(),
                model: form.model.trim().to_owned(),
                at: time::now_ms(),
                results,
            };
            let key = ModelCheck::key(&check.provider, &check.model);
            ctx.run.checks.update(|all| {
                all.insert(key, check);
                save_checks(all);
            });
            checking.try_set(None);
        });
    };
    let current = move || {
        let form = ctx.run.connection.get();
        ctx.run.checks.with(|c| check_of(&form, c))
    };
    view! {
        <div class="row">
            <button type="button" class="secondary" on:click=check disabled=move || checking.get().is_some()>"Check this model"</button>
            <span class="muted">"One tiny request per capability the study needs (a few tokens each), before any study money is spent."</span>
        </div>
        {move || checking.get().map(|m| view! { <p class="notice-line" role="status" data-testid="check-progress">{m}</p> })}
        {move || reached.get().map(|(ok, text)| view! {
            <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="connection-result">{text}</p>
        })}
        {move || current().map(|c| {
            let refused: Vec<&str> = c.refused_params().iter().map(|p| p.name()).collect();
            view! {
            <section class="check-panel" role="region" aria-label="What this model can do" data-testid="model-check">
                <h3>{format!("{} at {}, checked {}", c.model, c.provider, time::local_time(c.at))}</h3>
                <ul class="check-list">
                    {c.results.into_iter().map(|r| {
                        let class = match r.verdict { Verdict::Works => "check-works", Verdict::Refused => "check-refused", Verdict::Failed => "check-failed" };
                        view! {
                            <li class=class data-testid="check-row" data-probe=r.probe.name() data-verdict=r.verdict.name()>
                                <strong>{format!("{}: {}", r.probe.label(), r.verdict.name())}</strong>
                                <span class="check-words">{r.words}</span>
                                <span class="check-action">{r.action}</span>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                {(!refused.is_empty()).then(|| view! {
                    <p class="muted" data-testid="check-plan">{format!(
                        "A run of this model does not send: {}.",
                        refused.join(", ")
                    )}</p>
                })}
            </section>
        }})}
    }
}
