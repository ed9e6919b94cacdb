// Starts the page's wasm, in place of the inline loader Trunk writes (the
// page's Content-Security-Policy runs no inline script; tools/post-build.mjs
// removes Trunk's). The glue and the wasm are the files index.html preloads.
// Without WebAssembly, or if the wasm cannot start, the static fallback text
// says so and the article stays readable.
//
// In workshop mode (?modo=oficina: web/lang.js has put the class "oficina"
// on <html>) it starts the workshop's wasm instead, whose files index.html
// neither names nor preloads (lousa-workshop.js and lousa-workshop_bg.wasm,
// built like a worker's, so the reader's page never fetches them), after
// linking the workshop's stylesheet. There each failure is a sentence in
// #oficina-root (created if the page has none).
const workshop = document.documentElement.classList.contains('oficina');
const english = () => document.documentElement.lang.startsWith('en');
// Replaces what `root` holds with a sentence saying `text`, as an alert.
const replaceWithNote = (root, text) => {
  const note = document.createElement('p');
  note.className = 'lousa-failure';
  note.setAttribute('role', 'alert');
  note.textContent = text;
  root.replaceChildren(note);
};
const workshopRoot = () =>
  document.getElementById('oficina-root') ??
  document.body.appendChild(Object.assign(document.createElement('div'), { id: 'oficina-root' }));
const say = (pt, en, workshopPt, workshopEn) => {
  if (workshop) return replaceWithNote(workshopRoot(), english() ? workshopEn : workshopPt);
  for (const box of document.querySelectorAll('.lousa-fallback')) {
    box.textContent = english() ? en : pt;
  }
};
const href = (selector) => document.querySelector(selector)?.href;
// The page's wasm is built so that a panic traps at once (no message is
// formatted: see x, PAGE_TOOLCHAIN); so is the workshop's. A trap reaches
// JavaScript as a WebAssembly.RuntimeError, thrown from an event handler or
// a promise: the lousa (or the workshop) gives way to a sentence saying so
// rather than freezing.
const failed = (event) => {
  if (!((event.error ?? event.reason) instanceof WebAssembly.RuntimeError)) return;
  if (workshop) {
    replaceWithNote(
      workshopRoot(),
      english()
        ? 'The workshop stopped on an internal error; reload the page to start again.'
        : 'A oficina parou num erro interno; recarregue a página para recomeçar.',
    );
    return;
  }
  for (const id of ['lousa-root', 'twin-root']) {
    const root = document.getElementById(id);
    if (!root) continue;
    replaceWithNote(
      root,
      english()
        ? 'The board stopped on an internal error; the text still stands.'
        : 'A lousa parou num erro interno; o texto segue valendo.',
    );
  }
};
// The workshop's stylesheet (dist/workshop/style.css), linked before its wasm
// mounts; resolves once it is loaded, or has failed to.
const workshopStyle = () =>
  new Promise((done) => {
    const sheet = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: 'workshop/style.css' });
    sheet.onload = sheet.onerror = done;
    document.head.append(sheet);
  });
if (typeof WebAssembly !== 'object') {
  say(
    'Este navegador não executa WebAssembly, então a lousa interativa não aparece aqui. O texto se lê inteiro sem ela.',
    'This browser does not run WebAssembly, so the interactive board cannot appear here. The text reads in full without it.',
    'Este navegador não executa WebAssembly, então a oficina não abre aqui.',
    'This browser does not run WebAssembly, so the workshop cannot open here.',
  );
} else {
  addEventListener('error', failed);
  addEventListener('unhandledrejection', failed);
  try {
    if (workshop) {
      const styled = workshopStyle();
      // Fetched while the glue loads; a failure surfaces when init awaits it.
      const wasm = fetch('lousa-workshop_bg.wasm');
      wasm.catch(() => {});
      const glue = await import('./lousa-workshop.js');
      await styled;
      await glue.default({ module_or_path: wasm });
      // Keeps this build for a room whose network fails (tools/post-build.mjs
      // writes the service worker); a browser that refuses it still works online.
      navigator.serviceWorker?.register('lousa-workshop-sw.js').catch(() => {});
    } else {
      const glue = await import(href('link[rel=modulepreload]'));
      await glue.default({ module_or_path: href('link[rel=preload][as=fetch]') });
    }
  } catch {
    say(
      'A lousa interativa não conseguiu iniciar neste navegador. O texto se lê inteiro sem ela.',
      'The interactive board could not start in this browser. The text reads in full without it.',
      'A oficina não conseguiu iniciar neste navegador.',
      'The workshop could not start in this browser.',
    );
  }
}
