// Raw selectors belong in the page objects (`pages/`) and the harness, not in the tests: every
// `*.test.mjs` may hold at most the count `raw_selectors.json` allows it (a new file none), and
// a file that has fewer must lower its count there, so the counts only go down. Needs no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const RATCHET = join(HERE, 'raw_selectors.json');

/** The calls that find elements by a selector, a test id, a role, a label or a text. */
const CALLS = ['getByTestId', 'getByRole', 'getByLabel', 'getByText', 'getByPlaceholder', 'getByTitle',
  'getByAltText', 'locator', 'querySelector', 'querySelectorAll', 'waitForSelector', '\\$\\$?eval', '\\$\\$?'];
const RAW = new RegExp(`(?<![\\w$\\\\])(${CALLS.join('|')})\\s*\\(`, 'g');

/** How many raw selector calls `source` makes. */
export function rawSelectors(source) {
  return [...source.matchAll(RAW)].length;
}

test('counts every kind of raw selector call, and nothing else', () => {
  assert.equal(rawSelectors("page.getByTestId('x'); p.locator ('a'); document.querySelectorAll('li'); page.$$eval('a', f)"), 4);
  assert.equal(rawSelectors("page.getByRole('tab'); el.querySelector('b'); page.$('c'); p.waitForSelector('d')"), 4);
  assert.equal(rawSelectors('data.itemCount.textContent(); app.results.open(); relocator(1); getByTestIdLike(2)'), 0);
  // A dollar sign in a regular expression is no selector.
  assert.equal(rawSelectors('text.match(/\\$(\\d+)/)'), 0);
});

test('no test file gains a raw selector; the allowed counts only go down', () => {
  const allowed = JSON.parse(readFileSync(RATCHET, 'utf8'));
  // This file names the calls it counts; it is the one file not counted.
  const files = readdirSync(HERE).filter((f) => f.endsWith('.test.mjs') && f !== 'selectors.test.mjs').sort();
  const over = [];
  const under = [];
  for (const file of files) {
    const count = rawSelectors(readFileSync(join(HERE, file), 'utf8'));
    const may = allowed[file] ?? 0;
    if (count > may) over.push(`${file}: ${count} raw selectors, ${may} allowed — use or extend a page object in pages/`);
    if (count < may) under.push(`${file}: ${count} raw selectors — lower its count in raw_selectors.json from ${may} to ${count}`);
  }
  const gone = Object.keys(allowed).filter((f) => !files.includes(f));
  assert.deepEqual(over, [], 'raw selectors added to test files');
  assert.deepEqual(under, [], 'counts to lower in raw_selectors.json');
  assert.deepEqual(gone, [], 'files in raw_selectors.json that no longer exist');
  const total = Object.values(allowed).reduce((a, b) => a + b, 0);
  console.log(`raw selectors in ${files.length} test files: ${total} allowed`);
});
