// Hostile content (issue 10): a list of HTML/script payloads placed in every place text enters
// the page — dataset fields and attribute names (a CSV through the file input), model outputs
// (the mock's scripted answers) in the results drill-down, an imported bundle, CoEval criteria
// and LLM evaluations, and the meta-evaluation screen's debate viewer. Each place must show the
// text literally and run nothing: no dialog, no `window.__xss`, no element or event attribute
// made from a payload (every HTML payload carries `data-xss`), and no Content-Security-Policy
// violation (the page's own code triggers none, so any would mean a payload got parsed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { withApp, guard, assertInert } from './harness.mjs';
import { missingShared } from './fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const JDEVAL = resolve(ROOT, '../shared/data/meta-evaluation/meta-evaluator_results/pairwise/JDEval');

const PAYLOADS = [
  '<script data-xss>window.__xss=1</script>',
  '<img src=x onerror="window.__xss=2" data-xss>',
  '<svg onload="window.__xss=3" data-xss><circle r=5></circle></svg>',
  '<svg><script data-xss>window.__xss=4</script></svg>',
  '<a href="javascript:window.__xss=5" data-xss>click me</a>',
  'javascript:window.__xss=6',
  '<iframe srcdoc="<script>parent.__xss=7</script>" data-xss></iframe>',
  '<style data-xss>body{display:none}</style>',
  '<div style="background:url(javascript:window.__xss=9)" data-xss>styled</div>',
  '<body onload="window.__xss=10" data-xss>',
  '<input autofocus onfocus="window.__xss=11" data-xss>',
  '<details open ontoggle="window.__xss=12" data-xss><summary>x</summary></details>',
  '<img src=x onerror=window.__xss=13 data-xss',
  '"><img src=x onerror=window.__xss=14 data-xss>',
  "'--></textarea></pre></title><img src=x onerror=window.__xss=15 data-xss>",
  '&lt;img src=x onerror=window.__xss=16 data-xss&gt; &amp;amp; &#60;b&#62;bold&#60;/b&#62;',
  "{{constructor.constructor('window.__xss=17')()}} ${window.__xss=17} {output} {source} <%= 17 %>",
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=18 data-xss>',
  '<object data="javascript:window.__xss=19" data-xss></object>',
  '<embed src="javascript:window.__xss=20" data-xss>',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=21" data-xss>',
  '<base href="http://evil.invalid/" data-xss>',
  'right\u202Eto-left override\u202C and zero\u200Bwidth\u200D\uFEFFjoiners',
  '<form action="javascript:window.__xss=24" data-xss><button>go</button></form>',
  '<video><source onerror="window.__xss=25" data-xss></video>',
  `${'A'.repeat(100_000)}<img src=x onerror=window.__xss=26 data-xss>`,
];
const ATTRIBUTE = '<img src=x onerror="window.__xss=99" data-xss>';

function csvField(s) { return `"${s.replaceAll('"', '""')}"`; }

/** A CSV with a payload in every source and output, and one payload attribute name. */
function hostileCsv() {
  const rows = [['doc_id', 'system_id', 'source', 'output', 'coherence_r1', 'coherence_r2', `${ATTRIBUTE}_r1`, `${ATTRIBUTE}_r2`].map(csvField).join(',')];
  PAYLOADS.forEach((p, i) => {
    const out = PAYLOADS[(i + 1) % PAYLOADS.length];
    rows.push([`d${i + 1}`, 's', p, out, String(1 + (i % 5)), String(1 + ((i + 2) % 5)), String(1 + ((i + 1) % 5)), String(1 + ((i + 3) % 5))].map(csvField).join(','));
  });
  return rows.join('\n');
}

/** A chat completion carrying `text`, as the mock's script serves it. */
function completion(text) {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-xss', object: 'chat.completion', created: 0, model: 'mock-model',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** Opens every item of every results cell and returns the prompts and responses shown. */
async function drillDown(results) {
  await results.open();
  await results.table.waitFor();
  return results.drillDown();
}

test('payloads in a dataset, its attribute names and the model outputs stay inert text; a bundle of them too', { skip: !MOCK_URL, timeout: 600_000 }, async () => {
  let bundlePath;
  // The hostile bundle's folder outlives the first profile: the second opens it.
  const dir = mkdtempSync(join(tmpdir(), 'concord-xss-'));
  try {
    await withApp({ url: null, problems: 'pageerrors' }, async (app) => {
      const { page, data, judge, run, results, screens } = app;
      const dialogs = await guard(page);
      await app.open(CONCORD_URL, { ready: false });
      await data.loadFile('hostile.csv', hostileCsv());
      assert.equal(await data.itemCount.textContent(), String(PAYLOADS.length));
      const preview = await data.preview.textContent();
      assert.ok(preview.includes(PAYLOADS[1]), 'the preview shows the payload as text');
      await assertInert(page, dialogs, 'Data screen with a hostile CSV');

      await judge.open();
      assert.ok((await screens.mainText()).includes(ATTRIBUTE), 'the attribute name is shown as text');
      await judge.addMethods({ modes: ['score-only'], n: 1 });
      await assertInert(page, dialogs, 'Judge screen');

      // Every call gets one payload as its answer (then a rating), in order of arrival.
      const calls = PAYLOADS.length * 2;
      const script = Array.from({ length: calls }, (_, k) => completion(`${PAYLOADS[k % PAYLOADS.length]}\nRating: 3`));
      await setScenario({ script });
      await app.connectMock({ concurrency: 4 });
      // The hostile attribute's criterion is the template's placeholder (its name shown as text
      // in the warning): sent knowingly.
      await run.sendAnyway();
      await run.run();
      assert.match(await run.waitFinished(300_000), /Run complete/);
      await assertInert(page, dialogs, 'Run screen');

      const shown = await drillDown(results);
      for (const p of PAYLOADS) {
        assert.ok(shown.responses.some((r) => r.includes(p)), `model output shown literally: ${p.slice(0, 60)}`);
        assert.ok(shown.prompts.some((r) => r.includes(p)), `dataset text shown literally in the prompt: ${p.slice(0, 60)}`);
      }
      assert.ok(shown.prompts.some((r) => r.includes(ATTRIBUTE) || r.includes('Img src=x')), 'the attribute name reaches the prompt as text');
      await assertInert(page, dialogs, 'Results drill-down');

      // The bundle of all this, with payloads also in the method and dataset names.
      const download = await results.exportBundle();
      const original = join(dir, 'bundle.json');
      await download.saveAs(original);
      const bundle = JSON.parse(readFileSync(original, 'utf8'));
      bundle.dataset.name = PAYLOADS[14];
      for (const r of bundle.runs) r.method = PAYLOADS[1];
      bundle.notes = [PAYLOADS[0], PAYLOADS[6]];
      bundlePath = join(dir, 'hostile-bundle.json');
      writeFileSync(bundlePath, JSON.stringify(bundle));
    });

    // A fresh profile opens the hostile bundle.
    await withApp({ url: null, problems: 'pageerrors' }, async (app) => {
      const { page, results, screens } = app;
      const dialogs = await guard(page);
      await app.open(CONCORD_URL, { ready: false });
      await results.open();
      await results.importBundle(bundlePath);
      await results.importMessage('Opened bundle').waitFor();
      const rows = await results.cells();
      assert.ok(rows.length >= 1 && rows.every((r) => r[0] === PAYLOADS[1]), 'the method name is shown literally');
      const shown = await drillDown(results);
      assert.ok(shown.responses.some((r) => r.includes(PAYLOADS[2])));
      await assertInert(page, dialogs, 'imported hostile bundle');
      await screens.tab('Data').click();
      assert.ok((await screens.mainText()).includes(PAYLOADS[14]), 'the dataset name is shown literally');
      await assertInert(page, dialogs, 'Data screen of the bundle');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('payloads in CoEval criteria, instances and LLM evaluations stay inert text', { timeout: 180_000 }, async () => {
  const p = (i) => PAYLOADS[i];
  const fixture = JSON.stringify({
    hostile: {
      task_info: [`Write a story. ${p(0)}`],
      source_name: [p(1)], target_name: [p(2)],
      source: [p(3), p(4)], target: [p(5), p(6)],
      model_name: [p(7), p(8)],
      criteria: [`1. Fluent ${p(9)}`, `2. On topic ${p(10)}`],
      criteria_kv: {
        [`1. Fluent ${p(9)}`]: [
          `1. ${p(11)}\n\n2. Score: 4\n\n3. Evidence: "${p(12)}"`,
          `1. ${p(13)}\n\n2. Score: 3\n\n3. Evidence: "${p(14)}"`,
        ],
        [`2. On topic ${p(10)}`]: [
          `1. ${p(15)}\n\n2. Score: 5\n\n3. Evidence: "${p(16)}"`,
          `1. ${p(17)}\n\n2. Score: 2\n\n3. Evidence: none`,
        ],
      },
    },
  });
  await withApp({ url: null, problems: 'pageerrors' }, async ({ page, coeval, screens }) => {
    const dialogs = await guard(page);
    await coeval.open(CONCORD_URL);
    await coeval.setAnnotator(p(1));
    await coeval.startFromFile('hostile_combine_data.json', fixture);
    const criteria = await coeval.criteriaList.textContent();
    assert.ok(criteria.includes(p(9)) && criteria.includes(p(10)), 'criteria shown literally');
    await assertInert(page, dialogs, 'CoEval criteria');
    await coeval.decideCriterion(1, 'Revise', { reason: p(18), revised: `1. Fluent ${p(19)}` });
    await coeval.decideCriterion(2, 'Approve', { reason: p(20) });
    await coeval.startScrutiny();
    const parts = await coeval.parts.textContent();
    assert.ok(parts.includes(p(11)), `the LLM's conclusion shown literally: ${parts.slice(0, 200)}`);
    assert.ok(parts.includes(p(12)), 'the evidence quote shown literally');
    assert.ok((await screens.mainText()).includes(p(3)), 'the instance input shown literally');
    await coeval.keys('a', 'j', 'e');
    await coeval.edit({ text: p(21), reason: p(22) });
    await coeval.saved();
    await assertInert(page, dialogs, 'CoEval scrutiny');
    await coeval.tab('Results');
    await assertInert(page, dialogs, 'CoEval results');
  });
});

const jdevalFile = !missingShared(JDEVAL) ? readdirSync(JDEVAL).filter((n) => n.endsWith('.jsonl')).sort()[0] : undefined;

test('payloads in an imported debate (meta-evaluation screen) stay inert text', { skip: !jdevalFile && `absent: ${JDEVAL}`, timeout: 180_000 }, async () => {
  // The first released JDEval record with every long text field replaced by payloads.
  const record = JSON.parse(readFileSync(join(JDEVAL, jdevalFile), 'utf8').split('\n')[0]);
  let k = 0;
  const used = [];
  const replace = (v) => {
    if (typeof v === 'string' && v.length > 30) { const p = PAYLOADS[k++ % (PAYLOADS.length - 1)]; used.push(p); return p; }
    if (Array.isArray(v)) return v.map(replace);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([key, x]) => [key, replace(x)]));
    return v;
  };
  const hostile = replace(record);
  await withApp({ url: null, problems: 'pageerrors' }, async (app) => {
    const { page, meta } = app;
    const path = join(app.tempDir('concord-xss-meta-'), jdevalFile);
    writeFileSync(path, `${JSON.stringify(hostile)}\n`);
    const dialogs = await guard(page);
    await meta.open(CONCORD_URL);
    await meta.loadFiles([path]);
    await meta.debate.waitFor();
    const text = await meta.debate.textContent();
    assert.ok(used.length >= 3, `payloads placed (${used.length})`);
    const literal = used.filter((p) => text.includes(p));
    assert.ok(literal.length >= 3, `debate texts shown literally (${literal.length} of ${used.length})`);
    await assertInert(page, dialogs, 'meta-evaluation debate viewer');
  });
});
