// Browser tests of the workshop view's sweep (workshop/src/sweep.rs, at
// ?modo=oficina): a small grid of race-2 swept in the explorer's worker
// gives every cell the counts, rate and representative seed `lousa sweep
// --format json` prints for the same grid and seeds; a click on a cell (or
// Enter on it) opens that seed's run on the board, the same run `lousa run
// <link> --seed N` makes; a bigger sweep cancels midway with the page still
// answering (the main thread's long tasks printed); a sweep past the limit
// is refused in the core's words; and no console errors or page errors on
// the way.
//
// Run: node --test tests/e2e/sweep.test.mjs   (./x test builds dist/
//      and the native CLI first: cargo build --release -p lousa-cli)
// Env: LOUSA_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//      LOUSA_CLI (default $CARGO_TARGET_DIR/release/lousa).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { caughtUp, cli, screenshot, workshopSession } from './harness.mjs';

// A small sweep takes well under a second; this only bounds a hang.
const RUN_TIMEOUT_MS = 60_000;


// The test's grid: race-2's network jitter across, its instances down, five
// seeds a cell. The jitter decides some of the runs and not others, so the
// cells' rates differ.
const GRID = { x: ['network.jitter_ms', '0,5,50'], y: ['instances', '2,3'], seeds: 5 };
const STRATEGIES = ['check-then-act', 'idempotency-key'];

describe('the workshop\'s sweep', () => {
  const { open, consoleErrors, pageErrors } = workshopSession('sweep', { ready: '[data-testid=workshop] [data-testid=sweep]' });

  const text = (tab, testid) => tab.textContent(`[data-testid=${testid}]`);
  const query = (tab) => new URL(tab.url()).searchParams;
  const board = (tab) =>
    tab.$eval('[data-testid=workshop] [data-testid=lousa]', (svg) => ({
      frame: svg.dataset.frame,
      scenario: svg.dataset.scenario,
      strategy: svg.dataset.strategy,
      markup: svg.innerHTML.replaceAll('<!---->', ''),
    }));

  /** Sets the sweep's axes and seeds as the attendee would. */
  async function setGrid(tab, grid) {
    await tab.selectOption('[data-testid=sweep-x-field]', grid.x[0]);
    await tab.fill('[data-testid=sweep-x-values]', grid.x[1]);
    await tab.selectOption('[data-testid=sweep-y-field]', grid.y[0]);
    await tab.fill('[data-testid=sweep-y-values]', grid.y[1]);
    await tab.fill('[data-testid=sweep-seeds]', String(grid.seeds));
  }

  /** Every cell as drawn: where, its figures, its seed and its link. */
  const cells = (tab) =>
    tab.locator('[data-testid=sweep-map]').evaluateAll((maps) =>
      maps.map((m) => ({
        strategy: m.dataset.strategy,
        cells: [...m.querySelectorAll('[data-testid=sweep-cell]')].map((c) => ({
          x: Number(c.dataset.x),
          y: Number(c.dataset.y),
          runs: Number(c.dataset.runs),
          double_charged: Number(c.dataset.double),
          representative_seed: Number(c.dataset.seed),
          link: c.dataset.link ?? null,
          shown: c.textContent.trim(),
          label: c.getAttribute('aria-label'),
        })),
      })),
    );

  test('a sweep of race-2 gives every cell what lousa sweep prints for the same grid and seeds; a cell opens its seed on the board', { timeout: RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act');
    // The designs default to the board's and idempotency-key.
    const ticked = await tab.locator('[data-testid=sweep-strategy]').evaluateAll((boxes) => boxes.filter((b) => b.checked).map((b) => b.value));
    assert.deepEqual(ticked, STRATEGIES);
    // The values' fields show the whole of their defaults (a list was cut
    // at 16 characters).
    const cut = await tab.locator('[data-testid$=-values]').evaluateAll((inputs) =>
      inputs.filter((i) => i.scrollWidth > i.clientWidth + 1).map((i) => i.value));
    assert.deepEqual(cut, []);
    await setGrid(tab, GRID);
    assert.equal(await text(tab, 'sweep-plan'), '6 células × 2 estratégias × 5 sementes = 60 execuções');
    const t0 = Date.now();
    await tab.click('[data-testid=sweep-start]');
    await tab.waitForSelector('[data-testid=sweep-maps]', { timeout: RUN_TIMEOUT_MS });
    const wall = Date.now() - t0;
    const elapsed = Number(await tab.getAttribute('[data-testid=sweep-status]', 'data-elapsed-ms'));
    console.log(`sweep of ${GRID.x.join('=')} x ${GRID.y.join('=')}, ${GRID.seeds} seeds, 2 designs (60 runs): ${elapsed} ms in the page (worker start included), ${wall} ms to the heatmaps as the test saw it`);
    assert.match(await text(tab, 'sweep-status'), /^Varredura de race-2, 5 sementes por célula a partir da semente 0: 60 execuções em [\d,]+ s\./);

    const want = JSON.parse(cli(
      'sweep', 'race-2', '--x', GRID.x.join('='), '--y', GRID.y.join('='),
      '--strategies', STRATEGIES.join(','), '--seeds', String(GRID.seeds), '--format', 'json',
    ));
    const drawn = await cells(tab);
    assert.deepEqual(drawn.map((m) => m.strategy), want.maps.map((m) => m.strategy));
    for (const [i, map] of want.maps.entries()) {
      assert.deepEqual(
        drawn[i].cells.map(({ shown, label, ...c }) => c),
        map.cells.map(({ refused, ...c }) => c),
        `${map.strategy}: every cell as lousa sweep counts it`,
      );
      assert.deepEqual(drawn[i].cells.map((c) => c.shown), map.cells.map((c) => `${c.double_charged}/${c.runs}`));
    }
    // One cell's rate, read as the attendee reads it: jitter 5 ms on two
    // instances charges twice in some seeds and not others.
    const hot = want.maps[0].cells.find((c) => c.x === 1 && c.y === 0);
    assert.ok(hot.double_charged > 0 && hot.double_charged < hot.runs, `a cell between none and all: ${JSON.stringify(hot)}`);
    const hotCell = tab.locator('[data-testid=sweep-map][data-strategy=check-then-act] [data-testid=sweep-cell][data-x="1"][data-y="0"]');
    const percent = Math.round((hot.double_charged * 100) / hot.runs);
    assert.equal(
      await hotCell.getAttribute('aria-label'),
      `Variação da rede por ida (ms) 5, Instâncias do serviço 2: ${hot.double_charged} de ${hot.runs} execuções cobraram duas vezes (${percent}%). Abre na lousa a semente ${hot.representative_seed}.`,
    );
    // Its colour grows with its rate: the hotter cell is more opaque.
    const opacity = (x, y) => tab.getAttribute(`[data-testid=sweep-map][data-strategy=check-then-act] [data-testid=sweep-cell][data-x="${x}"][data-y="${y}"] rect`, 'fill-opacity');
    const all = want.maps[0].cells.find((c) => c.double_charged === c.runs);
    assert.ok(Number(await opacity(all.x, all.y)) > Number(await opacity(hot.x, hot.y)));
    await screenshot(tab.locator('[data-testid=sweep]'), 'workshop-sweep');

    // A click opens the cell's representative seed: its scenario, its design
    // and the choices its run made, which `lousa run --seed` makes too.
    await hotCell.click();
    assert.equal(await hotCell.getAttribute('class'), 'sweep-cell opened');
    // The board it opened is in sight, not above the heatmaps out of view.
    await tab.waitForFunction(() => {
      const r = document.querySelector('[data-testid=workshop-board-wrap]').getBoundingClientRect();
      return r.top >= -1 && r.top < innerHeight / 2;
    });
    assert.equal(query(tab).get('scenario'), hot.link);
    assert.equal(query(tab).get('strategy'), 'check-then-act');
    const seeded = JSON.parse(cli('run', hot.link, '--strategy', 'check-then-act', '--seed', String(hot.representative_seed), '--format', 'json'));
    const replayed = JSON.parse(cli('run', hot.link, '--strategy', 'check-then-act', '--schedule', query(tab).get('schedule'), '--format', 'json'));
    assert.equal(replayed.schedule, seeded.schedule, 'the board holds the choices of that seed\'s run');
    assert.deepEqual(replayed.events, seeded.events);
    assert.deepEqual(replayed.summary, seeded.summary);
    // The representative seed of a cell that charged twice charges twice.
    assert.equal(await tab.getAttribute('[data-testid=ending]', 'data-captures'), '2');
    // The board stands at the run's first choice point; stepping walks the seeded run.
    assert.match(await text(tab, 'schedule'), new RegExp(`^${seeded.schedule.replaceAll('-', '\\-')}`));

    // Enter on a focused cell of the other map opens it under that design.
    const keyCell = tab.locator('[data-testid=sweep-map][data-strategy=idempotency-key] [data-testid=sweep-cell][data-x="2"][data-y="1"]');
    await keyCell.focus();
    await tab.keyboard.press('Enter');
    const keyWant = want.maps[1].cells.find((c) => c.x === 2 && c.y === 1);
    assert.equal(query(tab).get('strategy'), 'idempotency-key');
    assert.equal(query(tab).get('scenario'), 'race-2;instances=3;network.jitter_ms=50');
    const keyRun = JSON.parse(cli('run', keyWant.link, '--seed', String(keyWant.representative_seed), '--format', 'json'));
    const keyBoard = JSON.parse(cli('run', query(tab).get('scenario'), '--strategy', 'idempotency-key', '--schedule', query(tab).get('schedule'), '--format', 'json'));
    assert.deepEqual(keyBoard.events, keyRun.events);
    const shown = await board(tab);
    assert.equal(shown.strategy, 'idempotency-key');
    // The heatmaps stay for the next cell.
    assert.equal(await tab.locator('[data-testid=sweep-cell]').count(), 12);
    await tab.close();
  });

  test('a bigger sweep shows its progress and cancels midway, and the page answers (long tasks printed)', { timeout: RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act');
    const big = { x: ['clients.0.timeout_ms', '500..8000:16'], y: ['network.jitter_ms', '0..15:16'], seeds: 150 };
    await setGrid(tab, big);
    assert.equal(await text(tab, 'sweep-plan'), '256 células × 2 estratégias × 150 sementes = 76.800 execuções');
    const t0 = await tab.evaluate(() => performance.now());
    await tab.click('[data-testid=sweep-start]');
    assert.equal(await tab.isDisabled('[data-testid=sweep-start]'), true);
    await tab.waitForFunction(() => Number(document.querySelector('[data-testid=sweep-progress]')?.value) > 2000, null, { timeout: RUN_TIMEOUT_MS });
    assert.equal(await tab.getAttribute('[data-testid=sweep-progress]', 'max'), '76800');
    const progress = await text(tab, 'sweep-status');
    assert.match(progress, /^Varrendo… [\d.]+ de 76\.800 execuções · [\d.]+ execuções\/s$/);
    await tab.click('[data-testid=sweep-cancel]');
    assert.equal(await text(tab, 'sweep-status'), 'Varredura cancelada.');
    assert.equal(await tab.locator('[data-testid=sweep-maps]').count(), 0);
    assert.equal(await tab.isDisabled('[data-testid=sweep-cancel]'), true);
    const t1 = await tab.evaluate(() => performance.now());
    // Still answering: a pick redraws the board.
    const before = await board(tab);
    await tab.click('[data-testid=pick][data-choice="1"]');
    assert.notDeepEqual(await board(tab), before);
    // Printed, not asserted, as the scheduler's test does: a task's length
    // is the machine's load as much as the page's.
    const long = await tab.evaluate(([from, to]) => window.__longTasks.filter((t) => t.start >= from && t.start <= to), [t0, t1]);
    const longest = Math.max(0, ...long.map((t) => t.duration));
    console.log(`workshop main thread while the worker swept for ${Math.round(t1 - t0)} ms: ${long.length} long tasks, longest ${Math.round(longest)} ms; at the cancel: ${progress}`);
    // Nothing of the cancelled sweep arrives later: whatever the worker had
    // posted before it was terminated is delivered by now.
    await caughtUp(tab);
    assert.equal(await text(tab, 'sweep-status'), 'Varredura cancelada.');
    await tab.close();
  });

  test('in English, a sweep past the limit is named before it starts and refused in the core\'s words; no console errors', { timeout: RUN_TIMEOUT_MS }, async () => {
    const tab = await open('?modo=oficina&scenario=timeout-retry&lang=en');
    assert.equal(await text(tab, 'sweep-plan'), '32 cells × 2 strategies × 10 seeds = 640 runs');
    await tab.fill('[data-testid=sweep-seeds]', '5000');
    assert.equal(await text(tab, 'sweep-plan'), '32 cells × 2 strategies × 5,000 seeds = 320,000 runs: a sweep makes from 1 to 100,000 runs');
    await tab.click('[data-testid=sweep-start]');
    await tab.waitForSelector('[data-testid=sweep-status][role=alert]', { timeout: RUN_TIMEOUT_MS });
    assert.equal(
      await text(tab, 'sweep-status'),
      'The sweep was refused: seeds: 32 cells x 2 designs x 5000 seeds = 320000 runs, outside 1..=100000',
    );
    await tab.fill('[data-testid=sweep-x-values]', '1..9:17');
    assert.equal(await text(tab, 'sweep-plan'), 'Axis refused, x: 17 values are outside 1..=16');
    await tab.close();
    // The Portuguese page says the same in Portuguese, the limits as they are;
    // fixed, the refusal gives way to the plan.
    const pt = await open('?modo=oficina&scenario=timeout-retry');
    await pt.fill('[data-testid=sweep-x-values]', '1..9:17');
    assert.equal(await text(pt, 'sweep-plan'), 'Eixo recusado, x: 17 valores estão fora de 1 a 16');
    await pt.fill('[data-testid=sweep-x-values]', '1..9:3');
    assert.doesNotMatch(await text(pt, 'sweep-plan'), /recusado/);
    await pt.close();
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(pageErrors, []);
  });
});
