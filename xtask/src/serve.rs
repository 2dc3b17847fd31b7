//! A small static file server for the built site (index.html, style/, pkg/), optionally under a
//! sub-path, so the app can be opened locally and tested the way a static host serves it.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;

use crate::util::{self, flag_value, has_flag, repo_root};
use crate::{build, toolchain};

pub fn serve_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--port"], &["--skip-build"])?;
    let port = parse_port(flag_value(args, "--port").unwrap_or("8080"))?;
    if !has_flag(args, "--skip-build") {
        let toolchain = toolchain::ensure_wasm_target()?;
        let report = build::build_web(toolchain, true)?;
        build::print_report(&report);
    }
    ensure_built(&repo_root())?;
    let listener = bind(port)?;
    println!("\nConcord is served at http://127.0.0.1:{port}/  (Ctrl-C stops it)");
    serve_forever(listener, Site::new(repo_root(), "/"));
    Ok(())
}

/// `static --port P [--base /sub/path/] [--root DIR]`: `--root` serves another copy of the
/// site (e.g. an older build kept for `bench-load`) instead of the repository's.
pub fn static_command(args: &[String]) -> Result<(), String> {
    util::check_flags(args, &["--port", "--base", "--root"], &[])?;
    let port = parse_port(flag_value(args, "--port").unwrap_or("8080"))?;
    let base = flag_value(args, "--base").unwrap_or("/");
    let root = flag_value(args, "--root").map(PathBuf::from).unwrap_or_else(repo_root);
    ensure_built(&root)?;
    let listener = bind(port)?;
    let site = Site::new(root, base);
    println!("serving the built site at http://127.0.0.1:{port}{}", site.base);
    serve_forever(listener, site);
    Ok(())
}

/// Starts the server on an ephemeral loopback port in a background thread; returns the port.
pub fn spawn_static(base: &str) -> Result<u16, String> {
    spawn_static_at(repo_root(), base)
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

fn ensure_built(root: &Path) -> Result<(), String> {
    let js = root.join("pkg/concord.js");
    if js.exists() {
        Ok(())
    } else {
        Err(format!("{} is missing: run `cargo xtask build` first", js.display()))
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
    /// boot.js, worker.js, style/ and pkg/ are exposed; anything with `..` is refused.
    fn resolve(&self, url_path: &str) -> Option<PathBuf> {
        let path = url_path.split(['?', '#']).next().unwrap_or("");
        let rest = path.strip_prefix(&self.base)?;
        if rest.split('/').any(|seg| seg == ".." || seg.starts_with('.')) {
            return None;
        }
        let rel = if rest.is_empty() || rest == "index.html" { "index.html" } else { rest };
        let allowed = rel == "index.html"
            || rel == "boot.js"
            || rel == "worker.js"
            || rel.starts_with("style/")
            || rel.starts_with("demo/")
            || rel.starts_with("pkg/");
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

fn handle(stream: TcpStream, site: &Site) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; the server needs none of them.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("/");
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return respond(&mut stream, "405 Method Not Allowed", "text/plain", b"GET only\n", true);
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
        Some((file, body)) => respond(&mut stream, "200 OK", mime(&file), &body, method == "GET"),
        None => {
            respond(&mut stream, "404 Not Found", "text/plain", b"not found\n", method == "GET")
        }
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
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
mod tests {
    use super::*;

    fn check(base: &str, url: &str, expect: Option<&str>) {
        let site = Site::new(repo_root(), base);
        let got = site.resolve(url).map(|p| {
            p.strip_prefix(repo_root())
                .map(|r| r.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        assert_eq!(got.as_deref(), expect, "base {base:?} url {url:?}");
    }

    #[test]
    fn resolves_only_the_site_files() {
        check("/", "/", Some("index.html"));
        check("/", "/index.html?bundle=x", Some("index.html"));
        check("/some/path/", "/some/path/", Some("index.html"));
        check("/some/path", "/some/path/style/concord.css", Some("style/concord.css"));
        check("/some/path/", "/style/concord.css", None);
        check("/some/path/", "/some/path/worker.js", Some("worker.js"));
        check("/", "/Cargo.toml", None);
        check("/", "/style/../Cargo.toml", None);
        check("/", "/.git/config", None);
    }
}
