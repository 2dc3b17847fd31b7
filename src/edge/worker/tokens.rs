//! Prompt tokens counted with OpenAI's encodings (core `run::tokens`) for the Run screen's
//! estimate. An encoding's table is megabytes and building it takes a few hundred
//! milliseconds, so each lives in a wasm chunk of its own (`split_tokenizer_o200k.wasm`,
//! `split_tokenizer_cl100k.wasm`, fetched the first time an estimate needs it; only in split
//! builds) and is built in the Web Worker
//! (`op: "tokens"`), never on the page's thread unless workers are unavailable.

use concord_core::run::tokens::{Encoding, Tokenizer, TokenizerError};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use crate::edge::js;

use super::protocol::{JobOutcome, WorkerError, call_split, post_done, post_error, run_job};

/// Why prompt tokens could not be counted (the estimate then stays approximate).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CountError {
    /// The tokenizer's chunk could not be fetched (offline, or a new deploy removed its `pkg-<hash>/`).
    #[error("the tokenizer could not be downloaded ({0})")]
    Chunk(String),
    #[error(transparent)]
    Build(#[from] TokenizerError),
    /// The worker's account of why it could not count.
    #[error("{0}")]
    Job(String),
    /// The worker stopped or answered something unreadable.
    #[error("the tokenizer stopped midway ({0})")]
    Worker(String),
}

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for CountError {
    fn from(e: leptos::wasm_split::SplitLoaderError) -> CountError {
        CountError::Chunk(e.to_string())
    }
}

/// Counts each prompt as one call's input (its tokens and the chat format's).
type Counter = fn(&[String]) -> Result<Vec<u64>, TokenizerError>;

fn count_with(tokenizer: Tokenizer, prompts: &[String]) -> Vec<u64> {
    prompts.iter().map(|p| tokenizer.chat_prompt_tokens(p)).collect()
}

fn count_o200k(prompts: &[String]) -> Result<Vec<u64>, TokenizerError> {
    Ok(count_with(Tokenizer::o200k_base()?, prompts))
}

fn count_cl100k(prompts: &[String]) -> Result<Vec<u64>, TokenizerError> {
    Ok(count_with(Tokenizer::cl100k_base()?, prompts))
}

// The split points: one chunk an encoding (its table is megabytes), their shared code in a
// chunk of its own.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(tokenizer_o200k, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn counter_o200k() -> Result<Counter, CountError> {
    Ok(count_o200k)
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(tokenizer_cl100k, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn counter_cl100k() -> Result<Counter, CountError> {
    Ok(count_cl100k)
}

async fn load_counter(encoding: Encoding) -> Result<Counter, CountError> {
    match encoding {
        Encoding::O200kBase => call_split!(counter_o200k),
        Encoding::Cl100kBase => call_split!(counter_cl100k),
    }
}

/// Counts `prompts` under `encoding`: in a worker, or here when workers are unavailable.
pub async fn count_prompts(encoding: Encoding, prompts: &[String]) -> Result<Vec<u64>, CountError> {
    let request = Object::new();
    let texts = Array::new();
    for p in prompts {
        texts.push(&JsValue::from_str(p));
    }
    let _ = Reflect::set(&request, &"op".into(), &"tokens".into());
    let _ = Reflect::set(&request, &"encoding".into(), &encoding.name().into());
    let _ = Reflect::set(&request, &"texts".into(), &texts);
    match run_job(&request, &Array::new(), || {}).await {
        JobOutcome::Done(reply) => {
            let counts: Array = js::property(&reply, "counts").unchecked_into();
            let counts: Vec<u64> =
                counts.iter().filter_map(|v| v.as_f64()).map(|v| v as u64).collect();
            if counts.len() == prompts.len() {
                Ok(counts)
            } else {
                Err(CountError::Worker(format!(
                    "{} counts for {} prompts",
                    counts.len(),
                    prompts.len()
                )))
            }
        }
        // The job's own words (the chunk that could not be fetched, …) as they are.
        JobOutcome::Failed(WorkerError::Job(why)) => Err(CountError::Job(why)),
        JobOutcome::Failed(e) => Err(CountError::Worker(e.to_string())),
        JobOutcome::Unavailable(_) => {
            let count = load_counter(encoding).await?;
            Ok(count(prompts)?)
        }
    }
}

/// The worker's side of `tokens`: `{encoding, texts}` → `{counts}`.
pub(super) fn job(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    let name = js::property(message, "encoding").as_string().unwrap_or_default();
    let texts: Vec<String> = js::property(message, "texts")
        .dyn_into::<Array>()
        .map(|a| a.iter().filter_map(|t| t.as_string()).collect())
        .unwrap_or_default();
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let Some(encoding) = Encoding::from_name(&name) else {
            post_error(&scope, &format!("no tokenizer for the encoding {name:?}"));
            return;
        };
        let counted = match load_counter(encoding).await {
            Ok(count) => count(&texts).map_err(CountError::from),
            Err(e) => Err(e),
        };
        match counted {
            Ok(counts) => {
                let out = Array::new();
                for c in counts {
                    out.push(&JsValue::from_f64(c as f64));
                }
                post_done(&scope, &[("counts", &out)], &Array::new());
            }
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
}
