// Page objects for the workbench screens: Judge, Run, Results, Rate it yourself.
import { basename } from 'node:path';
import { VirtualTable } from './virtual_table.mjs';
import { downloadOf, tableExportButton } from './downloads.mjs';

export class Tabs {
  constructor(page) { this.page = page; }
  /** Opens a screen by its tab in the app's "Screens" tab list (a screen's own tabs, such as
   * CoEval's Results, may share a name). */
  async open(name) {
    await this.page.getByRole('tablist', { name: 'Screens' }).getByRole('tab', { name }).click();
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
  /** The methods table's first column, as shown. */
  async firstColumn() { return this.methods.locator('td:first-child').allInnerTexts(); }
  /** The first cell of each method's row, in order. */
  async methodCells() { return this.methods.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td, th')?.innerText.trim())); }
  /** The methods' names, in order. */
  async methodNames() {
    return this.methods.evaluateAll((rows) => rows.map((r) => r.querySelector('td').innerText.trim()));
  }
  async open() { await new Tabs(this.page).open('Judge'); await this.page.getByRole('heading', { name: 'Add methods' }).waitFor(); }
  /** Text area `i` of the prompt editor. */
  promptPart(i) { return this.page.locator(`textarea#part-${i}`); }
  /** Clicks the Prompt panel's heading (leaving the editor). */
  async leaveEditor() { await this.page.getByRole('heading', { name: 'Prompt', exact: true }).click(); }
  /** The prompt editor's text area labelled `label` (e.g. Sample). */
  async promptPartLabelled(label) {
    const part = this.page.locator('label[for^="part-"]', { hasText: new RegExp(`^${label}$`) });
    return this.page.locator(`textarea#${await part.getAttribute('for')}`);
  }
  get temperatures() { return this.page.getByLabel('Temperatures'); }
  get topP() { return this.page.getByLabel('top_p'); }
  get samples() { return this.page.getByLabel('Samples N'); }
  /** Clicks "Add methods" with the fields as they are. */
  async clickAdd() { await this.page.getByRole('button', { name: 'Add methods' }).click(); }
  /** The methods table's header and first row. */
  get methodsHead() { return this.page.locator('[data-testid="methods"] thead'); }
  get methodsFirstRow() { return this.page.locator('[data-testid="methods"] tbody tr').first(); }
  /** Scrolls the page `past` px past the methods table's top. */
  async scrollPastMethods(past) {
    await this.page.evaluate((p) => {
      const table = document.querySelector('[data-testid="methods"]');
      window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY + p);
    }, past);
  }
  /** Each header of the methods table: [its text, its text-align, its first row cell's text-align]. */
  async methodsAlignment() {
    return this.methodsTable.evaluate((table) => {
      const heads = [...table.querySelectorAll('thead th')];
      const cells = [...table.querySelector('tbody tr').children];
      return heads.map((th, i) => [th.textContent, getComputedStyle(th).textAlign, getComputedStyle(cells[i]).textAlign]);
    });
  }
  /** What adding methods said. */
  get addMessage() { return this.page.getByTestId('add-methods-message'); }
  /** The methods table (its text lists every method's settings). */
  get methodsTable() { return this.page.getByTestId('methods'); }
  /** The methods table's mention of `text` (e.g. a method's name). */
  method(text) { return this.methodsTable.getByText(text); }
  /** The panel that adds methods (its heading "Add methods"). */
  get addPanel() { return this.page.locator('section', { has: this.page.getByRole('heading', { name: 'Add methods' }) }); }
  get maxTokens() { return this.page.getByLabel('Max tokens'); }
  /** The attributes the Judge screen offers, as their checkboxes read. */
  async attributeLabels() { return this.page.locator('#attributes-heading ~ .row label.check').allInnerTexts(); }
  /** The checkbox of attribute `name` (its label starts with the name). */
  attribute(name) { return this.page.getByRole('checkbox', { name: new RegExp(`^${name} `) }); }
  /** Types Max tokens and commits it. */
  async setMaxTokens(n) { await this.maxTokens.fill(String(n)); await this.maxTokens.dispatchEvent('change'); }
  /** "+json": the next methods ask for structured output. */
  get structured() { return this.page.getByTestId('structured'); }
  /** "+weighted": the next methods are scored by the ratings' probabilities. */
  get weighted() { return this.page.getByTestId('weighted'); }
  /** What a weighted method does with a sample it cannot weigh (`drop` or `parsed`). */
  async setWeightingFallback(value) { await this.page.getByTestId('weighting-fallback').selectOption(value); }
  /** The warning that a reasoning model's token budget is too small (also on the Run screen). */
  get reasoningBudget() { return this.page.getByTestId('reasoning-budget'); }
  /** The warning that the provider returns no log-probabilities (also on the Run screen). */
  get noLogprobs() { return this.page.getByTestId('no-logprobs'); }
  /** The auto-CoT steps panel of attribute `attribute`. */
  steps(attribute) { return new StepsPanel(this.page, attribute); }
  /** The panel of every attribute's auto-CoT steps. */
  get stepsPanel() { return this.page.getByTestId('steps-panel'); }
  /** Ticks both "with" and "without" auto-CoT evaluation steps for the next methods. */
  async withAndWithoutCot() {
    const fieldset = this.page.locator('fieldset', { hasText: 'Auto-CoT evaluation steps' });
    await fieldset.getByLabel('with', { exact: true }).check();
    await fieldset.getByLabel('without', { exact: true }).check();
  }
  /** Shows the prompt of method `label` in the Prompt panel (its label wraps the select). */
  async previewMethod(label) {
    await this.page.locator('section', { has: this.page.locator('#prompt-heading') }).locator('select').first().selectOption({ label });
  }
  /** Waits until the prompt preview contains `text` (or, with `absent`, no longer does). */
  async waitPreview(text, { absent = false } = {}) {
    await this.page.waitForFunction(([t, a]) => (document.querySelector('[data-testid="prompt-preview"]')?.innerText.includes(t) ?? false) !== a, [text, absent]);
  }
  async removeMethod(name) { await this.page.getByRole('button', { name: `Remove ${name}`, exact: true }).click(); }
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

/** The auto-CoT evaluation steps of one attribute, on the Judge screen. */
export class StepsPanel {
  constructor(page, attribute) {
    this.page = page;
    this.attribute = attribute;
    this.panel = page.getByTestId(`steps-${attribute}`);
    this.select = this.panel.getByLabel('Steps', { exact: true });
    this.missing = this.panel.getByTestId('steps-missing');
    this.status = this.panel.getByTestId('steps-status');
    this.text = this.panel.getByTestId('steps-text');
    this.origin = this.panel.getByTestId('steps-origin');
    this.request = this.panel.getByTestId('steps-request');
    this.released = this.panel.getByTestId('steps-released');
  }
  /** The choices of the Steps select, as shown. */
  async options() { return this.select.locator('option').allInnerTexts(); }
  /** The choice shown in the Steps select. */
  async chosen() { return this.select.locator('option:checked').innerText(); }
  /** Waits until the status line matches `pattern`. */
  async waitStatus(pattern) {
    await this.page.waitForFunction(([id, src]) => new RegExp(src).test(document.querySelector(`[data-testid="${id}"] [data-testid="steps-status"]`)?.textContent ?? ''), [`steps-${this.attribute}`, pattern.source]);
  }
  /** Clicks "Write the … steps with the judge". */
  async writeWithJudge() { await this.panel.getByRole('button', { name: `Write the ${this.attribute} steps with the judge` }).click(); }
  /** Unfolds the request that wrote the steps. */
  async openRequest() { await this.request.locator('summary').click(); }
  /** Types the steps and commits them. */
  async setText(text) { await this.text.fill(text); await this.text.dispatchEvent('change'); }
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
  get apiKey() { return this.page.getByLabel('API key'); }
  /** The API key's label (its own element, for the layout). */
  get apiKeyLabel() { return this.page.locator('label[for="api-key"]'); }
  /** Types the key and commits it. */
  async setKey(key) { await this.apiKey.fill(key); await this.apiKey.dispatchEvent('change'); }
  /** Clicks "Check this model" and waits until the result says something other than `previous`; returns it. */
  async checkModelAgain(previous) {
    await this.page.getByRole('button', { name: 'Check this model' }).click();
    await this.page.waitForFunction((before) => {
      const text = document.querySelector('[data-testid="connection-result"]')?.textContent;
      return text && text !== before;
    }, previous, { timeout: 30_000 });
    return this.connectionResult.innerText();
  }
  /** The panel offering to resume an interrupted run. */
  get resumePanel() { return this.page.getByTestId('resume-panel'); }
  async resumeRun() { await this.page.getByRole('button', { name: 'Resume run' }).click(); }
  /** Waits until the cache panel's count of stored answers equals the progress line's calls
   * done (nothing in flight) and is at least `least`; returns it. */
  async waitCacheAgrees(least, timeout = 10_000) {
    return this.page.waitForFunction((l) => {
      const done = /^(\d+) of \d+ calls done, \d+ failed, 0 in flight/.exec(document.querySelector('[data-testid="progress"]')?.innerText ?? '');
      const stored = /^(\d+) stored answers? in this browser/.exec(document.querySelector('[data-testid="cache-info"]')?.textContent ?? '');
      return done && stored && done[1] === stored[1] && Number(done[1]) >= l && Number(done[1]);
    }, least, { timeout }).then((n) => n.jsonValue());
  }
  /** The cache panel. */
  get cacheInfoPanel() { return this.page.getByTestId('cache-info'); }
  get provider() { return this.page.getByRole('combobox', { name: 'Provider' }); }
  get baseUrl() { return this.page.getByLabel('Base URL', { exact: true }); }
  get model() { return this.page.getByLabel('Model', { exact: true }); }
  get itemLimit() { return this.page.getByLabel('Rate only the first N items'); }
  /** Gemini 2.5 Flash / Flash-Lite: "Let the model think before it answers" (off by default). */
  get geminiThinking() { return this.page.getByTestId('gemini-thinking'); }
  /** What the screen says of the stored answers, once it matches `text`. */
  cacheInfo(text) { return this.page.getByTestId('cache-info').filter({ hasText: text }); }
  /** "Remember on this device" (the key). */
  get rememberKey() { return this.page.getByLabel('Remember on this device'); }
  async forgetKey() { await this.page.getByRole('button', { name: 'Forget key' }).click(); }
  /** Waits until the progress line contains `text`. */
  async waitProgress(text) {
    await this.page.waitForFunction((t) => document.querySelector('[data-testid="progress"]')?.innerText.includes(t), text);
  }
  /** Waits until Resume is offered (`true`) or no longer (`false`). */
  async waitResumeOffered(offered = true, timeout) {
    await this.page.waitForFunction((want) => {
      const b = [...document.querySelectorAll('button')].find((x) => x.innerText === 'Resume');
      return want ? b?.disabled === false : b?.disabled;
    }, offered, timeout === undefined ? undefined : { timeout });
  }
  /** The estimate once its tokens are `how` ('counted' or 'approximate'), or, given `text`, once it says it. */
  estimateWith({ tokens, text }) {
    if (text) return this.page.locator('[data-testid="estimate"]', { hasText: text });
    return this.page.locator(`[data-testid="estimate"][data-tokens="${tokens}"]`);
  }
  /** Types the timeout per request, in seconds, and commits it. */
  async setTimeoutPerRequest(s) {
    const box = this.page.getByLabel('Timeout per request (s)');
    await box.fill(String(s));
    await box.dispatchEvent('change');
  }
  /** What the screen says went wrong in the run, and what to do. */
  get problems() { return this.page.getByTestId('run-problems'); }
  /** The run log (folded). */
  get log() { return this.page.getByTestId('run-log'); }
  /** A text shown on the screen (a run's state, e.g. "paused: Resume continues"). */
  said(text) { return this.page.getByText(text); }
  /** The run log's fold (its summary counts the lines). */
  get logSummary() { return this.page.locator('summary', { hasText: /^Run log/ }); }
  async logCount() { return this.page.locator('[data-testid="run-log"] li').count(); }
  /** The probe to run (padded, truncated, or '' for the study itself). */
  get probeChoice() { return this.page.getByTestId('probe-choice'); }
  /** The probe's variants, shown before anything is sent. */
  get probeVariants() { return this.page.getByTestId('probe-variants'); }
  async openProbeVariants() { await this.probeVariants.locator('summary').click(); }
  /** Waits until Run can be pressed again and the run says it is complete. */
  async waitRunAgain(timeout = 60_000) {
    await this.page.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => b.textContent === 'Run' && !b.disabled)
      && document.querySelector('[data-testid="run-finished"]')?.innerText.includes('Run complete'), null, { timeout });
  }
  get spendCap() { return this.page.getByLabel('Spend cap (USD)'); }
  get priceInput() { return this.page.getByTestId('price-input'); }
  get priceOutput() { return this.page.getByTestId('price-output'); }
  get reasoningBudget() { return this.page.getByTestId('reasoning-budget'); }
  get noLogprobs() { return this.page.getByTestId('no-logprobs'); }
  /** The "run finished" line once it says `text`. */
  finishedWith(text) { return this.finished.filter({ hasText: text }); }
  /** The run error once it says `text`. */
  errorWith(text) { return this.error.filter({ hasText: text }); }
  /** Types the spend cap and commits it. */
  async setSpendCap(usd) { await this.spendCap.fill(String(usd)); await this.spendCap.dispatchEvent('change'); }
  /** Types the model's price per million tokens (only those given) and commits it. */
  async setPrice({ input, output }) {
    if (input !== undefined) { await this.priceInput.fill(String(input)); await this.priceInput.dispatchEvent('change'); }
    if (output !== undefined) { await this.priceOutput.fill(String(output)); await this.priceOutput.dispatchEvent('change'); }
  }
  /** Unfolds "Limits" without a click (it stays open if it was). */
  async unfoldLimits() { await this.page.locator('details', { hasText: 'Limits' }).first().evaluate((d) => { d.open = true; }); }
  /** Types the item limit (empty: every item) and commits it. */
  async setItemLimit(n) { await this.itemLimit.fill(String(n)); await this.itemLimit.dispatchEvent('change'); }
  /** Unfolds "Limits and price". */
  async openLimits() { await this.page.locator('summary', { hasText: 'Limits' }).click(); }
  /** Waits until the progress line says no call is in flight. */
  async waitIdle() {
    await this.page.waitForFunction(() => / 0 in flight/.test(document.querySelector('[data-testid="progress"]')?.innerText ?? ''));
  }
  /** Ticks "Send them as they are" under the prompts that are not ready to send. */
  async sendAnyway() { await this.page.getByTestId('send-anyway').check(); }
  /** Clicks "Check this model" and waits until the connection result is shown. */
  async checkModel() {
    await this.page.getByRole('button', { name: 'Check this model' }).click();
    await this.connectionResult.waitFor();
  }
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
  get audit() { return new AuditPanel(this.page); }
  /** The notes on how the runs were made (refused parameters, weighted methods that fell back). */
  async runNotes() { return this.page.getByTestId('run-note').allInnerTexts(); }
  /** The results table's row headings, in order. */
  async rowHeaders() { return this.table.getByRole('rowheader').allInnerTexts(); }
  /** The row of the results table headed `name` (a method, or a jury). */
  rowHeader(name) { return this.table.getByRole('rowheader', { name }); }
  /** Unfolds every folded panel of the page. */
  async unfoldAll() { await this.page.locator('details').evaluateAll((ds) => ds.forEach((d) => { d.open = true; })); }
  /** The ids of the tables on the page, in order. */
  async tableIds() { return this.page.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table)); }
  /** The text of an SVG the open cell panel exports (`what`: scatter, histogram, human histogram) and its file name. */
  async exportSvg(what) {
    const { name, text } = await downloadOf(this.page, this.page.getByRole('button', { name: `Export ${what} SVG`, exact: true }));
    return { name, text };
  }
  /** Clicks the parse failures' fold (it opens or closes). */
  async toggleParseFailures() { await this.page.getByText('Parse failures').click(); }
  /** Opens the item detail of the first row's first cell's `item` (e.g. row1). */
  async showFirstCellItem(item) {
    await this.openFirstCell();
    await this.showItem(item);
  }
  /** The ensembles panel of the Results screen. */
  get ensembles() { return new EnsemblesPanel(this.page); }
  /** Waits until no row of the results table is headed `name`. */
  async waitNoRow(name) {
    await this.page.waitForFunction((n) => ![...document.querySelectorAll('[data-testid="results-table"] tbody th')].some((th) => th.innerText.trim() === n), name);
  }
  /** Unfolds the parse failures table. */
  async openParseFailures() {
    await this.page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
  }
  /** The parse failures table (inside its figure, with its notes). */
  get parseFailuresFigure() { return this.page.locator('table[data-table="parse-failures"]').locator('xpath=ancestor::figure[1]'); }
  /** The text of the parse failures table's cell `key` (`method/attribute/column`). */
  async parseFailure(key) {
    return this.page.locator(`table[data-table="parse-failures"] td[data-cell="${key}"]`).innerText();
  }
  /** Waits until the parse failures table's cell `key` says `text` (it is read again in the background after a run). */
  async waitParseFailure(key, text) {
    await this.page.waitForFunction(([k, t]) => document.querySelector(`table[data-table="parse-failures"] td[data-cell="${k}"]`)?.innerText === t, [key, text]);
  }
  get statistic() { return this.page.getByLabel('Statistic', { exact: true }); }
  get level() { return this.page.getByLabel('Level', { exact: true }); }
  get baseline() { return this.page.getByLabel('Baseline', { exact: true }); }
  /** The HTML of the figure around the results table (its table and notes). */
  async figureHtml() { return this.page.evaluate(() => document.querySelector('[data-testid="results-table"]').closest('figure').innerHTML); }
  /** Waits until the figure around the results table is no longer `before`. */
  async waitFigureChanged(before, timeout = 60_000) {
    await this.page.waitForFunction(([b]) => document.querySelector('[data-testid="results-table"]').closest('figure').innerHTML !== b, [before], { timeout });
  }
  /** Waits until some cell of the results table is marked significant. */
  async waitMarked(timeout = 10_000) {
    await this.page.waitForFunction(() => document.querySelectorAll('[data-testid="results-table"] td.sig').length > 0, null, { timeout });
  }
  /** Waits until the screen no longer says it is reading a bundle. */
  async waitRead(timeout = 120_000) {
    await this.page.waitForFunction(() => !document.querySelector('[data-testid="results-reading"]'), null, { timeout });
  }
  /** How many intervals the results table shows. */
  async intervalCount() { return this.table.locator('.ci').count(); }
  /** The open cell panel's plots: { viewBox, circles, rects } each. */
  async cellPlotShapes() {
    return this.cellPanel.locator('svg').evaluateAll((svgs) => svgs.map((s) => ({
      viewBox: s.getAttribute('viewBox'), circles: s.querySelectorAll('circle').length, rects: s.querySelectorAll('rect').length,
    })));
  }
  /** A heading of the page that says `name` (e.g. the open cell's `method · attribute`). */
  heading(name) { return this.page.getByRole('heading', { name }); }
  /** The open cell's panel. */
  get cellPanel() { return this.page.getByTestId('cell-panel'); }
  /** The cell panel's heading, once it says `text` (`method · attribute`). */
  cellHeading(text) { return this.cellPanel.locator('h2').filter({ hasText: text }); }
  /** The open item's heading, once it matches `text`. */
  itemHeading(text) { return this.itemDetail.locator('h3').filter({ hasText: text }); }
  /** The address of the view the cell panel shows ("Copy link"'s field). */
  get viewLink() { return this.cellPanel.getByTestId('view-link'); }
  async copyLink() { await this.cellPanel.getByRole('button', { name: 'Copy link' }).click(); }
  /** A message of the cell panel that says `text`. */
  cellText(text) { return this.cellPanel.getByText(text); }
  /** What the screen says when a link names a cell the table does not have, once it says `text`. */
  cellMissing(text) { return this.page.getByTestId('cell-missing').filter({ hasText: text }); }
  /** Clicks cell `index` of the first row. */
  async clickFirstRowCell(index) { await this.table.locator('tbody tr').first().locator('td button').nth(index).click(); }
  /** Where the page is scrolled and where the results table's top is, in the window. */
  async position() {
    return this.page.evaluate(() => ({
      scroll: window.scrollY,
      table: document.querySelector('[data-testid="results-table"]').getBoundingClientRect().top,
      height: window.innerHeight,
    }));
  }
  /** Waits until the open cell's first plot fits the window's width. */
  async waitPlotsFit() {
    await this.page.waitForFunction(() => {
      const svg = document.querySelector('[data-testid="cell-panel"] svg.plot');
      return svg && svg.viewBox.baseVal.width <= window.innerWidth;
    });
  }
  /** The cost and quality table. */
  get costTable() { return this.page.getByTestId('cost-table'); }
  /** The Cost and quality panel (its heading, table and notes). */
  get costPanel() { return this.page.locator('section', { has: this.page.locator('#cost-heading') }); }
  /** The cells of method `method`'s row of the cost table (quality, tokens in, tokens out,
   * est. cost, quality per $). */
  costCells(method) {
    const exact = new RegExp('^' + method.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&') + '$');
    return this.costTable.locator('tbody tr').filter({ has: this.page.locator('th', { hasText: exact }) }).locator('td');
  }
  /** The notes under the cost table. */
  async costNote() { return this.costTable.locator('xpath=ancestor::figure[1]').locator('.table-notes').innerText(); }
  /** Opens the first item listed in the open cell panel. */
  async showFirstListed() { await this.page.locator('[data-testid="items-table"] button', { hasText: 'Show' }).first().click(); }
  /** The first cell's button of the results table. */
  get firstCellButton() { return this.table.locator('td button').first(); }
  /** The first plot of the open cell panel. */
  get firstPlot() { return this.page.locator('svg.plot').first(); }
  /** The first body cell of the results table. */
  get firstCell() { return this.table.locator('td').first(); }
  /** Seed 002's published Table 4 beside its recomputation. */
  get paperTable() { return this.page.getByTestId('paper-table'); }
  /** The published table's rows as text cells. */
  async paperRows() { return this.paperTable.locator('tbody tr').evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim()))); }
  /** The text of the section around table `id` (its notes and summary). */
  async sectionText(id) { return this.page.locator(`table[data-table="${id}"]`).evaluate((t) => t.closest('section').innerText); }
  /** What the screen says with no results. */
  get empty() { return this.page.getByTestId('results-empty'); }
  /** Adds the raters of `paths` and returns what the import says, once it is this import's
   * (another text than before, starting with `said`). */
  async addRatersSaying(paths, said) {
    await this.page.getByRole('tab', { name: 'Results' }).click();
    const box = this.importSaid;
    const previous = (await box.count()) ? await box.innerText() : null;
    await this.page.getByLabel('Add raters from files').setInputFiles(paths);
    await this.page.waitForFunction(([p, s]) => {
      const text = document.querySelector('[data-testid="import-message"]')?.innerText;
      return text !== undefined && text !== p && text.startsWith(s);
    }, [previous, said]);
    return box.innerText();
  }
  /** Adds the raters of files (submissions, rating files). */
  async addRaters(paths) { await this.page.getByLabel('Add raters from files').setInputFiles(paths); }
  /** What the last import said. */
  get importSaid() { return this.page.getByTestId('import-message'); }
  /** The agreement table's rows, a text a row. */
  async agreementRows() { return this.page.locator('[data-testid="agreement-table"] tbody tr').allInnerTexts(); }
  /** What the screen says when a bundle named in the address cannot be opened. */
  get bundleError() { return this.page.getByTestId('bundle-error'); }
  /** The line naming the bundle the results come from. */
  get source() { return this.page.getByTestId('bundle-source'); }
  /** The aria-labels of the cells marked significant. */
  async markedLabels() {
    return this.table.locator('td.sig button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
  }
  /** The tooltip of the `index`-th cell (row by row). */
  async cellTitle(index) { return this.table.locator('td button').nth(index).getAttribute('title'); }
  /** Opens the first item's detail from the open cell panel. */
  async showFirstItem() { await this.page.getByRole('button', { name: /^Show item/ }).first().click(); }
  /** Waits until the open item's detail marks what the parser read. */
  async waitItemMarks() { await this.itemDetail.locator('mark').first().waitFor(); }
  /** The open item's responses that mark a number: [the marked text, the badge]. */
  async itemReadings() {
    return this.itemDetail.locator('ol.responses li').evaluateAll((lis) => lis
      .filter((li) => li.querySelector('mark'))
      .map((li) => [li.querySelector('mark').textContent, li.querySelector('.badge').textContent]));
  }
  /** The buttons of the results table's cells. */
  get cellButtons() { return this.table.locator('button.cell'); }
  /** Opens every item of every cell and returns the prompts and responses the detail shows
   * (the item list is virtualized: each row is scrolled into the window before its button is
   * clicked). */
  async drillDown() {
    const shown = { prompts: [], responses: [] };
    const cells = this.cellButtons;
    const count = await cells.count();
    for (let c = 0; c < count; c++) {
      await cells.nth(c).click();
      const items = new VirtualTable(this.page, 'items-table');
      await items.rows.first().waitFor();
      const n = await items.rowCount();
      for (let i = 0; i < n; i++) {
        await items.scroll.evaluate((el, index) => {
          const row = el.querySelector('tbody tr:not(.spacer)');
          el.scrollTop = index * (row ? row.getBoundingClientRect().height : 32);
        }, i);
        await this.page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
        await this.page.locator(`[data-testid="items-table"] tbody tr[aria-rowindex="${i + 2}"] button`).first().click();
        const detail = this.itemDetail;
        await detail.waitFor();
        shown.prompts.push(await detail.locator('pre.prompt').textContent());
        shown.responses.push(...await detail.locator('pre.response').allTextContents());
      }
    }
    return shown;
  }
  /** The open item's detail (after `showItem`). */
  get itemDetail() { return this.page.getByTestId('item-detail'); }
  /** A text of the open item's detail. */
  itemSays(text) { return this.itemDetail.getByText(text); }
  /** The reasoning tokens the open item's sample reported. */
  get reasoningTokens() { return this.itemDetail.getByTestId('reasoning-tokens'); }
  /** Opens item `id`'s detail from the open cell panel. */
  async showItem(id) { await this.page.getByRole('button', { name: `Show item ${id}`, exact: true }).click(); }
  /** Opens the cell panel of the first cell of the first row. */
  async openFirstCell() { await this.table.locator('tbody tr').first().locator('td button').first().click(); }
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
    return (await downloadOf(this.page, tableExportButton(this.page, id, format))).text;
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

/** The ensembles panel of the Results screen: methods averaged item by item. */
export class EnsemblesPanel {
  constructor(page) {
    this.page = page;
    this.panel = page.getByTestId('ensembles');
    this.summary = this.panel.locator('summary');
    this.addButton = this.panel.getByRole('button', { name: 'Add ensemble' });
  }
  async unfold() { await this.summary.click(); }
  /** The checkbox of method `name`. */
  member(name) { return this.panel.getByLabel(name, { exact: true }); }
  /** The list's entry `name`. */
  listed(name) { return this.panel.getByTestId('ensemble-list').getByText(name); }
  async remove(name) { await this.panel.getByRole('button', { name: `Remove ${name}` }).click(); }
}

/** The judge audit panel of the Results screen. */
export class AuditPanel {
  constructor(page) {
    this.page = page;
    this.panel = page.getByTestId('audit-panel');
    this.labelled = this.panel.getByTestId('audit-labelled');
    this.tables = this.panel.locator('table[data-table]');
  }
  /** The audit table `id`. */
  table(id) { return this.panel.locator(`table[data-table="${id}"]`); }
  /** The ids of the tables shown, in order. */
  async tableIds() { return this.tables.evaluateAll((ts) => ts.map((t) => t.dataset.table)); }
  /** The body rows of table `id`. */
  rows(id) { return this.table(id).locator('tbody tr'); }
  /** The row headings of table `id`'s body. */
  async rowHeadings(id) { return this.table(id).locator('tbody th').allInnerTexts(); }
  /** The cells of the first body row of table `id`, as text. */
  async firstRowCells(id) { return this.rows(id).first().locator('td').allInnerTexts(); }
  async compute() { await this.panel.getByTestId('audit-compute').click(); }
  /** The checkbox saying system `name` is of the judges' own family. */
  own(name) { return this.panel.getByTestId('audit-own').getByLabel(name); }
  /** Types the labelled items (empty: every label) and commits it. */
  async setLabelled(value) { await this.labelled.fill(String(value)); await this.labelled.dispatchEvent('change'); }
  /** Waits until the audit's tables are gone (it is stale after a change). */
  async waitStale() { await this.tables.first().waitFor({ state: 'detached' }); }
  /** The text of table `id`'s export in `format`. */
  async exportTable(id, format) {
    return (await downloadOf(this.page, tableExportButton(this.panel, id, format))).text;
  }
}

/** "Rate it yourself": rates every item in order with the keyboard. */
export class RatePage {
  constructor(page) {
    this.page = page;
    this.card = page.getByTestId('rate-card');
    this.startButton = page.getByRole('button', { name: 'Start rating' });
    this.agreementRows = page.locator('[data-testid="agreement-table"] tbody tr');
    this.empty = page.getByTestId('rate-empty');
  }
  async open() { await this.page.getByRole('tab', { name: 'Rate it yourself' }).click(); }
  /** Opens the screen, types the rater's name and starts rating. */
  async start(name) {
    await this.open();
    await this.page.getByLabel('Your name').fill(name);
    await this.startButton.click();
  }
  /** Opens the screen, types the rater's name, starts and gives the card the keyboard. */
  async startFocused(name) {
    await this.start(name);
    await this.card.focus();
  }
  /** The rating the card shows as chosen. */
  async chosen() { return this.page.locator('button.rate-button[aria-pressed="true"]').textContent(); }
  /** Whether the rating card has the keyboard. */
  async waitCardFocused() { await this.page.waitForFunction(() => document.activeElement?.dataset?.testid === 'rate-card'); }
  /** Waits for the card's heading matching `name` (e.g. /Item 6 of 15 · 5 rated/). */
  async waitHeading(name) { await this.page.getByRole('heading', { name }).waitFor(); }
  /** "See how I agree": the agreement table's rows as [rater, kind, n]. */
  async seeAgreement() {
    await this.page.getByRole('button', { name: 'See how I agree' }).click();
    await this.agreementRows.first().waitFor();
    return this.agreementRows.evaluateAll((rs) => rs.map((r) => [r.cells[0].innerText, r.cells[1].innerText, r.cells[2].innerText]));
  }
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
  const remaining = (s) => left.get(s)?.length ?? 0;
  const route = [];
  let at = null;
  while ([...left.values()].some((l) => l.length > 0)) {
    if (remaining(at) === 0) {
      at = [...left.keys()].sort((a, b) => remaining(b) - remaining(a))[0];
    } else {
      const next = left.get(at).sort((a, b) => remaining(b) - remaining(a));
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
  get tablist() { return this.page.getByRole('tablist', { name: 'Screens' }); }
  tab(name) {
    return this.tablist.getByRole('tab', { name, exact: true });
  }
  /** The name of the selected screen tab. */
  async selected() { return this.tablist.locator('[role="tab"][aria-selected="true"]').innerText(); }
  /** How many screen tabs are in the tab order (a roving tabindex keeps one). */
  async tabStops() { return this.tablist.locator('[role="tab"][tabindex="0"]').count(); }
  /** The text of the element that has the focus. */
  async focusedText() { return this.page.evaluate(() => document.activeElement?.textContent); }
  /** The tab panel labelled by screen `name`. */
  panel(name) { return this.page.getByRole('tabpanel', { name }); }
  /** The page's main landmark(s). */
  get main() { return this.page.getByRole('main'); }
  /** Opens screen `name` and waits until it is shown (its chunk, when split, fetched). */
  async open(name) {
    await this.tab(name).click();
    await this.page.getByRole('tablist', { name: 'Screens' }).getByRole('tab', { name, exact: true, selected: true }).waitFor();
    await this.page.getByTestId('screen-loading').waitFor({ state: 'detached', timeout: 60_000 });
  }
  /** The tab of screen `name` once it is the selected one. */
  selectedTab(name) { return this.tablist.getByRole('tab', { name, exact: true, selected: true }); }
  /** Waits until the tab panel shows a screen with none of the notes `ids` (test ids) in it. */
  async waitShown(ids = ['screen-loading', 'workspace-restoring']) {
    await this.page.waitForFunction((list) => {
      const panel = document.getElementById('screen-panel');
      return panel && panel.children.length > 0
        && !panel.querySelector(list.map((id) => `[data-testid="${id}"]`).join(', '));
    }, ids);
  }
  /** Clicks screen `name`'s tab and waits until its panel shows (no loading note). */
  async openShown(name) {
    await this.tab(name).click();
    await this.waitShown();
  }
  /** The address of the page's module script (boot.js). */
  async bootSrc() { return this.page.locator('script[type=module]').evaluate((el) => el.src); }
  /** Waits until the screens fetched ahead of their tabs (a split build) are in. */
  /** Waits until the idle prefetch says `state` (`screens` once every chunk was asked for, `off`, `unsplit`), any state when none is given. */
  async waitPrefetched(timeout = 60_000, state = null) {
    const marker = state ? `html[data-prefetched="${state}"]` : 'html[data-prefetched]';
    await this.page.locator(marker).waitFor({ state: 'attached', timeout });
  }
  /** How many "loading this screen" notes are shown. */
  async loadingCount() { return this.page.getByTestId('screen-loading').count(); }
  /** What the app says of a link it could not follow in full. */
  get linkProblem() { return this.page.getByTestId('link-problem'); }
  /** Elements of the open screen that stick out of the window sideways (outside a scrolling
   * table), as `tag#id.class`, the first five. */
  async overflowing() {
    return this.page.evaluate(() => [...document.querySelectorAll('#screen-panel *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`).slice(0, 5));
  }
  /** Every text of every plot on the page, with its box in the svg's coordinates (rotated
   * labels by their transformed corners): `[{ title, texts: [{ text, anchor, size, x, y, rotated, box }] }]`. */
  async plotTexts() {
    return this.page.locator('svg.plot').evaluateAll((svgs) => svgs.map((svg) => {
      const texts = [...svg.querySelectorAll('text')].map((t) => {
        const b = t.getBBox();
        const m = t.getCTM();
        const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
          .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
        const xs = corners.map((c) => c[0]);
        const ys = corners.map((c) => c[1]);
        return {
          text: t.textContent, anchor: t.getAttribute('text-anchor'), size: Number(t.getAttribute('font-size')),
          x: Number(t.getAttribute('x')), y: Number(t.getAttribute('y')), rotated: !!t.getAttribute('transform'),
          box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
        };
      });
      return { title: svg.querySelector(':scope > title')?.textContent, texts };
    }));
  }
  /** The page's theme and colours: { theme, bg, fg, panelBg, muted } (a panel's background,
   * muted text's colour). */
  async colours() {
    return this.page.evaluate(() => {
      const body = getComputedStyle(document.documentElement);
      const panel = document.querySelector('.panel');
      return {
        theme: document.documentElement.dataset.theme,
        bg: body.backgroundColor,
        fg: body.color,
        panelBg: panel ? getComputedStyle(panel).backgroundColor : null,
        muted: document.querySelector('.muted') ? getComputedStyle(document.querySelector('.muted')).color : null,
      };
    });
  }
  /** The text of the page's main landmark. */
  async mainText() { return this.main.textContent(); }
  /** The theme select (auto, light, dark). */
  get theme() { return this.page.getByTestId('theme'); }
  /** The open screen's heading (it takes the focus on a change of screen). */
  get heading() { return this.page.locator('#screen-heading'); }
  /** The open screen's heading, once it says `text`. */
  headingWith(text) { return this.page.locator('#screen-heading', { hasText: text }); }
  /** The open screen's first section (its view is in). */
  get firstSection() { return this.page.locator('#screen-panel section').first(); }
  /** Waits until the open screen's view is in (its chunk fetched when split). */
  async waitView() {
    await this.page.waitForFunction(() => !document.querySelector('[data-testid="screen-loading"]')
      && document.querySelector('#screen-panel section'));
  }
  /** Waits until the screen heading has the focus (and, given `name`, says it). */
  async waitHeadingFocus(name, timeout = 30_000) {
    await this.page.waitForFunction((n) => document.activeElement?.id === 'screen-heading'
      && (n === null || document.activeElement.textContent === n), name ?? null, { timeout });
  }
  /** Unfolds every folded panel of the page. */
  async unfoldAll() { await this.page.locator('details').evaluateAll((ds) => ds.forEach((d) => { d.open = true; })); }
  /** Waits until the page's theme (its `data-theme`) is `theme`. */
  async waitTheme(theme) { await this.page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme); }
  /** The panel of the open screen. */
  get current() { return this.page.locator('#screen-panel'); }
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
