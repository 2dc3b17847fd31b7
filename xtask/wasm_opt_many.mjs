// wasm-opt for many files in one process (`cargo xtask build`, xtask/src/build.rs): npm's
// binaryen is Binaryen compiled to WebAssembly, and its `wasm-opt` command spends about two
// seconds of CPU starting up — for each of the release build's ~300 chunks, most under 4 KB.
// This loads Binaryen once and optimises every file it is given, one request a line on stdin:
//
//   IN<TAB>OUT<TAB>FLAGS   (FLAGS: the wasm-opt flags, space-separated)
//
// and answers `ok` or `error <message>` on a line of its own for each. The flags it knows are
// the ones the build passes: -Oz (or -O0…-O4, -Os), --strip-debug, --strip-producers and
// --enable-<feature>; any other is refused rather than ignored. The passes run as the wasm-opt
// command runs them: the optimisation pipeline first, then the strip passes.
import binaryen from 'binaryen';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const FEATURES = {
  'bulk-memory': binaryen.Features.BulkMemory,
  'nontrapping-float-to-int': binaryen.Features.NontrappingFPToInt,
  'sign-ext': binaryen.Features.SignExt,
  'mutable-globals': binaryen.Features.MutableGlobals,
  'reference-types': binaryen.Features.ReferenceTypes,
  multivalue: binaryen.Features.Multivalue,
};
const LEVELS = { '-O0': [0, 0], '-O1': [1, 0], '-O2': [2, 0], '-O3': [3, 0], '-O4': [4, 0], '-Os': [2, 1], '-Oz': [2, 2] };

function optimise(input, output, flags) {
  let features = 0;
  let level = null;
  const after = [];
  for (const flag of flags) {
    if (flag in LEVELS) level = LEVELS[flag];
    else if (flag === '--strip-debug') after.push('strip-debug');
    else if (flag === '--strip-producers') after.push('strip-producers');
    else if (flag.startsWith('--enable-') && flag.slice(9) in FEATURES) features |= FEATURES[flag.slice(9)];
    else throw new Error(`unknown flag ${flag}`);
  }
  const module = binaryen.readBinary(readFileSync(input), features);
  try {
    binaryen.setDebugInfo(false);
    if (level) {
      binaryen.setOptimizeLevel(level[0]);
      binaryen.setShrinkLevel(level[1]);
      module.optimize();
    }
    if (after.length) module.runPasses(after);
    if (!module.validate()) throw new Error(`${input}: the optimised module does not validate`);
    writeFileSync(output, module.emitBinary());
  } finally {
    module.dispose();
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const [input, output, flags = ''] = line.split('\t');
  try {
    optimise(input, output, flags.split(' ').filter(Boolean));
    process.stdout.write('ok\n');
  } catch (e) {
    process.stdout.write(`error ${String(e?.message ?? e).replace(/\s+/g, ' ')}\n`);
  }
}
