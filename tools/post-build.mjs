// Trunk post-build hook. The page ships a Content-Security-Policy that runs
// no inline script (index.html), so:
//
// - Trunk's inline wasm loader is removed: web/loader.js starts the wasm.
// - Under `trunk serve`, the inline live-reload client moves to a file of
//   its own (`./x serve` builds into target/serve-dist, never into dist/).
// - Any other inline script fails the build instead of failing in a browser.
//
// In release builds it also minifies wasm-bindgen's JavaScript glue, which
// Trunk's own minifier gives up on (it cannot parse the glue's
// `export { initSync, __wbg_init as default }`), and writes the glue's new
// subresource-integrity hash into index.html, so the page still checks it.
// The gzip budget counts every byte of the glue (budget/size-budget.txt).
// web/loader.js too: Trunk's minifier cannot parse its dynamic import()
// either, and would ship it with its comments.
// The explorer's worker glue (lousa-worker.js) and the workshop's
// (lousa-workshop.js) are minified the same way.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { minify } from 'terser';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('post-build: TRUNK_STAGING_DIR is not set (run me as a Trunk hook)');
const release = process.env.TRUNK_PROFILE === 'release';

const sri = (text) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
const indexPath = path.join(staging, 'index.html');
let index = fs.readFileSync(indexPath, 'utf8');

// Scripts with no src: Trunk's loader (it fires TrunkApplicationStarted)
// and, under serve, the live-reload client (it opens Trunk's websocket).
const inline = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;
index = index.replace(inline, (whole, body) => {
  if (body.includes('TrunkApplicationStarted')) return '';
  if (body.includes('.well-known/trunk/ws')) {
    // What `trunk serve` would write into the page when it serves it.
    // (Either quote: a release build's minifier turns '…' into `…`.)
    const client = body
      .replaceAll("'{{__TRUNK_ADDRESS__}}'", 'window.location.host')
      .replaceAll('`{{__TRUNK_ADDRESS__}}`', 'window.location.host')
      .replaceAll('{{__TRUNK_WS_BASE__}}', '/');
    fs.writeFileSync(path.join(staging, 'trunk-live-reload.js'), client);
    return '<script src="./trunk-live-reload.js"></script>';
  }
  throw new Error(`post-build: an inline script the page's CSP would refuse: ${body.slice(0, 80)}`);
});

// The reader's wasm and glue are preloaded only where they run: Trunk's
// two preload links move into a <template> that web/lang.js copies into
// <head> unless the page opens in workshop mode, which never starts them
// (a preload left unused is a wasted download and a console warning).
// The template sits before lang.js's script, so it is parsed when the
// script runs; web/loader.js and web/embed.js read the links from there.
{
  const preloads = [];
  index = index.replace(/<link\b[^>]*\brel="?(?:modulepreload|preload)"?[^>]*>/g, (tag) => {
    if (!/lousa-web-/.test(tag)) return tag;
    preloads.push(tag);
    return '';
  });
  if (preloads.length !== 2) throw new Error(`post-build: expected the reader's two preload links, found ${preloads.length}`);
  const lang = index.match(/<script\b[^>]*\bsrc="?\.\/lang-[^>]*><\/script>/);
  if (!lang) throw new Error('post-build: no lang.js script in index.html');
  index = index.replace(lang[0], `<template id=lousa-preload>${preloads.join('')}</template>${lang[0]}`);
}

if (release) {
  // A file index.html names with its hash, minified, and its new hash written in.
  for (const [what, pattern] of [['glue', /^lousa-web-.*\.js$/], ['loader', /^loader-.*\.js$/]]) {
    const names = fs.readdirSync(staging).filter((name) => pattern.test(name));
    if (names.length !== 1) throw new Error(`post-build: expected one ${what} file in ${staging}, found ${names.length}`);
    const file = path.join(staging, names[0]);
    const source = fs.readFileSync(file, 'utf8');
    const { code } = await minify(source, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
    const before = sri(source);
    if (!index.includes(before)) throw new Error(`post-build: index.html does not carry ${names[0]}'s hash`);
    fs.writeFileSync(file, code);
    index = index.replaceAll(before, sri(code));
    console.log(`post-build: ${names[0]} ${source.length} -> ${code.length} bytes`);
  }
  // The explorer's worker and the workshop view have glue of their own,
  // which index.html does not name (Trunk neither preloads nor hashes a
  // worker-type link's files): no hash to update. Their sizes are reported
  // on tables of their own in the size report.
  for (const name of ['lousa-worker.js', 'lousa-workshop.js']) {
    const other = path.join(staging, name);
    if (!fs.existsSync(other)) continue;
    const otherSource = fs.readFileSync(other, 'utf8');
    const minified = await minify(otherSource, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
    fs.writeFileSync(other, minified.code);
    console.log(`post-build: ${name} ${otherSource.length} -> ${minified.code.length} bytes`);
  }
}
fs.writeFileSync(indexPath, index);

// The workshop's service worker (lousa-workshop-sw.js, registered by
// web/loader.js in workshop mode only: a reader of the article never
// downloads the workshop for later). It keeps every file of this build, so a
// room whose network fails can still reload the page, the reader's and the
// workshop's wasm and the explorer's worker. Online it asks the network
// first, so a page is never older than the server's; the cache answers only
// when the network does not. Its name carries a hash of every file's bytes:
// a new build installs a new cache and deletes the old one.
const SW = 'lousa-workshop-sw.js';
const kept = (dir, prefix = '') =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) return kept(path.join(dir, entry.name), `${name}/`);
    return name === SW || name === 'trunk-live-reload.js' ? [] : [name];
  });
const files = kept(staging).sort();
const version = createHash('sha256');
for (const name of files) version.update(name).update('\0').update(fs.readFileSync(path.join(staging, name)));
const cache = `lousa-${version.digest('hex').slice(0, 16)}`;
const precached = JSON.stringify(['./', ...files]);
fs.writeFileSync(
  path.join(staging, SW),
  `const CACHE=${JSON.stringify(cache)},FILES=${precached};
self.addEventListener('install',(e)=>e.waitUntil(caches.open(CACHE).then((c)=>c.addAll(FILES)).then(()=>self.skipWaiting())));
self.addEventListener('activate',(e)=>e.waitUntil(caches.keys().then((keys)=>Promise.all(keys.filter((k)=>k.startsWith('lousa-')&&k!==CACHE).map((k)=>caches.delete(k)))).then(()=>self.clients.claim())));
self.addEventListener('fetch',(e)=>{const r=e.request;if(r.method!=='GET'||new URL(r.url).origin!==location.origin)return;
e.respondWith(fetch(r).catch(()=>caches.open(CACHE).then((c)=>c.match(r,{ignoreSearch:true})).then((hit)=>hit??Response.error())));});
`,
);
console.log(`post-build: ${SW} keeps ${files.length} files as ${cache}`);
