// Mounts the lousa on a page whose paragraphs carry data-step (see README):
// reads the hashed file names from the index.html next to this file, then
// loads the stylesheet and starts the app.
const base = new URL('.', import.meta.url);
const page = new DOMParser().parseFromString(await (await fetch(new URL('index.html', base))).text(), 'text/html');
const at = (selector) => new URL(page.querySelector(selector).getAttribute('href'), base).href;
document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: at('link[rel=stylesheet]') }));
await (await import(at('link[rel=modulepreload]'))).default({ module_or_path: at('link[rel=preload][as=fetch]') });
