// Launches Debian's Chromium through playwright-core with the flags this machine needs, and
// watches a page for console errors, page errors and requests to other origins.
import { chromium } from 'playwright-core';
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CONCORD_URL = process.env.CONCORD_URL ?? 'http://127.0.0.1:8080/';
export const CONCORD_SUBPATH_URL = process.env.CONCORD_SUBPATH_URL;
export const MOCK_URL = process.env.MOCK_URL;

export const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// Under `node --test` (each file in a process of its own, `NODE_TEST_CONTEXT` set): one
// Chromium per test file, and a fresh browser context per `launch()`. A context is a profile
// of its own — its own storage (IndexedDB, localStorage), cookies and HTTP cache, nothing
// shared with another context — without paying for a new browser process each time (about
// 1 s on an idle machine, 5 s on a loaded one, ~140 times a run). Elsewhere (the benchmarks,
// which measure a cold start) every `launch()` is a new browser with a new profile directory.
const PER_FILE_BROWSER = process.env.NODE_TEST_CONTEXT !== undefined;
let shared;

function launchOptions() {
  return { executablePath: process.env.CONCORD_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: FLAGS };
}

async function sharedBrowser() {
  if (!shared || !(await shared).isConnected()) shared = chromium.launch(launchOptions());
  return shared;
}

// The file's last test done, its browser goes too (an open one would keep the process alive).
if (PER_FILE_BROWSER) {
  after(async () => {
    if (shared) await (await shared).close().catch(() => {});
  });
}

/** A fresh browser profile (`viewport` in CSS pixels, 1280 × 900 unless given); `close()` ends
 * it and removes everything it stored. */
export async function launch({ viewport = { width: 1280, height: 900 } } = {}) {
  if (PER_FILE_BROWSER) {
    const context = await (await sharedBrowser()).newContext({ viewport, acceptDownloads: true });
    return { context, close: () => context.close() };
  }
  const profile = mkdtempSync(join(tmpdir(), 'concord-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions(), viewport });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Records what a page says went wrong, and every request it makes. */
export function watch(page) {
  const problems = [];
  const requests = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('request', (req) => requests.push(req.url()));
  return { problems, requests };
}

/** Sets the mock LLM's scenario (see xtask/src/mock_llm.rs) and clears its request log. */
export async function setScenario(body) {
  const res = await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`the mock refused the scenario: ${res.status} ${await res.text()}`);
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}

/** How many requests the mock LLM has received since its last reset. */
export async function mockTotal() {
  return (await (await fetch(`${MOCK_URL}/__mock/summary`)).json()).total;
}

/** The mock LLM's request log since its last reset: `[{ path, status, … }]`. */
export async function mockRequests() {
  return (await (await fetch(`${MOCK_URL}/__mock/requests`)).json()).requests;
}

/** Clears the mock LLM's request log (its scenario stays). */
export async function mockReset() {
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}

/** The mock LLM's summary of its log: `{ total, duplicate_successes, … }`. */
export async function mockSummary() {
  return (await fetch(`${MOCK_URL}/__mock/summary`)).json();
}
