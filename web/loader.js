// Starts the page's wasm, in place of the inline loader Trunk writes (the
// page's Content-Security-Policy runs no inline script; tools/minify-glue.mjs
// removes Trunk's). The glue and the wasm are the files index.html preloads.
// Without WebAssembly, or if the wasm cannot start, the static fallback text
// says so and the article stays readable.
const say = (pt, en) => {
  for (const box of document.querySelectorAll('.lousa-fallback')) {
    box.textContent = document.documentElement.lang.startsWith('en') ? en : pt;
  }
};
const href = (selector) => document.querySelector(selector)?.href;
// The page's wasm is built so that a panic traps at once (no message is
// formatted: see x, PAGE_TOOLCHAIN). A trap reaches JavaScript as a
// WebAssembly.RuntimeError, thrown from an event handler or a promise: the
// lousa gives way to a sentence saying so rather than freezing.
const failed = (event) => {
  if (!((event.error ?? event.reason) instanceof WebAssembly.RuntimeError)) return;
  const en = document.documentElement.lang.startsWith('en');
  for (const id of ['lousa-root', 'twin-root']) {
    const root = document.getElementById(id);
    if (!root) continue;
    const note = document.createElement('p');
    note.className = 'lousa-failure';
    note.setAttribute('role', 'alert');
    note.textContent = en
      ? 'The board stopped on an internal error; the text still stands.'
      : 'A lousa parou num erro interno; o texto segue valendo.';
    root.replaceChildren(note);
  }
};
if (typeof WebAssembly !== 'object') {
  say(
    'Este navegador não executa WebAssembly, então a lousa interativa não aparece aqui. O texto se lê inteiro sem ela.',
    'This browser does not run WebAssembly, so the interactive board cannot appear here. The text reads in full without it.',
  );
} else {
  addEventListener('error', failed);
  addEventListener('unhandledrejection', failed);
  try {
    const glue = await import(href('link[rel=modulepreload]'));
    await glue.default({ module_or_path: href('link[rel=preload][as=fetch]') });
  } catch {
    say(
      'A lousa interativa não conseguiu iniciar neste navegador. O texto se lê inteiro sem ela.',
      'The interactive board could not start in this browser. The text reads in full without it.',
    );
  }
}
