//! wasm-opt for the release build without its start-up cost: npm's binaryen is Binaryen
//! compiled to WebAssembly, and its `wasm-opt` command spends about two seconds of CPU
//! starting up — for each of ~300 chunks, most under 4 KB, that was most of the build's
//! thirteen minutes of `wasm-opt`. [`Optimiser`] keeps one `node xtask/wasm_opt_many.mjs`
//! per job running (Binaryen loaded once in each) and hands it one file after another. The
//! build gives it the small files only (`build::COMMAND_FROM` says why).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::util::{repo_root, sha256_hex};

/// The script each optimiser process runs.
const SCRIPT: &str = "xtask/wasm_opt_many.mjs";

/// Running optimiser processes, each used by one job at a time.
pub struct Optimiser {
    idle: Mutex<Vec<Process>>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The end of what the process wrote on stderr (for the message when it dies).
    stderr: Arc<Mutex<String>>,
}

impl Optimiser {
    /// No process yet: each job starts one the first time it needs one.
    pub fn new() -> Optimiser {
        Optimiser { idle: Mutex::new(Vec::new()) }
    }

    /// What makes this optimiser's output what it is, for the build cache: npm binaryen's
    /// version, the script (its bytes) and `flags`.
    pub fn identity(flags: &[&str]) -> Result<String, String> {
        let root = repo_root();
        let package = root.join("node_modules/binaryen/package.json");
        let manifest = std::fs::read_to_string(&package)
            .map_err(|e| format!("cannot read {}: {e}", package.display()))?;
        let version = serde_json::from_str::<serde_json::Value>(&manifest)
            .ok()
            .and_then(|v| v["version"].as_str().map(str::to_owned))
            .ok_or_else(|| format!("{} names no version", package.display()))?;
        let script =
            std::fs::read(root.join(SCRIPT)).map_err(|e| format!("cannot read {SCRIPT}: {e}"))?;
        Ok(format!(
            "binaryen.js {version}, {SCRIPT} {}, {}",
            &sha256_hex(&[&script])[..16],
            flags.join(" ")
        ))
    }

    /// Optimises `input` into `output` with the wasm-opt `flags`.
    pub fn run(&self, input: &Path, output: &Path, flags: &[&str]) -> Result<(), String> {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut process = match taken {
            Some(p) => p,
            None => Process::start()?,
        };
        let answer = process.ask(input, output, flags);
        match &answer {
            // A process that answered is kept for the next file.
            Ok(()) | Err(Answer::Refused(_)) => {
                self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(process)
            }
            Err(Answer::Died(_)) => process.end(),
        }
        answer.map_err(|e| match e {
            Answer::Refused(m) => format!("wasm-opt {}: {m}", input.display()),
            Answer::Died(m) => format!("wasm-opt on {}: {m}", input.display()),
        })
    }

    /// Ends every process (each exits when its input closes).
    pub fn finish(self) {
        let processes = self.idle.into_inner().unwrap_or_else(|e| e.into_inner());
        for p in processes {
            p.end();
        }
    }
}

enum Answer {
    /// The optimiser answered with an error about this file.
    Refused(String),
    /// The process stopped or answered nonsense.
    Died(String),
}

impl Process {
    fn start() -> Result<Process, String> {
        let mut child = Command::new("node")
            .current_dir(repo_root())
            .arg(SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start node {SCRIPT}: {e}"))?;
        let (Some(stdin), Some(stdout), Some(mut err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(format!("node {SCRIPT} has no pipes"));
        };
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut kept = tail.lock().unwrap_or_else(|e| e.into_inner());
                kept.push_str(&String::from_utf8_lossy(&buf[..n]));
                if kept.len() > 8192 {
                    let cut = kept.len() - 4096;
                    let cut = (cut..kept.len()).find(|&i| kept.is_char_boundary(i)).unwrap_or(0);
                    kept.drain(..cut);
                }
            }
        });
        Ok(Process { child, stdin, stdout: BufReader::new(stdout), stderr })
    }

    fn ask(&mut self, input: &Path, output: &Path, flags: &[&str]) -> Result<(), Answer> {
        let request = format!("{}\t{}\t{}\n", input.display(), output.display(), flags.join(" "));
        let died = |what: String, p: &Process| {
            let said = p.stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let said: Vec<&str> =
                said.lines().filter(|l| !l.contains("unknown name subsection")).collect();
            Answer::Died(format!("{what}; it said: {}", said.join(" | ")))
        };
        if let Err(e) = self.stdin.write_all(request.as_bytes()).and_then(|()| self.stdin.flush()) {
            return Err(died(format!("the optimiser process stopped ({e})"), self));
        }
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) | Err(_) => Err(died("the optimiser process stopped".to_owned(), self)),
            Ok(_) if line.trim_end() == "ok" => Ok(()),
            Ok(_) => match line.trim_end().strip_prefix("error ") {
                Some(message) => Err(Answer::Refused(message.to_owned())),
                None => Err(died(format!("the optimiser answered `{}`", line.trim_end()), self)),
            },
        }
    }

    fn end(self) {
        let Process { mut child, stdin, .. } = self;
        drop(stdin);
        let _ = child.wait();
    }
}

/// Where the optimised form of `file` is written before it replaces it.
pub fn scratch_output(file: &Path) -> PathBuf {
    let mut out = file.to_path_buf().into_os_string();
    out.push(".opt");
    PathBuf::from(out)
}
