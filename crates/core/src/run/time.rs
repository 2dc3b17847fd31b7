//! Parsing the time formats rate-limit headers use: HTTP dates, RFC 3339 timestamps and Go-style
//! durations (`6m0s`). All results are milliseconds; nothing here reads a clock.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn unix_ms(year: i64, month: u32, day: u32, h: u32, m: u32, s: u32, ms: u64) -> Option<u64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(s);
    u64::try_from(secs).ok().map(|s| s * 1000 + ms)
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form `Retry-After` uses.
pub fn parse_http_date_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let rest = text.split_once(", ").map_or(text, |(_, r)| r);
    let mut parts = rest.split_ascii_whitespace();
    let day: u32 = parts.next()?.parse().ok()?;
    let month = match parts.next()?.to_ascii_lowercase().as_str() {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "may" => 5,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    let year: i64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':');
    let h = hms.next()?.parse().ok()?;
    let m = hms.next()?.parse().ok()?;
    let s = hms.next()?.parse().ok()?;
    if parts.next()? != "GMT" {
        return None;
    }
    unix_ms(year, month, day, h, m, s, 0)
}

/// Parses an RFC 3339 timestamp (`2026-11-22T11:20:30Z`, `…30.25+01:00`).
pub fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', 't', ' '])?;
    let mut d = date.split('-');
    let year: i64 = d.next()?.parse().ok()?;
    let month: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    let (clock, offset_secs) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, 0i64)
    } else {
        let pos = time.rfind(['+', '-'])?;
        let (c, off) = time.split_at(pos);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (oh, om) = off[1..].split_once(':')?;
        let oh: i64 = oh.parse().ok()?;
        let om: i64 = om.parse().ok()?;
        (c, sign * (oh * 3600 + om * 60))
    };
    let mut c = clock.split(':');
    let h = c.next()?.parse().ok()?;
    let m = c.next()?.parse().ok()?;
    let sec_text = c.next()?;
    let (whole, frac) = sec_text.split_once('.').unwrap_or((sec_text, ""));
    let s = whole.parse().ok()?;
    let ms = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().chain("000".chars()).take(3).collect();
        digits.parse().ok()?
    };
    let utc = i64::try_from(unix_ms(year, month, day, h, m, s, ms)?).ok()? - offset_secs * 1000;
    u64::try_from(utc).ok()
}

/// Parses a Go-style duration as OpenAI and Gemini write them: `1s`, `6m0s`, `20ms`, `1h2m3.5s`,
/// `37s`, `0.5s`. A bare number is seconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(secs) = text.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| (secs * 1000.0).ceil() as u64);
    }
    let mut total = 0.0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let num_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let value: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            "ns" => 0.000_001,
            _ => return None,
        };
        total += value * factor;
        rest = &rest[unit_len..];
    }
    Some(total.ceil() as u64)
}
