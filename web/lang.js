// Shows the article in the language the URL names (lang=en) before the page
// paints: a classic script in <head>, so it runs before the body is parsed,
// long before the wasm arrives. The stylesheet shows the .lang-en parts when
// <html lang> is "en" and the .lang-pt parts otherwise; the app switches the
// same attribute later. With modo=oficina it marks <html> with the class
// "oficina" as well: the stylesheet then hides the article and shows
// #oficina-root, and web/loader.js starts the workshop instead of the lousa.
const query = new URLSearchParams(location.search);
if (query.get('lang') === 'en') {
  document.documentElement.lang = 'en';
  document.title = document.documentElement.dataset.titleEn ?? document.title;
}
// The reader's wasm is preloaded only when the reader's page runs it
// (tools/post-build.mjs keeps the preload links in this template).
if (query.get('modo') === 'oficina') document.documentElement.classList.add('oficina');
else document.head.append(document.getElementById('lousa-preload')?.content.cloneNode(true) ?? '');
