import { describe, expect, it } from 'vitest';
import { createPageQuestions } from '../../../src/console/index.js';

const tool = { name: 'echo', inputSchema: { type: 'object' as const } };

describe('createPageQuestions', () => {
  it('holds a call question until the page answers it with one of its choices', async () => {
    const questions = createPageQuestions();
    let told = 0;
    questions.on(() => told++);
    const answer = questions.approver.askCall({ server: 'test', tool, args: { message: 'hi' } });
    const [waiting] = questions.pending();
    expect(waiting).toMatchObject({ kind: 'call', server: 'test', tool: 'echo', detail: { message: 'hi' } });
    expect(told).toBe(1);
    expect(questions.answer(waiting?.id ?? 0, 'allow-all')).toBe(false);
    expect(questions.answer(999, 'once')).toBe(false);
    expect(questions.answer(waiting?.id ?? 0, 'once')).toBe(true);
    expect(await answer).toBe('once');
    expect(questions.pending()).toEqual([]);
    expect(told).toBe(2);
    expect(questions.answer(waiting?.id ?? 0, 'once')).toBe(false);
  });

  it('withdraws a question whose asker gave up, and denies what waits when the console closes', async () => {
    const questions = createPageQuestions();
    const controller = new AbortController();
    const withdrawn = questions.approver.askConnect(
      { server: 'a', tools: [tool] },
      { signal: controller.signal },
    );
    const left = questions.approver.askChanged({ server: 'b', tool, args: {}, changes: ['description'] });
    expect(questions.pending().map((q) => q.kind)).toEqual(['connect', 'changed']);
    controller.abort();
    expect(await withdrawn).toBe('deny');
    questions.denyAll();
    expect(await left).toBe('deny');
    expect(questions.pending()).toEqual([]);
  });
});
