// What the e2e suite pays to give a test a fresh browser profile (issue 34): a new Chromium with a
// new profile directory per test, as `tests/e2e/browser.mjs` did before 2026-11-28, against one
// Chromium per test file and a new browser context per test, as it does now. Both open a page
// on about:blank and close everything again. `node benches/launch.mjs [--runs N]` (10 by
// default); prints the mean and median of each, in ms. Nothing is asserted: the figure depends
// on the machine and its load.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS } from '../tests/e2e/browser.mjs';

const at = process.argv.indexOf('--runs');
const RUNS = at > 0 ? Number(process.argv[at + 1]) : 10;
const options = { executablePath: process.env.CONCORD_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: FLAGS };

async function timed(step) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await step();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return `mean ${mean.toFixed(0)} ms, median ${times[Math.floor(times.length / 2)].toFixed(0)} ms over ${RUNS}`;
}

const perTest = await timed(async () => {
  const profile = mkdtempSync(join(tmpdir(), 'concord-bench-'));
  const context = await chromium.launchPersistentContext(profile, options);
  await (await context.newPage()).goto('about:blank');
  await context.close();
  rmSync(profile, { recursive: true, force: true });
});
console.log(`a new browser and profile per test: ${perTest}`);

const browser = await chromium.launch(options);
const perContext = await timed(async () => {
  const context = await browser.newContext();
  await (await context.newPage()).goto('about:blank');
  await context.close();
});
await browser.close();
console.log(`a new context of one browser per test: ${perContext}`);
