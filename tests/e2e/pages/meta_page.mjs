// Page object for the Pairwise & meta-evaluation screen (src/screens/meta/).
import { downloadOf, tableExportButton } from './downloads.mjs';

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
    this.runStatus = page.getByTestId('meta-run-status');
    this.runError = page.getByTestId('meta-run-error');
    this.debateRounds = page.getByTestId('debate').getByTestId('debate-round');
    this.debateVerdict = page.getByTestId('debate-verdict');
  }

  /** Switches to this screen without reloading (keeps the Run screen's connection). */
  async openTab() {
    await this.tab.click();
    await this.fileInput.waitFor();
  }

  /** Waits until the run status matches `pattern` (a run error fails at once). */
  async waitRun(pattern, { timeout = 120_000 } = {}) {
    try {
      await this.page.waitForFunction(
        (source) => new RegExp(source).test(document.querySelector('[data-testid="meta-run-status"]')?.textContent ?? '')
          || document.querySelector('[data-testid="meta-run-error"]'),
        pattern.source,
        { timeout },
      );
    } catch (e) {
      throw new Error(`waiting for ${pattern}: the status says "${await this.runStatus.textContent()}" (${e.message})`);
    }
    if (await this.runError.count()) throw new Error(`run failed: ${await this.runError.textContent()}`);
    return this.runStatus.textContent();
  }

  /** Pairwise judging of the first `pairs` pairs by `evaluators` (model names), with or without swap. */
  async runPairwise({ evaluators, pairs, swap = true }) {
    await this.page.getByLabel('Evaluator models').fill(evaluators.join(', '));
    await this.page.getByLabel('Pairs (first N)').fill(String(pairs));
    const box = this.page.getByLabel('Position swap');
    if (swap) await box.check(); else await box.uncheck();
    await this.page.getByRole('button', { name: 'Run pairwise judging' }).click();
    return this.waitRun(/Pairwise judging finished/);
  }

  /** Individual scoring (Table 8 prompt) of the first `texts` texts of the file whose option
   * contains `source`, by `evaluators`. */
  async runScoring({ evaluators, source, texts, openmeva = true }) {
    await this.page.getByLabel('Evaluator models').fill(evaluators.join(', '));
    const select = this.page.getByLabel('Texts from');
    await select.selectOption(await select.locator('option', { hasText: source }).first().getAttribute('value'));
    await this.page.getByLabel('Texts (first N)').fill(String(texts));
    await this.page.getByLabel('Scoring prompt').selectOption(openmeva ? 'openmeva' : 'summeval');
    await this.page.getByRole('button', { name: 'Run individual scoring' }).click();
    return this.waitRun(/Individual scoring finished/);
  }

  /** A meta-evaluation run: `protocol` is jdeval, mdeval, jdeval-i or bsmeval. */
  async runMeta({ model, protocol, rounds, items, done }) {
    await this.page.getByLabel('Meta-evaluator model').fill(model);
    await this.page.getByLabel('Protocol').selectOption(protocol);
    if (rounds !== undefined) await this.page.getByLabel('MDEval rounds (1–5)').fill(String(rounds));
    if (items !== undefined) await this.page.getByLabel('Assessments per file (first N)').fill(String(items));
    await this.page.getByRole('button', { name: 'Run meta-evaluation' }).click();
    return this.waitRun(done);
  }

  /** Shows the debates of the first file whose option text contains `text`. */
  async selectDebateFile(text) {
    const select = this.page.getByLabel('Debate file');
    const value = await select.locator('option', { hasText: text }).first().getAttribute('value');
    await select.selectOption(value);
  }

  /** Opens the app at `url` and switches to this screen. */
  async open(url) {
    await this.page.goto(url);
    await this.tab.click();
    await this.fileInput.waitFor();
  }

  get labelledPairs() { return this.page.getByLabel('Labelled pairs'); }
  /** A heading cell of table `id` that says `text`. */
  tableHeading(id, text) { return this.page.locator(`table[data-table="${id}"] th`, { hasText: text }); }
  /** Waits until Elo is computed. */
  async waitElo(timeout = 120_000) { await this.eloStatus.filter({ hasText: /Computed in/ }).waitFor({ timeout }); }
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

  /** The file list's rows as { name, kind } (kind "Needed" for a file the workspace lists but does not have). */
  async fileKinds() {
    return this.fileRows.evaluateAll((rows) => rows.map((r) => ({
      name: r.querySelector('td').innerText.trim(), kind: r.dataset.kind,
    })));
  }

  /** A table cell by table id and cell key (`gpt-4-1106-preview/accuracy`). */
  cell(table, key) {
    return this.page.locator(`table[data-table="${table}"] td[data-cell="${key}"]`);
  }

  /** The full-precision value of a cell. */
  async value(table, key) {
    const v = await this.cell(table, key).getAttribute('data-value');
    return v === null ? null : Number(v);
  }

  /** Every cell of a table with a `data-cell` key: `{ key: { value, text, low, high } }`
   * (value = the full-precision `data-value` as a number, or null; text = the value as shown,
   * without the SD or interval beside it; low, high = the interval's `data-low` / `data-high`,
   * or null). One round trip for the whole table. */
  async cells(table) {
    return this.page.locator(`table[data-table="${table}"]`).evaluate((t) => Object.fromEntries(
      [...t.querySelectorAll('td[data-cell]')].map((c) => {
        const number = (v) => (v === undefined ? null : Number(v));
        return [c.dataset.cell, {
          value: number(c.dataset.value),
          text: (c.firstElementChild ?? c).textContent,
          low: number(c.dataset.low),
          high: number(c.dataset.high),
        }];
      }),
    ));
  }

  /** The caption of a table (e.g. Bradley–Terry's "… 200 of 200 resamples usable"). */
  caption(table) {
    return this.page.locator(`figure:has(table[data-table="${table}"]) > figcaption`);
  }

  /** The "Meta-evaluator" select of the heatmap / Bradley–Terry views (by id: its label wraps
   * the select, so the accessible name also holds the chosen option, and "Meta-evaluator model"
   * of the run panel would match a partial name). */
  /** Waits until the cell `key` of table `id` holds `value` (with `not`, anything else). */
  async waitCellValue(id, key, value, { not = false } = {}) {
    await this.page.waitForFunction(([t, k, v, n]) => {
      const c = document.querySelector(`table[data-table="${t}"] td[data-cell="${k}"]`);
      return c && (Number(c.dataset.value) === v) !== n;
    }, [id, key, value, not]);
  }
  /** Table `id`. */
  table(id) { return this.page.locator(`table[data-table="${id}"]`); }
  /** The first `n` cells of every body row of table `id`, as text. */
  async rowStarts(id, n) {
    return this.table(id).locator('tbody tr').evaluateAll((trs, k) => trs.map((tr) => [...tr.children].slice(0, k).map((c) => c.textContent.trim())), n);
  }
  /** Table `id`'s export in `format` (its button): { name, text }. */
  async exportTable(id, format = 'CSV') {
    const { name, text } = await downloadOf(this.page, tableExportButton(this.page, id, format));
    return { name, text };
  }
  /** The screen's alert, once it says `text`. */
  alert(text) { return this.page.getByRole('alert').filter({ hasText: text }); }
  /** The heatmap's panel. */
  get heatmapPanel() { return this.page.getByTestId('win-rate-heatmap'); }
  /** How many bars the Elo chart draws. */
  async eloBars() { return this.eloChart.locator('rect').count(); }
  /** How many branches the BSMEval record lists. */
  async bsmBranches() { return this.bsmRecord.locator('.branch-list li').count(); }
  /** How many heatmap cells have a title (saying `text`, when given). */
  async heatmapCellCount(text) {
    return this.heatmap.locator('rect title', text === undefined ? undefined : { hasText: text }).count();
  }
  /** How many dots the Elo chart draws. */
  async eloDots() { return this.eloChart.locator('circle').count(); }
  /** Spreads Elo across `n` seeds and waits until it is done. */
  async spreadSeeds(n) {
    await this.page.getByLabel('Seeds', { exact: true }).fill(String(n));
    await this.page.getByRole('button', { name: 'Spread across seeds' }).click();
    await this.page.waitForFunction((k) => new RegExp(`Spread over ${k} seeds`).test(document.querySelector('[data-testid="seed-status"]')?.textContent ?? ''), n);
  }
  get evaluatorModels() { return this.page.getByLabel('Evaluator models'); }
  /** The labels of the API key fields the evaluators' providers ask for. */
  async keyLabels() { return this.page.getByTestId('meta-keys').locator('label span').allInnerTexts(); }
  /** The API key field labelled `label` (e.g. "API key for Anthropic"). */
  keyField(label) { return this.page.getByLabel(label); }
  get pairsField() { return this.page.getByLabel('Pairs (first N)'); }
  get positionSwap() { return this.page.getByLabel('Position swap'); }
  async clickRunPairwise() { await this.page.getByRole('button', { name: 'Run pairwise judging' }).click(); }
  /** A text shown on the screen (e.g. a file skipped). */
  said(text) { return this.page.getByText(text); }
  /** The Evaluator models field and the run panel around it (for the layout). */
  get evaluatorsInput() { return this.page.locator('#meta-evaluators'); }
  get runPanel() { return this.page.locator('section[aria-labelledby="meta-run-heading"]'); }
  /** The first meta-evaluator offered, as its option reads. */
  async firstMetaOption() { return this.metaSelect.locator('option').first().innerText(); }
  /** The texts of the heatmap's labels. */
  async heatmapLabels() { return this.heatmap.locator('text').evaluateAll((ts) => ts.map((t) => t.textContent)); }
  /** The heatmap's title. */
  async heatmapTitle() { return this.heatmap.locator(':scope > title').textContent(); }
  get metaSelect() {
    return this.page.locator('select#meta-select');
  }

  /** The "Ties in win rates" select of the heatmap (by id, as `metaSelect`). */
  get tieConvention() {
    return this.page.locator('select#tie-convention');
  }

  /** The tie conventions offered: `[{ id, label, selected }]`. */
  async tieConventions() {
    return this.tieConvention.locator('option').evaluateAll((os) => os.map((o) => ({
      id: o.value, label: o.textContent, selected: o.selected,
    })));
  }

  /** Shows the heatmap, match distribution and Bradley–Terry of the meta-evaluator `name`
   * (the JDEval file whose option reads "name — file") and waits until they show it. */
  async selectMeta(name) {
    // The option names the model as the screen does (its evaluator file's spelling), then the
    // JDEval file, whose name starts with the meta-evaluator's short name.
    const option = this.metaSelect.locator('option', { hasText: ` — ${name}_` }).first();
    const value = await option.getAttribute('value');
    const shown = (await option.textContent()).split(' — ')[0];
    await this.metaSelect.selectOption(value);
    await this.page.waitForFunction(
      ([n, s]) => (document.querySelector('[data-testid="win-rate-heatmap"] svg > title')?.textContent ?? '').includes(`(${s};`)
        && document.querySelector(`table[data-table="bradley-terry-${n}"]`),
      [name, shown],
    );
    return shown;
  }

  /** Switches the heatmap's tie convention (`zero`, `half`, `dropped`) and waits until the
   * heatmap of `meta` is titled with the convention's label. */
  async setTieConvention(id, meta) {
    await this.tieConvention.selectOption(id);
    const label = await this.tieConvention.locator(`option[value="${id}"]`).textContent();
    await this.page.waitForFunction(
      (want) => (document.querySelector('[data-testid="win-rate-heatmap"] svg > title')?.textContent ?? '') === want,
      `Win rate of row over column (${meta}; ${label})`,
    );
  }

  /** A heatmap's title and cells: `{ title, cells: { 'row vs column': number | null } }`, the
   * numbers as shown (2 decimals for win rates), null where the cell shows a dash. */
  async heatmapCells(svg = this.heatmap) {
    return svg.evaluate((el) => {
      const cells = {};
      for (const t of el.querySelectorAll('rect > title')) {
        const m = /^(.+) vs (.+): (.+)$/.exec(t.textContent);
        if (m) cells[`${m[1]} vs ${m[2]}`] = m[3] === '–' ? null : Number(m[3]);
      }
      return { title: el.querySelector(':scope > title')?.textContent ?? '', cells };
    });
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
