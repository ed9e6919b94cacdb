// End-to-end test of the built page: serves dist/ on loopback, opens it in
// Debian's headless Chromium through playwright-core, and checks that the app
// mounted, nothing was logged as an error, and nothing left the machine.
//
// Run: node --test tests/e2e/   (./x e2e builds nothing; ./x test builds first)
// Env: LOUSA_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//      LOUSA_SCREENSHOTS (default <repo>/target/screenshots).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// playwright-core lives in tools/node_modules (npm ci --prefix tools), not next to this file.
const { chromium } = createRequire(path.join(REPO_ROOT, 'tools', 'package.json'))('playwright-core');

const DIST_DIR = path.resolve(process.env.LOUSA_DIST ?? path.join(REPO_ROOT, 'dist'));
const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = path.resolve(process.env.LOUSA_SCREENSHOTS ?? path.join(REPO_ROOT, 'target', 'screenshots'));
// The page must mount well within this; a release build mounts in well under a second.
const MOUNT_TIMEOUT_MS = 20_000;

// Without the background-networking flags Chromium keeps trying to reach
// Google's hosts, which this machine's closed network refuses.
const CHROMIUM_ARGS = [
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
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** True for URLs that stay on this machine (or never touch the network). */
function isLocal(url) {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Serves `root` read-only on 127.0.0.1 on a free port; resolves to the server. */
function serveDirectory(root) {
  const server = http.createServer((request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
    const relative = urlPath.endsWith('/') ? `${urlPath}index.html` : urlPath;
    const filePath = path.join(root, path.normalize(relative));
    // Refuse anything outside root (e.g. /../) and anything missing.
    if (!filePath.startsWith(root + path.sep) || !fs.existsSync(filePath) || !fs.statSync(filePath).isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const contentType = CONTENT_TYPES[path.extname(filePath)] ?? 'application/octet-stream';
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    fs.createReadStream(filePath).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe('the built page', () => {
  let server;
  let userDataDir;
  let context;
  let page;
  const requestedUrls = [];
  const consoleErrors = [];
  const pageErrors = [];
  const failedRequests = [];

  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'index.html')), `no ${DIST_DIR}/index.html: run trunk build --release first`);
    server = await serveDirectory(DIST_DIR);
    const pageUrl = `http://127.0.0.1:${server.address().port}/`;

    // A fresh profile each run: no cache or state carried over from a previous run.
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lousa-e2e-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1000, height: 900 },
    });
    // Record every request, and let only local ones through: a request to
    // another origin fails the test below instead of hanging on the network.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requestedUrls.push(url);
      return isLocal(url) ? route.continue() : route.abort('blockedbyclient');
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('requestfailed', (request) => failedRequests.push(`${request.url()} (${request.failure()?.errorText})`));
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.url()} (HTTP ${response.status()})`);
    });

    await page.goto(pageUrl, { waitUntil: 'load' });
    await page.locator('[data-testid=lousa]').waitFor({ state: 'visible', timeout: MOUNT_TIMEOUT_MS });
    // Let anything the app does right after mounting (and any error it logs) happen.
    await page.waitForLoadState('networkidle');

    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'page.png'), fullPage: true });
  });

  after(async () => {
    await context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  test('app mounts the lousa inside #lousa-root', async () => {
    assert.equal(await page.locator('#lousa-root [data-testid=lousa]').count(), 1, 'one lousa inside #lousa-root');
  });

  test('lousa draws one labelled group per role in the payment path', async () => {
    for (const role of ['clients', 'load-balancer', 'instances', 'database', 'acquirer']) {
      const group = page.locator(`[data-testid=lousa] g[data-testid=${role}]`);
      assert.equal(await group.count(), 1, `group ${role} is drawn once`);
      assert.ok(await group.getAttribute('aria-label'), `group ${role} has an aria-label`);
    }
  });

  test('status line names the core version', async () => {
    const status = await page.locator('[data-testid=lousa-status]').textContent();
    assert.match(status, /núcleo \d+\.\d+\.\d+/, `status line: ${status}`);
  });

  test('article is in Brazilian Portuguese and its paragraphs carry data-step', async () => {
    assert.equal(await page.locator('html').getAttribute('lang'), 'pt-BR');
    assert.ok((await page.locator('article [data-step]').count()) >= 2, 'at least two steps in the article');
  });

  test('page logs no console errors and throws no page errors', () => {
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(pageErrors, [], 'uncaught page errors');
    assert.deepEqual(failedRequests, [], 'failed requests');
  });

  test('page requests nothing outside the loopback interface', () => {
    assert.ok(requestedUrls.length > 0, 'requests were recorded at all');
    const remote = requestedUrls.filter((url) => !isLocal(url));
    assert.deepEqual(remote, [], 'requests to other origins');
  });
});
