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
if (typeof WebAssembly !== 'object') {
  say(
    'Este navegador não executa WebAssembly, então a lousa interativa não aparece aqui. O texto se lê inteiro sem ela.',
    'This browser does not run WebAssembly, so the interactive board cannot appear here. The text reads in full without it.',
  );
} else {
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
