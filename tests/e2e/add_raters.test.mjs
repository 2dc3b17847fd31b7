// Results → "Add raters from files" with a bundle (issue 26): a bundle exported from one
// browser profile, whose workspace has student raters (Ann, Bob, Dee, added from their
// submissions), is added into another profile's workspace on the same dataset that has raters
// of its own — Dee rated on "Rate it yourself", Bob added from another submission with other
// scores. Ann joins; Bob and Dee are named as conflicts and stay as they were here (their rows
// of the agreement table are unchanged, their r is that of their scores here, not the
// bundle's); the same bundle again adds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';

const HUMAN = [1, 2, 3, 4, 5, 2, 4, 3];
// The bundle's students (profile A), and the raters profile B has before the import.
const IN_BUNDLE = { Ann: [1, 2, 3, 4, 5, 3, 4, 2], Bob: [2, 2, 3, 5, 4, 3, 5, 3], Dee: [1, 1, 2, 4, 5, 2, 4, 3] };
const BOB_HERE = [5, 4, 3, 2, 1, 4, 2, 3];
const DEE_HERE = [3, 3, 3, 1, 2, 5, 1, 4];

function csv() {
  const rows = ['id,doc,sys,source,output,quality'];
  HUMAN.forEach((h, i) => rows.push(`it${i},d${Math.floor(i / 2)},s${i % 2},"Source ${i}.","Output number ${i}.",${h}`));
  return rows.join('\n') + '\n';
}

/** A student's submission file, as the Class screen exports it. */
function submission(student, scores) {
  return JSON.stringify({
    kind: 'concord-submission', version: 1,
    exercise: { id: 'ex1', sha256: '0'.repeat(64), title: 'Week 3' },
    student, created: '2026-11-26T09:00:00Z', generator: 'concord test',
    ratings: [{ name: student, attribute: 'quality', scores: scores.map((x, i) => [`it${i}`, x]) }],
    time_ms: scores.map((_, i) => [`it${i}`, 1000]),
  });
}

function pearson(x, y) {
  const mx = x.reduce((a, b) => a + b) / x.length;
  const my = y.reduce((a, b) => a + b) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  x.forEach((_, i) => { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ** 2; syy += (y[i] - my) ** 2; });
  return sxy / Math.sqrt(sxx * syy);
}

/** The agreement table's rows, by rater: [kind, n, r, ρ, τ-b, α]. */
async function agreement(page) {
  const rows = await page.locator('[data-testid="agreement-table"] tbody tr').allInnerTexts();
  return Object.fromEntries(rows.map((r) => {
    const cells = r.split('\t').map((c) => c.trim());
    return [cells[0], cells.slice(1)];
  }));
}

async function openOn(browser, dir) {
  const page = await browser.context.newPage();
  const seen = watch(page);
  const data = new DataPage(page);
  await data.open(CONCORD_URL);
  await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
  await data.loadFile('class.csv', csv());
  return { page, seen, dir };
}

/** Adds `paths` on Results and returns the message, once it is this import's (another text
 * than before, starting with `said`). */
async function addRaters(page, paths, said) {
  await page.getByRole('tab', { name: 'Results' }).click();
  const box = page.getByTestId('import-message');
  const previous = (await box.count()) ? await box.innerText() : null;
  await page.getByLabel('Add raters from files').setInputFiles(paths);
  await page.waitForFunction(([previous, said]) => {
    const text = document.querySelector('[data-testid="import-message"]')?.innerText;
    return text !== undefined && text !== previous && text.startsWith(said);
  }, [previous, said]);
  return box.innerText();
}

test('a bundle with student raters joins another workspace\'s raters without replacing any', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-add-raters-'));
  const browsers = [];
  try {
    const files = {};
    for (const [name, scores] of [...Object.entries(IN_BUNDLE), ['Bob-here', BOB_HERE]]) {
      files[name] = join(dir, `concord-submission-ex1-${name}.json`);
      writeFileSync(files[name], submission(name.replace('-here', ''), scores));
    }

    // Profile A: the students join the workspace, which is exported as a bundle.
    const a = await launch();
    browsers.push(a);
    const { page: pa, seen: seenA } = await openOn(a, dir);
    await addRaters(pa, [files.Ann, files.Bob, files.Dee], 'Added 3 raters.');
    const [download] = await Promise.all([
      pa.waitForEvent('download'),
      pa.getByRole('button', { name: 'Export bundle' }).click(),
    ]);
    const bundlePath = join(dir, 'class-bundle.json');
    await download.saveAs(bundlePath);
    const bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
    assert.deepEqual(bundle.raters.map((r) => r.name).sort(), ['Ann', 'Bob', 'Dee']);
    assert.deepEqual(seenA.problems, [], 'profile A');

    // Profile B: Dee rates here, Bob's other submission is added.
    const b = await launch();
    browsers.push(b);
    const { page: pb, seen: seenB } = await openOn(b, dir);
    await pb.getByRole('tab', { name: 'Rate it yourself' }).click();
    await pb.getByLabel('Your name').fill('Dee');
    await pb.getByRole('button', { name: 'Start rating' }).click();
    const card = pb.getByTestId('rate-card');
    await card.focus();
    for (const [i, s] of DEE_HERE.entries()) {
      await card.getByRole('heading', { name: new RegExp(`^Item ${i + 1} of 8 · ${i} rated`) }).waitFor();
      await card.press(String(s));
    }
    await card.getByRole('heading', { name: /8 rated$/ }).waitFor();
    await addRaters(pb, [files['Bob-here']], 'Added 1 rater.');
    const before = await agreement(pb);
    assert.deepEqual(Object.keys(before).filter((n) => ['Ann', 'Bob', 'Dee'].includes(n)).sort(), ['Bob', 'Dee']);
    assert.equal(before.Dee[2], pearson(HUMAN, DEE_HERE).toFixed(3), 'Dee rated here');
    assert.equal(before.Bob[2], pearson(HUMAN, BOB_HERE).toFixed(3), 'Bob added here');

    // The bundle: Ann joins; Bob and Dee are named and kept as they are here.
    const said = await addRaters(pb, [bundlePath], 'Added 1 rater.');
    for (const name of ['Bob', 'Dee']) {
      assert.match(said, new RegExp(`class-bundle\\.json: “${name}” already rated quality here with other scores; the ones here are kept`), said);
    }
    const after = await agreement(pb);
    assert.deepEqual(after.Ann?.slice(0, 3), ['student', '8', pearson(HUMAN, IN_BUNDLE.Ann).toFixed(3)], 'Ann joined');
    for (const name of ['Bob', 'Dee']) {
      assert.deepEqual(after[name], before[name], `${name} is as before`);
      assert.notEqual(after[name][2], pearson(HUMAN, IN_BUNDLE[name]).toFixed(3), `${name} is not the bundle's`);
    }
    for (const [name, row] of Object.entries(before)) {
      assert.deepEqual(after[name], row, `${name} unchanged`);
    }

    // The same bundle again: Ann is already here, the conflicts are named again, nothing moves.
    const again = await addRaters(pb, [bundlePath], 'Added 0 raters (1 already here).');
    assert.match(again, /“Bob” already rated quality here/);
    assert.deepEqual(await agreement(pb), after);
    assert.deepEqual(seenB.problems, [], 'profile B');
  } finally {
    for (const br of browsers) await br.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
