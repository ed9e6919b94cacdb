// The workshop once loaded works with no network: a room whose conference
// network fails can reload the page and still count. The server is stopped
// for real (no emulation): every request after that is refused, and only
// the service worker's cache (lousa-workshop-sw.js) can answer.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DIST_DIR, MOUNT_TIMEOUT_MS, chromium, screenshot, serve } from './harness.mjs';

const RUN_TIMEOUT_MS = 60_000;

describe('offline', () => {
  let server;
  let context;
  let userDataDir;
  const served = [];
  before(async () => {
    assert.ok(fs.existsSync(path.join(DIST_DIR, 'lousa-workshop-sw.js')), `no service worker in ${DIST_DIR}: build the page first`);
    server = await serve(served);
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lousa-e2e-offline-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
  });
  after(async () => {
    await context?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server?.listening ? server.close(resolve) : resolve()));
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  test('the reader\'s page registers no service worker', async () => {
    const tab = await context.newPage();
    await tab.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
    await tab.waitForSelector('#lousa-root [data-testid=lousa]', { timeout: MOUNT_TIMEOUT_MS });
    assert.equal(await tab.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
    assert.ok(!served.some((p) => p.includes('lousa-workshop')), `the reader fetched the workshop: ${served.join(' ')}`);
    await tab.close();
  });

  test('load the workshop, stop the server, reload: it still mounts and counts race-2', { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const base = `http://127.0.0.1:${server.address().port}/`;
    const query = '?modo=oficina&scenario=race-2&strategy=check-then-act';
    const tab = await context.newPage();
    const errors = [];
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(`${base}${query}`, { waitUntil: 'load' });
    await tab.waitForSelector('[data-testid=workshop] [data-testid=lousa]', { timeout: MOUNT_TIMEOUT_MS });
    // Installed, every file kept, and in control of the page.
    await tab.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: RUN_TIMEOUT_MS });
    const kept = await tab.evaluate(async () => {
      const names = await caches.keys();
      const cache = await caches.open(names.find((n) => n.startsWith('lousa-')));
      return (await cache.keys()).map((r) => new URL(r.url).pathname);
    });
    for (const file of ['/', '/lousa-workshop_bg.wasm', '/lousa-worker_bg.wasm', '/lousa-worker_loader.js', '/manifest.webmanifest']) {
      assert.ok(kept.includes(file), `${file} is not kept: ${kept.join(' ')}`);
    }
    assert.ok(kept.some((f) => /^\/lousa-web-.*_bg\.wasm$/.test(f)), 'the reader\'s wasm is kept');

    // The network goes away.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const before = served.length;
    await tab.reload({ waitUntil: 'load' });
    await tab.waitForSelector('[data-testid=workshop] [data-testid=lousa]', { timeout: MOUNT_TIMEOUT_MS });
    await tab.click('[data-testid=explore]');
    await tab.waitForSelector('[data-testid=outcomes]', { timeout: RUN_TIMEOUT_MS });
    assert.match(await tab.textContent('[data-testid=explore-status]'), /escalonamentos/);
    assert.ok((await tab.locator('[data-testid=outcome]').count()) > 1, 'the offline count lists outcomes');
    assert.equal(served.length, before, 'nothing reached the stopped server');
    await screenshot(tab, 'workshop-offline-count');
    assert.deepEqual(errors, []);
    await tab.close();
  });
});
