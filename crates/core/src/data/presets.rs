//! Files the app downloads on request — the papers' datasets (the Data screen's presets) and
//! Chiang & Lee's released answers — each pinned to one commit and checked after download
//! against the digest recorded here, so a moved branch or a damaged download is refused
//! instead of silently read.

use sha1::Sha1;
use sha2::{Digest as _, Sha256};

/// What a downloaded file must hash to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digest {
    /// Its SHA-256, hex.
    Sha256(&'static str),
    /// Its Git blob id at the pinned commit (SHA-1 of `blob <len>\0` and the bytes), hex: what
    /// `git ls-tree` shows, for files whose bytes were not at hand when they were pinned.
    GitBlob(&'static str),
}

impl Digest {
    /// The same kind of digest of `bytes`.
    pub fn of(self, bytes: &[u8]) -> String {
        match self {
            Digest::Sha256(_) => hex(&Sha256::digest(bytes)),
            Digest::GitBlob(_) => {
                let mut h = Sha1::new();
                h.update(format!("blob {}\0", bytes.len()).as_bytes());
                h.update(bytes);
                hex(&h.finalize())
            }
        }
    }

    fn want(self) -> &'static str {
        match self {
            Digest::Sha256(x) | Digest::GitBlob(x) => x,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Digest::Sha256(_) => "SHA-256",
            Digest::GitBlob(_) => "Git blob id",
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One file to download: its name, its address at a pinned commit, what it must hash to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedFile {
    pub name: String,
    pub url: String,
    /// The repository and commit, as a person would look them up (`owner/name@abcdef1`).
    pub source: String,
    pub digest: Digest,
}

/// A downloaded file that is not the pinned one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name} is not the file released at {released_at}: its {kind} is {got}, expected {want}; the download was damaged or the address serves something else — try again, or download the file and load it from disk"
)]
pub struct NotPinned {
    pub name: String,
    pub released_at: String,
    pub kind: &'static str,
    pub got: String,
    pub want: &'static str,
}

impl PinnedFile {
    /// `path` in the GitHub repository `repository` at `commit`, served by
    /// raw.githubusercontent.com (which lets other sites' pages read it).
    pub fn github(repository: &str, commit: &str, path: &str, digest: Digest) -> PinnedFile {
        PinnedFile {
            name: path.rsplit('/').next().unwrap_or(path).to_owned(),
            url: format!("https://raw.githubusercontent.com/{repository}/{commit}/{path}"),
            source: format!("{repository}@{}", &commit[..commit.len().min(8)]),
            digest,
        }
    }

    /// Checks that `bytes` are this file.
    pub fn check(&self, bytes: &[u8]) -> Result<(), NotPinned> {
        let got = self.digest.of(bytes);
        if got == self.digest.want() {
            return Ok(());
        }
        Err(NotPinned {
            name: self.name.clone(),
            released_at: self.source.clone(),
            kind: self.digest.kind(),
            got,
            want: self.digest.want(),
        })
    }
}

/// The Data screen's presets: (label, file).
pub fn presets() -> Vec<(&'static str, PinnedFile)> {
    vec![
        (
            "SummEval (G-Eval's summeval.json)",
            PinnedFile::github(
                "nlpyang/geval",
                "6f84404ce4503d2ba0cde0293c5d402ecf2976a8",
                "data/summeval.json",
                Digest::GitBlob("812a51e6727b4a64e661603fa350d76586ef7de0"),
            ),
        ),
        ("Topical-Chat (Chiang & Lee's copy)", crate::study::workbench::paper::dataset_file()),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn git_blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        let d = Digest::GitBlob("ce013625030ba8dba906f756967f9e9ca394464a");
        assert_eq!(d.of(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
        let f = PinnedFile::github("o/r", "0123456789abcdef", "data/x.json", d);
        assert_eq!(f.url, "https://raw.githubusercontent.com/o/r/0123456789abcdef/data/x.json");
        assert_eq!(f.name, "x.json");
        f.check(b"hello\n").unwrap();
        let e = f.check(b"hello").unwrap_err().to_string();
        assert!(
            e.starts_with("x.json is not the file released at o/r@01234567: its Git blob id is "),
            "{e}"
        );
    }

    #[test]
    fn every_preset_is_pinned() {
        for (_, f) in presets() {
            let commit = f.url.split('/').nth(5).unwrap();
            assert_eq!(commit.len(), 40, "{}", f.url);
            assert!(commit.bytes().all(|b| b.is_ascii_hexdigit()), "{}", f.url);
        }
    }
}
