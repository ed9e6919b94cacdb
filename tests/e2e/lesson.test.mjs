// The lesson played end to end in the browser, as an attendee plays it:
// from the workshop's start, the first challenge's link; each challenge
// solved by picks (clicking the scheduler's alternatives), by edits (typing
// into the scenario editor) or by the count, with the solutions the core
// finds (fixtures/lesson.json, kept by core/tests/lesson.rs); the page sees
// each goal met as it happens, says why, and leads on to the next; the
// progress outlives a reload and can be cleared.
//
// Run: node --test tests/e2e/lesson.test.mjs   (./x test builds dist/ first)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, screenshot, workshopSession } from './harness.mjs';

const LESSON = JSON.parse(
  fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'lesson.json'), 'utf8'),
);
const RUN_TIMEOUT_MS = 60_000;

/** A schedule's text as its choices: `0-1x3` is 0, 1, 1, 1 (choices in base 36). */
const choicesOf = (text) =>
  text.split('-').flatMap((part) => {
    const [choice, times = '1'] = part.split('x');
    return Array(Number(times)).fill(parseInt(choice, 36));
  });

describe('the lesson', () => {
  const session = workshopSession('lesson');
  const { open, consoleErrors, pageErrors } = session;
  const challenge = (tab) => tab.getAttribute('[data-testid=challenge]', 'data-challenge');
  const met = (tab) => tab.getAttribute('[data-testid=challenge]', 'data-met');
  const progress = (tab) => tab.textContent('[data-testid=lesson-progress]');

  /** Solves the challenge on `tab` as an attendee would, with `entry`'s solution. */
  async function solve(tab, entry) {
    if (entry.solution.schedule) {
      for (const choice of choicesOf(entry.solution.schedule).slice(0, entry.picks)) {
        const before = await tab.textContent('[data-testid=schedule]');
        await tab.click(`[data-testid=pick][data-choice="${choice}"]`);
        await tab.waitForFunction((b) => document.querySelector('[data-testid=schedule]').textContent !== b, before);
      }
    } else if (entry.solution.fields) {
      await tab.click('[data-testid=editor] summary');
      for (const [field, value] of entry.solution.fields) {
        const input = tab.locator(`[data-field="${field}"] :is(input, select, textarea)`);
        if ((await input.getAttribute('type')) === 'checkbox') await input.setChecked(value === 'true');
        else if (await input.evaluate((e) => e.tagName === 'SELECT')) await input.selectOption(JSON.parse(value));
        else {
          await input.fill(value);
          await input.press('Enter');
        }
      }
      await tab.waitForFunction((want) => new URL(location.href).searchParams.get('scenario') === want, entry.solution.scenario);
    } else {
      await tab.click('[data-testid=explore]');
      await tab.waitForSelector('[data-testid=outcomes]', { timeout: RUN_TIMEOUT_MS });
    }
  }

  test('every challenge, from the workshop\'s start, solved in turn (times printed)', { timeout: RUN_TIMEOUT_MS * LESSON.length }, async () => {
    const tab = await open('?modo=oficina');
    assert.equal(await tab.locator('[data-testid=challenge]').count(), 0, 'no challenge until one is opened');
    assert.equal(await tab.locator('[data-testid=lesson-item]').count(), LESSON.length);
    assert.equal(await progress(tab), `0 de ${LESSON.length} resolvidos`);
    await tab.click(`[data-testid=lesson-item][data-challenge="${LESSON[0].id}"] a`);
    const times = [];
    for (const [i, entry] of LESSON.entries()) {
      await tab.waitForSelector(`[data-testid=challenge][data-challenge="${entry.id}"]`);
      assert.equal(await met(tab), 'false', `${entry.id} is not met at its start`);
      assert.equal(await tab.locator('[data-testid=challenge-success]').count(), 0);
      const url = new URL(tab.url());
      assert.equal(url.searchParams.get('scenario'), entry.scenario);
      assert.equal(url.searchParams.get('strategy'), entry.strategy);
      // Hints come one at a time.
      await tab.click('[data-testid=hint-button]');
      assert.equal(await tab.locator('[data-testid=hint]').count(), 1);
      const start = Date.now();
      await solve(tab, entry);
      await tab.waitForSelector('[data-testid=challenge][data-met=true]', { timeout: RUN_TIMEOUT_MS });
      times.push(`${entry.id} (${entry.how}): ${Date.now() - start} ms`);
      assert.ok((await tab.textContent('[data-testid=challenge-success]')).startsWith('Resolvido!'));
      assert.equal(await tab.getAttribute(`[data-testid=lesson-item][data-challenge="${entry.id}"]`, 'data-solved'), 'true');
      assert.equal(await progress(tab), `${i + 1} de ${LESSON.length} resolvidos`);
      if (i === 0) await screenshot(tab, 'workshop-challenge-solved');
      // Solved by picks at a choice point: the panel says the board has not
      // shown it yet, and playing out the rest shows it; solved stays solved.
      if (entry.how === 'picks' && (await tab.locator('[data-testid=ending]').count()) === 0) {
        assert.match(await tab.textContent('[data-testid=not-shown-yet]'), /ainda está parada numa escolha/);
        await tab.click('[data-testid=play-out]');
        await tab.waitForSelector('[data-testid=ending]');
        assert.equal(await tab.locator('[data-testid=challenge-success]').count(), 1, `${entry.id} stays solved once played out`);
        assert.equal(await tab.locator('[data-testid=not-shown-yet]').count(), 0, 'nothing left to show');
        // The two picks challenges whose goal is a double charge.
        if (['reenvio-na-outra-instancia', 'corrida-no-minimo'].includes(entry.id)) {
          assert.match(await tab.getAttribute('[data-testid=ending]', 'data-captures'), /2/, `${entry.id}: the ending shows it`);
        }
      }
      if (i + 1 < LESSON.length) await tab.click('[data-testid=next-challenge]');
      else assert.match(await tab.textContent('[data-testid=lesson-done]'), /Lição concluída/);
    }
    console.log(`lesson, solve to success seen:\n  ${times.join('\n  ')}`);
    // The progress outlives a reload, and clears.
    await tab.reload();
    await tab.waitForSelector('[data-testid=lesson-progress]');
    assert.equal(await progress(tab), `${LESSON.length} de ${LESSON.length} resolvidos`);
    await tab.click('[data-testid=lesson-list] summary');
    await tab.locator('[data-testid=lesson-reset]').click();
    assert.equal(await progress(tab), `0 de ${LESSON.length} resolvidos`);
    await tab.reload();
    await tab.waitForSelector('[data-testid=lesson-progress]');
    assert.equal(await progress(tab), `0 de ${LESSON.length} resolvidos`);
    await tab.close();
  });

  test('a challenge counts only on its own design', async () => {
    // Under the naive design the same edit charges twice as well (lousa run
    // says so): only the design check keeps the challenge unmet.
    const edit = LESSON.find((e) => e.id === 'o-timeout-que-dispara');
    const naive = JSON.parse(cli('run', edit.solution.scenario, '--strategy', 'naive', '--format', 'json'));
    assert.ok(naive.summary.double_charged_intents.length > 0, 'naive charges twice too');
    const tab = await open(`?modo=oficina&desafio=${edit.id}`);
    await tab.selectOption('[data-testid=strategy]', 'naive');
    await tab.waitForFunction(() => new URL(location.href).searchParams.get('strategy') === 'naive');
    assert.equal(await challenge(tab), edit.id, 'the challenge stays open');
    await solve(tab, edit);
    assert.ok(Number(await tab.getAttribute('[data-testid=workshop] [data-testid=acquirer]', 'data-captures')) > 1, 'charged twice');
    assert.equal(await met(tab), 'false');
    // Back on the challenge's design, the same edit meets it.
    await tab.selectOption('[data-testid=strategy]', edit.strategy);
    await tab.waitForSelector('[data-testid=challenge][data-met=true]');
    await tab.close();
  });

  test('an edit counts only as its task allows, and the panel says why not', async () => {
    // Retries dropped on the way charge once even with a key minted per
    // retry: the goal's outcome without the lesson's fix.
    const tab = await open('?modo=oficina&desafio=chave-por-tentativa');
    await tab.click('[data-testid=editor] summary');
    const faults = tab.locator('[data-field="faults"] textarea');
    await faults.fill('[{"kind":"drop-request","attempt":2},{"kind":"drop-request","attempt":3},{"kind":"drop-request","attempt":4}]');
    await faults.press('Tab');
    await tab.waitForSelector('[data-testid=edit-misfit]');
    assert.match(await tab.textContent('[data-testid=edit-misfit]'), /sem falhas injetadas/);
    assert.equal(await tab.getAttribute('[data-testid=workshop] [data-testid=acquirer]', 'data-captures'), '1', 'the run charges once');
    assert.equal(await met(tab), 'false', 'but the challenge is not met');
    await faults.fill('[]');
    await faults.press('Tab');
    await tab.waitForSelector('[data-testid=edit-misfit]', { state: 'detached' });
    // The fix the task asks for, in the editor already open.
    await tab.locator('[data-field="clients.0.new_key_per_retry"] input').setChecked(false);
    await tab.waitForSelector('[data-testid=challenge][data-met=true]');
    await tab.close();

    // Solved stays solved when later picks undo it, and the panel says the
    // board now shows another run (schedule 1 charges twice, 1-1 once).
    const first = await open(`?modo=oficina&desafio=${LESSON[0].id}`);
    await first.click('[data-testid=pick][data-choice="1"]');
    await first.waitForSelector('[data-testid=challenge][data-met=true]');
    assert.equal(await first.locator('[data-testid=moved-on]').count(), 0);
    await first.click('[data-testid=pick][data-choice="1"]');
    await first.waitForSelector('[data-testid=challenge][data-met=false]');
    assert.match(await first.textContent('[data-testid=moved-on]'), /não é a que o resolveu/);
    await first.close();

    // The last challenge solved first: the lesson is not done, and the
    // panel offers the first challenge left.
    const last = LESSON[LESSON.length - 1];
    const end = await open(`?modo=oficina&desafio=${last.id}`);
    await solve(end, last);
    await end.waitForSelector('[data-testid=challenge][data-met=true]', { timeout: RUN_TIMEOUT_MS });
    assert.equal(await end.locator('[data-testid=lesson-done]').count(), 0);
    const left = new URLSearchParams(await end.getAttribute('[data-testid=next-challenge]', 'href')).get('desafio');
    const unsolved = await end.locator('[data-testid=lesson-item][data-solved=false]').evaluateAll((items) => items.map((li) => li.dataset.challenge));
    assert.equal(left, unsolved[0], 'the first challenge left, in lesson order');
    await end.close();
  });

  test('a challenge reads in English, with its own words', async () => {
    const [entry] = LESSON;
    const pt = await open(`?modo=oficina&desafio=${entry.id}`);
    const en = await open(`?modo=oficina&desafio=${entry.id}&lang=en`);
    const title = (tab) => tab.textContent('[data-testid=challenge] h2');
    assert.notEqual(await title(pt), await title(en));
    assert.match(await en.textContent('[data-testid=challenge]'), /Challenge 1 of/);
    await pt.close();
    await en.close();
  });

  test('no console errors and no uncaught errors', () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(pageErrors, []);
  });
});
