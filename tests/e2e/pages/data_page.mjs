// Page object for the Data screen.
export class DataPage {
  constructor(page) {
    this.page = page;
    this.datasetName = page.getByTestId('dataset-name');
    this.itemCount = page.getByTestId('item-count');
    this.documentCount = page.getByTestId('document-count');
    this.systemCount = page.getByTestId('system-count');
    this.fileInput = page.getByLabel('Load a dataset file');
    this.previewRows = page.locator('[data-testid="preview"] tbody tr');
    this.diagnostics = page.locator('[data-testid="diagnostics"] li');
    this.loadError = page.getByTestId('load-error');
  }

  async open(url) {
    await this.page.goto(url);
    await this.datasetName.waitFor();
  }

  /** Loads in-memory file content through the file input, as a user picking a file would. */
  async loadFile(name, text, mimeType = 'text/csv') {
    await this.fileInput.setInputFiles({ name, mimeType, buffer: Buffer.from(text) });
    await this.page.getByTestId('dataset-name').filter({ hasText: name }).waitFor();
  }
}
