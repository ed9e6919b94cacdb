// Mounts the lousa on a page whose paragraphs carry data-step (see README):
// reads the hashed file names from the index.html next to this file, then
// loads the stylesheet and starts the app. Without WebAssembly, or when the
// app cannot start, a note says so where the board would be, in the host
// page's language (Portuguese for pt, English otherwise), and nothing throws.
const english = !document.documentElement.lang.toLowerCase().startsWith('pt');
const note = (pt, en) => {
  const at = document.getElementById('lousa-root') ?? document.querySelector('[data-step]');
  if (!at) return;
  const box = Object.assign(document.createElement('p'), { className: 'lousa-fallback', textContent: english ? en : pt });
  box.setAttribute('role', 'note');
  if (at.id === 'lousa-root') at.replaceChildren(box);
  else at.before(box);
};
if (typeof WebAssembly !== 'object') {
  note(
    'Este navegador não executa WebAssembly, então a lousa interativa não aparece aqui. O texto se lê inteiro sem ela.',
    'This browser does not run WebAssembly, so the interactive board cannot appear here. The text reads in full without it.',
  );
} else {
  try {
    const base = new URL('.', import.meta.url);
    const page = new DOMParser().parseFromString(await (await fetch(new URL('index.html', base))).text(), 'text/html');
    // The preload links wait in a <template> (tools/post-build.mjs).
    const at = (selector) =>
      new URL((page.querySelector(selector) ?? page.getElementById('lousa-preload').content.querySelector(selector)).getAttribute('href'), base).href;
    document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: at('link[rel=stylesheet]') }));
    await (await import(at('link[rel=modulepreload]'))).default({ module_or_path: at('link[rel=preload][as=fetch]') });
  } catch {
    note(
      'A lousa interativa não conseguiu iniciar neste navegador. O texto se lê inteiro sem ela.',
      'The interactive board could not start in this browser. The text reads in full without it.',
    );
  }
}
