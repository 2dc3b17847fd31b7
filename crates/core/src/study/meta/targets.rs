//! Where the models a live run calls are served: an evaluator entry is `model`, `model @
//! provider`, `model @ URL` or `model @ provider URL` ([`evaluator_target`]), and a list of them
//! is comma- or line-separated ([`model_list`]).

use crate::run::ProviderId;

/// Model names from a comma- or line-separated list, trimmed, empty ones and repeats dropped.
pub fn model_list(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in text.split([',', '\n']).map(str::trim).filter(|m| !m.is_empty()) {
        if !out.iter().any(|o| o == m) {
            out.push(m.to_owned());
        }
    }
    out
}

/// Where an evaluator entry's model is served. An entry is `model` (the Run screen's
/// connection), `model @ provider` (that provider's preset base URL, e.g. `gpt-4o @ openai`,
/// `claude-3-5-haiku-latest @ anthropic`), `model @ URL` (an OpenAI-compatible server, e.g.
/// `qwen2-7b @ http://127.0.0.1:8000/v1`) or `model @ provider URL` (that provider's API at
/// another address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatorTarget {
    pub model: String,
    pub provider: Option<ProviderId>,
    pub base_url: Option<String>,
}

impl EvaluatorTarget {
    /// The provider whose key the calls need, given the Run screen's provider.
    pub fn provider_or(&self, run_screen: ProviderId) -> ProviderId {
        match (self.provider, &self.base_url) {
            (Some(p), _) => p,
            (None, Some(_)) => ProviderId::Custom,
            (None, None) => run_screen,
        }
    }

    /// Whether the calls go to the Run screen's connection (and use its key).
    pub fn is_run_screen(&self) -> bool {
        self.provider.is_none() && self.base_url.is_none()
    }

    /// Whether the Run screen's key may be sent with these calls: only to the Run screen's own
    /// provider at the Run screen's own address. A key is never sent to an address the user
    /// typed for another entry; such an entry needs a key of its own.
    pub fn may_use_run_screen_key(&self, run_screen: ProviderId, run_screen_url: &str) -> bool {
        let same = |u: &str| u.trim_end_matches('/') == run_screen_url.trim_end_matches('/');
        self.provider_or(run_screen) == run_screen && self.base_url.as_deref().is_none_or(same)
    }
}

/// Why an evaluator entry names no model and place the page can call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    #[error("`{entry}`: name the model before the @")]
    NoModel { entry: String },
    #[error("`{entry}`: no provider `{word}`; use one of {known} or a base URL")]
    UnknownProvider { entry: String, word: String, known: String },
    #[error(
        "`{entry}`: after the @ write a provider (`openai`), a base URL, or both (`anthropic https://…`)"
    )]
    Shape { entry: String },
}

/// Reads an evaluator entry (see [`EvaluatorTarget`]); says what is wrong with one it cannot.
pub fn evaluator_target(entry: &str) -> Result<EvaluatorTarget, TargetError> {
    let Some((model, at)) = entry.split_once(" @ ").or_else(|| {
        entry.split_once('@').filter(|(_, at)| {
            let at = at.trim_start();
            at.starts_with("http://")
                || at.starts_with("https://")
                || ProviderId::from_slug(at.split_whitespace().next().unwrap_or("")).is_some()
        })
    }) else {
        return Ok(EvaluatorTarget {
            model: entry.trim().to_owned(),
            provider: None,
            base_url: None,
        });
    };
    let model = model.trim();
    if model.is_empty() {
        return Err(TargetError::NoModel { entry: entry.to_owned() });
    }
    let words: Vec<&str> = at.split_whitespace().collect();
    let url = |w: &str| w.starts_with("http://") || w.starts_with("https://");
    let provider = |w: &str| {
        ProviderId::from_slug(w).ok_or_else(|| {
            let known: Vec<&str> = crate::run::PRESETS.iter().map(|p| p.slug).collect();
            TargetError::UnknownProvider {
                entry: entry.to_owned(),
                word: w.to_owned(),
                known: known.join(", "),
            }
        })
    };
    let (provider, base_url) = match words.as_slice() {
        [w] if url(w) => (None, Some(w.trim_end_matches('/').to_owned())),
        [w] => (Some(provider(w)?), None),
        [p, w] if url(w) => (Some(provider(p)?), Some(w.trim_end_matches('/').to_owned())),
        _ => return Err(TargetError::Shape { entry: entry.to_owned() }),
    };
    Ok(EvaluatorTarget { model: model.to_owned(), provider, base_url })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

    use super::*;

    #[test]
    fn evaluator_entries_name_their_provider_and_address() {
        let t = |e: &str| evaluator_target(e).unwrap();
        assert!(t("gpt-4o-mini").is_run_screen());
        assert_eq!(t("llama3:8b").model, "llama3:8b", "a colon is part of a model name");
        assert_eq!(t("Qwen/Qwen2-7B-Instruct").model, "Qwen/Qwen2-7B-Instruct");
        let a = t("claude-3-5-haiku-latest @ anthropic");
        assert_eq!(
            (a.model.as_str(), a.provider, a.base_url),
            ("claude-3-5-haiku-latest", Some(ProviderId::Anthropic), None)
        );
        let u = t("qwen2-7b @ http://127.0.0.1:8000/v1/");
        assert_eq!((u.provider, u.base_url.as_deref()), (None, Some("http://127.0.0.1:8000/v1")));
        assert_eq!(u.provider_or(ProviderId::OpenAi), ProviderId::Custom);
        let both = t("m @ anthropic http://127.0.0.1:9/v1");
        assert_eq!(
            (both.provider, both.base_url.as_deref()),
            (Some(ProviderId::Anthropic), Some("http://127.0.0.1:9/v1"))
        );
        assert_eq!(t("gpt-4o@openai").provider, Some(ProviderId::OpenAi));
        assert!(
            t("user@example").is_run_screen(),
            "an @ not followed by a provider or URL is part of the name"
        );
        let err = |e: &str| evaluator_target(e).unwrap_err();
        assert!(err("m @ nowhere").to_string().contains("no provider `nowhere`"));
        assert!(matches!(err("m @ nowhere"), TargetError::UnknownProvider { .. }));
        assert_eq!(err(" @ openai").to_string(), "` @ openai`: name the model before the @");
        assert!(matches!(err("m @ openai x y"), TargetError::Shape { .. }));
        // The Run screen's key goes to the Run screen's provider at its address, nowhere else.
        let run_url = "https://api.openai.com/v1";
        assert!(t("gpt-4o").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        assert!(t("gpt-4o @ openai").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        assert!(
            t("gpt-4o @ openai https://api.openai.com/v1/")
                .may_use_run_screen_key(ProviderId::OpenAi, run_url)
        );
        assert!(
            !t("gpt-4o @ openai https://elsewhere.example/v1")
                .may_use_run_screen_key(ProviderId::OpenAi, run_url)
        );
        assert!(!t("m @ anthropic").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        let custom = "http://127.0.0.1:8000/v1";
        assert!(
            t("m @ http://127.0.0.1:8000/v1").may_use_run_screen_key(ProviderId::Custom, custom)
        );
        assert!(!t("m @ http://127.0.0.1:9/v1").may_use_run_screen_key(ProviderId::Custom, custom));
    }

    #[test]
    fn model_lists() {
        assert_eq!(model_list(" a, b\nc,,a "), vec!["a", "b", "c"]);
        assert!(model_list(" , ").is_empty());
    }
}
