// Trunk post-build hook: minifies wasm-bindgen's JavaScript glue, which
// Trunk's own minifier gives up on (it cannot parse the glue's
// `export { initSync, __wbg_init as default }`), and writes the glue's new
// subresource-integrity hash into index.html, so the page still checks it.
// The gzip budget counts every byte of the glue (budget/size-budget.txt).
//
// Runs in release builds only: debug glue stays readable.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { minify } from 'terser';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error('minify-glue: TRUNK_STAGING_DIR is not set (run me as a Trunk hook)');

const sri = (text) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
const indexPath = path.join(staging, 'index.html');
let index = fs.readFileSync(indexPath, 'utf8');
const glue = fs.readdirSync(staging).filter((name) => /^lousa-web-.*\.js$/.test(name));
if (glue.length !== 1) throw new Error(`minify-glue: expected one glue file in ${staging}, found ${glue.length}`);
const file = path.join(staging, glue[0]);
const source = fs.readFileSync(file, 'utf8');
const { code } = await minify(source, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
const before = sri(source);
if (!index.includes(before)) throw new Error(`minify-glue: index.html does not carry ${glue[0]}'s hash`);
fs.writeFileSync(file, code);
index = index.replaceAll(before, sri(code));
fs.writeFileSync(indexPath, index);
console.log(`minify-glue: ${glue[0]} ${source.length} -> ${code.length} bytes`);
