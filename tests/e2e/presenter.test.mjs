// Browser tests of the workshop view's presenter mode (workshop/src/
// presenter.rs, at ?modo=oficina&apresentar=1): the board and its narration
// fill the screen with the side panel hidden; N and P walk the whole run;
// at each decisive step the page asks the question `lousa run --prompts`
// prints, a key answers it, the verdict names the right answer and the
// board moves to the frame that shows it; going back asks again; B blanks
// the screen, F asks for full screen, Escape leaves; the button enters and
// leaves too, and the scheduler's stepping stays at its choice point.
//
// Run: node --test tests/e2e/presenter.test.mjs   (./x test builds dist/
//      and the native CLI first: cargo build --release -p lousa-cli)
// Env: LOUSA_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//      LOUSA_CLI (default $CARGO_TARGET_DIR/release/lousa).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliPrompts as prompts, layoutSettled, screenshot, workshopSession } from './harness.mjs';

// A projector's screen: wide, and not tall.
const VIEWPORT = { width: 1280, height: 720 };
const STORY = '?modo=oficina&scenario=timeout-retry&strategy=check-then-act';

describe('the workshop\'s presenter mode', () => {
  const { open, consoleErrors, pageErrors } = workshopSession('presenter', { viewport: VIEWPORT });

  const text = (tab, testid) => tab.textContent(`[data-testid=${testid}]`);
  const frame = async (tab) => Number(await tab.getAttribute('[data-testid=workshop] [data-testid=lousa]', 'data-frame'));
  const presenting = (tab) => tab.getAttribute('[data-testid=workshop]', 'data-presenting');
  const shown = (tab, testid) => tab.locator(`[data-testid=${testid}]`).isVisible();
  const query = (tab) => new URL(tab.url()).searchParams;
  /** Presses N until a question shows: the frame it waits at. */
  async function toQuestion(tab) {
    for (let i = 0; !(await shown(tab, 'prompt')); i += 1) {
      assert.ok(i < 200, 'a question before the run ends');
      await tab.keyboard.press('n');
    }
    return frame(tab);
  }
  /** The question on screen: its text and its choices' texts. */
  const asked = async (tab) => ({
    question: await text(tab, 'prompt-question'),
    choices: await tab.locator('[data-testid=prompt-choice]').allTextContents(),
  });
  /** A CLI prompt as the page shows it: each choice after its key. */
  const asShown = (p) => ({ question: p.question, choices: p.choices.map((c, i) => `${i + 1} ${c}`) });

  test('the link opens the board alone, filling the screen, at the run\'s first frame', async () => {
    const tab = await open(`${STORY}&apresentar=1`);
    assert.equal(await presenting(tab), 'true');
    assert.equal(await frame(tab), 0);
    // The side panel and the settings are hidden; the bar and the narration show.
    for (const testid of ['turn-kind', 'schedule', 'explore', 'scenario', 'step-counter', 'sql', 'design-tab', 'editor']) {
      assert.equal(await shown(tab, testid), false, `${testid} hidden`);
    }
    assert.ok(await shown(tab, 'presenter-bar'));
    assert.match(await text(tab, 'presenter-counter'), /^Passo 0 de \d+$/);
    // The drawing, scaled into its box, is most of the screen's height, in
    // type a room can read.
    const big = await tab.$eval('[data-testid=workshop] [data-testid=lousa]', (svg) => {
      const [, , w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
      const box = svg.getBoundingClientRect();
      const scale = Math.min(box.width / w, box.height / h);
      return { height: h * scale, scale };
    });
    assert.ok(big.height > 0.6 * VIEWPORT.height, `the board is ${big.height.toFixed(0)} px of ${VIEWPORT.height}`);
    const narration = await tab.$eval('[data-testid=narration]', (p) => parseFloat(getComputedStyle(p).fontSize));
    assert.ok(narration >= 28, `narration at ${narration} px`);
    // The board's 12 px text comes out half as large again, or more.
    assert.ok(big.scale * 12 >= 18, `board text at ${(big.scale * 12).toFixed(1)} px`);
    await tab.close();
  });

  test('N stops at each question lousa run --prompts prints; a key answers, the verdict names the answer and the board reveals it', async () => {
    const tab = await open(`${STORY}&apresentar=1`);
    const [charged, first, answer] = prompts('timeout-retry', 'check-then-act', 'pt');
    assert.ok(charged && first && answer, 'three prompts from the CLI');
    // The first question waits before the retry is sent.
    assert.equal(await toQuestion(tab), charged.ask);
    assert.deepEqual(await asked(tab), asShown(charged));
    assert.equal(await tab.getAttribute('[data-testid=prompt]', 'data-ask-at'), String(charged.ask));
    await screenshot(tab, 'workshop-presenter-question');
    // Asked, N waits for an answer, and a key past the choices is none.
    await tab.keyboard.press('n');
    await tab.keyboard.press('3');
    assert.equal(await frame(tab), charged.ask);
    assert.ok(await shown(tab, 'prompt'));
    // A wrong answer by key: noted, not judged yet, since the board has not
    // shown the answer.
    const wrong = charged.answer === 0 ? 1 : 0;
    await tab.keyboard.press(String(wrong + 1));
    assert.equal(
      await text(tab, 'noted'),
      `Resposta anotada: “${charged.choices[wrong]}”. O passo ${charged.reveal} mostra se você acertou.`,
    );
    assert.equal(await tab.locator('[data-testid=verdict]').count(), 0);
    // Its answer is the second capture, after the retry's first statement:
    // that question waits on the way and is asked there first.
    assert.ok(first.ask > charged.ask && first.ask < charged.reveal, 'the CLI\'s questions nest');
    assert.equal(await frame(tab), first.ask);
    assert.deepEqual(await asked(tab), asShown(first));
    // The right answer: the board moves to the frame that shows it.
    await tab.keyboard.press(String(first.answer + 1));
    assert.equal(await text(tab, 'verdict'), `Acertou! A resposta é “${first.choices[first.answer]}”: veja o passo ${first.reveal}.`);
    assert.equal(await tab.getAttribute('[data-testid=verdict]', 'data-right'), 'true');
    assert.equal(await frame(tab), first.reveal);
    assert.equal(await shown(tab, 'prompt'), false);
    // P goes back before it: the verdict goes, and N asks it again.
    await tab.keyboard.press('p');
    assert.equal(await frame(tab), first.ask);
    assert.equal(await tab.locator('[data-testid=verdict]').count(), 0);
    await tab.keyboard.press('ArrowRight');
    assert.equal(await frame(tab), first.ask);
    assert.deepEqual(await asked(tab), asShown(first));
    await tab.click(`[data-testid=prompt-choice][data-choice="${first.answer}"]`);
    assert.equal(await frame(tab), first.reveal);
    // On: the answered question is not asked again, the third is, at its
    // own frame, before the board shows the second capture.
    assert.equal(await toQuestion(tab), answer.ask);
    assert.deepEqual(await asked(tab), asShown(answer));
    await tab.keyboard.press(String(answer.answer + 1));
    assert.equal(await frame(tab), answer.reveal);
    // That move passed the second capture: the first answer is judged now,
    // wrong, beside the third's.
    assert.match(
      await text(tab, 'verdict'),
      new RegExp(`^Não foi dessa vez: a resposta é “${charged.choices[charged.answer]}”, e não “${charged.choices[wrong]}”`),
    );
    // To the end of the run, past the scheduler's choice point: nothing more is asked.
    const last = Number((await text(tab, 'presenter-counter')).match(/de (\d+)/)[1]);
    while ((await frame(tab)) < last) {
      await tab.keyboard.press('n');
      assert.equal(await shown(tab, 'prompt'), false);
    }
    await tab.keyboard.press('n');
    assert.equal(await frame(tab), last);
    await tab.close();
  });

  test('B blanks the screen and a key brings it back; F asks for full screen; Escape leaves', async (t) => {
    const tab = await open(`${STORY}&apresentar=1`);
    for (let i = 0; i < 3; i += 1) await tab.keyboard.press('n');
    const at = await frame(tab);
    await tab.keyboard.press('b');
    assert.ok(await shown(tab, 'blank'));
    const cover = await tab.locator('[data-testid=blank]').boundingBox();
    assert.deepEqual(cover, { x: 0, y: 0, ...VIEWPORT }, 'black over the whole screen');
    assert.equal(await tab.$eval('[data-testid=blank]', (b) => getComputedStyle(b).backgroundColor), 'rgb(0, 0, 0)');
    // Any key brings the board back, and only that: N does not also step.
    await tab.keyboard.press('n');
    assert.equal(await shown(tab, 'blank'), false);
    assert.equal(await frame(tab), at);
    await tab.keyboard.press('b');
    assert.ok(await shown(tab, 'blank'));
    await tab.keyboard.press('b');
    assert.equal(await shown(tab, 'blank'), false);
    // A modifier held: not the presenter's key.
    await tab.keyboard.press('Alt+n');
    await tab.keyboard.press('Shift+N');
    assert.equal(await frame(tab), at);
    // F asks for full screen; the browser may grant it or refuse, and a
    // refusal is no error (the console is checked below).
    const fullscreen = () => tab.evaluate(() => document.fullscreenElement?.tagName ?? null);
    await tab.keyboard.press('f');
    const granted = await tab
      .waitForFunction(() => document.fullscreenElement !== null, null, { timeout: 2000 })
      .then(() => true, () => false);
    if (granted) {
      assert.equal(await fullscreen(), 'HTML');
      await tab.keyboard.press('f');
      await tab.waitForFunction(() => document.fullscreenElement === null, null, { timeout: 2000 });
      // In full screen, the board still fills it.
      assert.equal(await presenting(tab), 'true');
    } else {
      t.diagnostic('full screen was refused');
    }
    assert.equal(await fullscreen(), null);
    // Escape leaves: the side panel is back, the URL drops the parameter.
    await tab.keyboard.press('Escape');
    assert.equal(await presenting(tab), 'false');
    assert.ok(await shown(tab, 'turn-kind'));
    assert.equal(await shown(tab, 'presenter-bar'), false);
    assert.equal(query(tab).get('apresentar'), null);
    await tab.close();
  });

  test('the button enters at the first frame and leaves; the scheduler\'s stepping stays at its choice point', async () => {
    const tab = await open('?modo=oficina&scenario=race-2&strategy=check-then-act&lang=en');
    const point = await frame(tab);
    // The scheduler steps no further than its choice point.
    await tab.keyboard.press('ArrowRight');
    assert.equal(await frame(tab), point);
    assert.ok((await tab.locator('[data-testid=pick-badge]').count()) >= 2);
    // Where each badge sits on the board: its choice and its offset from the board's corner.
    const badges = () => tab.locator('[data-testid=pick-badge]').evaluateAll((list) => {
      const board = document.querySelector('[data-testid=workshop] [data-testid=lousa]').getBoundingClientRect();
      return list.map((b) => {
        const r = b.getBoundingClientRect();
        return [b.dataset.choice, Math.round(r.left - board.left), Math.round(r.top - board.top)];
      });
    });
    const placed = await badges();
    await tab.click('[data-testid=present]');
    assert.equal(await presenting(tab), 'true');
    assert.equal(query(tab).get('apresentar'), '1');
    assert.equal(await frame(tab), 0);
    assert.equal(await tab.locator('[data-testid=pick-badge]').count(), 0, 'no scheduler badges for the room');
    assert.match(await text(tab, 'presenter-counter'), /^Step 0 of \d+$/);
    // Presenter mode walks on past the choice point, first come, first served,
    // answering its questions in English.
    const ps = prompts('race-2', 'check-then-act', 'en');
    let answered = 0;
    while ((await frame(tab)) <= point) {
      if (await shown(tab, 'prompt')) {
        assert.deepEqual(await asked(tab), asShown(ps[answered]));
        await tab.keyboard.press(String(ps[answered].answer + 1));
        assert.match(await text(tab, 'verdict'), /^Right! The answer is “/);
        answered += 1;
      } else await tab.keyboard.press('ArrowRight');
    }
    assert.ok((await frame(tab)) > point);
    // Leaving from past the choice point puts the board back at it, badges and all.
    await tab.click('[data-testid=presenter-leave]');
    assert.equal(await presenting(tab), 'false');
    assert.equal(await frame(tab), point);
    assert.ok((await tab.locator('[data-testid=pick-badge]').count()) >= 2);
    // ...each on the box it moves, where it was before presenting.
    await layoutSettled(tab, ['[data-testid=workshop] [data-testid=lousa]', '[data-testid=pick-badge]']);
    assert.deepEqual(await badges(), placed);
    assert.equal(query(tab).get('apresentar'), null);
    await tab.close();
  });

  test('no console errors or page errors on any presenter page', () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(pageErrors, []);
  });
});
