//! Evaluator and meta-evaluator names: read from the released file names, and mapped to one
//! canonical short name so rankings from different files can be compared.
//!
//! The release spells the same model several ways (`gpt-4-1106-preview` in the evaluator files,
//! `gpt4` / `g4` in the JDEval and BSMEval files, `gpt-3.5-turbo-0125` in the JDEval-i file
//! names but `gpt-3.5-turbo` in the evaluator file names). Reports keep the spelling of the file;
//! only comparisons (ranking agreement) go through [`canonical`].

/// The file name without directories and without its extension.
pub fn stem(file: &str) -> &str {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !ext.is_empty() && !ext.contains('-') && !stem.is_empty() => {
            // `qwen1.5-7B-Chat` has a dot but no extension; only strip known-looking ones.
            if ext.chars().all(|c| c.is_ascii_alphanumeric()) && ext.len() <= 5 {
                stem
            } else {
                base
            }
        }
        _ => base,
    }
}

/// The evaluator of an evaluator-results file: `merged_eval_results_{name}_pairwise.jsonl`,
/// `merged_scores_{name}_pointwise.jsonl`; otherwise the whole stem.
pub fn evaluator_from_file(file: &str) -> String {
    let stem = stem(file);
    let inner = ["merged_eval_results_", "merged_scores_"]
        .iter()
        .find_map(|p| stem.strip_prefix(p))
        .unwrap_or(stem);
    let inner =
        ["_pairwise", "_pointwise"].iter().find_map(|s| inner.strip_suffix(s)).unwrap_or(inner);
    inner.to_owned()
}

/// (meta-evaluator, evaluator) of a pointwise meta-evaluator file:
/// `merged_meta_results_{meta}_{evaluator}_pointwise.jsonl` (JDEval-i) or
/// `{meta}_{evaluator}_openmeva_bsm_….jsonl` (BSMEval). `None` when the name has neither shape;
/// the caller then falls back to the names inside the file.
pub fn meta_pointwise_from_file(file: &str) -> Option<(String, String)> {
    let stem = stem(file);
    if let Some(inner) = stem.strip_prefix("merged_meta_results_") {
        let inner = inner.strip_suffix("_pointwise").unwrap_or(inner);
        // Model names use `-` and `.`, never `_`, so the one `_` separates the two.
        let (meta, evaluator) = inner.split_once('_')?;
        return Some((meta.to_owned(), evaluator.to_owned()));
    }
    let mut parts = stem.split('_');
    let (meta, evaluator) = (parts.next()?, parts.next()?);
    (stem.contains("_bsm") && !meta.is_empty() && !evaluator.is_empty())
        .then(|| (meta.to_owned(), evaluator.to_owned()))
}

/// The meta-evaluator of a JDEval file: the first `_`-separated part (`g4_llmbar_elo.jsonl`
/// → `g4`, `qwen72b_llmbar_elo_new.jsonl` → `qwen72b`).
pub fn meta_pairwise_from_file(file: &str) -> String {
    let stem = stem(file);
    stem.split('_').next().filter(|s| !s.is_empty()).unwrap_or(stem).to_owned()
}

/// One short name per model family of seed 003: `gpt4`, `gpt35`, `mistral`, `qwen7b`,
/// `qwen14b`, `qwen72b`. Other names are returned lower-cased, unchanged otherwise.
pub fn canonical(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let known = if lower == "g4" || lower.starts_with("gpt-4") || lower == "gpt4" {
        "gpt4"
    } else if lower.starts_with("gpt-3.5") || lower == "gpt35" || lower == "g35" {
        "gpt35"
    } else if lower.starts_with("mixtral") || lower.starts_with("mistral") {
        "mistral"
    } else if lower.starts_with("qwen") {
        let size = lower.split(['-', '_']).find_map(|p| {
            let p = p.strip_prefix("qwen1.5").or_else(|| p.strip_prefix("qwen")).unwrap_or(p);
            p.strip_suffix('b').filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        });
        return match size {
            Some(n) => format!("qwen{n}b"),
            None => lower,
        };
    } else {
        return lower;
    };
    known.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_released_file_names() {
        let ev = "x/evaluator_results/pairwise/merged_eval_results_qwen1.5-7B-Chat_pairwise.jsonl";
        assert_eq!(evaluator_from_file(ev), "qwen1.5-7B-Chat");
        assert_eq!(
            evaluator_from_file("merged_scores_Mixtral-8x7B-Instruct-v0.1_pointwise.jsonl"),
            "Mixtral-8x7B-Instruct-v0.1"
        );
        assert_eq!(
            meta_pointwise_from_file(
                "merged_meta_results_gpt-4-1106-preview_gpt-3.5-turbo-0125_pointwise.jsonl"
            ),
            Some(("gpt-4-1106-preview".to_owned(), "gpt-3.5-turbo-0125".to_owned()))
        );
        assert_eq!(
            meta_pointwise_from_file(
                "BSMEval/qwen7b_mistral_openmeva_bsm_after_pro_add_score.jsonl"
            ),
            Some(("qwen7b".to_owned(), "mistral".to_owned()))
        );
        assert_eq!(meta_pointwise_from_file("scores.jsonl"), None);
        assert_eq!(meta_pairwise_from_file("JDEval/g4_llmbar_elo.jsonl"), "g4");
    }

    #[test]
    fn canonical_names_join_the_spellings() {
        for (spellings, want) in [
            (&["gpt-4-1106-preview", "gpt4", "g4"][..], "gpt4"),
            (&["gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt35"][..], "gpt35"),
            (&["Mixtral-8x7B-Instruct-v0.1", "mistral"][..], "mistral"),
            (&["qwen1.5-7B-Chat", "qwen7b"][..], "qwen7b"),
            (&["qwen1.5-72B-Chat", "qwen72b"][..], "qwen72b"),
            (&["My-Judge"][..], "my-judge"),
        ] {
            for s in spellings {
                assert_eq!(canonical(s), want, "{s}");
            }
        }
    }
}
