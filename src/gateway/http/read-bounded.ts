import type { IncomingMessage } from 'node:http';
import { refusal } from './guard.js';
import { createJsonShapeScanner, type JsonShapeLimits } from './json-shape.js';

/**
 * The body, or the refusal once it is over `max` bytes (413) or its JSON's shape
 * is over `limits` (400/413), scanned as it arrives, so a nesting bomb is refused
 * after its first bytes and never buffered or parsed. The rest is drained
 * unread, so the refusal still gets out.
 */
export function readBounded(
  req: IncomingMessage,
  max: number,
  limits: JsonShapeLimits,
): Promise<Uint8Array | Response> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => refusal(413, `request body over ${max} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      req.resume();
      return resolve(tooLarge());
    }
    const shape = createJsonShapeScanner(limits);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = (response: Response) => {
      refused = true;
      chunks.length = 0;
      resolve(response);
    };
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > max) return refuse(tooLarge());
      const violation = shape.feed(chunk);
      if (violation) return refuse(refusal(violation.status, violation.message));
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    req.once('error', reject);
  });
}
