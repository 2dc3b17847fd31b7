//! Counting a prompt's tokens before it is sent: OpenAI's byte-pair encodings (`o200k_base`,
//! `cl100k_base`, through the `tiktoken-rs` crate) for the models known to read them, and
//! nothing for the rest — their estimate stays at four characters a token and says it is
//! approximate.
//!
//! Which model reads which encoding follows OpenAI's own table (tiktoken's `model.py`): the
//! GPT-4o, GPT-4.1, GPT-4.5, GPT-5 and o-series families `o200k_base`, GPT-4 and GPT-3.5
//! `cl100k_base`, also under OpenRouter's `openai/` prefix or as a fine-tuned `ft:` model.
//! `gpt-oss` reads `o200k_harmony`, which is not here, so it stays approximate.
//!
//! An encoding's table is large (`o200k_base`: 200,000 ranks, 3.6 MB as text), so the app
//! builds a [`Tokenizer`] only when an estimate needs one, in a wasm chunk of its own and off
//! the page's thread; building it takes a few hundred milliseconds.

use std::fmt;

/// An OpenAI byte-pair encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o1, o3, o4-mini.
    O200kBase,
    /// GPT-4, GPT-3.5 Turbo, `text-embedding-3-*`.
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name as OpenAI writes it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Reads [`Encoding::name`] back.
    pub fn from_name(name: &str) -> Option<Encoding> {
        [Encoding::O200kBase, Encoding::Cl100kBase].into_iter().find(|e| e.name() == name)
    }

    /// The encoding `model` reads, when it is one of OpenAI's models (whatever the provider
    /// serving it: OpenAI, OpenRouter's `openai/…`, an Azure deployment or a proxy named like
    /// the model); `None` for every other model.
    pub fn for_model(model: &str) -> Option<Encoding> {
        let model = model.trim();
        let model = model.strip_prefix("openai/").unwrap_or(model);
        let model = model.strip_prefix("ft:").unwrap_or(model);
        // Longest matching prefix first: "gpt-4o" before "gpt-4".
        const O200K: [&str; 9] =
            ["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4-mini", "o4"];
        const CL100K: [&str; 5] =
            ["gpt-4", "gpt-3.5", "gpt-35-turbo", "text-embedding-3", "text-embedding-ada-002"];
        let family = |prefix: &&str| {
            model == *prefix
                || model.strip_prefix(*prefix).is_some_and(|rest| {
                    // "o1-mini", "gpt-4o-2024-08-06", "gpt-5.1", "gpt-4-turbo"; not "o100".
                    rest.starts_with(['-', '.', ':']) || prefix.starts_with("gpt")
                })
        };
        if O200K.iter().any(family) {
            Some(Encoding::O200kBase)
        } else if CL100K.iter().any(family) {
            Some(Encoding::Cl100kBase)
        } else {
            None
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Tokens OpenAI's chat format adds to a call of one user message: three for the message's
/// framing, one for its role, three priming the reply (OpenAI's "How to count tokens with
/// tiktoken").
pub const CHAT_TOKENS_PER_CALL: u64 = 7;

/// Why a tokenizer could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {encoding} tokenizer could not be built ({message}); the estimate stays approximate")]
pub struct TokenizerError {
    pub encoding: Encoding,
    pub message: String,
}

/// An encoding ready to count.
pub struct Tokenizer {
    encoding: Encoding,
    bpe: tiktoken_rs::CoreBPE,
}

impl Tokenizer {
    /// Builds `encoding`'s tokenizer from the ranks compiled in (a few hundred milliseconds).
    pub fn load(encoding: Encoding) -> Result<Tokenizer, TokenizerError> {
        match encoding {
            Encoding::O200kBase => Tokenizer::o200k_base(),
            Encoding::Cl100kBase => Tokenizer::cl100k_base(),
        }
    }

    /// `o200k_base` alone (code that names only this one links only its table: the app's
    /// chunk of one encoding does not carry the other's).
    pub fn o200k_base() -> Result<Tokenizer, TokenizerError> {
        Tokenizer::built(Encoding::O200kBase, tiktoken_rs::o200k_base())
    }

    /// `cl100k_base` alone (see [`Tokenizer::o200k_base`]).
    pub fn cl100k_base() -> Result<Tokenizer, TokenizerError> {
        Tokenizer::built(Encoding::Cl100kBase, tiktoken_rs::cl100k_base())
    }

    fn built(
        encoding: Encoding,
        bpe: Result<tiktoken_rs::CoreBPE, impl fmt::Display>,
    ) -> Result<Tokenizer, TokenizerError> {
        bpe.map(|bpe| Tokenizer { encoding, bpe })
            .map_err(|e| TokenizerError { encoding, message: e.to_string() })
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The tokens of `text` as plain text (special-token markers in it are ordinary text,
    /// as a provider reads a user's message).
    pub fn count(&self, text: &str) -> u64 {
        self.bpe.encode_ordinary(text).len() as u64
    }

    /// What a call sending `prompt` as its one user message is billed for its input:
    /// [`Tokenizer::count`] plus [`CHAT_TOKENS_PER_CALL`].
    pub fn chat_prompt_tokens(&self, prompt: &str) -> u64 {
        self.count(prompt) + CHAT_TOKENS_PER_CALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_read_their_family_encoding() {
        for m in ["gpt-4o", "gpt-4o-mini", "openai/gpt-4o-2024-08-06", "gpt-5", "gpt-5.1-mini"] {
            assert_eq!(Encoding::for_model(m), Some(Encoding::O200kBase), "{m}");
        }
        for m in ["o1", "o3-mini", "o4-mini", "gpt-4.1-nano", "ft:gpt-4o-mini:org::id"] {
            assert_eq!(Encoding::for_model(m), Some(Encoding::O200kBase), "{m}");
        }
        for m in ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo-0125", "gpt-35-turbo"] {
            assert_eq!(Encoding::for_model(m), Some(Encoding::Cl100kBase), "{m}");
        }
        for m in ["claude-sonnet-4-5", "gemini-2.5-flash", "gpt-oss-20b", "o100", "mock-judge"] {
            assert_eq!(Encoding::for_model(m), None, "{m}");
        }
        assert_eq!(Encoding::from_name("cl100k_base"), Some(Encoding::Cl100kBase));
        assert_eq!(Encoding::from_name("p50k_base"), None);
    }
}
