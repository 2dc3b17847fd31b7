// Page object for the Pairwise & meta-evaluation screen (src/pages/meta/).
export class MetaPage {
  constructor(page) {
    this.page = page;
    this.tab = page.getByRole('tab', { name: 'Pairwise & meta-evaluation' });
    this.fileInput = page.getByLabel('Load meta-evaluation files');
    this.fileRows = page.locator('[data-testid="meta-file-list"] tbody tr');
    this.loading = page.getByTestId('meta-loading');
    this.eloStatus = page.getByTestId('elo-status');
    this.heatmap = page.getByTestId('win-rate-heatmap').locator('svg');
    this.matchDistribution = page.getByTestId('match-distribution').locator('svg');
    this.eloChart = page.getByTestId('elo-chart').locator('svg');
    this.debate = page.getByTestId('debate');
    this.bsmRecord = page.getByTestId('bsm-record');
  }

  /** Opens the app at `url` and switches to this screen. */
  async open(url) {
    await this.page.goto(url);
    await this.tab.click();
    await this.fileInput.waitFor();
  }

  /** Loads files from disk through the picker and waits until every one is listed. */
  async loadFiles(paths, { timeout = 180_000 } = {}) {
    const before = await this.fileRows.count();
    await this.fileInput.setInputFiles(paths);
    await this.page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="meta-file-list"] tbody tr').length >= n
        && !document.querySelector('[data-testid="meta-loading"]'),
      before + paths.length,
      { timeout },
    );
  }

  /** A table cell by table id and cell key (`gpt-4-1106-preview/accuracy`). */
  cell(table, key) {
    return this.page.locator(`[data-table="${table}"] td[data-cell="${key}"]`);
  }

  /** The full-precision value of a cell. */
  async value(table, key) {
    const v = await this.cell(table, key).getAttribute('data-value');
    return v === null ? null : Number(v);
  }

  /** Sets the Elo controls (any subset of k, init, scale, shuffles, seed, resamples) and recomputes. */
  async recompute(options = {}) {
    const labels = { k: 'K', init: 'Initial rating', scale: 'Scale', shuffles: 'Shuffles', seed: 'Seed', resamples: 'Bootstrap resamples' };
    for (const [key, value] of Object.entries(options)) {
      await this.page.getByLabel(labels[key], { exact: true }).fill(String(value));
    }
    await this.page.getByRole('button', { name: 'Recompute' }).click();
    await this.page.waitForFunction(
      () => /Computed in/.test(document.querySelector('[data-testid="elo-status"]')?.textContent ?? ''),
      null,
      { timeout: 60_000 },
    );
  }

  /** Clicks an export button by its accessible name and returns the downloaded text. */
  async export(name) {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name, exact: true }).click(),
    ]);
    const stream = await download.createReadStream();
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
  }
}
