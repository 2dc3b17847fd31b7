// Starts the WebAssembly app. Paths are relative so the site works under any sub-path.
import init, { start } from './pkg/concord.js';

const status = document.getElementById('boot-status');
init()
  .then(() => {
    if (status) status.remove();
    start();
  })
  .catch((err) => {
    if (status) {
      status.textContent =
        'Concord could not start: ' + String(err) +
        '. It needs a browser with WebAssembly (any current Chrome, Firefox, Safari or Edge).';
      status.classList.add('boot-error');
    }
  });
