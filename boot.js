// Starts the WebAssembly app. The build puts this file in the site's `pkg-<hash>/` beside the
// module it imports; every path is relative to this file's own URL, so the site works under
// any sub-path and the page only ever fetches files of one build.
import init, { start } from './concord.js';

// The theme, before anything is drawn: the choice saved on this device ('light' or 'dark'),
// else the system's preference, followed as it changes. The app's Theme control saves the
// choice and sends 'concord-theme' to apply it.
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');
function applyTheme() {
  let chosen = null;
  try { chosen = localStorage.getItem('concord.theme'); } catch (_) { /* storage refused */ }
  const theme = chosen === 'light' || chosen === 'dark' ? chosen : (systemDark.matches ? 'dark' : 'light');
  document.documentElement.dataset.theme = theme;
}
applyTheme();
systemDark.addEventListener('change', applyTheme);
window.addEventListener('concord-theme', applyTheme);

const status = document.getElementById('boot-status');
init()
  .then(() => {
    if (status) status.remove();
    // The loader worker is the `worker.js` of this build, beside this file.
    start(new URL('./worker.js', import.meta.url).href);
  })
  .catch((err) => {
    if (status) {
      status.textContent =
        'Concord could not start: ' + String(err) +
        '. It needs a browser with WebAssembly (any current Chrome, Firefox, Safari or Edge).';
      status.classList.add('boot-error');
    }
  });
