//! How numbers are said: the one formatter for every text Concord shows — table cells, notes,
//! screens, the CLI's tables — so a count reads `1,656 values` and `1 model`, money `$0.00042`
//! and a p-value `p < 0.001` wherever it appears.
//!
//! Only shown text goes through here: exported values keep full precision (a CSV cell holds the
//! value, not its text — `report::export`), and JSON carries numbers as numbers.

/// What a number that is not there (or not finite) is shown as: an en dash.
pub const DASH: &str = "–";

/// Below this a p-value is said as `< 0.001`.
pub const P_FLOOR: f64 = 0.001;

/// Digits grouped by thousands with commas: `1656` → `1,656`, `-1234567` → `-1,234,567`.
fn group(digits: &str) -> String {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits),
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// A whole number with thousands separators: `1,656`.
pub fn thousands(n: impl Into<u64>) -> String {
    group(&n.into().to_string())
}

/// A count with thousands separators (`usize`, as counts are held): `12,000`.
pub fn int(n: usize) -> String {
    group(&n.to_string())
}

/// `x` with `decimals` decimals and thousands separators (`12,345.68`); an en dash when `x` is
/// missing or not finite. `-0.000` is shown as `0.000`.
pub fn decimal(x: Option<f64>, decimals: usize) -> String {
    let Some(x) = x.filter(|x| x.is_finite()) else { return DASH.to_owned() };
    let text = format!("{x:.decimals$}");
    let text = match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => text,
    };
    match text.split_once('.') {
        Some((whole, fraction)) => format!("{}.{fraction}", group(whole)),
        None => group(&text),
    }
}

/// A rating or score as people read it: at most three decimals, no trailing zeros (`4`,
/// `3.5`, `3.667`), thousands grouped.
pub fn short(x: f64) -> String {
    let text = decimal(Some(x), 3);
    match text.split_once('.') {
        Some((whole, fraction)) => {
            let fraction = fraction.trim_end_matches('0');
            if fraction.is_empty() { whole.to_owned() } else { format!("{whole}.{fraction}") }
        }
        None => text,
    }
}

/// The noun of `n` in the right number: `one` for 1, `many` otherwise (0 included).
pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `n` with its noun in the right number and thousands separators: `1 response`,
/// `1,656 responses`, `0 responses`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", int(n), plural(n, one, many))
}

/// An amount in US dollars with enough digits to say it: cents from a dollar up (`$1,234.50`),
/// two significant digits below (`$0.054`, `$0.0011`, `$0.00042`), `$0.00` for nothing and
/// `< $0.000001` for what is less than a millionth of a dollar but not nothing. An en dash when
/// not finite.
pub fn usd(x: f64) -> String {
    if !x.is_finite() {
        return DASH.to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    if a == 0.0 {
        return "$0.00".to_owned();
    }
    if a < 0.000_001 {
        return format!("{sign}< $0.000001");
    }
    let mut text = decimal(Some(a), usd_decimals(a));
    // Two significant digits, not trailing zeros: $0.0004, not $0.00040 (cents stay: $0.50).
    if let Some((_, fraction)) = text.split_once('.') {
        let keep = fraction.trim_end_matches('0').len().max(2);
        let cut = fraction.len() - keep;
        text.truncate(text.len() - cut);
    }
    format!("{sign}${text}")
}

/// How many decimals [`usd`] gives an amount of `a` dollars (`a` ≥ 0): cents from a dollar
/// up, two significant digits below.
pub fn usd_decimals(a: f64) -> usize {
    if a >= 1.0 || a == 0.0 || !a.is_finite() {
        2
    } else {
        (1 - a.log10().floor() as i32).clamp(2, 10) as usize
    }
}

/// Amounts that must add up as shown (a batch's spent, interactive and saved): each rounded to
/// the decimals [`usd`] gives the largest of `a` and `b`, the third (`b − a`) derived from the
/// first two as rounded, so the three agree to the last digit shown.
pub fn usd_difference(a: f64, b: f64) -> (String, String, String) {
    let decimals = usd_decimals(a.abs().max(b.abs()));
    let scale = 10f64.powi(decimals as i32);
    let (ra, rb) = ((a * scale).round() / scale, (b * scale).round() / scale);
    let show = |v: f64| {
        let sign = if v < 0.0 { "-" } else { "" };
        format!("{sign}${}", decimal(Some(v.abs()), decimals))
    };
    (show(ra), show(rb), show(rb - ra))
}

/// A p-value as a number: three decimals, `< 0.001` below [`P_FLOOR`] (what a table's `p`
/// column shows).
pub fn p_number(p: f64) -> String {
    if !p.is_finite() {
        DASH.to_owned()
    } else if p < P_FLOOR {
        "< 0.001".to_owned()
    } else {
        decimal(Some(p), 3)
    }
}

/// A p-value in a sentence, with its relation: `p = 0.012`, `p < 0.001`.
pub fn p_value(p: f64) -> String {
    if p.is_finite() && p < P_FLOOR {
        "p < 0.001".to_owned()
    } else {
        format!("p = {}", p_number(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1000), "1,000");
        assert_eq!(int(1656), "1,656");
        assert_eq!(int(1_234_567), "1,234,567");
        assert_eq!(thousands(12_000u32), "12,000");
        assert_eq!(decimal(Some(12345.678), 2), "12,345.68");
        assert_eq!(decimal(Some(-1234.5), 1), "-1,234.5");
        assert_eq!(decimal(Some(1000.46), 1), "1,000.5");
        assert_eq!(decimal(Some(0.8421), 3), "0.842");
        assert_eq!(decimal(Some(999.96), 1), "1,000.0");
        assert_eq!(decimal(Some(42.0), 0), "42");
        assert_eq!(decimal(Some(-0.0001), 3), "0.000");
        assert_eq!(decimal(None, 3), DASH);
        assert_eq!(decimal(Some(f64::NAN), 3), DASH);
        assert_eq!(short(4.0), "4");
        assert_eq!(short(3.5), "3.5");
        assert_eq!(short(11.0 / 3.0), "3.667");
        assert_eq!(short(2500.25), "2,500.25");
    }

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "model", "models"), "1 model");
        assert_eq!(count(0, "model", "models"), "0 models");
        assert_eq!(count(2, "line", "lines"), "2 lines");
        assert_eq!(count(1656, "value", "values"), "1,656 values");
        assert_eq!(plural(1, "file", "files"), "file");
        assert_eq!(plural(3, "file", "files"), "files");
    }

    #[test]
    fn money_has_enough_digits() {
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.0004), "$0.0004");
        assert_eq!(usd(0.00042), "$0.00042");
        assert_eq!(usd(0.0009), "$0.0009");
        assert_eq!(usd(0.0011), "$0.0011");
        assert_eq!(usd(0.0019), "$0.0019");
        assert_eq!(usd(0.054), "$0.054");
        assert_eq!(usd(0.5), "$0.50");
        assert_eq!(usd(0.25), "$0.25");
        assert_eq!(usd(1.0), "$1.00");
        assert_eq!(usd(1234.5), "$1,234.50");
        assert_eq!(usd(-0.0004), "-$0.0004");
        assert_eq!(usd(0.000_000_2), "< $0.000001");
        assert_eq!(usd(f64::NAN), DASH);
        // Never a run of zeros that says nothing.
        for x in [1e-6, 3.3e-6, 0.00001, 0.000123, 0.0099, 0.099, 0.99] {
            let said = usd(x);
            assert!(
                !said.trim_start_matches("$0.").trim_start_matches('0').is_empty(),
                "{x}: {said}"
            );
            assert_ne!(said, "$0.00", "{x}");
            assert_ne!(said, "$0.0000", "{x}");
        }
    }

    #[test]
    fn p_values_read_as_relations() {
        assert_eq!(p_value(0.0123), "p = 0.012");
        assert_eq!(p_value(0.0004), "p < 0.001");
        assert_eq!(p_value(0.001), "p = 0.001");
        assert_eq!(p_value(1.0), "p = 1.000");
        assert_eq!(p_number(0.0004), "< 0.001");
        assert_eq!(p_number(0.5), "0.500");
        assert!(!p_value(0.0).contains("= <"));
    }
}
