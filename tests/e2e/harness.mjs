// What the browser test files share: where things are, how Chromium is
// started on this closed network, and the loopback server of dist/ and the
// fixtures. Not a test file (node --test runs *.test.mjs).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// playwright-core lives in tools/node_modules (npm ci --prefix tools), not next to this file.
export const { chromium } = createRequire(path.join(REPO_ROOT, 'tools', 'package.json'))('playwright-core');

export const DIST_DIR = path.resolve(process.env.LOUSA_DIST ?? path.join(REPO_ROOT, 'dist'));
export const FIXTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';
// The page must mount well within this; a release build mounts in well under a second.
export const MOUNT_TIMEOUT_MS = 20_000;

// Without the background-networking flags Chromium keeps trying to reach
// Google's hosts, which this machine's closed network refuses.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// application/wasm matters: without it wasm-bindgen falls back to a slower
// path and logs a warning.
const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The file under `root` that `urlPath` names, or null. */
function resolveFile(root, urlPath) {
  const relative = urlPath.endsWith('/') ? `${urlPath}index.html` : urlPath;
  const filePath = path.join(root, path.normalize(relative));
  // Refuse anything outside root (e.g. /../) and anything missing.
  if (filePath.startsWith(root + path.sep) && fs.existsSync(filePath) && fs.statSync(filePath).isFile()) {
    return filePath;
  }
  return null;
}

/**
 * Serves dist/ (and, under /fixtures/, this folder's fixtures) read-only on
 * 127.0.0.1 on a free port. Cross-origin isolation headers make
 * performance.now() precise to microseconds instead of 0.1 ms (in a worker
 * too), which the benchmarks need; every resource is same-origin, so
 * nothing else changes. Each path asked for, whoever asked (page or
 * worker), is pushed to `served` when given: the server's own record.
 */
export function serve(served = null) {
  // A large header limit: a test opens links with a 100 kB query.
  const server = http.createServer({ maxHeaderSize: 1 << 20 }, (request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
    served?.push(urlPath);
    const filePath = urlPath.startsWith('/fixtures/')
      ? resolveFile(FIXTURES_DIR, urlPath.slice('/fixtures'.length))
      : resolveFile(DIST_DIR, urlPath);
    if (!filePath) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[path.extname(filePath)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    });
    fs.createReadStream(filePath).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// The CLI the workshop's tests compare the page with (./x builds it beside
// the native worker): LOUSA_CLI, or $CARGO_TARGET_DIR/release/lousa.
export const CLI = path.resolve(
  process.env.LOUSA_CLI ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO_ROOT, 'target'), 'release', 'lousa'),
);

/** What `lousa <args>` prints; its progress lines on stderr are dropped. */
export const cli = (...args) =>
  execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * The prompts `lousa run --prompts` prints for a built-in, as
 * { ask, reveal, question, choices, answer }: what the reader's page and the
 * presenter mode must ask.
 */
export function cliPrompts(scenario, strategy, lang) {
  const out = [];
  for (const line of cli('run', scenario, '--strategy', strategy, '--prompts', '--lang', lang).split('\n')) {
    const head = line.match(/^frame (\d+) → (\d+): (.*)$/);
    const choice = line.match(/^ {2}([* ]) (\d+)\. (.*)$/);
    if (head) out.push({ ask: Number(head[1]), reveal: Number(head[2]), question: head[3], choices: [], answer: null });
    else if (choice) {
      const p = out.at(-1);
      if (choice[1] === '*') p.answer = p.choices.length;
      p.choices.push(choice[3]);
    }
  }
  return out;
}

/** Where the browser tests leave their screenshots of key moments. */
/**
 * Resolves once `tab` has caught up with everything already asked of it:
 * an IntersectionObserver made now has made its first report (observers
 * report in the order they were made, so the page's own came first), a
 * message posted now has been delivered behind the tasks queued before it,
 * and two frames have been painted since. A test that checks something did
 * *not* happen (a hidden paragraph did not move the board, a cancelled run
 * sent nothing more) waits on this instead of a fixed time.
 */
export function caughtUp(tab) {
  return tab.evaluate(() => new Promise((done) => {
    const observer = new IntersectionObserver(() => {
      observer.disconnect();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => requestAnimationFrame(() => requestAnimationFrame(() => done()));
      channel.port2.postMessage(null);
    });
    observer.observe(document.documentElement);
  }));
}

/**
 * Resolves once the boxes `selectors` name have held still for two frames
 * in a row: after a scroll, the board may move to another paragraph and
 * change its height, and the layout is read when it has settled.
 */
export async function layoutSettled(tab, selectors, timeout = 5_000) {
  await caughtUp(tab);
  await tab.waitForFunction((names) => new Promise((done) => {
    const read = () => JSON.stringify(names.map((name) => {
      const r = document.querySelector(name)?.getBoundingClientRect();
      return r ? [r.x, r.y, r.width, r.height] : null;
    }));
    const first = read();
    requestAnimationFrame(() => requestAnimationFrame(() => done(read() === first)));
  }), selectors, { timeout, polling: 'raf' });
}

/**
 * The texts of the board `board` (a selector) that reach past the box they
 * belong to, as the browser drew them: one line each, naming the box, the
 * text and by how many pixels of the box's own drawing it is over. A
 * board's SVG may be scaled to its box, so the figures are in its drawing's
 * pixels. An empty list means every word is inside its box.
 */
export function wordsOutsideTheirBoxes(tab, board = '[data-testid=lousa]') {
  return tab.evaluate((selector) => {
    const svg = document.querySelector(selector);
    const scale = svg.getBoundingClientRect().width / Number(svg.getAttribute('viewBox').split(' ')[2]);
    const over = [];
    for (const actor of svg.querySelectorAll('g.actor')) {
      const box = actor.querySelector('rect').getBoundingClientRect();
      for (const text of actor.querySelectorAll('text')) {
        const drawn = text.getBoundingClientRect();
        const by = Math.max(drawn.right - box.right, box.left - drawn.left) / scale;
        if (drawn.width > 0 && by > 0) over.push(`${actor.dataset.testid}: "${text.textContent}" by ${by.toFixed(1)} px`);
      }
    }
    return over;
  }, board);
}

/**
 * The messages' labels on the board `board` (a selector) that cover another
 * text of it, as the browser drew them: one line each, naming both texts.
 * Text boxes include the font's whole line height, so two texts count as
 * overlapping only by more than 1 px across and 3 px down, in the
 * drawing's pixels: more than two lines that merely touch.
 */
export function labelsOverWords(tab, board = '[data-testid=lousa]') {
  return tab.evaluate((selector) => {
    const svg = document.querySelector(selector);
    const scale = svg.getBoundingClientRect().width / Number(svg.getAttribute('viewBox').split(' ')[2]);
    const texts = [...svg.querySelectorAll('text')]
      .filter((t) => t.textContent.trim() && t.checkVisibility({ visibilityProperty: true }))
      .map((t) => ({ text: t.textContent, label: t.classList.contains('msg-label'), at: t.getBoundingClientRect() }));
    const over = [];
    for (const [i, a] of texts.entries()) {
      for (const b of texts.slice(i + 1)) {
        if (!a.label && !b.label) continue;
        const across = (Math.min(a.at.right, b.at.right) - Math.max(a.at.left, b.at.left)) / scale;
        const down = (Math.min(a.at.bottom, b.at.bottom) - Math.max(a.at.top, b.at.top)) / scale;
        if (across > 1 && down > 3) over.push(`"${a.text}" over "${b.text}"`);
      }
    }
    return over;
  }, board);
}

export const SCREENSHOT_DIR = path.resolve(
  process.env.LOUSA_SCREENSHOTS ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO_ROOT, 'target'), 'screenshots'),
);

/** Saves what `target` (a tab, or a locator for one part) shows as SCREENSHOT_DIR/`name`.png. */
export async function screenshot(target, name) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await target.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/**
 * What the workshop's feature tests share, set up around the describe()
 * block that calls this: a server on DIST_DIR, a fresh Chromium profile
 * that lets only loopback requests through, logs a Content-Security-Policy
 * refusal as a console error and keeps the page's long tasks in
 * `window.__longTasks`, and `open(query)`, a tab mounted on `query` whose
 * console errors and uncaught errors are kept in `consoleErrors` and
 * `pageErrors` (a suite's last test asserts both are empty). `name` names
 * the profile's folder; `ready` is what a mounted tab shows.
 */
export function workshopSession(name, {
  viewport = { width: 1280, height: 900 },
  ready = '[data-testid=workshop] [data-testid=lousa]',
  downloads = false,
  clipboard = false,
} = {}) {
  const session = { baseUrl: '', context: null, consoleErrors: [], pageErrors: [] };
  let server;
  let userDataDir;
  session.open = async (query) => {
    const tab = await session.context.newPage();
    tab.on('console', (message) => {
      if (message.type() === 'error') session.consoleErrors.push(`${query}: ${message.text()}`);
    });
    tab.on('pageerror', (error) => session.pageErrors.push(`${query}: ${error}`));
    await tab.goto(`${session.baseUrl}${query}`, { waitUntil: 'load' });
    await tab.waitForSelector(ready, { timeout: MOUNT_TIMEOUT_MS });
    return tab;
  };
  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'lousa-workshop_bg.wasm')), `no workshop wasm in ${DIST_DIR}: build the page first`);
    assert.ok(fs.existsSync(CLI), `no ${CLI}: run cargo build --release -p lousa-cli`);
    server = await serve();
    session.baseUrl = `http://127.0.0.1:${server.address().port}/`;
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lousa-e2e-${name}-`));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      acceptsDownloads: downloads,
      viewport,
    });
    session.context = context;
    if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });
    await context.route('**/*', (route) => {
      const { hostname } = new URL(route.request().url());
      return hostname === '127.0.0.1' ? route.continue() : route.abort('blockedbyclient');
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'}`);
      });
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
  });
  after(async () => {
    await session.context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });
  return session;
}
