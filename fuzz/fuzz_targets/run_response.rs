//! Fuzzes what the run engine reads from providers: chat responses and model lists for every
//! API shape, and error classification (status, headers and body from the input).
#![no_main]

use concord_core::run::{Api, classify_error, parse_chat_response, parse_model_list};
use libfuzzer_sys::fuzz_target;

const APIS: [Api; 3] = [Api::OpenAiCompatible, Api::Anthropic, Api::Gemini];

fuzz_target!(|input: &[u8]| {
    let Some((head, bytes)) = input.split_first_chunk::<2>() else { return };
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    for api in APIS {
        let _ = parse_chat_response(api, text);
        let _ = parse_model_list(api, text);
    }
    // The first line, when it has a colon, is a header (retry-after and friends); the rest is
    // the body. The status covers 0 (no response) to 999.
    let status = u16::from_le_bytes(*head) % 1000;
    let (headers, body) = match text.split_once('\n') {
        Some((line, rest)) => match line.split_once(':') {
            Some((k, v)) => (vec![(k.to_owned(), v.to_owned())], rest),
            None => (Vec::new(), text),
        },
        None => (Vec::new(), text),
    };
    for now in [0, 1_763_800_000_000, u64::MAX] {
        let e = classify_error(status, &headers, body, now);
        let _ = e.to_string();
    }
});
