// The end-to-end harness: one way to open the app in a fresh browser (`withApp`), to compare a
// panel's exports with the CLI's files (`expectSameExports`) and to take a screen's pictures in
// both themes and at 375 px (`shootThemes`). Tests speak to the screens through the page
// objects in `pages/`; `selectors.test.mjs` keeps raw selectors out of the `*.test.mjs` files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, setScenario, CONCORD_URL, MOCK_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage, RatePage, Screens } from './pages/workbench_pages.mjs';
import { MetaPage } from './pages/meta_page.mjs';
import { CoEvalPage } from './pages/coeval_page.mjs';
import { ClassPage } from './pages/class_page.mjs';
import { ReviewPage } from './pages/review_page.mjs';
import { ValidityPanel } from './pages/validity_page.mjs';
import { downloadOf, tableExportButton } from './pages/downloads.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');

/** The export formats of a table: the word on its buttons, the file's extension, the CLI's `--format`. */
export const FORMATS = [['CSV', 'csv', 'csv'], ['Markdown', 'md', 'md'], ['LaTeX', 'tex', 'latex'], ['JSON', 'json', 'json']];

/** Runs `concord` with `args`; its standard output as text. */
export function cli(args) {
  return execFileSync(CLI, args, { encoding: 'utf8' });
}

/**
 * Runs `concord ...args --format F --out DIR` for every table format into one folder (the
 * formats' extensions differ); returns the folder.
 */
export function cliExports(args, dir) {
  mkdirSync(dir, { recursive: true });
  for (const [, , format] of FORMATS) cli([...args, '--format', format, '--out', dir]);
  return dir;
}

/** Waits until the page's workspace is restored (or a new one made) after a load or reload. */
export async function waitReady(page, timeout = 30_000) {
  await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout });
}

/** Parses an exported SVG file's text in `page`: { error (the parser's, or null), root, ns,
 * width, height, viewBox, title, circles: [their titles], bars: [the titled rects' titles] }. */
export function parseSvg(page, text) {
  return page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    const root = doc.documentElement;
    const titles = (sel) => [...root.querySelectorAll(sel)].map((e) => e.querySelector('title')?.textContent ?? null);
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: root.localName, ns: root.namespaceURI,
      width: Number(root.getAttribute('width')), height: Number(root.getAttribute('height')),
      viewBox: root.getAttribute('viewBox'), title: root.querySelector(':scope > title')?.textContent,
      circles: titles('circle'), bars: titles('rect').filter((x) => x !== null),
    };
  }, text);
}

/** The box of `locator`'s first element, in CSS pixels: { left, right, top, bottom, middle, width }. */
export function box(locator) {
  return locator.first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, middle: (r.top + r.bottom) / 2, width: r.width };
  });
}

// Security checks (xss.test.mjs and any test that feeds the page hostile text).

/** Records dialogs and CSP violations of `page` (violations through an init script). */
export async function guard(page) {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample ?? ''}`);
    });
  });
  return dialogs;
}

/** Nothing ran and nothing was made from a payload, and no CSP violation happened. */
export async function assertInert(page, dialogs, where) {
  const found = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) if (/^on/i.test(a.name)) bad.push(`<${el.tagName.toLowerCase()} ${a.name}>`);
      if (el.hasAttribute('data-xss')) bad.push(`<${el.tagName.toLowerCase()} data-xss>`);
    }
    for (const el of document.querySelectorAll('iframe, object, embed, frame, base, meta[http-equiv]:not([http-equiv="Content-Security-Policy"]), style, script:not([src])')) {
      bad.push(`<${el.tagName.toLowerCase()}>`);
    }
    for (const el of document.querySelectorAll('[href], [src], [action], [data]')) {
      for (const name of ['href', 'src', 'action', 'data']) {
        if (/^\s*javascript:/i.test(el.getAttribute(name) ?? '')) bad.push(`<${el.tagName.toLowerCase()} ${name}=javascript:>`);
      }
    }
    return { bad, xss: window.__xss, csp: window.__csp ?? [] };
  });
  assert.deepEqual(found.bad, [], `${where}: elements made from payloads`);
  assert.equal(found.xss, undefined, `${where}: a payload ran`);
  assert.deepEqual(dialogs, [], `${where}: dialogs`);
  assert.deepEqual(found.csp, [], `${where}: CSP violations`);
  console.log(`# ${where}: inert (0 CSP violations, 0 dialogs)`);
}

/** Makes the page believe its tab is `state` ('hidden' or 'visible') and tells it so. */
export async function setVisibility(page, state) {
  await page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  }, state);
}

/**
 * A timer on the page (`seconds()` reads it) stops while the tab is hidden and goes on once it
 * is visible, without adding the hidden stretch. The page's clock must be Playwright's
 * (`page.clock.install()` before the page opened): the test moves it, so a loaded machine
 * cannot stretch a wait. Resumes the clock at the end.
 */
export async function expectTimerStopsWhileHidden(page, seconds) {
  // A moment just ahead of the page's clock; on a loaded machine the clock may pass it before
  // the pause lands ("Cannot fast-forward to the past"): then pick a later one.
  for (let ahead = 100; ; ahead *= 4) {
    try {
      await page.clock.pauseAt(await page.evaluate((ms) => Date.now() + ms, ahead));
      break;
    } catch (e) {
      if (!/fast-forward to the past/.test(e.message) || ahead > 10_000) throw e;
    }
  }
  await setVisibility(page, 'hidden');
  const hiddenAt = await seconds();
  await page.clock.runFor(3500);
  assert.ok(await seconds() <= hiddenAt + 1, 'no time counted while hidden');
  await setVisibility(page, 'visible');
  // The display moves on the page's one-second tick, whose phase the pause above fixed
  // anywhere: 3.5 s visible show 2.5 to 3.5 s more, each end rounded — 2 to 5 s more on the
  // display; the 3.5 hidden seconds added back would show 6 or more.
  await page.clock.runFor(3500);
  assert.ok(await seconds() >= hiddenAt + 2, 'counting again once visible');
  assert.ok(await seconds() <= hiddenAt + 5, 'the hidden stretch is not added later');
  await page.clock.resume();
}

/** Everything the page stored: localStorage and every IndexedDB record, as one string. */
export async function storageDump(page) {
  return page.evaluate(async () => {
    const out = [JSON.stringify({ ...localStorage })];
    for (const info of await indexedDB.databases()) {
      const db = await new Promise((ok, err) => { const r = indexedDB.open(info.name); r.onsuccess = () => ok(r.result); r.onerror = err; });
      for (const name of db.objectStoreNames) {
        const all = await new Promise((ok, err) => { const r = db.transaction(name).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); r.onerror = err; });
        out.push(JSON.stringify(all));
      }
      db.close();
    }
    return out.join('\n');
  });
}

/** One open page of the app and its screens' page objects. */
export class App {
  constructor(page, browser, seen) {
    this.page = page;
    this.browser = browser;
    this.seen = seen;
    this.data = new DataPage(page);
    this.judge = new JudgePage(page);
    this.run = new RunPage(page);
    this.results = new ResultsPage(page);
    this.rate = new RatePage(page);
    this.meta = new MetaPage(page);
    this.coeval = new CoEvalPage(page);
    this.class = new ClassPage(page);
    this.review = new ReviewPage(page);
    this.validity = new ValidityPanel(page);
    this.screens = new Screens(page);
    this.dirs = [];
  }

  /** Another page of the same browser (its profile, its storage), watched as the first. */
  async newPage() {
    const page = await this.browser.context.newPage();
    const other = new App(page, this.browser, watch(page));
    other.dirs = this.dirs;
    return other;
  }

  /** A temporary folder removed when the app is closed. */
  tempDir(prefix = 'concord-e2e-') {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Opens `url` and waits for the Data screen (and, unless `ready` is false, the workspace). */
  async open(url = CONCORD_URL, { ready = true } = {}) {
    await this.data.open(url);
    if (ready) await waitReady(this.page);
  }

  /** Reloads the page and waits for the saved workspace. */
  async reload() {
    await this.page.reload();
    await waitReady(this.page);
  }

  /** Opens the Run screen and connects it to the mock LLM (`provider` vllm and model
   * `mock-model` unless given; `path` the API's path under the mock, `/v1` unless given). */
  async connectMock({ provider = 'vllm', model = 'mock-model', path = '/v1', ...rest } = {}) {
    await this.run.open();
    await this.run.connect({ provider, baseUrl: `${MOCK_URL}${path}`, model, ...rest });
  }

  /**
   * The usual judge run against the mock: adds the methods on the Judge screen (`methods`, as
   * `JudgePage.addMethods` takes them), connects the Run screen (`connect`, as `connectMock`),
   * ticks "Send them as they are" when `sendAnyway`, runs and waits; returns what the Run
   * screen says when it is done.
   */
  async judgeWithMock({ methods = { modes: ['score-only'], n: 1 }, connect = {}, sendAnyway = false, timeout } = {}) {
    await this.judge.open();
    await this.judge.addMethods(methods);
    await this.connectMock(connect);
    if (sendAnyway) await this.run.sendAnyway();
    await this.run.run();
    return this.run.waitFinished(timeout);
  }
}

/**
 * Opens the app in a fresh browser and calls `fn(app)`; the browser and every `app.tempDir()`
 * are removed afterwards whatever happens.
 * - `url`: the page to open (CONCORD_URL); `null` opens nothing.
 * - `ready`: wait for the workspace (true).
 * - `viewport`: the window's size ({ width: 1280, height: 900 }).
 * - `data`: `{ name, text, mimeType }`, a dataset loaded through the file input.
 * - `bundle`: a bundle file's path, imported on the Results screen (waits until it is the source).
 * - `scenario`: the mock LLM's scenario (see `setScenario`), set after the data is loaded.
 * - `problems`: 'none' (default) asserts at the end that the page logged no console error,
 *   warning or page error; 'pageerrors' only that it threw none (failed fetches are the
 *   point of some tests); 'allowed' leaves `app.seen.problems` to the test.
 * - `ignore`: a pattern of problems the test expects (e.g. the browser's own log of a 400 the
 *   mock answers on purpose); the others must still be none.
 */
export async function withApp(options, fn) {
  const { url = CONCORD_URL, ready = true, viewport, data, bundle, scenario, problems = 'none', ignore } = options ?? {};
  const browser = await launch(viewport ? { viewport } : undefined);
  let app;
  try {
    const page = await browser.context.newPage();
    app = new App(page, browser, watch(page));
    if (url !== null) await app.open(url, { ready });
    if (data) await app.data.loadFile(data.name, data.text, data.mimeType);
    if (scenario) await setScenario(scenario);
    if (bundle) {
      await app.results.open();
      await app.results.openBundle(bundle);
    }
    const result = await fn(app);
    if (problems === 'none') {
      const left = app.seen.problems.filter((p) => !ignore || !ignore.test(p));
      assert.deepEqual(left, [], 'no console or page errors');
    } else if (problems === 'pageerrors') {
      assert.deepEqual(app.seen.problems.filter((p) => p.startsWith('pageerror')), [], 'no page errors');
    }
    return result;
  } finally {
    await browser.close();
    for (const dir of app?.dirs ?? []) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Clicks every table export button inside `panel` (a locator) in every format and returns the
 * downloads by file name. Each download is named after its table (`<id>.<ext>`).
 */
export async function exportTables(panel) {
  const page = panel.page();
  const out = {};
  const ids = await panel.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table));
  for (const id of ids) {
    for (const [label, ext] of FORMATS) {
      // Chromium refuses a download now and then when a page starts more than ten in a few
      // seconds; a person does not click that fast.
      await page.waitForTimeout(600);
      const { name, text } = await downloadOf(page, tableExportButton(panel, id, label).first());
      assert.equal(name, `${id}.${ext}`, 'an export is named after its table');
      out[name] = text;
    }
  }
  return out;
}

/**
 * Every table of `panel` exported in every format equals, byte for byte, the file of the same
 * name in `cliDir` (the CLI's `--out` folder, e.g. from `cliExports`). With `all`, every file
 * the CLI wrote was exported by the panel too. Returns the panel's exports by file name.
 */
export async function expectSameExports(panel, cliDir, { all = false } = {}) {
  const app = await exportTables(panel);
  const names = readdirSync(cliDir);
  assert.ok(Object.keys(app).length > 0, 'the panel has tables to export');
  for (const [name, text] of Object.entries(app)) {
    assert.ok(names.includes(name), `the CLI wrote ${name} too`);
    assert.equal(text, readFileSync(join(cliDir, name), 'utf8'), `${name}: the app's export is the CLI's, byte for byte`);
  }
  if (all) {
    for (const name of names) assert.ok(app[name] !== undefined, `the panel exports ${name}, as the CLI writes it`);
  }
  return app;
}

/**
 * Every table of the Class screen's report (`klass`, a ClassPage), exported as CSV by its
 * button, equals the CLI's file of the same name in `cliDir` (`concord class … --out`);
 * `titles` maps each file name to its table's title, and the CLI wrote exactly those files.
 */
export async function expectSameClassCsv(klass, cliDir, titles) {
  const files = readdirSync(cliDir).sort();
  assert.deepEqual(files, Object.keys(titles).sort());
  for (const f of files) {
    const download = await klass.exportTable(titles[f], 'CSV');
    assert.equal(download.suggestedFilename(), f);
    assert.equal(readFileSync(await download.path(), 'utf8'), readFileSync(join(cliDir, f), 'utf8'), f);
  }
}

/**
 * Pictures of `locator` into the screenshot folder (CONCORD_SCREENSHOTS, which `cargo xtask
 * e2e` sets to target/screenshots, or docs/screenshots with --screenshots): `<name>.png` as
 * it is, `<name>-dark.png` in the dark theme and `<name>-375.png` 375 px wide; the theme and
 * the window's size are put back. Nothing is taken when the variable is unset.
 * `window` pictures the window scrolled to the locator, `fullPage` the whole page, instead of
 * the locator alone.
 */
export async function shootThemes(locator, name, { fullPage = false, window = false } = {}) {
  const dir = process.env.CONCORD_SCREENSHOTS;
  if (!dir) return;
  const page = locator.page();
  const shoot = async (suffix) => {
    const path = join(dir, `${name}${suffix}.png`);
    if (fullPage) return page.screenshot({ path, fullPage });
    if (!window) return locator.screenshot({ path });
    await locator.first().scrollIntoViewIfNeeded();
    return page.screenshot({ path });
  };
  const theme = page.getByTestId('theme');
  const was = await theme.inputValue();
  const size = page.viewportSize();
  await shoot('');
  await theme.selectOption('dark');
  await shoot('-dark');
  await theme.selectOption('light');
  await page.setViewportSize({ width: 375, height: 800 });
  await shoot('-375');
  await page.setViewportSize(size);
  await theme.selectOption(was);
}
