import { describe, expect, it } from 'vitest';
import { createJsonShapeScanner } from '../../../src/gateway/http/json-shape.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createJsonShapeScanner', () => {
  it('refuses nesting past the depth limit as soon as it is reached (400)', () => {
    const scanner = createJsonShapeScanner({ maxDepth: 3, maxElements: 100 });
    expect(scanner.feed(bytes('{"a":[['))).toBeUndefined();
    expect(scanner.feed(bytes('['))).toEqual({
      status: 400,
      message: "request JSON nested deeper than 3 levels (the gateway's limit)",
    });
  });

  it('counts depth across chunks and back down as containers close', () => {
    const scanner = createJsonShapeScanner({ maxDepth: 2, maxElements: 100 });
    for (const chunk of ['[[', ']]', '[[]', ',[]]']) expect(scanner.feed(bytes(chunk))).toBeUndefined();
  });

  it('refuses more elements than the limit (413)', () => {
    // The array and the four commas between its five values.
    const scanner = createJsonShapeScanner({ maxDepth: 10, maxElements: 5 });
    expect(scanner.feed(bytes('[1,2,3,4,5]'))).toBeUndefined();
    expect(scanner.feed(bytes(',6'))?.status).toBe(413);
  });

  it('ignores brackets and commas inside strings, escaped quotes included, split across chunks', () => {
    const scanner = createJsonShapeScanner({ maxDepth: 1, maxElements: 2 });
    expect(scanner.feed(bytes('["[[[,,,\\'))).toBeUndefined();
    expect(scanner.feed(bytes('"{{{,,]"]'))).toBeUndefined();
  });
});
