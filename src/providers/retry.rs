//! Retry policy for transient provider failures: which statuses are worth another try, and
//! how long to wait (exponential backoff with jitter, or the server's `retry-after`).
//!
//! The policy only decides; `driver.rs` applies it, and never once a reply has started
//! streaming to the user.

use reqwest::header::HeaderMap;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// How often and how long to retry.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each later one.
    pub base_delay: Duration,
    /// No wait is longer than this, whatever the server asks for.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_attempts: 4, base_delay: Duration::from_millis(1000), max_delay: Duration::from_secs(60) }
    }
}

impl RetryPolicy {
    /// Statuses that are retried: rate limits, server errors and Anthropic's 529 "overloaded".
    pub(crate) fn retryable_status(status: u16) -> bool {
        matches!(status, 408 | 429 | 500 | 502 | 503 | 504 | 529)
    }

    /// The wait before attempt `next` (2 for the first retry), honouring the server's
    /// `retry-after-ms` / `retry-after` (seconds) when it sends one.
    pub(crate) fn delay(&self, next: u32, headers: Option<&HeaderMap>) -> Duration {
        if let Some(asked) = headers.and_then(server_delay) {
            return asked.min(self.max_delay);
        }
        let exponent = next.saturating_sub(2).min(16);
        let full = self.base_delay.saturating_mul(1u32 << exponent).min(self.max_delay);
        // Jitter: somewhere between half and all of the full delay.
        let half = full / 2;
        let spread = half.as_millis() as u64;
        let jitter = if spread == 0 { 0 } else { random() % (spread + 1) };
        half + Duration::from_millis(jitter)
    }
}

/// The delay a server asked for, if any.
fn server_delay(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_millis(ms as u64));
        }
    }
    let secs = text("retry-after").and_then(|v| v.parse::<f64>().ok())?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_millis((secs * 1000.0) as u64))
}

/// A random number good enough for jitter (no extra dependency).
fn random() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let policy = RetryPolicy {
            max_attempts: 6,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        for _ in 0..50 {
            let first = policy.delay(2, None);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100), "{first:?}");
            let second = policy.delay(3, None);
            assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(200), "{second:?}");
            assert!(policy.delay(6, None) <= Duration::from_millis(350));
        }
    }

    #[test]
    fn the_servers_retry_after_wins_but_is_capped() {
        let policy = RetryPolicy::default();
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(policy.delay(2, Some(&headers)), Duration::from_secs(2));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(policy.delay(2, Some(&headers)), Duration::from_millis(150));
        headers.clear();
        headers.insert("retry-after", HeaderValue::from_static("3600"));
        assert_eq!(policy.delay(2, Some(&headers)), Duration::from_secs(60));
    }

    #[test]
    fn which_statuses_are_retried() {
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(RetryPolicy::retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!RetryPolicy::retryable_status(s), "{s}");
        }
    }
}
