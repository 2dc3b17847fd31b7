// Starts the WebAssembly app. Paths are relative so the site works under any sub-path.
import init, { start } from './pkg/concord.js';

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
