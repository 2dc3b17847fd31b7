// The loader worker (module worker): instantiates the app's wasm module and runs
// `concord_core::data::load` off the page's thread (src/edge/worker.rs; never calls start()).
// Paths are relative to this file (in the site's `pkg-<hash>/`, beside the module), so the site
// works under any sub-path and the worker runs the page's own build.
import init, { worker_main } from './concord.js';

init().then(
  () => {
    self.onmessage = (event) => worker_main(event.data);
    self.postMessage({ kind: 'ready' });
  },
  (err) => {
    self.postMessage({ kind: 'unavailable', message: 'the worker could not start WebAssembly: ' + String(err) });
  },
);
