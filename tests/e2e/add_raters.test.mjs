// Results → "Add raters from files" with a bundle (issue 26): a bundle exported from one
// browser profile, whose workspace has student raters (Ann, Bob, Dee, added from their
// submissions), is added into another profile's workspace on the same dataset that has raters
// of its own — Dee rated on "Rate it yourself", Bob added from another submission with other
// scores. Ann joins; Bob and Dee are named as conflicts and stay as they were here (their rows
// of the agreement table are unchanged, their r is that of their scores here, not the
// bundle's); the same bundle again adds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApp } from './harness.mjs';

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
async function agreement(results) {
  const rows = await results.agreementRows();
  return Object.fromEntries(rows.map((r) => {
    const cells = r.split('\t').map((c) => c.trim());
    return [cells[0], cells.slice(1)];
  }));
}

const CLASS = { name: 'class.csv', text: csv() };

test('a bundle with student raters joins another workspace\'s raters without replacing any', { timeout: 300_000 }, async () => {
  // Profile A: the students join the workspace, which is exported as a bundle.
  await withApp({ data: CLASS }, async (a) => {
    const dir = a.tempDir('concord-add-raters-');
    const files = {};
    for (const [name, scores] of [...Object.entries(IN_BUNDLE), ['Bob-here', BOB_HERE]]) {
      files[name] = join(dir, `concord-submission-ex1-${name}.json`);
      writeFileSync(files[name], submission(name.replace('-here', ''), scores));
    }

    await a.results.addRatersSaying([files.Ann, files.Bob, files.Dee], 'Added 3 raters.');
    const download = await a.results.exportBundle();
    const bundlePath = join(dir, 'class-bundle.json');
    await download.saveAs(bundlePath);
    const bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
    assert.deepEqual(bundle.raters.map((r) => r.name).sort(), ['Ann', 'Bob', 'Dee']);
    assert.deepEqual(a.seen.problems, [], 'profile A');

    // Profile B: Dee rates here, Bob's other submission is added.
    await withApp({ data: CLASS }, async ({ rate, results }) => {
      await rate.rateAll('Dee', DEE_HERE);
      await results.addRatersSaying([files['Bob-here']], 'Added 1 rater.');
      const before = await agreement(results);
      assert.deepEqual(Object.keys(before).filter((n) => ['Ann', 'Bob', 'Dee'].includes(n)).sort(), ['Bob', 'Dee']);
      assert.equal(before.Dee[2], pearson(HUMAN, DEE_HERE).toFixed(3), 'Dee rated here');
      assert.equal(before.Bob[2], pearson(HUMAN, BOB_HERE).toFixed(3), 'Bob added here');

      // The bundle: Ann joins; Bob and Dee are named and kept as they are here.
      const said = await results.addRatersSaying([bundlePath], 'Added 1 rater.');
      for (const name of ['Bob', 'Dee']) {
        assert.match(said, new RegExp(`class-bundle\\.json: “${name}” already rated quality here with other scores; the ones here are kept`), said);
      }
      const after = await agreement(results);
      assert.deepEqual(after.Ann?.slice(0, 3), ['student', '8', pearson(HUMAN, IN_BUNDLE.Ann).toFixed(3)], 'Ann joined');
      for (const name of ['Bob', 'Dee']) {
        assert.deepEqual(after[name], before[name], `${name} is as before`);
        assert.notEqual(after[name][2], pearson(HUMAN, IN_BUNDLE[name]).toFixed(3), `${name} is not the bundle's`);
      }
      for (const [name, row] of Object.entries(before)) {
        assert.deepEqual(after[name], row, `${name} unchanged`);
      }

      // The same bundle again: Ann is already here, the conflicts are named again, nothing moves.
      const again = await results.addRatersSaying([bundlePath], 'Added 0 raters (1 already here).');
      assert.match(again, /“Bob” already rated quality here/);
      assert.deepEqual(await agreement(results), after);
    });
  });
});
