//! A small static file server for the built site (`site/`: index.html, demo/, pkg-<hash>/),
//! optionally under a sub-path, so the app can be opened locally and tested the way a static
//! host serves it: the build's precompressed `.br` (brotli) or `.gz` files to browsers that
//! accept them, an ETag on every file and a 304 when the browser already has it; the files of
//! a `pkg-<hash>/` directory (named by a hash of what it holds, `build.rs`) with
//! `Cache-Control: public, max-age=31536000, immutable`, everything else (index.html, the
//! demo files `?bundle=` links name) with `no-cache`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;

use crate::util::{self, flag_value, has_flag};
use crate::{build, toolchain};

pub fn serve_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--port"], &["--skip-build"])?;
    let port = parse_port(flag_value(args, "--port").unwrap_or("8080"))?;
    if !has_flag(args, "--skip-build") {
        let toolchain = toolchain::ensure_wasm_target()?;
        let report = build::build_web(toolchain, true)?;
        build::print_report(&report);
    }
    ensure_built(&build::site_dir())?;
    let listener = bind(port)?;
    println!("\nConcord is served at http://127.0.0.1:{port}/  (Ctrl-C stops it)");
    serve_forever(listener, Site::new(build::site_dir(), "/"));
    Ok(())
}

/// `static --port P [--base /sub/path/] [--root DIR]`: `--root` serves another copy of the
/// site (e.g. an older build kept for `bench-load`) instead of the one `cargo xtask build`
/// wrote (`site/`).
pub fn static_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--port", "--base", "--root"], &[])?;
    let port = parse_port(flag_value(args, "--port").unwrap_or("8080"))?;
    let base = flag_value(args, "--base").unwrap_or("/");
    let root = flag_value(args, "--root").map(PathBuf::from).unwrap_or_else(build::site_dir);
    ensure_built(&root)?;
    let listener = bind(port)?;
    let site = Site::new(root, base);
    println!("serving the built site at http://127.0.0.1:{port}{}", site.base);
    serve_forever(listener, site);
    Ok(())
}

/// Starts the server for the built site (`site/`) on an ephemeral loopback port in a
/// background thread; returns the port.
pub fn spawn_static(base: &str) -> Result<u16, String> {
    spawn_static_at(build::site_dir(), base)
}

/// [`spawn_static`] for the site in `root`.
pub fn spawn_static_at(root: PathBuf, base: &str) -> Result<u16, String> {
    ensure_built(&root)?;
    let listener = bind(0)?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let site = Site::new(root, base);
    thread::spawn(move || serve_forever(listener, site));
    Ok(port)
}

fn parse_port(text: &str) -> Result<u16, String> {
    text.parse().map_err(|_| format!("--port: `{text}` is not a port number"))
}

fn bind(port: u16) -> Result<TcpListener, String> {
    TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))
}

/// Checks that `root` holds a built site: an `index.html` whose script is in a
/// `pkg-<hash>/` directory that holds the module.
fn ensure_built(root: &Path) -> Result<(), String> {
    let index = root.join("index.html");
    let html = std::fs::read_to_string(&index)
        .map_err(|e| format!("{}: {e}: run `cargo xtask build` first", index.display()))?;
    let pkg = html
        .split("src=\"")
        .skip(1)
        .filter_map(|s| s.split_once("/boot.js\"").map(|(dir, _)| dir))
        .find(|dir| build::is_hashed_dir(dir))
        .ok_or_else(|| {
            format!(
                "{} loads no pkg-<hash>/boot.js: it is not a built site; run `cargo xtask build`",
                index.display()
            )
        })?;
    let js = root.join(pkg).join("concord.js");
    if js.exists() {
        Ok(())
    } else {
        Err(format!("{} is missing: run `cargo xtask build` again", js.display()))
    }
}

/// Which files are served, and under which URL prefix.
#[derive(Clone)]
struct Site {
    root: PathBuf,
    /// Always starts and ends with `/`.
    base: String,
}

impl Site {
    fn new(root: PathBuf, base: &str) -> Site {
        let trimmed = base.trim_matches('/');
        let base = if trimmed.is_empty() { "/".to_string() } else { format!("/{trimmed}/") };
        Site { root, base }
    }

    /// Maps a request path to a file of the built site, or None (404). Only index.html,
    /// demo/ and `pkg-<hash>/` directories are exposed; anything with `..` or a segment
    /// starting with `.` (the build's unfinished `.pkg/`) is refused.
    fn resolve(&self, url_path: &str) -> Option<PathBuf> {
        let path = url_path.split(['?', '#']).next().unwrap_or("");
        let rest = path.strip_prefix(&self.base)?;
        if rest.split('/').any(|seg| seg == ".." || seg.starts_with('.')) {
            return None;
        }
        let rel = if rest.is_empty() || rest == "index.html" { "index.html" } else { rest };
        let allowed = rel == "index.html"
            || rel.starts_with("demo/")
            || rel.split_once('/').is_some_and(|(dir, _)| build::is_hashed_dir(dir));
        let file = self.root.join(rel);
        (allowed && file.is_file()).then_some(file)
    }
}

fn serve_forever(listener: TcpListener, site: Site) {
    for stream in listener.incoming().flatten() {
        let site = site.clone();
        thread::spawn(move || {
            let _ = handle(stream, &site);
        });
    }
}

/// What the server reads of a request's headers.
#[derive(Default)]
struct Asked {
    gzip: bool,
    brotli: bool,
    if_none_match: Option<String>,
}

/// Whether an `Accept-Encoding` value accepts `coding` (named or `*`, without `q=0`).
fn accepts(value: &str, coding: &str) -> bool {
    value.split(',').any(|e| {
        let mut parts = e.split(';');
        let name = parts.next().unwrap_or("").trim();
        let refused = parts.any(|p| {
            let p = p.replace(' ', "");
            p.strip_prefix("q=").and_then(|q| q.parse::<f64>().ok()) == Some(0.0)
        });
        (name.eq_ignore_ascii_case(coding) || name == "*") && !refused
    })
}

fn handle(stream: TcpStream, site: &Site) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut asked = Asked::default();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        let Some((name, value)) = line.split_once(':') else { continue };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "accept-encoding" => {
                asked.gzip = accepts(value, "gzip");
                asked.brotli = accepts(value, "br");
            }
            "if-none-match" => asked.if_none_match = Some(value.to_owned()),
            _ => {}
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("/");
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return respond(&mut stream, "405 Method Not Allowed", &Reply::text(), b"GET only\n", true);
    }
    // A request for the base without its trailing slash is redirected, as static hosts do.
    if format!("{target}/") == site.base {
        let head = format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            site.base
        );
        return stream.write_all(head.as_bytes());
    }
    match site.resolve(target).and_then(|f| std::fs::read(&f).ok().map(|b| (f, b))) {
        Some((file, body)) => {
            // Brotli first (about a fifth smaller than gzip on the wasm), then gzip.
            let compressed = [("br", asked.brotli), ("gzip", asked.gzip)]
                .into_iter()
                .filter(|(_, ok)| *ok)
                .find_map(|(coding, _)| precompressed(&file, coding).map(|b| (b, coding)));
            let (body, encoding) = match compressed {
                Some((bytes, coding)) => (bytes, Some(coding)),
                None => (body, None),
            };
            let etag = etag(&body);
            let immutable = file
                .strip_prefix(&site.root)
                .ok()
                .and_then(|rel| rel.components().next())
                .is_some_and(|dir| build::is_hashed_dir(&dir.as_os_str().to_string_lossy()));
            let reply = Reply {
                content_type: mime(&file),
                etag: Some(&etag),
                encoding,
                cache: if immutable { IMMUTABLE } else { REVALIDATE },
            };
            if asked
                .if_none_match
                .as_deref()
                .is_some_and(|m| m.split(',').any(|t| t.trim() == etag))
            {
                return respond(&mut stream, "304 Not Modified", &reply, b"", false);
            }
            respond(&mut stream, "200 OK", &reply, &body, method == "GET")
        }
        None => {
            respond(&mut stream, "404 Not Found", &Reply::text(), b"not found\n", method == "GET")
        }
    }
}

/// `file.br` (`coding` "br") or `file.gz` ("gzip") when the build wrote it after `file` (an
/// older one is not what `file` is now).
fn precompressed(file: &Path, coding: &str) -> Option<Vec<u8>> {
    let mut packed = file.to_path_buf().into_os_string();
    packed.push(if coding == "br" { ".br" } else { ".gz" });
    let packed = PathBuf::from(packed);
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (modified(&packed)? >= modified(file)?).then(|| std::fs::read(&packed).ok()).flatten()
}

/// A strong validator of exactly these bytes: their length and 64-bit FNV-1a hash.
fn etag(body: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in body {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("\"{:x}-{h:016x}\"", body.len())
}

/// How a response describes its body.
struct Reply<'a> {
    content_type: &'a str,
    etag: Option<&'a str>,
    /// `Content-Encoding` of the body: `br`, `gzip` or none.
    encoding: Option<&'static str>,
    /// The `Cache-Control` value.
    cache: &'static str,
}

/// For the files of a `pkg-<hash>/` directory: its name changes whenever any of its bytes do,
/// so a browser may keep them a year without asking.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// For everything else (index.html, demo/, errors): keep, but ask first (a 304 when unchanged).
const REVALIDATE: &str = "no-cache";

impl Reply<'_> {
    fn text() -> Reply<'static> {
        Reply { content_type: "text/plain", etag: None, encoding: None, cache: REVALIDATE }
    }
}

/// Sends the status, headers and (for GET) the body. A hashed file may be kept for good
/// (`reply.cache`); any other is revalidated before reuse (`no-cache`) and its ETag makes
/// that a 304 when unchanged; the compressed and plain forms have different ETags, and `Vary`
/// says which header chose.
fn respond(
    stream: &mut TcpStream,
    status: &str,
    reply: &Reply<'_>,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let mut extra = String::new();
    if let Some(etag) = reply.etag {
        extra.push_str(&format!("ETag: {etag}\r\nVary: Accept-Encoding\r\n"));
    }
    if let Some(coding) = reply.encoding {
        extra.push_str(&format!("Content-Encoding: {coding}\r\n"));
    }
    // A 304 has no body, and no length of its own to announce.
    if !status.starts_with("304") {
        extra.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {}\r\n{extra}\
         Cache-Control: {}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        reply.content_type, reply.cache,
    );
    stream.write_all(head.as_bytes())?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
// A failed unwrap is a failed test, which is what it should be here.
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A hashed directory's name, as the build makes them.
    const PKG: &str = "pkg-0123456789abcdef";

    /// A built site's skeleton in `dir`: index.html loading `PKG/boot.js`, the module, a demo
    /// file, and a directory that is not hashed.
    fn site_at(dir: &Path) {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir.join(PKG).join("style")).unwrap();
        std::fs::create_dir_all(dir.join("demo")).unwrap();
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::create_dir_all(dir.join(".pkg")).unwrap();
        let index =
            format!("<!doctype html><script type=\"module\" src=\"{PKG}/boot.js\"></script>");
        std::fs::write(dir.join("index.html"), index).unwrap();
        std::fs::write(dir.join(PKG).join("boot.js"), "import './concord.js';").unwrap();
        std::fs::write(dir.join(PKG).join("concord.js"), "export default 1;").unwrap();
        std::fs::write(dir.join(PKG).join("style/concord.css"), "p{}").unwrap();
        std::fs::write(dir.join("demo/example.csv"), "a,b\n").unwrap();
        std::fs::write(dir.join("pkg/concord.js"), "export default 0;").unwrap();
        std::fs::write(dir.join(".pkg/concord.js"), "export default 0;").unwrap();
        std::fs::write(dir.join("Cargo.toml"), "[package]").unwrap();
    }

    fn check(root: &Path, base: &str, url: &str, expect: Option<&str>) {
        let site = Site::new(root.to_path_buf(), base);
        let got = site.resolve(url).map(|p| {
            p.strip_prefix(root).map(|r| r.to_string_lossy().into_owned()).unwrap_or_default()
        });
        assert_eq!(got.as_deref(), expect, "base {base:?} url {url:?}");
    }

    /// Sends a GET with `headers`; returns the status line, the headers (lower-case names)
    /// and the body.
    fn get(port: u16, path: &str, headers: &str) -> (String, Vec<(String, String)>, Vec<u8>) {
        use std::io::Read;
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n").unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8(raw[..split].to_vec()).unwrap();
        let mut lines = head.lines();
        let status = lines.next().unwrap().to_owned();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        (status, headers, raw[split + 4..].to_vec())
    }

    fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
        headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn sends_the_precompressed_file_and_revalidates_with_etags() {
        let dir = std::env::temp_dir().join(format!("concord-serve-{}", std::process::id()));
        site_at(&dir);
        let wasm = vec![7u8; 50_000];
        std::fs::write(dir.join(PKG).join("concord.js"), "export default 1;").unwrap();
        std::fs::write(dir.join(PKG).join("concord_bg.wasm"), &wasm).unwrap();
        let Ok(gz) = std::process::Command::new("gzip")
            .args(["-9", "-n", "-c"])
            .arg(dir.join(PKG).join("concord_bg.wasm"))
            .output()
        else {
            eprintln!("skipped: no gzip command");
            return;
        };
        std::fs::write(dir.join(PKG).join("concord_bg.wasm.gz"), &gz.stdout).unwrap();
        let port = spawn_static_at(dir.clone(), "/").unwrap();

        // A browser that accepts gzip gets the .gz, said so; one that does not, the file.
        let (status, h, body) =
            get(port, &format!("/{PKG}/concord_bg.wasm"), "Accept-Encoding: gzip, deflate, br\r\n");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(header(&h, "content-encoding"), Some("gzip"));
        assert_eq!(header(&h, "vary"), Some("Accept-Encoding"));
        assert_eq!(body, gz.stdout);
        assert!(body.len() < wasm.len() / 10);
        let zipped_tag = header(&h, "etag").unwrap().to_owned();
        let (_, h, body) = get(port, &format!("/{PKG}/concord_bg.wasm"), "");
        assert_eq!(header(&h, "content-encoding"), None);
        assert_eq!(body, wasm);
        let plain_tag = header(&h, "etag").unwrap().to_owned();
        assert_ne!(plain_tag, zipped_tag, "two forms, two validators");
        let (_, h, _) =
            get(port, &format!("/{PKG}/concord_bg.wasm"), "Accept-Encoding: gzip;q=0\r\n");
        assert_eq!(header(&h, "content-encoding"), None, "q=0 refuses gzip");

        // Revalidation: the same ETag gets a 304 with no body; another one the file.
        let (status, h, body) = get(
            port,
            &format!("/{PKG}/concord_bg.wasm"),
            &format!("Accept-Encoding: gzip\r\nIf-None-Match: {zipped_tag}\r\n"),
        );
        assert_eq!(status, "HTTP/1.1 304 Not Modified");
        assert!(body.is_empty());
        assert_eq!(header(&h, "content-length"), None);
        let (status, _, _) = get(
            port,
            &format!("/{PKG}/concord_bg.wasm"),
            "If-None-Match: \"0-0000000000000000\"\r\n",
        );
        assert_eq!(status, "HTTP/1.1 200 OK");
        // A .gz older than its file is stale: the file is sent as it is now.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.join(PKG).join("concord_bg.wasm"), b"newer").unwrap();
        let (_, h, body) =
            get(port, &format!("/{PKG}/concord_bg.wasm"), "Accept-Encoding: gzip\r\n");
        assert_eq!(header(&h, "content-encoding"), None);
        assert_eq!(body, b"newer");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn prefers_brotli_then_gzip_then_the_plain_file() {
        let dir = std::env::temp_dir().join(format!("concord-serve-br-{}", std::process::id()));
        site_at(&dir);
        let js: String = (0..2_000).map(|i| format!("export const v{i} = {};\n", i % 7)).collect();
        let file = dir.join(PKG).join("concord.js");
        std::fs::write(&file, &js).unwrap();
        let br = crate::build::brotli_bytes(js.as_bytes()).unwrap();
        std::fs::write(dir.join(PKG).join("concord.js.br"), &br).unwrap();
        let Ok(gz) =
            std::process::Command::new("gzip").args(["-9", "-n", "-c"]).arg(&file).output()
        else {
            eprintln!("skipped: no gzip command");
            return;
        };
        std::fs::write(dir.join(PKG).join("concord.js.gz"), &gz.stdout).unwrap();
        let port = spawn_static_at(dir.clone(), "/").unwrap();

        // The .br decodes to the file, and is smaller than the .gz.
        let mut decoded = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut decoded).unwrap();
        assert_eq!(decoded, js.as_bytes());
        assert!(br.len() < gz.stdout.len(), "brotli {} vs gzip {}", br.len(), gz.stdout.len());

        let (status, h, body) = get(
            port,
            &format!("/{PKG}/concord.js"),
            "Accept-Encoding: gzip, deflate, br, zstd\r\n",
        );
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(header(&h, "content-encoding"), Some("br"));
        assert_eq!(header(&h, "vary"), Some("Accept-Encoding"));
        assert_eq!(header(&h, "content-length"), Some(br.len().to_string().as_str()));
        assert_eq!(body, br);
        let br_tag = header(&h, "etag").unwrap().to_owned();
        let (_, h, body) =
            get(port, &format!("/{PKG}/concord.js"), "Accept-Encoding: br;q=0, gzip\r\n");
        assert_eq!(header(&h, "content-encoding"), Some("gzip"), "q=0 refuses brotli");
        assert_eq!(body, gz.stdout);
        assert_ne!(header(&h, "etag").unwrap(), br_tag, "each form its own validator");
        let (_, h, body) = get(port, &format!("/{PKG}/concord.js"), "Accept-Encoding: BR\r\n");
        assert_eq!(header(&h, "content-encoding"), Some("br"), "codings are case-insensitive");
        assert_eq!(body, br);
        let (_, h, body) =
            get(port, &format!("/{PKG}/concord.js"), "Accept-Encoding: identity\r\n");
        assert_eq!(header(&h, "content-encoding"), None);
        assert_eq!(body, js.as_bytes());
        let (status, _, body) = get(
            port,
            &format!("/{PKG}/concord.js"),
            &format!("Accept-Encoding: br\r\nIf-None-Match: {br_tag}\r\n"),
        );
        assert_eq!(status, "HTTP/1.1 304 Not Modified");
        assert!(body.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn resolves_only_the_site_files() {
        let dir = std::env::temp_dir().join(format!("concord-serve-paths-{}", std::process::id()));
        site_at(&dir);
        let check = |base: &str, url: &str, expect: Option<&str>| check(&dir, base, url, expect);
        let css = format!("{PKG}/style/concord.css");
        check("/", "/", Some("index.html"));
        check("/", "/index.html?bundle=x", Some("index.html"));
        check("/some/path/", "/some/path/", Some("index.html"));
        check("/some/path", &format!("/some/path/{css}"), Some(css.as_str()));
        check("/some/path/", &format!("/{css}"), None);
        check("/some/path/", "/some/path/demo/example.csv", Some("demo/example.csv"));
        check("/", &format!("/{PKG}/boot.js"), Some(format!("{PKG}/boot.js").as_str()));
        // An unhashed directory, the build's unfinished one, and anything else are not served.
        check("/", "/pkg/concord.js", None);
        check("/", "/.pkg/concord.js", None);
        check("/", "/Cargo.toml", None);
        check("/", &format!("/{PKG}/../Cargo.toml"), None);
        check("/", "/.git/config", None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The hashed directory's files may be kept a year without asking; index.html and the demo
    /// files (named by `?bundle=` links, stable names) are asked for each time, with a 304
    /// when unchanged.
    #[test]
    fn hashed_files_are_immutable_and_the_rest_is_revalidated() {
        let dir = std::env::temp_dir().join(format!("concord-serve-cache-{}", std::process::id()));
        site_at(&dir);
        let port = spawn_static_at(dir.clone(), "/concord/").unwrap();
        for file in ["concord.js", "boot.js", "style/concord.css"] {
            let (status, h, _) = get(port, &format!("/concord/{PKG}/{file}"), "");
            assert_eq!(status, "HTTP/1.1 200 OK", "{file}");
            assert_eq!(
                header(&h, "cache-control"),
                Some("public, max-age=31536000, immutable"),
                "{file}"
            );
        }
        for path in
            ["/concord/", "/concord/index.html?bundle=demo/x.json", "/concord/demo/example.csv"]
        {
            let (status, h, _) = get(port, path, "");
            assert_eq!(status, "HTTP/1.1 200 OK", "{path}");
            assert_eq!(header(&h, "cache-control"), Some("no-cache"), "{path}");
            let tag = header(&h, "etag").unwrap().to_owned();
            let (status, h, body) = get(port, path, &format!("If-None-Match: {tag}\r\n"));
            assert_eq!(status, "HTTP/1.1 304 Not Modified", "{path}");
            assert_eq!(header(&h, "cache-control"), Some("no-cache"), "{path}");
            assert!(body.is_empty());
        }
        // What is not found is never cached for long.
        let (status, h, _) = get(port, "/concord/pkg-0123456789abcdee/concord.js", "");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
        assert_eq!(header(&h, "cache-control"), Some("no-cache"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_site_is_built_when_its_index_names_a_hashed_module() {
        let dir = std::env::temp_dir().join(format!("concord-serve-built-{}", std::process::id()));
        site_at(&dir);
        assert_eq!(ensure_built(&dir), Ok(()));
        std::fs::remove_file(dir.join(PKG).join("concord.js")).unwrap();
        assert!(ensure_built(&dir).unwrap_err().contains("concord.js is missing"));
        std::fs::write(dir.join("index.html"), "<script type=\"module\" src=\"boot.js\">").unwrap();
        assert!(ensure_built(&dir).unwrap_err().contains("not a built site"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
