// Browser tests of what leaves the screen with an attendee or a room: the
// moment's link (copied, and reopened at the same frame), its QR code for
// the projector, read back as a phone would, and the printed handouts of a
// workshop run and of the article, printed to PDF and read back as text
// (pdftotext, from poppler-utils, which ./x installs).
//
// Run: node --test tests/e2e/share.test.mjs   (./x test builds dist/ and
//      the native CLI first: cargo build --release -p lousa-cli)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, cli, screenshot, workshopSession } from './harness.mjs';

const jsQR = createRequire(path.join(REPO_ROOT, 'tools', 'package.json'))('jsqr');
const RACE = '?modo=oficina&scenario=race-2&strategy=check-then-act';

/** The text of a PDF, as pdftotext reads it. */
function pdfText(pdf) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lousa-pdf-')), 'print.pdf');
  fs.writeFileSync(file, pdf);
  try {
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** How many pages a PDF has. */
const pages = (pdf) => (pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length;

describe('sharing and printing a moment', () => {
  const session = workshopSession('share', { clipboard: true });
  const { open, consoleErrors, pageErrors } = session;
  const frame = async (tab) => Number(await tab.getAttribute('[data-testid=workshop] [data-testid=lousa]', 'data-frame'));
  const pick = async (tab, n) => {
    const before = await tab.textContent('[data-testid=schedule]');
    await tab.keyboard.press(String(n));
    await tab.waitForFunction((b) => document.querySelector('[data-testid=schedule]').textContent !== b, before);
  };

  test('the copied link reopens the exact moment: the choices and the frame stepped to', async () => {
    const tab = await open(RACE);
    await pick(tab, 2);
    await pick(tab, 1);
    const turn = await frame(tab);
    await tab.keyboard.press('ArrowLeft');
    await tab.keyboard.press('ArrowLeft');
    await tab.waitForFunction((f) => document.querySelector('[data-testid=workshop] [data-testid=lousa]').dataset.frame === String(f), turn - 2);
    await tab.click('[data-testid=copy-link]');
    await tab.waitForFunction(() => document.querySelector('[data-testid=share-status]').textContent === 'Copiado.');
    const link = await tab.evaluate(() => navigator.clipboard.readText());
    assert.equal(link, tab.url(), 'the link is the page\'s own');
    assert.match(link, new RegExp(`&frame=${turn - 2}(&|$)`));
    const again = await session.context.newPage();
    await again.goto(link);
    await again.waitForSelector('[data-testid=workshop] [data-testid=lousa]');
    assert.equal(await frame(again), turn - 2, 'the same frame');
    assert.equal(await again.textContent('[data-testid=schedule]'), await tab.textContent('[data-testid=schedule]'));
    await again.close();
    await tab.close();
  });

  test('the QR code reads back, as a phone would, to the moment\'s link', async () => {
    const tab = await open(`${RACE}&schedule=1-0`);
    await tab.click('[data-testid=show-qr]');
    const qr = tab.locator('[data-testid=qr]');
    await qr.waitFor();
    await screenshot(qr, 'workshop-qr');
    // The picture on screen, as pixels: the SVG drawn on a canvas at 6 px a module.
    const { width, height, data } = await qr.evaluate(async (svg) => {
      const [, , w] = svg.getAttribute('viewBox').split(' ').map(Number);
      const side = w * 6;
      const picture = new Image(side, side);
      const source = new XMLSerializer().serializeToString(svg);
      picture.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(source)}`;
      await picture.decode();
      const canvas = Object.assign(document.createElement('canvas'), { width: side, height: side });
      const g = canvas.getContext('2d');
      g.drawImage(picture, 0, 0, side, side);
      return { width: side, height: side, data: Array.from(g.getImageData(0, 0, side, side).data) };
    });
    const read = jsQR(Uint8ClampedArray.from(data), width, height);
    assert.ok(read, 'the code decodes');
    assert.equal(read.data, tab.url());
    assert.match(read.data, /schedule=1-0/);
    // A pick changes the moment, and the code with it.
    await pick(tab, 1);
    await tab.waitForFunction(() => document.querySelector('[data-testid=qr]').dataset.link === location.href);
    await tab.click('[data-testid=show-qr]');
    assert.equal(await qr.count(), 0, 'hidden again');
    await tab.close();
  });

  test('a workshop run prints on A4: the board, the schedule, the ending and the psql script, no buttons', async () => {
    const tab = await open(`${RACE}&schedule=0-1`);
    assert.equal(await tab.locator('[data-testid=handout]').count(), 0, 'not written until printing');
    const pdf = await tab.pdf({ format: 'A4', printBackground: false });
    const text = pdfText(pdf);
    assert.ok(pages(pdf) >= 1);
    const run = JSON.parse(cli('run', 'race-2', '--strategy', 'check-then-act', '--schedule', '0-1', '--format', 'json'));
    const captures = run.summary.intents.map((i) => i.captures).join(', ');
    assert.match(text, /Escalonamento: 0-1/);
    assert.ok(text.includes(`capturas por intenção [${captures}]`), text.slice(0, 2000));
    assert.match(text, /Este momento: http:\/\/127\.0\.0\.1:\d+\/\?modo=oficina&scenario=race-2/);
    // The psql script, as `lousa export` writes it: its statements are on paper.
    const psql = cli('export', 'race-2', '--strategy', 'check-then-act', '--schedule', '0-1', '--format', 'psql');
    const statement = psql.split('\n').find((l) => /^\s*INSERT INTO/.test(l)).trim();
    assert.ok(text.replace(/\s+/g, ' ').includes(statement.slice(0, 40)), `${statement} is printed`);
    // The board is on paper (its boxes' words), the controls are not.
    assert.match(text, /adquirente|acquirer/i);
    for (const label of ['Contar todos', 'Desfazer', 'Copiar link', 'Baixar']) assert.ok(!text.includes(label), `${label} is not printed`);
    // Printing over, the handout leaves the page.
    await tab.waitForFunction(() => !document.querySelector('[data-testid=handout]'));
    await tab.close();
  });

  test('a branch prints as the branch: its fault, its ending and its psql script', async () => {
    const fork = '5:crash-1+3000';
    const tab = await open(`?modo=oficina&scenario=timeout-retry&strategy=check-then-act&fork=${encodeURIComponent(fork)}`);
    const text = pdfText(await tab.pdf({ format: 'A4', printBackground: false })).replace(/\s+/g, ' ');
    assert.ok(text.includes('Com a falha: derrubar a instância 1 (no passo 5)'), text.slice(0, 2000));
    const run = JSON.parse(cli('run', 'timeout-retry', '--strategy', 'check-then-act', '--fork', fork, '--format', 'json'));
    const captures = run.summary.intents.map((i) => i.captures).join(', ');
    assert.ok(text.includes(`capturas por intenção [${captures}]`), text.slice(0, 2000));
    assert.ok(text.includes(`--fork ${fork}`), 'the psql script replays the branch');
    await tab.close();
  });

  test('the article prints on A4 as text, without the board\'s controls', async () => {
    const tab = await session.context.newPage();
    await tab.goto(`${session.baseUrl}?lang=en`);
    await tab.waitForSelector('#lousa-root [data-testid=lousa]');
    const pdf = await tab.pdf({ format: 'A4' });
    const text = pdfText(pdf);
    assert.ok(pages(pdf) >= 3, `${pages(pdf)} pages`);
    assert.match(text, /The charge that happens twice/);
    assert.match(text, /idempotency/i);
    assert.ok(!/A cobrança que acontece duas vezes/.test(text), 'one language on paper');
    await tab.close();
  });

  test('no console errors and no uncaught errors', () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(pageErrors, []);
  });
});
