// A large study for the Results screen, made from SummEval's 1,600 human-rated summaries
// (../shared/data/PPairS/data/summeval.jsonl): 16 Chiang & Lee-shaped judge runs, 4
// attributes × 4 methods, 20 samples per item, 512,000 responses in all. Used by
// workbench_data.test.mjs (what the screen shows) and benches/ui.mjs (how long it takes).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUMMEVAL = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/data/PPairS/data/summeval.jsonl');

export const ATTRIBUTES = [['coh', 'coherence'], ['con', 'consistency'], ['flu', 'fluency'], ['rel', 'relevance']];
export const METHODS = ['geval', 'rate_explain', 'analyze_rate', 'score_only'];

/** SummEval's 1,600 items, as parsed JSON lines. */
export function summevalItems(path = SUMMEVAL) {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Chiang & Lee-shaped result files (`gpt3.5_coh_geval.json`: the item, `prompt`,
 * `all_responses` of 20 samples) for SummEval's items, written into `dir`: each sample is the
 * human score plus noise, rounded to 1–5. Returns the file paths and, per file, the mean
 * rating per item.
 */
export function synthesizeResults(items, dir) {
  const files = [];
  let seed = 7;
  for (const [abbr, attribute] of ATTRIBUTES) {
    for (const method of METHODS) {
      const next = random(seed++);
      const noise = 0.6 + METHODS.indexOf(method) * 0.5;
      const means = [];
      const records = items.map((it) => {
        const responses = [];
        let sum = 0;
        for (let k = 0; k < 20; k++) {
          const r = Math.max(1, Math.min(5, Math.round(it[attribute] + (next() - 0.5) * 2 * noise)));
          sum += r;
          responses.push(`Rating: ${r}\nRationale: sample ${k} on ${attribute}.`);
        }
        means.push(sum / 20);
        return {
          doc_id: it.article_id, system_id: it.summary_id, source: '(article omitted)', reference: '',
          system_output: '(summary omitted)',
          scores: { coherence: it.coherence, consistency: it.consistency, fluency: it.fluency, relevance: it.relevance },
          prompt: `Rate the ${attribute} of the summary.`, all_responses: responses,
        };
      });
      const path = join(dir, `gpt3.5_${abbr}_${method}.json`);
      writeFileSync(path, JSON.stringify(records));
      files.push({ path, attribute, method, means });
    }
  }
  return files;
}

/**
 * Installs in `page` (before its scripts run) a record of the Web Worker jobs it starts — each
 * job's `op` and the bytes it hands over, and each answer's `kind` — and a heartbeat: a task
 * queued on the main thread again and again (a zero-delay timer), counting. Each record holds
 * the count at that moment, so a test can tell that the page kept running tasks while a
 * worker did a job, whatever the machine's speed; a benchmark reads the longest gap between
 * beats (`window.__heartbeat.longest`), the page's longest freeze.
 */
export async function recordJobsAndHeartbeat(page) {
  await page.addInitScript(() => {
    const beat = { count: 0, last: performance.now(), longest: 0, running: false };
    window.__heartbeat = beat;
    window.__heartbeatStart = () => {
      if (beat.running) return;
      beat.running = true;
      window.__jobs.push({ what: 'heartbeat', beat: beat.count });
      beat.last = performance.now();
      const tick = () => {
        if (!beat.running) return;
        const now = performance.now();
        beat.longest = Math.max(beat.longest, now - beat.last);
        beat.last = now;
        beat.count += 1;
        setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
    };
    window.__heartbeatStop = () => { beat.running = false; };
    window.__jobs = [];
    let workers = 0;
    const Real = window.Worker;
    window.Worker = class extends Real {
      constructor(...args) {
        super(...args);
        const worker = ++workers;
        this.__worker = worker;
        this.addEventListener('message', (event) => {
          const kind = event.data?.kind;
          if (kind && kind !== 'progress') window.__jobs.push({ worker, what: kind, beat: beat.count });
        });
      }
      postMessage(message, transfer) {
        const bytes = message?.bytes?.byteLength ?? (message?.frames ?? []).reduce((n, f) => n + (f?.byteLength ?? 0), 0);
        window.__jobs.push({ worker: this.__worker, what: 'post', op: message?.op, bytes, beat: beat.count });
        return super.postMessage(message, transfer);
      }
    };
  });
}

/**
 * Waits until every job posted to a worker since the heartbeat last started has its answer
 * (`done` or `error`): a workspace save the page started on its own may still be running when
 * the step a test waited for is done, the longer the more loaded the machine. Stops the
 * heartbeat and returns the jobs recorded then, every one answered.
 */
export async function waitJobsAnswered(page, timeout = 120_000) {
  // The check and the snapshot in one step: a save the page starts right after a check that
  // passed would otherwise be read without its answer.
  const handle = await page.waitForFunction(() => {
    const jobs = window.__jobs;
    const since = jobs.slice(jobs.findLastIndex((j) => j.what === 'heartbeat') + 1);
    const open = new Map();
    for (const j of since) {
      if (j.what === 'post') open.set(j.worker, (open.get(j.worker) ?? 0) + 1);
      else if (j.what === 'done' || j.what === 'error') open.set(j.worker, (open.get(j.worker) ?? 0) - 1);
    }
    if (![...open.values()].every((n) => n <= 0)) return false;
    window.__heartbeatStop();
    return jobs.slice();
  }, null, { timeout, polling: 100 });
  return handle.jsonValue();
}

/**
 * The jobs `op` started since the heartbeat last started, among `jobs` (what
 * [`recordJobsAndHeartbeat`] recorded): each one's request (`post`: bytes handed over,
 * heartbeat count) and its worker's answer (`done` or `error`, with the count then).
 */
export function jobsOf(jobs, op) {
  const since = jobs.slice(jobs.findLastIndex((j) => j.what === 'heartbeat') + 1);
  return since.filter((j) => j.what === 'post' && j.op === op).map((post) => ({
    post,
    answer: since.find((j) => j.worker === post.worker && (j.what === 'done' || j.what === 'error')),
  }));
}
