//! When to retry a failed call and how long to wait: full-jitter exponential backoff, with a
//! readable `retry-after` as the minimum wait. The random source is passed in, so runs and
//! tests are reproducible.

use rand_core::RngCore;

use crate::run::error::{ApiError, ErrorKind};
use crate::run::provider::Param;

/// Backoff parameters. Base 1 s and cap 60 s follow LLM_PROVIDERS.md; ten attempts rather
/// than its "about six" because a long run must finish: at a 20% transient failure rate, six
/// attempts leave about two of 28,800 calls failed (0.2⁶ × 28,800), ten leave 0.003.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per call, the first one included.
    pub max_attempts: u32,
    /// Backoff scale for the first retry.
    pub base_ms: u64,
    /// Upper bound of the backoff window (not of a provider's `retry-after`).
    pub cap_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy { max_attempts: 10, base_ms: 1000, cap_ms: 60_000 }
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetryDecision {
    /// Send the same request again after this many ms.
    RetryAfter(u64),
    /// Rebuild the request without this parameter and send it again at once.
    DropParamAndRetry(Param),
    /// Do not retry this call; the reason is shown to the user.
    GiveUp(GiveUpReason),
}

/// Why a call is not retried.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GiveUpReason {
    /// The error can never succeed by retrying (auth, quota, context length, …).
    NotRetryable,
    /// All attempts were used.
    AttemptsExhausted { attempts: u32 },
    /// The parameter was already dropped once and the API still complains.
    ParamAlreadyDropped(Param),
}

impl RetryPolicy {
    /// The full-jitter backoff before retry number `retry` (1 for the first retry): uniform in
    /// `[0, min(cap, base · 2^(retry−1))]`.
    pub fn backoff_ms(&self, retry: u32, rng: &mut impl RngCore) -> u64 {
        let exp = retry.saturating_sub(1).min(32);
        let window = self.base_ms.saturating_mul(1u64 << exp).min(self.cap_ms);
        if window == 0 {
            return 0;
        }
        rng.next_u64() % (window + 1)
    }

    /// Decides what follows attempt number `attempt` (1-based) failing with `error`.
    /// `already_dropped` says whether the parameter the error names was dropped before.
    pub fn decide(
        &self,
        error: &ApiError,
        attempt: u32,
        already_dropped: impl Fn(Param) -> bool,
        rng: &mut impl RngCore,
    ) -> RetryDecision {
        if let ErrorKind::BadParameter(p) = error.kind {
            return if already_dropped(p) {
                RetryDecision::GiveUp(GiveUpReason::ParamAlreadyDropped(p))
            } else {
                RetryDecision::DropParamAndRetry(p)
            };
        }
        if !error.is_retryable() {
            return RetryDecision::GiveUp(GiveUpReason::NotRetryable);
        }
        if attempt >= self.max_attempts {
            return RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted { attempts: attempt });
        }
        let backoff = self.backoff_ms(attempt, rng);
        // The provider's wait is a floor: retrying earlier is certain to fail again.
        RetryDecision::RetryAfter(backoff.max(error.retry_after_ms.unwrap_or(0)))
    }
}
