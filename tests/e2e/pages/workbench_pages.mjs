// Page objects for the workbench screens: Judge, Run, Results, Rate it yourself.

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
  }
  async open() { await new Tabs(this.page).open('Run'); await this.page.getByLabel('Base URL').waitFor(); }
  async connect({ provider = 'vllm', baseUrl, model, key, rpm, concurrency, itemLimit }) {
    await this.page.getByRole('combobox', { name: 'Provider' }).selectOption(provider);
    await this.page.getByLabel('Base URL').fill(baseUrl);
    await this.page.getByLabel('Base URL').dispatchEvent('change');
    await this.page.getByLabel('Model', { exact: true }).fill(model);
    await this.page.getByLabel('Model', { exact: true }).dispatchEvent('change');
    if (key !== undefined) {
      await this.page.getByLabel('API key').fill(key);
      await this.page.getByLabel('API key').dispatchEvent('change');
    }
    if (rpm || concurrency || itemLimit) await this.page.getByText('Limits').click();
    if (rpm) { await this.page.getByLabel('Requests per minute').fill(String(rpm)); await this.page.getByLabel('Requests per minute').dispatchEvent('change'); }
    if (concurrency) { await this.page.getByLabel('Parallel requests').fill(String(concurrency)); await this.page.getByLabel('Parallel requests').dispatchEvent('change'); }
    if (itemLimit) { await this.page.getByLabel('Rate only the first N items').fill(String(itemLimit)); await this.page.getByLabel('Rate only the first N items').dispatchEvent('change'); }
  }
  async run() { await this.page.getByRole('button', { name: 'Run', exact: true }).click(); }
  async waitFinished(timeout = 120_000) { await this.finished.waitFor({ timeout }); return this.finished.textContent(); }
}

export class ResultsPage {
  constructor(page) {
    this.page = page;
    this.table = page.getByTestId('results-table');
    this.rows = page.locator('[data-testid="results-table"] tbody tr');
  }
  async open() { await new Tabs(this.page).open('Results'); }
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
  async boldCount() { return this.page.locator('[data-testid="results-table"] td.sig').count(); }
  async exportBundle() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'Export bundle' }).click(),
    ]);
    return download;
  }
  async importBundle(path) { await this.page.getByLabel('Import bundle').setInputFiles(path); }
  async importOutputs(paths) { await this.page.getByLabel('Import judge outputs').setInputFiles(paths); }
}
