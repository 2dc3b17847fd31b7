//! "Test connection": list the provider's models and tell apart the ways it can fail —
//! unreachable (network/CORS), a bad key, a wrong base URL, or a model the server lacks.
//!
//! The request comes from [`crate::run::build_list_models`]; the edge sends it and passes the
//! outcome (status 0 for a status-less `TypeError`) to [`classify_connection`].

use crate::run::error::{ErrorKind, classify_error};
use crate::run::provider::Endpoint;
use crate::run::response::parse_model_list;

/// What Test connection found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionStatus {
    /// Reached, key accepted, and the chosen model is listed (or no model is chosen yet).
    Ok,
    /// Reached and key accepted, but the chosen model is not among the listed ones.
    ModelMissing,
    /// No response the page could read: server down, wrong host, or CORS refused.
    Unreachable,
    /// The key was rejected.
    BadKey,
    /// The server answered 404 for the model list: the base URL is probably wrong.
    WrongBaseUrl,
    /// Anything else (rate limit, server error, unreadable list).
    Failed,
}

/// The result with what to tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionReport {
    pub status: ConnectionStatus,
    /// Model ids the server listed (empty unless it answered with a list).
    pub models: Vec<String>,
    /// One sentence: what happened.
    pub summary: String,
    /// What to do about it (empty when all is well).
    pub advice: String,
}

/// Whether `listed` names `wanted`, allowing Ollama's implicit `:latest` tag and Gemini's
/// `models/` prefix.
fn same_model(listed: &str, wanted: &str) -> bool {
    let listed = listed.trim_start_matches("models/");
    let wanted = wanted.trim().trim_start_matches("models/");
    listed == wanted || listed.strip_suffix(":latest") == Some(wanted)
}

/// Classifies the outcome of the list-models request for `endpoint`.
pub fn classify_connection(
    endpoint: &Endpoint,
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_unix_ms: u64,
) -> ConnectionReport {
    let preset = endpoint.provider.preset();
    let report = |status, summary: String, advice: String| ConnectionReport {
        status,
        models: Vec::new(),
        summary,
        advice,
    };
    if (200..300).contains(&status) {
        let models = match parse_model_list(endpoint.provider.api(), body) {
            Ok(m) => m,
            Err(e) => {
                return report(
                    ConnectionStatus::Failed,
                    format!("{} answered, but its model list could not be read: {e}", preset.name),
                    "Check that the base URL points at the API root (it usually ends in /v1)."
                        .into(),
                );
            }
        };
        let wanted = endpoint.model.trim();
        if wanted.is_empty() || models.iter().any(|m| same_model(m, wanted)) {
            let summary = format!(
                "Connected to {}: {} available.",
                preset.name,
                crate::words::count(models.len(), "model", "models")
            );
            return ConnectionReport {
                status: ConnectionStatus::Ok,
                models,
                summary,
                advice: String::new(),
            };
        }
        let mut advice = "Pick one of the listed models.".to_string();
        if endpoint.provider == super::provider::ProviderId::Ollama {
            advice = format!("Run `ollama pull {wanted}`, or pick one of the listed models.");
        }
        return ConnectionReport {
            status: ConnectionStatus::ModelMissing,
            summary: format!(
                "Connected to {}, but it does not list the model `{wanted}` ({} listed).",
                preset.name,
                crate::words::count(models.len(), "model", "models")
            ),
            models,
            advice,
        };
    }
    let error = classify_error(status, headers, body, now_unix_ms);
    match error.kind {
        ErrorKind::Network => report(
            ConnectionStatus::Unreachable,
            format!(
                "Could not reach {} at {} (no response the browser may read).",
                preset.name,
                endpoint.normalized_base_url()
            ),
            preset.cors_advice.to_string(),
        ),
        ErrorKind::Auth | ErrorKind::BrowserAccessDenied => report(
            ConnectionStatus::BadKey,
            format!("{} rejected the key (HTTP {status}): {}", preset.name, error.message),
            error.advice(endpoint.provider),
        ),
        _ if status == 404 => report(
            ConnectionStatus::WrongBaseUrl,
            format!("{} answered 404 for the model list.", preset.name),
            format!("Check the base URL; {}'s is usually {}.", preset.name, preset.base_url),
        ),
        _ => report(
            ConnectionStatus::Failed,
            format!("{}: {error}", preset.name),
            error.advice(endpoint.provider),
        ),
    }
}

/// Why a request got no response the page may read, as the browser's probes tell it apart
/// (the request's own error says only "failed to fetch" in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkCause {
    /// This page's Content-Security-Policy refused the address before anything was sent.
    BlockedByPage,
    /// The server answered, but does not let web pages from other sites read its answers.
    CorsRefused,
    /// Nothing answered: no server on that port, a wrong host, or no network.
    NothingAnswered,
    /// The browser refuses this port itself (the Fetch standard's "bad ports", which Chrome
    /// reports as `ERR_UNSAFE_PORT`): nothing was sent, whatever listens there.
    RefusedPort(u16),
}

/// The ports browsers refuse to fetch from (the Fetch standard's list of bad ports; Chrome
/// answers them with `net::ERR_UNSAFE_PORT`, Firefox with "This address is restricted").
pub const BAD_PORTS: &[u16] = &[
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101,
    102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427,
    465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990,
    993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
    6668, 6669, 6679, 6697, 10080,
];

/// The port of an `http(s)://` URL when it is one the browser refuses ([`BAD_PORTS`]).
pub fn refused_port(url: &str) -> Option<u16> {
    let rest = url.trim().split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    // An IPv6 literal keeps its colons inside brackets.
    let port = match host_port.rsplit_once(']') {
        Some((_, after)) => after.strip_prefix(':')?,
        None => host_port.rsplit_once(':')?.1,
    };
    let port: u16 = port.parse().ok()?;
    BAD_PORTS.contains(&port).then_some(port)
}

impl NetworkCause {
    /// What happened at `url`, and what to do about it.
    pub fn explain(self, url: &str, cors_advice: &str) -> (String, String) {
        match self {
            NetworkCause::BlockedByPage => (
                format!("This page does not allow calls to {url}: its Content-Security-Policy refused them before anything was sent."),
                "The page allows any https:// address and http:// only on this computer (127.0.0.1, localhost), so that keys never travel unencrypted. Use the https:// address of the server, or run it locally.".to_owned(),
            ),
            NetworkCause::CorsRefused => (
                format!("{url} answered, but does not let web pages from other sites read its answers (CORS)."),
                cors_advice.to_owned(),
            ),
            NetworkCause::RefusedPort(port) => (
                format!("The browser refuses to connect to port {port} ({url}): it is a port browsers block for every web page (Chrome says ERR_UNSAFE_PORT), so nothing was sent."),
                format!("Start the server on another port (e.g. 8000, 8080 or 11434) and change the base URL; port {port} cannot be used from a browser."),
            ),
            NetworkCause::NothingAnswered => (
                format!("Nothing answered at {url}: no server is listening there, the host or port is wrong, or this computer is offline."),
                "Start the server (e.g. `ollama serve`, `llama-server`) and check the address and port.".to_owned(),
            ),
        }
    }
}

/// The report of a connection test whose request got no readable response, once the cause is
/// known ([`NetworkCause`]).
pub fn classify_unreachable(endpoint: &Endpoint, cause: NetworkCause) -> ConnectionReport {
    let preset = endpoint.provider.preset();
    let (summary, advice) = cause.explain(&endpoint.normalized_base_url(), preset.cors_advice);
    ConnectionReport { status: ConnectionStatus::Unreachable, models: Vec::new(), summary, advice }
}

#[cfg(test)]
mod unreachable_tests {
    use super::*;

    #[test]
    fn each_cause_says_something_different() {
        let endpoint = Endpoint {
            provider: crate::run::ProviderId::Custom,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
        };
        let said: Vec<String> =
            [NetworkCause::BlockedByPage, NetworkCause::CorsRefused, NetworkCause::NothingAnswered]
                .into_iter()
                .map(|c| classify_unreachable(&endpoint, c).summary)
                .collect();
        assert!(said[0].contains("Content-Security-Policy"), "{}", said[0]);
        assert!(said[1].contains("CORS") && !said[1].contains("Content-Security"), "{}", said[1]);
        assert!(said[2].starts_with("Nothing answered at http://127.0.0.1:9/v1"), "{}", said[2]);
        assert!(!said[2].contains("CORS"));
    }

    /// Issue 36.13: Chrome's ERR_UNSAFE_PORT (a port it refuses, e.g. 6000) is not "no server is
    /// listening": it is a port the browser refuses, and another port is the fix.
    #[test]
    fn a_port_the_browser_refuses_is_said_as_such() {
        assert_eq!(refused_port("http://127.0.0.1:6000/v1"), Some(6000));
        assert_eq!(refused_port("http://localhost:10080"), Some(10080));
        assert_eq!(refused_port("http://[::1]:6665/v1"), Some(6665));
        assert_eq!(refused_port("http://user@host:6000/x"), Some(6000));
        for fine in [
            "http://127.0.0.1:8080/v1",
            "https://api.openai.com/v1",
            "http://localhost:11434/v1",
            "http://[::1]/v1",
        ] {
            assert_eq!(refused_port(fine), None, "{fine}");
        }
        let endpoint = Endpoint {
            provider: crate::run::ProviderId::LlamaCpp,
            base_url: "http://127.0.0.1:6000/v1".into(),
            model: "m".into(),
        };
        let report = classify_unreachable(&endpoint, NetworkCause::RefusedPort(6000));
        assert!(report.summary.contains("refuses to connect to port 6000"), "{}", report.summary);
        assert!(!report.summary.contains("no server is listening"));
        assert!(report.advice.contains("another port"), "{}", report.advice);
    }
}
