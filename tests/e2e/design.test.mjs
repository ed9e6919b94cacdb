// Browser tests of the workshop's design tab (issue #31): a design in the
// link runs on the board and its check in the explorer's worker gives the
// verdicts and shortest counterexamples `lousa explore --design` gives; the
// three exercises find what they teach; the steps are edited from menus,
// a refusal shows beside the step it names, and an edited design goes out
// in the link and comes back whole.
//
// Run: node --test tests/e2e/design.test.mjs   (./x test builds dist/ and
//      the native CLI first: cargo build --release -p lousa-cli)
// Env: LOUSA_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//      LOUSA_CLI (default $CARGO_TARGET_DIR/release/lousa).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { cli, screenshot, workshopSession } from './harness.mjs';

// An exploration of race-2 takes well under a second; this only bounds a hang.
const RUN_TIMEOUT_MS = 120_000;

/** What `lousa explore <scenario> --design <design>` reports, as JSON. */
function explored(scenario, design) {
  let out;
  try {
    out = cli('explore', scenario, '--design', design, '--format', 'json');
  } catch (e) {
    // A broken property exits 1, with the report on stdout all the same.
    out = e.stdout;
  }
  return JSON.parse(out);
}

describe('the workshop\'s design tab', () => {
  const { open, consoleErrors, pageErrors } = workshopSession('design', { downloads: true });
  const query = (tab) => new URL(tab.url()).searchParams;
  const steps = (tab) => tab.locator('[data-testid=design-step]');
  const labels = (tab) => steps(tab).evaluateAll((rows) => rows.map((r) => r.dataset.label));

  /** Clicks `button` and reads the file it downloads: its name and text. */
  async function downloaded(tab, button) {
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.click(button)]);
    return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
  }

  /** Checks the design on the board in the worker; its verdicts, by property. */
  async function check(tab) {
    await tab.click('[data-testid=design-check]');
    await tab.waitForSelector('[data-testid=design-verdict]', { timeout: RUN_TIMEOUT_MS });
    return tab.locator('[data-testid=design-verdict]').evaluateAll((items) =>
      Object.fromEntries(items.map((li) => [li.dataset.property, {
        verdict: li.dataset.verdict,
        ok: li.dataset.ok === 'true',
        example: li.querySelector('[data-testid=design-example]')?.dataset.schedule ?? null,
      }])));
  }

  /** The CLI's report as the tab shows it: verdicts, and the examples of broken claims. */
  const asShown = (report) => Object.fromEntries(report.properties.map((p) => {
    const ok = p.verdict === 'holds' || p.verdict === 'reached' || !p.property.required;
    return [p.property.name, { verdict: p.verdict, ok, example: ok ? null : p.example?.text ?? null }];
  }));

  test('a design in the link runs on the board, and its check gives the CLI\'s verdicts and counterexample', { timeout: 2 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&design=claim-after-capture');
    assert.equal(await tab.getAttribute('[data-testid=design-tab]', 'open'), '', 'the tab opens on a design link');
    assert.match(await tab.textContent('[data-testid=design-on-board]'), /claim-after-capture/);
    assert.deepEqual(await labels(tab), ['capture', 'claim', 'store-response', 'read-key']);
    assert.match(await tab.textContent('[data-testid=design-checks]'), /O projeto confere: 4 passos\./);
    // The sweep runs the design alone while it is on the board.
    assert.equal(await tab.textContent('[data-testid=sweep-design]'), 'Um mapa só, o do projeto que está na lousa: claim-after-capture.');
    assert.ok(await tab.locator('[data-testid=sweep-strategy]').first().isHidden());
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-claim-after-capture');

    const shown = await check(tab);
    const want = explored('race-2', 'claim-after-capture');
    assert.equal(want.design, 'claim-after-capture');
    assert.deepEqual(shown, asShown(want));
    assert.equal(shown['at-most-one-capture-per-intent'].verdict, 'violated', 'the claim after the capture charges twice');
    // The counts panel counted the same world: the CLI's schedule count.
    assert.match(await tab.textContent('[data-testid=explore-status]'), new RegExp(want.schedules.toLocaleString('pt-BR').replace('.', '\\.')));
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-verdicts');

    // The shortest counterexample loads on the board, which ends charging twice.
    const example = tab.locator('[data-testid=design-verdict][data-property=at-most-one-capture-per-intent] [data-testid=design-example]');
    await example.click();
    await tab.keyboard.press('f');
    await tab.waitForSelector('[data-testid=ending]');
    assert.equal(await tab.getAttribute('[data-testid=ending]', 'data-captures'), '2');
    assert.equal(query(tab).get('design'), 'claim-after-capture');
    // It goes home as `lousa export --design` prints it.
    const schedule = query(tab).get('schedule');
    for (const [format, ext] of [['psql', 'sql'], ['rust-test', 'rs']]) {
      const got = await downloaded(tab, `[data-testid=export][data-format=${format}] [data-testid=download]`);
      const want = cli('export', 'race-2', '--design', 'claim-after-capture', '--schedule', schedule, '--format', format, '--lang', 'pt');
      assert.equal(got.text, want, `${format} download`);
      // Named after the design, as a strategy's export is after the strategy.
      assert.match(got.name, new RegExp(`^race-2-claim-after-capture-[0-9x-]+\\.${ext}$`));
    }
    await tab.close();
  });

  test('the three exercises find what they teach, as the CLI finds it', { timeout: 4 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act');
    await tab.click('[data-testid=design-tab] > summary');
    const found = {};
    for (const [name, scenario] of [
      ['claim-after-capture', 'race-2'],
      ['forget-the-fingerprint', 'key-reuse'],
      ['check-then-act-unique-order', 'race-2'],
    ]) {
      await tab.selectOption('[data-testid=design-start]', name);
      // Each exercise is checked on the scenario it is about.
      assert.equal(await tab.inputValue('[data-testid=design-check-on]'), scenario, name);
      const shown = await check(tab);
      assert.equal(query(tab).get('scenario'), scenario);
      assert.deepEqual(shown, asShown(explored(scenario, name)), name);
      found[name] = shown;
    }
    assert.equal(found['claim-after-capture']['at-most-one-capture-per-intent'].verdict, 'violated');
    assert.equal(found['forget-the-fingerprint']['every-2xx-has-exactly-one-capture'].verdict, 'violated',
      'a reused key with another amount gets a 2xx with no capture of its own');
    assert.equal(found['check-then-act-unique-order']['at-most-one-capture-per-intent'].verdict, 'holds',
      'the UNIQUE on pedido_id alone stops race-2\'s double charge');
    await tab.close();
  });

  test('steps are edited from menus; a refusal shows beside the step it names; an edited design goes out in the link and comes back', { timeout: 2 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=idempotency-key');
    await tab.click('[data-testid=design-tab] > summary');
    await tab.selectOption('[data-testid=design-start]', 'idempotency-key');
    assert.deepEqual(await labels(tab), ['claim', 'capture', 'store-response', 'read-key']);
    // The menus say each choice in the page's language; the values stay the JSON's names.
    const chosen = (menu) => menu.evaluate((m) => [m.value, m.selectedOptions[0].textContent]);
    assert.deepEqual(await chosen(steps(tab).nth(1).locator('[data-testid=step-kind]')), ['capture', 'capturar no adquirente']);
    const branch = (step, b) => steps(tab).nth(step).locator('[data-testid=design-branch]').nth(b);
    assert.deepEqual(await chosen(branch(0, 0).locator('[data-testid=branch-when]')), ['no-rows', 'não veio linha']);
    assert.deepEqual(await chosen(branch(3, 3).locator('[data-testid=branch-answer]')), ['stored', 'a resposta guardada']);
    // A branch's texts show all they hold (a body was cut at a fixed size).
    const cut = await tab.locator('[data-testid=design-branch] input[type=text]').evaluateAll((inputs) =>
      inputs.filter((i) => i.value && i.scrollWidth > i.clientWidth + 1).map((i) => `${i.dataset.testid}: ${i.value}`));
    assert.deepEqual(cut, [], 'branch texts cut');

    // Removing the step a branch jumps to: the check names the step that jumps.
    await steps(tab).nth(3).locator('[data-testid=step-remove]').click();
    const refusal = steps(tab).nth(0).locator('[data-testid=design-refusal]');
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /^Recusado: steps\[0\]\.on\[0\]\.goto: .*read-key/);
    assert.equal(await tab.locator('[data-testid=design-refusal]').count(), 1);
    assert.ok(await tab.isDisabled('[data-testid=design-run]'), 'a design that does not check does not run');
    assert.ok(await tab.isDisabled('[data-testid=design-check]'));
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-refusal');

    // Back to the built-in; a step added below the first, moved down and removed.
    await tab.selectOption('[data-testid=design-start]', 'idempotency-key');
    await steps(tab).nth(0).locator('[data-testid=step-add]').click();
    assert.deepEqual(await labels(tab), ['claim', 'step', 'capture', 'store-response', 'read-key']);
    assert.match(await steps(tab).nth(1).locator('[data-testid=step-sql]').textContent(), /^SELECT id, status FROM cobranca WHERE idempotency_key = \$1$/);
    await steps(tab).nth(1).locator('button[aria-label="Descer o passo"]').click();
    assert.deepEqual(await labels(tab), ['claim', 'capture', 'step', 'store-response', 'read-key']);
    await steps(tab).nth(2).locator('[data-testid=step-remove]').click();
    assert.deepEqual(await labels(tab), ['claim', 'capture', 'store-response', 'read-key']);

    // The claim moved after the capture, from the menus: the anti-pattern,
    // which the check accepts and the explorer breaks.
    await steps(tab).nth(0).locator('button[aria-label="Descer o passo"]').click();
    assert.deepEqual(await labels(tab), ['capture', 'claim', 'store-response', 'read-key']);
    // A rename follows the jumps to the step.
    await steps(tab).nth(3).locator('[data-testid=step-label]').fill('read-the-key');
    await steps(tab).nth(3).locator('[data-testid=step-label]').press('Enter');
    assert.equal(await steps(tab).nth(1).locator('[data-testid=branch-goto]').inputValue(), 'read-the-key');
    await tab.fill('[data-testid=design-name]', 'mine');
    await tab.press('[data-testid=design-name]', 'Enter');
    await tab.waitForSelector('[data-testid=design-checks]');
    await tab.click('[data-testid=design-run]');
    assert.match(await tab.textContent('[data-testid=design-on-board]'), /mine/);
    const link = query(tab).get('design');
    assert.equal(JSON.parse(link).name, 'mine', 'an edited design travels as its JSON');
    const shown = await check(tab);
    assert.equal(shown['at-most-one-capture-per-intent'].verdict, 'violated');
    // The design saved as mine.json is the file the CLI explores to the same verdicts.
    const saved = await downloaded(tab, '[data-testid=design-download]');
    assert.equal(saved.name, 'mine.json');
    const file = `${fs.mkdtempSync('/tmp/lousa-design-')}/mine.json`;
    fs.writeFileSync(file, saved.text);
    assert.deepEqual(shown, asShown(explored('race-2', file)));

    // The link opens the same design, on a new tab, with the same verdicts.
    const again = await open(`?${new URL(tab.url()).searchParams}`);
    assert.match(await again.textContent('[data-testid=design-on-board]'), /mine/);
    assert.deepEqual(await labels(again), ['capture', 'claim', 'store-response', 'read-the-key']);
    assert.deepEqual(await check(again), shown);
    await again.close();
    await tab.close();
  });

  test('a draft edited while a design is on the board survives a reload; a link with another design opens that one', { timeout: RUN_TIMEOUT_MS }, async () => {
    // The tab opens by itself when the link carries a design.
    const openTab = (t) => t.locator('[data-testid=design-tab]').evaluate((d) => { d.open = true; });
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act&design=check-then-act');
    await openTab(tab);
    const before = await labels(tab);
    await tab.fill('[data-testid=design-name]', 'kept');
    await tab.press('[data-testid=design-name]', 'Enter');
    await steps(tab).nth(1).locator('[data-testid=step-remove]').click();
    const edited = await labels(tab);
    assert.equal(edited.length, before.length - 1);
    assert.equal(query(tab).get('design'), 'check-then-act', 'the board keeps its design until the draft runs');
    await tab.reload();
    await openTab(tab);
    assert.equal(await tab.inputValue('[data-testid=design-name]'), 'kept');
    assert.deepEqual(await labels(tab), edited, 'the edits are where they were');
    // Picking a strategy runs its handler: the design leaves the board.
    await tab.selectOption('[data-testid=strategy]', 'idempotency-key');
    await tab.waitForFunction(() => !new URL(location.href).searchParams.has('design'));
    assert.equal(await tab.locator('[data-testid=design-on-board]').count(), 0);
    assert.equal(query(tab).get('strategy'), 'idempotency-key');
    // Another design in a link is what its reader came to see.
    const other = await open('?modo=oficina&scenario=race-2&strategy=idempotency-key&design=idempotency-key');
    await openTab(other);
    assert.equal(await other.inputValue('[data-testid=design-name]'), 'idempotency-key');
    assert.deepEqual(await labels(other), ['claim', 'capture', 'store-response', 'read-key']);
    await other.close();
    await tab.close();
  });

  test('a queue\'s consumer is a design too: checked where the queue delivers twice, with the CLI\'s verdicts', { timeout: 3 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act');
    await tab.click('[data-testid=design-tab] > summary');
    await tab.selectOption('[data-testid=design-start]', 'consumer-check-then-act');
    assert.equal(await tab.inputValue('[data-testid=design-serves]'), '1', 'it serves a queue');
    assert.equal(await tab.inputValue('[data-testid=design-check-on]'), 'queue-redelivery');
    const row = (label) => tab.locator(`[data-testid=design-step][data-label=${label}]`);
    // The record of the message is written completed, after the capture.
    assert.ok(await row('record-message').locator('[data-testid=step-completed]').isChecked());
    assert.match(await row('record-message').locator('[data-testid=step-sql]').textContent(), /VALUES \(\.\.\., 'completed'\) RETURNING id$/);
    assert.match(await row('check-message').locator('[data-testid=step-sql]').textContent(), /WHERE message_id = \$1$/);
    // Run on the board from race-2, where no queue delivers, it moves the
    // board to the queue's scenario.
    await tab.click('[data-testid=design-run]');
    await tab.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'queue-redelivery');
    assert.match(await tab.textContent('[data-testid=design-on-board]'), /consumer-check-then-act/);
    const racy = await check(tab);
    assert.deepEqual(racy, asShown(explored('queue-redelivery', 'consumer-check-then-act')));
    assert.equal(racy['at-most-one-capture-per-intent'].verdict, 'violated', 'two deliveries in flight both charge');
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-consumer');

    await tab.selectOption('[data-testid=design-start]', 'consumer-claim');
    const claimed = await check(tab);
    assert.deepEqual(claimed, asShown(explored('queue-redelivery', 'consumer-claim')));
    assert.equal(claimed['at-most-one-capture-per-intent'].verdict, 'holds', 'the claimed message id charges once');
    // Serving HTTP again moves the check back to where requests race.
    await tab.selectOption('[data-testid=design-serves]', '0');
    await tab.waitForFunction(() => document.querySelector('[data-testid=design-check-on]').value === 'race-2');
    await tab.close();
  });

  test('a balance debit is a design: its lock or its version keeps the update the plain debit loses, with the CLI\'s verdicts', { timeout: 3 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=balance-lost-update&strategy=local-effect');
    await tab.click('[data-testid=design-tab] > summary');
    await tab.selectOption('[data-testid=design-start]', 'local-effect-balance-versioned');
    assert.equal(await tab.inputValue('[data-testid=design-check-on]'), 'balance-version-column');
    const row = (label) => tab.locator(`[data-testid=design-step][data-label=${label}]`);
    // The read takes the version with the balance; the write names it,
    // bumps it, and goes back to read at most three times when it lost.
    assert.match(await row('read-balance').locator('[data-testid=step-sql]').textContent(), /^SELECT saldo, versao FROM conta_versionada WHERE id = 1$/);
    assert.match(await row('write-balance').locator('[data-testid=step-sql]').textContent(), /SET saldo = \$saldo - \$valor, versao = versao \+ 1 WHERE id = 1 AND versao = \$versao RETURNING id$/);
    const again = await row('write-balance').locator('[data-testid=branch-again]').evaluateAll((xs) => xs.map((x) => x.value));
    assert.deepEqual(again, ['3', '']);
    const versioned = await check(tab);
    assert.deepEqual(versioned, asShown(explored('balance-version-column', 'local-effect-balance-versioned')));
    assert.equal(versioned['no-lost-update'].verdict, 'holds');
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-balance');

    // The plain debit loses an update, which it does not claim to keep.
    await tab.selectOption('[data-testid=design-start]', 'local-effect-balance');
    assert.equal(await tab.inputValue('[data-testid=design-check-on]'), 'balance-lost-update');
    const plain = await check(tab);
    assert.deepEqual(plain, asShown(explored('balance-lost-update', 'local-effect-balance')));
    assert.equal(plain['no-lost-update'].verdict, 'violated');
    assert.ok(plain['no-lost-update'].ok, 'not claimed');
    await tab.close();
  });

  test('the lease design loops back a bounded number of times, and the check refuses the loop without its bound', { timeout: 2 * RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=crash-before-capture&design=idempotency-key-lease');
    assert.deepEqual(await labels(tab), ['claim', 'capture', 'store-response', 'read-key', 'expire-key', 'retake-key']);
    // A built-in says what it is about in the page's language.
    assert.match(await tab.textContent('[data-testid=design-about]'), /^A chave do segundo post: reivindicada com o escopo/);
    const row = (label) => tab.locator(`[data-testid=design-step][data-label=${label}]`);
    // The read's two jumps back (the key vanished, the key expired) say how
    // many times they may be taken; the answer's write is fenced.
    const again = await row('read-key').locator('[data-testid=branch-again]').evaluateAll((xs) => xs.map((x) => x.value));
    assert.deepEqual(again, ['2', '', '2', '', '', '', '', '', '']);
    assert.ok(await row('store-response').locator('[data-testid=step-fenced]').isChecked());
    assert.match(await row('store-response').locator('[data-testid=step-sql]').textContent(), /AND estado = 'processing' AND lease_ate_ms = \$lease RETURNING id$/);
    assert.match(await row('read-key').locator('[data-testid=step-sql]').textContent(), /WHERE escopo = \$1 AND chave = \$2$/);
    await screenshot(tab.locator('[data-testid=design-tab]'), 'design-tab-lease');

    // Checked on race-2, the worker's verdicts are the CLI's, recovery's
    // sweep of the keys included.
    assert.equal(await tab.inputValue('[data-testid=design-check-on]'), 'race-2');
    assert.deepEqual(await check(tab), asShown(explored('race-2', 'idempotency-key-lease')));

    // Without its bound, the jump back is a loop that may not end: refused
    // beside the step it leaves, and the design does not run.
    const bound = row('read-key').locator('[data-testid=branch-again]').first();
    await bound.fill('');
    await bound.press('Enter');
    const refusal = row('read-key').locator('[data-testid=design-refusal]');
    await refusal.waitFor();
    assert.equal(await refusal.getAttribute('data-field'), 'steps[3].on[0].goto');
    assert.match(await refusal.textContent(), /claim/);
    assert.ok(await tab.isDisabled('[data-testid=design-check]'));
    // The sentence about the design is the original's now: it says so.
    assert.match(await tab.textContent('[data-testid=design-about]'), /^Editado a partir de “idempotency-key-lease”\. O original: A chave do segundo post/);
    await tab.close();
  });

  test('checking a design elsewhere, then going back to the strategy, returns to the world the attendee was on', { timeout: RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=timeout-retry&strategy=idempotency-key');
    await tab.click('[data-testid=design-tab] summary');
    await tab.selectOption('[data-testid=design-start]', 'claim-after-capture');
    await check(tab);
    // The check runs on its own world, under that world's strategy, as
    // lousa explore --design does.
    assert.equal(query(tab).get('scenario'), 'race-2');
    assert.equal(query(tab).get('strategy'), 'check-then-act');
    await tab.click('[data-testid=design-off]');
    await tab.waitForFunction(() => !new URL(location.href).searchParams.has('design'));
    assert.equal(query(tab).get('scenario'), 'timeout-retry');
    assert.equal(query(tab).get('strategy'), 'idempotency-key');
    await tab.close();
  });

  test('a design the link cannot use is named, and the strategy\'s handler runs', async () => {
    const json = JSON.stringify({ name: 'x', tables: [{ name: 'cobranca' }], steps: [{ label: 'a', do: 'capture', next: 'b' }] });
    const tab = await open(`?modo=oficina&scenario=race-2&design=${encodeURIComponent(json)}`);
    const problems = await tab.locator('[data-testid=problems] p').allTextContents();
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], /O projeto do link foi recusado, e roda o handler da estratégia: steps\[0\]\.next/);
    assert.equal(await tab.locator('[data-testid=design-on-board]').count(), 0);
    assert.equal(await tab.locator('[data-testid=sweep-design]').count(), 0);
    await tab.close();
  });

  test('a sweep with a design on the board maps the design, as lousa sweep --design does, and a cell opens under it', { timeout: RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&design=claim-after-capture');
    const [x, y, seeds] = [['network.jitter_ms', '0,50'], ['instances', '2,3'], 3];
    await tab.selectOption('[data-testid=sweep-x-field]', x[0]);
    await tab.fill('[data-testid=sweep-x-values]', x[1]);
    await tab.selectOption('[data-testid=sweep-y-field]', y[0]);
    await tab.fill('[data-testid=sweep-y-values]', y[1]);
    await tab.fill('[data-testid=sweep-seeds]', String(seeds));
    await tab.click('[data-testid=sweep-start]');
    await tab.waitForSelector('[data-testid=sweep-maps]', { timeout: RUN_TIMEOUT_MS });
    let want;
    try {
      want = JSON.parse(cli('sweep', 'race-2', '--x', x.join('='), '--y', y.join('='), '--design', 'claim-after-capture', '--seeds', String(seeds), '--format', 'json'));
    } catch (e) {
      want = JSON.parse(e.stdout);
    }
    assert.equal(want.design, 'claim-after-capture');
    const drawn = await tab.locator('[data-testid=sweep-map]').evaluateAll((maps) => maps.map((m) => ({
      caption: m.querySelector('figcaption')?.textContent ?? '',
      cells: [...m.querySelectorAll('[data-testid=sweep-cell]')].map((c) => ({
        x: Number(c.dataset.x), y: Number(c.dataset.y), runs: Number(c.dataset.runs),
        double_charged: Number(c.dataset.double), representative_seed: Number(c.dataset.seed),
      })),
    })));
    assert.equal(drawn.length, 1, 'one map: the design');
    assert.match(drawn[0].caption, /^claim-after-capture: /);
    assert.deepEqual(drawn[0].cells, want.maps[0].cells.map((c) => ({
      x: c.x, y: c.y, runs: c.runs, double_charged: c.double_charged, representative_seed: c.representative_seed,
    })));
    // A cell opens its seed's run under the same design.
    await tab.click('[data-testid=sweep-map] [data-testid=sweep-cell][data-x="1"][data-y="1"]');
    assert.equal(query(tab).get('design'), 'claim-after-capture');
    assert.match(await tab.textContent('[data-testid=design-on-board]'), /claim-after-capture/);
    await tab.close();
  });

  test('nothing failed on the way', () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });
});
