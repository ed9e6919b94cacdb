// Browser tests of the workshop view's plumbing (?modo=oficina): the same
// index.html, in workshop mode, hides the article before it paints, starts
// the workshop's wasm (workshop/, lousa-workshop, built by index.html's third
// rust link) instead of the reader's, and links the workshop's stylesheet;
// the reader's page fetches none of the workshop's files. When the workshop
// cannot run (no WebAssembly, a wasm that does not arrive, a trap), a
// sentence in #oficina-root says so, in the page's language. All of it under
// the page's Content-Security-Policy, with nothing asked of other origins.
//
// Run: node --test tests/e2e/workshop.test.mjs   (./x test builds dist/ first)
// Env: LOUSA_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DIST_DIR, MOUNT_TIMEOUT_MS, chromium, screenshot, serve, wordsOutsideTheirBoxes } from './harness.mjs';

// Trunk names a worker-type link's files after the binary, without a hash;
// the stylesheet is index.html's copy-file link, into dist/workshop/.
const WORKSHOP_FILES = ['lousa-workshop.js', 'lousa-workshop_bg.wasm', 'workshop/style.css'];
const isWorkshopFile = (p) => p.includes('lousa-workshop') || p.startsWith('/workshop/');
const FAILURE_TIMEOUT_MS = 10_000;

describe('the workshop view', () => {
  let server;
  let baseUrl;
  let userDataDir;
  let context;
  const served = [];
  const remote = [];
  // Console errors and uncaught errors of the tabs where nothing should fail.
  const consoleErrors = [];
  const pageErrors = [];
  const warnings = [];

  /**
   * A new tab on `query`: `setUp` runs before it loads; `watch` collects its
   * console errors and uncaught errors (for the last test).
   */
  async function openTab(query, { watch = true, waitUntil = 'load', setUp = async () => {} } = {}) {
    const tab = await context.newPage();
    if (watch) {
      tab.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(`${query}: ${message.text()}`);
        if (message.type() === 'warning') warnings.push(`${query}: ${message.text()}`);
      });
      tab.on('pageerror', (error) => pageErrors.push(`${query}: ${error}`));
    }
    await setUp(tab);
    await tab.goto(`${baseUrl}${query}`, { waitUntil });
    return tab;
  }

  const mounted = (tab) =>
    tab.locator('#oficina-root [data-testid=workshop]').waitFor({ state: 'visible', timeout: MOUNT_TIMEOUT_MS });
  const failure = async (tab) => {
    const note = tab.locator('#oficina-root .lousa-failure[role=alert]');
    await note.waitFor({ state: 'visible', timeout: FAILURE_TIMEOUT_MS });
    return note.textContent();
  };
  const cspViolations = (tab) => tab.evaluate(() => window.__cspViolations ?? 0);

  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'index.html')), `no ${DIST_DIR}/index.html: run trunk build --release first`);
    for (const file of WORKSHOP_FILES) {
      assert.ok(fs.existsSync(path.join(DIST_DIR, file)), `no ${DIST_DIR}/${file}: index.html's workshop links were not built`);
    }
    server = await serve(served);
    baseUrl = `http://127.0.0.1:${server.address().port}/`;
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lousa-e2e-workshop-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
      // These tests hold back or refuse the loader's files with page.route,
      // which a service worker's requests bypass: the offline cache is
      // offline.test.mjs's to test.
      serviceWorkers: 'block',
    });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
      remote.push(url.href);
      return route.abort('blockedbyclient');
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__cspViolations = (window.__cspViolations ?? 0) + 1;
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'}`);
      });
    });
  });

  after(async () => {
    await context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  test('?modo=oficina mounts the workshop in place of the article, under the page\'s policy', async () => {
    const from = served.length;
    const tab = await openTab('?modo=oficina');
    await mounted(tab);
    assert.equal(await tab.locator('html').getAttribute('class'), 'oficina', 'web/lang.js marked <html>');
    assert.equal(await tab.locator('html').getAttribute('lang'), 'pt-BR');
    for (const selector of ['header.article-head >> nth=0', '#artigo', '#lousa-root']) {
      assert.equal(await tab.locator(selector).isVisible(), false, `${selector} is hidden`);
    }
    assert.equal(await tab.locator('#lousa-root [data-testid=lousa]').count(), 0, 'the reader\'s wasm did not start');
    assert.equal(await tab.locator('#oficina-root [data-testid=workshop] h1').textContent(), 'Oficina: você é o escalonador');
    assert.ok(await tab.locator('#oficina-root [data-testid=lousa]').isVisible(), 'the workshop\'s board is drawn');
    // The workshop's stylesheet is linked, loaded and applied.
    assert.equal(await tab.locator('link[rel=stylesheet][href="workshop/style.css"]').count(), 1);
    assert.equal(await tab.locator('#oficina-root').evaluate((root) => getComputedStyle(root).boxSizing), 'border-box');
    const box = await tab.locator('#oficina-root').boundingBox();
    assert.equal(Math.round(box.width), 1280, 'the workshop has the full width');
    const paths = served.slice(from);
    for (const file of WORKSHOP_FILES) assert.ok(paths.includes(`/${file}`), `${file} was fetched: ${paths.join(' ')}`);
    // The reader's wasm, which the workshop never starts, is not preloaded for nothing.
    assert.deepEqual(paths.filter((p) => p.startsWith('/lousa-web-')), [], 'the reader\'s files were fetched');
    assert.equal(await tab.locator('head > link[rel=modulepreload]').count(), 0);
    assert.equal(await cspViolations(tab), 0, 'securitypolicyviolation events');
    await tab.close();
  });

  test('a worker that stops on an error is said to have stopped, in the page\'s words, and a new count starts a new one', async () => {
    // An uncaught error in the worker (a trap, such as running out of
    // memory) fires its error event and says nothing more.
    const trap = (route) => route.fulfill({ contentType: 'text/javascript', body: 'throw new Error("a trap");' });
    const tab = await openTab('?modo=oficina&scenario=race-2&strategy=check-then-act', {
      watch: false,
      setUp: (t) => t.route('**/lousa-worker_loader.js', trap),
    });
    await mounted(tab);
    const status = tab.locator('#oficina-root [data-testid=explore-status]');
    await tab.click('[data-testid=explore]');
    await status.filter({ hasText: 'não respondeu' }).waitFor({ timeout: FAILURE_TIMEOUT_MS });
    assert.equal(
      await status.textContent(),
      'O explorador não respondeu: parou no meio do trabalho sem dizer por quê: o navegador pode ter ficado sem memória, ou o explorador encontrou um erro.',
    );
    assert.equal(await status.getAttribute('role'), 'alert');
    await tab.unroute('**/lousa-worker_loader.js', trap);
    await tab.click('[data-testid=explore]');
    await status.filter({ hasText: 'Exploração completa' }).waitFor({ timeout: MOUNT_TIMEOUT_MS });
    await tab.close();
  });

  test('on a phone the board is drawn for its box, and nothing makes the page wider than the screen', async () => {
    for (const width of [390, 320]) {
      const tab = await openTab('?modo=oficina&scenario=race-2&strategy=check-then-act', {
        setUp: (t) => t.setViewportSize({ width, height: 844 }),
      });
      await mounted(tab);
      const board = tab.locator('#oficina-root [data-testid=workshop-board-wrap] [data-testid=lousa]');
      // Drawn for the box (so its text is not scaled down to a speck).
      await tab.waitForFunction(() => {
        const svg = document.querySelector('#oficina-root [data-testid=workshop-board-wrap] [data-testid=lousa]');
        return Number(svg?.getAttribute('viewBox').split(' ')[2]) < 480;
      });
      const drawn = Number((await board.getAttribute('viewBox')).split(' ')[2]);
      const shown = (await board.boundingBox()).width;
      // A box narrower than the narrowest board whose words fit gets that
      // board, scaled down a little.
      assert.ok(Math.abs(drawn - shown) <= 1 || (drawn > shown && drawn < shown * 1.3), `drawn for ${drawn} px, shown at ${shown} px`);
      assert.deepEqual(await wordsOutsideTheirBoxes(tab, '#oficina-root [data-testid=workshop-board-wrap] [data-testid=lousa]'), [], `every word inside its box at ${width} px`);
      // The scheduler's badges sit on the boxes they move without covering
      // a word of the board (at a corner they covered the client's number)
      // or each other.
      await tab.locator('[data-testid=pick-badge]').first().waitFor();
      const covered = await tab.evaluate(() => {
        const svg = document.querySelector('#oficina-root [data-testid=workshop-board-wrap] [data-testid=lousa]');
        const words = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
        const out = [];
        for (const badge of document.querySelectorAll('[data-testid=pick-badge]')) {
          const b = badge.getBoundingClientRect();
          for (const word of words) {
            const w = word.getBoundingClientRect();
            const across = Math.min(b.right, w.right) - Math.max(b.left, w.left);
            const down = Math.min(b.bottom, w.bottom) - Math.max(b.top, w.top);
            if (across > 1 && down > 3) out.push(`badge ${badge.textContent} over "${word.textContent}"`);
          }
          if (b.height > 30) out.push(`badge ${badge.textContent} is ${b.height} px tall`);
        }
        const all = [...document.querySelectorAll('[data-testid=pick-badge]')];
        for (const [i, one] of all.entries()) {
          for (const other of all.slice(i + 1)) {
            const a = one.getBoundingClientRect();
            const b = other.getBoundingClientRect();
            if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 3) {
              out.push(`badge ${one.textContent} over badge ${other.textContent}`);
            }
          }
        }
        return out;
      });
      assert.deepEqual(covered, [], `the badges at ${width} px`);
      // Every panel, opened, fits the screen: the editor, the design tab
      // and the sweep's menus included.
      await tab.evaluate(() => document.querySelectorAll('#oficina-root details').forEach((d) => { d.open = true; }));
      await tab.locator('[data-testid=sweep]').scrollIntoViewIfNeeded();
      const wide = await tab.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the page is ${wide} px wide on a ${width} px screen`);
      if (width === 390) await screenshot(tab, 'workshop-phone');
      // Presenter mode picks the drawing for a phone held upright.
      await tab.click('[data-testid=present]');
      await tab.waitForFunction(() => {
        const svg = document.querySelector('#oficina-root [data-testid=workshop-board-wrap] [data-testid=lousa]');
        return svg?.getAttribute('viewBox').split(' ')[2] === '360';
      });
      await tab.close();
    }
  });

  test('the article is hidden before the workshop\'s wasm arrives', async () => {
    // The workshop's glue is held back: what shows meanwhile is what the
    // page shows before any wasm runs (web/lang.js and the stylesheet).
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const tab = await openTab('?modo=oficina', {
      waitUntil: 'domcontentloaded',
      setUp: (t) => t.route('**/lousa-workshop.js', async (route) => { await held; await route.continue(); }),
    });
    assert.equal(await tab.locator('#artigo').isVisible(), false, 'the article is hidden before the wasm');
    assert.equal(await tab.locator('header.article-head >> nth=0').isVisible(), false, 'so is its head');
    assert.equal(await tab.locator('#oficina-root').isVisible(), true, 'the workshop\'s root shows');
    assert.equal(await tab.locator('#oficina-root [data-testid=workshop]').count(), 0, 'not mounted yet');
    release();
    await mounted(tab);
    assert.equal(await cspViolations(tab), 0, 'securitypolicyviolation events');
    await tab.close();
  });

  test('?modo=oficina&lang=en opens the workshop in English', async () => {
    const tab = await openTab('?modo=oficina&lang=en');
    await mounted(tab);
    assert.equal(await tab.locator('html').getAttribute('lang'), 'en');
    assert.equal(await tab.locator('header.article-head[lang=en]').isVisible(), false, 'the English article is hidden too');
    assert.equal(await cspViolations(tab), 0, 'securitypolicyviolation events');
    await tab.close();
  });

  test('a plain page load fetches none of the workshop\'s files', async () => {
    const index = fs.readFileSync(path.join(DIST_DIR, 'index.html'), 'utf8');
    assert.doesNotMatch(index, /lousa-workshop|workshop\/style\.css/, 'index.html neither loads nor preloads the workshop');
    const from = served.length;
    const tab = await openTab('');
    await tab.locator('[data-testid=lousa] [data-testid=acquirer]').waitFor({ state: 'visible', timeout: MOUNT_TIMEOUT_MS });
    await tab.waitForLoadState('networkidle');
    const paths = served.slice(from);
    assert.ok(paths.some((p) => p.endsWith('_bg.wasm')), `the page's own wasm was served: ${paths.join(' ')}`);
    assert.deepEqual(paths.filter(isWorkshopFile), [], 'workshop files fetched by a plain page load');
    // The reader's page still preloads its glue and wasm (web/lang.js copies the links in).
    assert.equal(await tab.locator('head > link[rel=modulepreload][href*="lousa-web-"]').count(), 1);
    assert.equal(await tab.locator('head > link[rel=preload][as=fetch][href*="lousa-web-"]').count(), 1);
    assert.equal(await tab.locator('#oficina-root').isVisible(), false, 'the workshop\'s root stays hidden');
    assert.equal(await tab.locator('#artigo').isVisible(), true, 'the article shows');
    assert.equal(await tab.locator('html').getAttribute('class'), null, 'no mode class');
    assert.equal(await cspViolations(tab), 0, 'securitypolicyviolation events');
    await tab.close();
  });

  test('a workshop wasm that does not arrive is named in the page\'s language', async () => {
    for (const [query, words] of [
      ['?modo=oficina', 'A oficina não conseguiu iniciar neste navegador.'],
      ['?modo=oficina&lang=en', 'The workshop could not start in this browser.'],
    ]) {
      const tab = await openTab(query, {
        watch: false,
        setUp: (t) => t.route('**/lousa-workshop_bg.wasm', (route) => route.fulfill({ status: 404, body: 'not found' })),
      });
      assert.equal(await failure(tab), words, query);
      assert.equal(await tab.locator('#artigo').isVisible(), false, 'the article stays hidden');
      await tab.close();
    }
  });

  test('without WebAssembly the workshop says so, and nothing throws', async () => {
    for (const [query, words] of [
      ['?modo=oficina', 'Este navegador não executa WebAssembly, então a oficina não abre aqui.'],
      ['?modo=oficina&lang=en', 'This browser does not run WebAssembly, so the workshop cannot open here.'],
    ]) {
      const from = served.length;
      const tab = await openTab(query, {
        setUp: (t) =>
          t.addInitScript(() => {
            delete window.WebAssembly;
          }),
      });
      assert.equal(await failure(tab), words, query);
      assert.deepEqual(served.slice(from).filter((p) => p.includes('lousa-workshop')), [], 'no wasm fetched for nothing');
      await tab.close();
    }
  });

  test('a trap in the workshop\'s wasm gives way to a sentence, in the page\'s language', async () => {
    const tab = await openTab('?modo=oficina&lang=en', { watch: false });
    await mounted(tab);
    // An error that is not a trap leaves the workshop alone.
    await tab.evaluate(() => new Promise((done) => {
      // Timers of equal delay run in the order they were set: done comes
      // after the error has been thrown and handled.
      setTimeout(() => { throw new Error('not the wasm'); });
      setTimeout(done);
    }));
    assert.equal(await tab.locator('#oficina-root [data-testid=workshop]').count(), 1, 'another error kept the workshop');
    // How a panic ends in the shipped build (see web/loader.js).
    await tab.evaluate(() => { Promise.reject(new WebAssembly.RuntimeError('unreachable')); });
    assert.equal(await failure(tab), 'The workshop stopped on an internal error; reload the page to start again.');
    assert.equal(await tab.locator('[data-testid=workshop]').count(), 0, 'no frozen workshop is left');
    await tab.close();
  });

  test('the workshop logs no console errors, throws nothing and asks nothing of other origins', () => {
    if (warnings.length) console.log(`# console warnings (not asserted):\n${warnings.map((w) => `#   ${w}`).join('\n')}`);
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(pageErrors, [], 'uncaught page errors');
    assert.deepEqual(remote, [], 'requests to other origins');
  });
});
