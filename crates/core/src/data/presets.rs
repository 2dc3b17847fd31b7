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

/// Chiang & Lee's released repository and the commit every file of it is pinned to (seed
/// 002's Table 4 reads its result files: `study::workbench::paper`).
pub const CHIANG_LEE_REPOSITORY: &str = "d223302/A-Closer-Look-To-LLM-Evaluation";
pub const CHIANG_LEE_COMMIT: &str = "90084422bb32e89f77109dce578d0bd1db3912c4";

/// The Topical-Chat dataset Chiang & Lee's answers were made on (360 responses, human ratings).
pub fn chiang_lee_topical_chat() -> PinnedFile {
    PinnedFile::github(
        CHIANG_LEE_REPOSITORY,
        CHIANG_LEE_COMMIT,
        "data/topical_chat.json",
        Digest::Sha256("92a716d98a8d759369b0f7290505c05426ff4cd518a946fbab042eaa1fecd543"),
    )
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
        ("Topical-Chat (Chiang & Lee's copy)", chiang_lee_topical_chat()),
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

/// Why a download got no readable response, as the page can tell (a download's own error says
/// only "failed to fetch" in every case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadCause {
    /// The browser says it has no network connection.
    Offline,
    /// This page's Content-Security-Policy refused the address before anything was sent.
    BlockedByPage,
    /// The host answered, but does not let pages from other sites read the file (CORS).
    CorsRefused,
    /// Online, yet nothing answered: a wrong address, the host down, a firewall or proxy.
    Unreachable,
}

/// The `host` of a URL (the whole text when it is not one).
fn host_of(url: &str) -> &str {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(rest))
}

/// What happened to the download of `url`, and what to do about it: `(said, advice)`. Said of a
/// file on the web, not of a server the user runs (no "start the server").
pub fn explain_download(url: &str, cause: DownloadCause) -> (String, String) {
    let host = host_of(url);
    let from_disk = "download the file another way and load it from disk";
    match cause {
        DownloadCause::Offline => (
            format!("this page is offline, so {host} cannot be reached."),
            format!("Connect to the internet and try again, or {from_disk}."),
        ),
        DownloadCause::Unreachable => (
            format!(
                "{host} cannot be reached from this page: nothing answered (the address may be wrong, the host down, or a firewall or proxy in the way)."
            ),
            format!("Check the address and your connection and try again, or {from_disk}."),
        ),
        DownloadCause::BlockedByPage => (
            format!(
                "this page does not allow downloads from {host}: its Content-Security-Policy refused the request before anything was sent."
            ),
            format!(
                "The page allows downloads from any https:// address, and http:// only from this computer (127.0.0.1, localhost): use the file's https:// address, or {from_disk}."
            ),
        ),
        DownloadCause::CorsRefused => (
            format!(
                "{host} answered, but does not let web pages from other sites read its files (CORS)."
            ),
            format!(
                "The host must allow it (raw.githubusercontent.com does; most file hosts' view pages do not); or {from_disk}."
            ),
        ),
    }
}

#[cfg(test)]
mod download_tests {
    use super::*;

    #[test]
    fn an_offline_download_says_offline_and_never_start_a_server() {
        let url = "https://raw.githubusercontent.com/o/r/abc/data.json";
        let causes = [
            DownloadCause::Offline,
            DownloadCause::Unreachable,
            DownloadCause::BlockedByPage,
            DownloadCause::CorsRefused,
        ];
        for cause in causes {
            let (said, advice) = explain_download(url, cause);
            let all = format!("{said} {advice}");
            assert!(!all.contains("serve`") && !all.contains("Start the server"), "{all}");
            assert!(all.contains("raw.githubusercontent.com"), "{all}");
            assert!(all.contains("load it from disk"), "{all}");
        }
        let (said, advice) = explain_download(url, DownloadCause::Offline);
        assert_eq!(said, "this page is offline, so raw.githubusercontent.com cannot be reached.");
        assert!(advice.starts_with("Connect to the internet and try again"), "{advice}");
        let (said, _) = explain_download(url, DownloadCause::Unreachable);
        assert!(said.starts_with("raw.githubusercontent.com cannot be reached"), "{said}");
    }
}
