// Shows the article in the language the URL names (lang=en) before the page
// paints: a classic script in <head>, so it runs before the body is parsed,
// long before the wasm arrives. The stylesheet shows the .lang-en parts when
// <html lang> is "en" and the .lang-pt parts otherwise; the app switches the
// same attribute later.
if (new URLSearchParams(location.search).get('lang') === 'en') {
  document.documentElement.lang = 'en';
  document.title = document.documentElement.dataset.titleEn ?? document.title;
}
