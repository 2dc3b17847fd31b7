// Page objects for the workbench screens: Judge, Run, Results, Rate it yourself.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export class Tabs {
  constructor(page) { this.page = page; }
  async open(name) {
    await this.page.getByRole('tab', { name }).click();
  }
}

export class JudgePage {
  constructor(page) {
    this.page = page;
    this.methods = page.locator('[data-testid="methods"] tbody tr');
    this.preview = page.getByTestId('prompt-preview');
    this.suggested = page.getByTestId('suggested-study');
    this.promptWarnings = page.locator('[data-testid="prompt-warnings"] li');
  }
  /** The methods' names, in order. */
  async methodNames() {
    return this.methods.evaluateAll((rows) => rows.map((r) => r.querySelector('td').innerText.trim()));
  }
  async open() { await new Tabs(this.page).open('Judge'); await this.page.getByRole('heading', { name: 'Add methods' }).waitFor(); }
  /** Ticks exactly `modes` (names as shown, e.g. 'score-only'), sets N, adds the grid. */
  async addMethods({ modes, n = 1, temperatures = '1', parser }) {
    const fieldset = this.page.locator('fieldset', { hasText: 'Output mode' });
    for (const mode of ['score-only', 'free-text', 'rate-explain', 'analyze-rate']) {
      const box = fieldset.getByLabel(mode, { exact: true });
      if (modes.includes(mode)) await box.check(); else await box.uncheck();
    }
    await this.page.getByLabel('Samples N').fill(String(n));
    await this.page.getByLabel('Temperatures').fill(temperatures);
    if (parser) await this.page.getByLabel('Parser').selectOption(parser);
    await this.page.getByRole('button', { name: 'Add methods' }).click();
  }
}

export class RunPage {
  constructor(page) {
    this.page = page;
    this.progress = page.getByTestId('progress');
    this.finished = page.getByTestId('run-finished');
    this.error = page.getByTestId('run-error');
    this.estimate = page.getByTestId('estimate');
    this.promptWarnings = page.locator('[data-testid="run-prompt-warnings"] li');
    this.connectionResult = page.getByTestId('connection-result');
  }
  /** Ticks "Send them as they are" under the prompts that are not ready to send. */
  async sendAnyway() { await this.page.getByTestId('send-anyway').check(); }
  /** Clicks "Check this model" and returns what it says of the connection (its model list). */
  async testConnection() {
    await this.page.getByRole('button', { name: 'Check this model' }).click();
    await this.connectionResult.waitFor();
    return this.connectionResult.innerText();
  }
  async open() { await new Tabs(this.page).open('Run'); await this.page.getByLabel('Base URL', { exact: true }).waitFor(); }
  async connect({ provider = 'vllm', baseUrl, model, key, rpm, concurrency, itemLimit }) {
    await this.page.getByRole('combobox', { name: 'Provider' }).selectOption(provider);
    await this.page.getByLabel('Base URL', { exact: true }).fill(baseUrl);
    await this.page.getByLabel('Base URL', { exact: true }).dispatchEvent('change');
    await this.page.getByLabel('Model', { exact: true }).fill(model);
    await this.page.getByLabel('Model', { exact: true }).dispatchEvent('change');
    if (key !== undefined) {
      await this.page.getByLabel('API key').fill(key);
      await this.page.getByLabel('API key').dispatchEvent('change');
    }
    if (rpm || concurrency || itemLimit) await this.page.locator('summary', { hasText: 'Limits' }).click();
    if (rpm) { await this.page.getByLabel('Requests per minute').fill(String(rpm)); await this.page.getByLabel('Requests per minute').dispatchEvent('change'); }
    if (concurrency) { await this.page.getByLabel('Parallel requests').fill(String(concurrency)); await this.page.getByLabel('Parallel requests').dispatchEvent('change'); }
    if (itemLimit) { await this.page.getByLabel('Rate only the first N items').fill(String(itemLimit)); await this.page.getByLabel('Rate only the first N items').dispatchEvent('change'); }
  }
  async run() { await this.page.getByRole('button', { name: 'Run', exact: true }).click(); }
  /** Waits for the run to finish and returns what it says; if it does not, the error says
   * what the Run screen showed instead (its progress, error and prompt warnings). */
  async waitFinished(timeout = 120_000) {
    try {
      await this.finished.waitFor({ timeout });
    } catch (e) {
      const said = async (l) => ((await l.count()) ? (await l.first().innerText()).trim() : '–');
      const warnings = await this.page.locator('[data-testid="run-prompt-warnings"]').count();
      throw new Error(`${e.message}\nprogress: ${await said(this.progress)}\nerror: ${await said(this.error)}\nprompt warnings shown: ${warnings}`);
    }
    return this.finished.textContent();
  }
  get runButton() { return this.page.getByRole('button', { name: 'Run', exact: true }); }
  get pauseButton() { return this.page.getByRole('button', { name: 'Pause', exact: true }); }
  get resumeButton() { return this.page.getByRole('button', { name: 'Resume', exact: true }); }
  get cancelButton() { return this.page.getByRole('button', { name: 'Cancel', exact: true }); }
  async pause() { await this.pauseButton.click(); }
  async resume() { await this.resumeButton.click(); }
  async cancel() { await this.cancelButton.click(); }
  /** Changes only the model (a new model means new cache keys: nothing of an earlier run is reused). */
  async setModel(model) {
    await this.page.getByLabel('Model', { exact: true }).fill(model);
    await this.page.getByLabel('Model', { exact: true }).dispatchEvent('change');
  }
  /** The progress line as numbers: { done, total, failed, inFlight, cached }, or null before the first report. */
  async counts() {
    const text = await this.page.evaluate(() => document.querySelector('[data-testid="progress"]')?.innerText ?? '');
    const m = /^([\d,]+) of ([\d,]+) calls done, ([\d,]+) failed, ([\d,]+) in flight, ([\d,]+) cached/.exec(text);
    const num = (s) => Number(s.replaceAll(',', ''));
    return m ? { done: num(m[1]), total: num(m[2]), failed: num(m[3]), inFlight: num(m[4]), cached: num(m[5]), text } : null;
  }
  /** Waits until `predicate(counts)` holds (polled in the page, so no update is missed for long). */
  async waitCounts(predicate, timeout = 60_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const c = await this.counts();
      if (c && predicate(c)) return c;
      if (Date.now() > deadline) throw new Error(`progress never satisfied ${predicate}: ${c?.text ?? '(no progress)'}`);
      await this.page.waitForTimeout(25);
    }
  }
  /** Every line of the run log, oldest first (the log is in a collapsed <details>). */
  async logLines() {
    return this.page.evaluate(() => [...document.querySelectorAll('[data-testid="run-log"] li')].map((li) => li.textContent).reverse());
  }
}

export class ResultsPage {
  constructor(page) {
    this.page = page;
    this.table = page.getByTestId('results-table');
    this.rows = page.locator('[data-testid="results-table"] tbody tr');
  }
  async open() { await new Tabs(this.page).open('Results'); }
  /** The notes under the results table. */
  async notes() {
    await this.table.waitFor();
    return this.page.locator('figure.results-table .table-notes p').allInnerTexts();
  }
  /** Sets the intervals' settings (only those given), each as typed then committed. */
  async setIntervalSettings({ resamples, confidence, seed }) {
    const box = this.page.getByTestId('interval-settings');
    for (const [label, value] of [['Resamples', resamples], ['Confidence (%)', confidence], ['Seed', seed]]) {
      if (value === undefined) continue;
      const input = box.getByLabel(label, { exact: true });
      await input.fill(String(value));
      await input.dispatchEvent('change');
    }
  }
  get intervalError() { return this.page.getByTestId('interval-error'); }
  /**
   * The plots of the open cell panel as geometry in page pixels: per svg its title, size on
   * the page and viewBox width, its bars (x0, x1), dots (cx, cy, r) and texts (text, box,
   * rendered font size), all in the svg's own units unless said.
   */
  async plots() {
    return this.page.locator('[data-testid="cell-panel"] svg.plot').evaluateAll((svgs) => svgs.map((svg) => {
      const page = svg.getBoundingClientRect();
      const texts = [...svg.querySelectorAll('text')].map((t) => {
        const b = t.getBBox();
        return {
          text: t.textContent, x: Number(t.getAttribute('x')), size: Number(t.getAttribute('font-size')),
          anchor: t.getAttribute('text-anchor'), rotated: !!t.getAttribute('transform'),
          box: [b.x, b.y, b.x + b.width, b.y + b.height], renderedHeight: t.getBoundingClientRect().height,
        };
      });
      return {
        title: svg.querySelector(':scope > title')?.textContent,
        shownWidth: page.width,
        viewWidth: svg.viewBox.baseVal.width,
        bars: [...svg.querySelectorAll('rect[width]')].filter((r) => r.querySelector('title'))
          .map((r) => ({ x0: Number(r.getAttribute('x')), x1: Number(r.getAttribute('x')) + Number(r.getAttribute('width')), title: r.querySelector('title').textContent })),
        dots: [...svg.querySelectorAll('circle')].map((c) => ({ cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')), r: Number(c.getAttribute('r')) })),
        texts,
      };
    }));
  }
  async setBaseline(name) { await this.page.getByLabel('Baseline', { exact: true }).selectOption(name); }
  async setStatistic(value) { await this.page.getByLabel('Statistic', { exact: true }).selectOption(value); }
  async setLevel(value) { await this.page.getByLabel('Level', { exact: true }).selectOption(value); }
  /** The table as text rows: [method, cell, cell, …]. */
  async cells() {
    await this.table.waitFor();
    return this.rows.evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim())));
  }
  /** The column headings under the attributes (seed 002's layout has two per attribute). */
  async subHeadings() {
    await this.table.waitFor();
    return this.table.locator('thead th.sub').allInnerTexts();
  }
  /** The methods of the table's rows, in order. */
  async rowLabels() {
    await this.table.waitFor();
    return this.rows.locator('th').allInnerTexts();
  }
  /** The notes under the results table. */
  async notes() {
    return this.page.locator('figure:has([data-testid="results-table"]) .table-notes p').allInnerTexts();
  }
  /** Shows the juries as rows (or hides them). */
  async setJuries(on) {
    const box = this.page.getByTestId('juries');
    if ((await box.isChecked()) !== on) await box.click();
  }
  /** The agreement table's rows as { rater, kind } (Results → Agreement with your ratings). */
  async agreementKinds() {
    const table = this.page.locator('[data-testid="agreement-table"]').first();
    await table.waitFor();
    return table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => ({
      rater: r.querySelector('th').innerText.trim(), kind: r.querySelector('td').innerText.trim(),
    })));
  }
  /** Computes the judge audit and waits for its first table. */
  async computeAudit() {
    await this.page.getByTestId('audit-compute').click();
    await this.page.locator('table[data-table="audit-judges"]').waitFor({ timeout: 60_000 });
  }
  /** Whether the judge audit's tables are shown. */
  async auditShown() {
    return (await this.page.locator('table[data-table="audit-judges"]').count()) > 0;
  }
  async boldCount() { return this.page.locator('[data-testid="results-table"] td.sig').count(); }
  async exportBundle() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'Export bundle' }).click(),
    ]);
    return download;
  }
  /** The text of table `id`'s export in `format` (as its button says: CSV, Markdown, LaTeX, JSON). */
  async exportTable(id, format = 'CSV') {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.locator(`button[aria-label$=" as ${format}"][data-table="${id}"]`).click(),
    ]);
    return readFileSync(await download.path(), 'utf8');
  }
  async importBundle(path) { await this.page.getByLabel('Import bundle').setInputFiles(path); }
  /** Imports the bundle at `path` and waits until the screen names it as its source. */
  async openBundle(path) {
    await this.importBundle(path);
    await this.bundleSource(basename(path)).waitFor();
  }
  /** The line naming the bundle the results come from, once it names `name`. */
  bundleSource(name) { return this.page.getByTestId('bundle-source').filter({ hasText: name }); }
  /** The import's message, once it says `text`. */
  importMessage(text) { return this.page.getByTestId('import-message').filter({ hasText: text }); }
  async importOutputs(paths) { await this.page.getByLabel('Import judge outputs').setInputFiles(paths); }
  /** The attribute names over the columns, in order. */
  async attributes() {
    await this.table.waitFor();
    const groups = await this.table.locator('thead th[scope="colgroup"]').allInnerTexts();
    if (groups.length) return groups.map((t) => t.trim());
    return (await this.table.locator('thead th[scope="col"]').allInnerTexts()).slice(1).map((t) => t.trim());
  }
  /**
   * Every body cell as { method, value, ci, sig, title }: `value` the number shown, `ci` the
   * interval's text or null, `sig` whether it is marked, `title` its tooltip (n, parse
   * failures, Williams p). Rows of cells, one row per method.
   */
  async cellDetails() {
    await this.table.waitFor();
    return this.rows.evaluateAll((rows) => rows.map((r) => {
      const method = r.querySelector('th').innerText.trim();
      return [...r.querySelectorAll('td')].map((td) => {
        const button = td.querySelector('button');
        return {
          method,
          value: (button ?? td).innerText.trim(),
          ci: td.querySelector('.ci')?.innerText.trim() ?? null,
          sig: td.classList.contains('sig'),
          bold: !!button?.querySelector('strong'),
          title: button?.getAttribute('title') ?? null,
        };
      });
    }));
  }
  get intervalsButton() { return this.page.getByRole('button', { name: /^(Bootstrap CIs|Hide CIs|Computing intervals…)$/ }); }
  /** Turns intervals on (Bootstrap CIs) if they are off, and waits until they are in the table. */
  async computeIntervals(timeout = 30_000) {
    const on = this.page.getByRole('button', { name: 'Bootstrap CIs', exact: true });
    if (await on.count()) await on.click();
    await this.waitIntervals(timeout);
  }
  /** Waits until the intervals of the current view are computed and shown. */
  async waitIntervals(timeout = 30_000) {
    await this.page.waitForFunction(() => {
      const b = [...document.querySelectorAll('button')].find((x) => /^(Bootstrap CIs|Hide CIs|Computing intervals…)$/.test(x.innerText.trim()));
      return b && b.innerText.trim() === 'Hide CIs' && !b.disabled
        && document.querySelector('[data-testid="results-table"] .ci');
    }, null, { timeout });
  }
  /** Turns intervals off. */
  async hideIntervals() {
    await this.page.getByRole('button', { name: 'Hide CIs', exact: true }).click();
  }
  /** Clicks an export button of the Results screen (`Export CSV`, `Export scatter SVG`, …) and returns the download. The results table's buttons are named after its title, so `Export CSV` stands for `Export Correlation with human ratings as CSV`. */
  async exportFile(name) {
    const table = /^Export (CSV|Markdown|LaTeX|JSON)$/.exec(name);
    if (table) name = `Export Correlation with human ratings as ${table[1]}`;
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name, exact: true }).click(),
    ]);
    return download;
  }
  /** Opens the cell panel of the `index`-th cell of the table (row by row). */
  async openCell(index) {
    await this.page.locator('[data-testid="results-table"] td button').nth(index).click();
    await this.page.getByTestId('cell-panel').waitFor();
  }
}

/** "Rate it yourself": rates every item in order with the keyboard. */
export class RatePage {
  constructor(page) { this.page = page; }
  async rateAll(name, scores) {
    const p = this.page;
    await p.getByRole('tab', { name: 'Rate it yourself' }).click();
    await p.getByLabel('Your name').fill(name);
    await p.getByRole('button', { name: 'Start rating' }).click();
    const card = p.getByTestId('rate-card');
    await card.focus();
    for (const [i, s] of scores.entries()) {
      await card.getByRole('heading', { name: new RegExp(`^Item ${i + 1} of ${scores.length} · ${i} rated`) }).waitFor();
      await card.press(String(s));
    }
    await card.getByRole('heading', { name: new RegExp(`${scores.length} rated$`) }).waitFor();
  }
}

/** How many times the open workspace was saved since the page loaded. */
export function workspaceSaves(page) {
  return page.evaluate(() => Number(document.documentElement.dataset.workspaceSaves ?? 0));
}

/** Waits until the workspace was saved more than `n` times since the page loaded. */
export async function waitWorkspaceSaved(page, n, timeout = 30_000) {
  await page.waitForFunction((k) => Number(document.documentElement.dataset.workspaceSaves ?? 0) > k, n, { timeout });
}

/** Waits until this browser's open workspace is saved under `name` (a bundle opened as a new workspace is saved once it is in). */
export async function waitSavedAs(page, name, timeout = 30_000) {
  await page.waitForFunction(async (want) => {
    const db = await new Promise((ok, err) => { const r = indexedDB.open('concord'); r.onsuccess = () => ok(r.result); r.onerror = err; });
    const text = await new Promise((ok) => { const q = db.transaction('settings').objectStore('settings').get('workspaces'); q.onsuccess = () => ok(q.result); q.onerror = () => ok(null); });
    db.close();
    const index = text ? JSON.parse(text) : null;
    return index?.entries?.some((e) => e.id === index.current && e.name === want);
  }, name, { timeout, polling: 250 });
}

/** Reloads the page and waits until the saved workspace is restored. */
export async function reloadRestored(page) {
  await page.reload();
  await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
}

/**
 * The order to open screens in so that each screen of `from` is left once for each other
 * screen of `all`: a greedy route over those changes, always going on to the screen with the
 * most changes still to make (on all screens it is an Eulerian circuit, each change once).
 */
export function walkRoute(all, from) {
  const left = new Map(from.map((f) => [f, all.filter((s) => s !== f)]));
  const todo = (s) => left.get(s)?.length ?? 0;
  const route = [];
  let at = null;
  while ([...left.values()].some((l) => l.length > 0)) {
    if (todo(at) === 0) {
      at = [...left.keys()].sort((a, b) => todo(b) - todo(a))[0];
    } else {
      const next = left.get(at).sort((a, b) => todo(b) - todo(a));
      at = next.shift();
    }
    route.push(at);
  }
  return route;
}

/** The app's screens (its tab list "Screens"), opened as a user would. */
export class Screens {
  constructor(page) {
    this.page = page;
    this.all = ['Data', 'Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class'];
  }
  tab(name) {
    return this.page.getByRole('tablist', { name: 'Screens' }).getByRole('tab', { name, exact: true });
  }
  /** Opens screen `name` and waits until it is shown (its chunk, when split, fetched). */
  async open(name) {
    await this.tab(name).click();
    await this.page.getByRole('tablist', { name: 'Screens' }).getByRole('tab', { name, exact: true, selected: true }).waitFor();
    await this.page.getByTestId('screen-loading').waitFor({ state: 'detached', timeout: 60_000 });
  }
  /** Lets the page run what a change of screen started (effects, tasks after an await). */
  async settle() {
    await this.page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 250)))));
  }
  /**
   * Leaves each screen of `from` for every other screen: every such change of screen happens
   * once, along one route (all eight screens: 57 opens rather than 112 for "open the first,
   * then the other" pair by pair).
   */
  async walk(from = this.all) {
    for (const name of walkRoute(this.all, from)) await this.open(name);
    await this.settle();
  }
}
