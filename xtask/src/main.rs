//! `cargo xtask`: Concord's build, serve and test orchestration, and its test servers.
//!
//! Everything a fresh machine needs is installed on demand (wasm32 target, wasm-bindgen-cli at
//! the locked version, npm `binaryen` and `playwright-core`, Debian's Chromium and ChromeDriver),
//! so `cargo xtask serve` and `cargo xtask test` are the only two commands a newcomer types.

use std::process::ExitCode;

mod bench;
mod bench_load;
mod bench_ui;
mod build;
mod cache;
mod chunk_priority;
mod house;
mod mock_llm;
mod serve;
mod test;
mod toolchain;
mod util;
mod wasm_opt;

const USAGE: &str = "\
cargo xtask <command>

    serve [--port 8080] [--skip-build]   build the release web app into site/ and serve it
    build [--dev]                         build the web app into site/ (release unless --dev)
    test [--skip-browser]                 fmt, clippy (native + wasm32), native tests, wasm build,
                                          wasm-bindgen browser tests, Playwright end-to-end tests
    e2e [--dev] [--skip-build] [--screenshots] [FILE …]
                                          build the app and run Playwright files (all when none);
                                          --screenshots refreshes docs/screenshots
    house [--allowed]                     the house rules: no import circle in any crate, no
                                          Result<_, String> outside src/edge/, no unwrap outside
                                          tests (also run by `test`)
    mock-llm --port P [--scenario FILE]   loopback mock of OpenAI / Anthropic chat APIs for tests
    static --port P [--base /sub/path/] [--root DIR]
                                          serve the built site (site/: index.html, demo/,
                                          pkg-<hash>/, the last cached for good) only
    bench-stats [...]                     statistics benchmarks side by side with scipy
    bench-load [--root DIR] [--runs N]    load benchmark of the built site (benches/load.mjs):
                                          bytes and time to each screen at 10 Mbit/s, 40 ms
    bench-ui [--runs N]                   UI benchmark of the built site (benches/ui.mjs): Results
                                          re-tabulation, a 48 MB bundle, screen switches, long
                                          tasks (needs ../shared)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "serve" => serve::serve_command(rest),
        "build" => build::build_command(rest),
        "test" => test::test_command(rest),
        "e2e" => test::e2e_command(rest),
        "house" => house::command(rest),
        "mock-llm" => mock_llm::run(rest),
        "static" => serve::static_command(rest),
        "bench-stats" => bench::run(rest),
        "bench-load" => bench_load::run(rest),
        "bench-ui" => bench_ui::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {command}: {message}");
            ExitCode::FAILURE
        }
    }
}
