// Page object for the Data screen.
export class DataPage {
  constructor(page) {
    this.page = page;
    this.datasetName = page.getByTestId('dataset-name');
    this.itemCount = page.getByTestId('item-count');
    this.documentCount = page.getByTestId('document-count');
    this.systemCount = page.getByTestId('system-count');
    this.fileInput = page.getByLabel('Load a dataset file');
    this.previewRows = page.locator('[data-testid="preview"] tbody tr:not(.spacer)');
    this.raterCount = page.getByTestId('rater-count');
    this.attributes = page.getByTestId('attributes');
    this.mapping = page.getByTestId('mapping');
    this.mappingProblems = page.locator('[data-testid="mapping-problems"] li');
    this.mappingMessage = page.getByTestId('mapping-message');
    this.applyButton = page.getByRole('button', { name: 'Apply mapping' });
    this.resetButton = page.getByRole('button', { name: 'Reset to the guess' });
    this.diagnostics = page.locator('[data-testid="diagnostics"] li');
    this.loadError = page.getByTestId('load-error');
    this.documentsNote = page.getByTestId('documents-note');
    this.exampleConfirm = page.getByTestId('example-confirm');
  }

  /** Clicks "Use the built-in example" (which asks first when the workspace has runs). */
  async useExample() {
    await this.page.getByRole('button', { name: 'Use the built-in example' }).click();
  }

  /** Types a dataset's address and clicks "Load from URL". */
  async loadUrl(url) {
    await this.page.getByLabel('Dataset URL').fill(url);
    await this.page.getByRole('button', { name: 'Load from URL' }).click();
  }
  /** Drops a file (in-memory `text`) on the drop zone, as a user dragging it from the desktop. */
  async dropFile(name, text, type = 'text/csv') {
    await this.page.locator('.dropzone').evaluate((zone, [n, t, ty]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([t], n, { type: ty }));
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, [name, text, type]);
  }
  /** The preview table of the dataset. */
  get preview() { return this.page.getByTestId('preview'); }
  /** The format the dataset was read as. */
  get datasetFormat() { return this.page.getByTestId('dataset-format'); }
  /** What the Data screen says of a folder's files read together. */
  get folderNotice() { return this.page.getByTestId('folder-notice'); }
  /** "Test the LLMs on Results" (after an annotations folder). */
  async testLlmsOnResults() { await this.folderNotice.getByRole('button', { name: 'Test the LLMs on Results' }).click(); }
  /** The open workspace's name. */
  get workspaceName() { return this.page.getByLabel('Name', { exact: true }); }
  /** The saved workspaces' select. */
  get savedWorkspaces() { return this.page.getByLabel('Saved workspaces'); }
  async savedWorkspaceNames() { return this.savedWorkspaces.locator('option').allInnerTexts(); }
  /** The workspace panel's message, once it says `text`. */
  workspaceMessage(text) { return this.page.getByTestId('workspace-message').filter({ hasText: text }); }
  async duplicateWorkspace() { await this.page.getByRole('button', { name: 'Duplicate' }).click(); }
  /** Clears the workspace (the page's confirm dialog is the test's to answer). */
  async clearWorkspace() { await this.page.getByRole('button', { name: 'Clear', exact: true }).click(); }
  /** Exports the workspace; returns the download. */
  async exportWorkspace() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'Export', exact: true }).click(),
    ]);
    return download;
  }
  /** Opens a bundle file as a new workspace. */
  async openAsWorkspace(path) { await this.page.getByLabel('Open a bundle as a new workspace').setInputFiles(path); }
  /** Waits until `n` workspaces are saved. */
  async waitWorkspaceCount(n, timeout = 30_000) {
    await this.page.waitForFunction((k) => document.querySelectorAll('#workspace-switch option').length === k, n, { timeout });
  }
  /** Clicks "Reproduce Table 4" for the column `column` (naturalness, groundedness, …). */
  async reproduceTable4(column) {
    if (column) await this.page.getByLabel('Table 4 column').selectOption(column);
    await this.page.getByRole('button', { name: 'Reproduce Table 4' }).click();
  }
  /** Clicks a download preset's button (its label). */
  async preset(label) { await this.page.getByRole('button', { name: label }).click(); }
  /** The load error, once it says `text`. */
  loadErrorWith(text) { return this.loadError.filter({ hasText: text }); }

  /** "Open a tiny model's recorded run": the demo bundle on the Results screen. */
  async openDemoRun() { await this.page.getByRole('button', { name: "Open a tiny model's recorded run" }).click(); }

  /** The dataset's name, once it is `name`. */
  named(name) { return this.datasetName.filter({ hasText: name }); }

  /** Answers the example's question: open it as a new workspace. */
  async openExampleApart() {
    await this.exampleConfirm.getByRole('button', { name: 'Open the example as a new workspace' }).click();
  }

  /** Starts a download from the Load panel: `{ table4 }`, `{ preset: label }` or `{ url }`; returns the error shown (once it is not `previous`). */
  async download({ table4, preset, url }, previous = '') {
    const p = this.page;
    if (table4) await p.getByRole('button', { name: 'Reproduce Table 4' }).click();
    if (preset) await p.getByRole('button', { name: preset, exact: true }).click();
    if (url) {
      await p.getByLabel('Dataset URL').fill(url);
      await p.getByRole('button', { name: 'Load from URL' }).click();
    }
    await p.waitForFunction((before) => {
      const e = document.querySelector('[data-testid="load-error"]');
      return e && e.innerText !== before;
    }, previous);
    return this.loadError.innerText();
  }

  async open(url) {
    await this.page.goto(url);
    await this.datasetName.waitFor();
  }

  /** The counts the summary shows. */
  async summary() {
    return {
      items: Number((await this.itemCount.innerText()).replaceAll(',', '')),
      raters: Number((await this.raterCount.innerText()).replaceAll(',', '')),
      attributes: await this.attributes.innerText(),
    };
  }

  /** The text of the mapping editor's row `i` (its example values too). */
  async mappingRowText(i) { return this.mapping.locator('tbody tr').nth(i).innerText(); }
  /** The column-mapping editor as rows: { column, role } in file order. */
  async mappingRoles() {
    return this.mapping.locator('tbody tr').evaluateAll((rows) => rows.map((r) => ({
      column: r.querySelector('th').innerText.trim(),
      role: r.querySelector('select').value,
    })));
  }

  async setRole(column, role) {
    await this.page.getByLabel(`Role of column ${column}`, { exact: true }).selectOption(role);
  }

  /** Fills the rating fields of `column` (only those given). */
  async setRating(column, { attribute, rater, min, max }) {
    const fill = async (label, value) => {
      if (value !== undefined) await this.page.getByLabel(`${label} of column ${column}`, { exact: true }).fill(String(value));
    };
    await fill('Attribute', attribute);
    await fill('Rater', rater);
    await fill('Scale minimum', min);
    await fill('Scale maximum', max);
  }

  /** Applies the edited mapping and waits for the file to be read again; returns the message. */
  async applyMapping() {
    await this.applyButton.click();
    await this.mappingMessage.waitFor();
    return this.mappingMessage.innerText();
  }

  /** Loads in-memory file content through the file input, as a user picking a file would. */
  async loadFile(name, text, mimeType = 'text/csv') {
    await this.fileInput.setInputFiles({ name, mimeType, buffer: Buffer.from(text) });
    await this.page.getByTestId('dataset-name').filter({ hasText: name }).waitFor();
  }
}
