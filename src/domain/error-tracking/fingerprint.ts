import { createHash } from 'node:crypto';
import type { ParsedException, ResolvedFrame } from './exception-list.js';

/**
 * PostHog's grouping (cymbal's fingerprinting): a SHA-512 over, per exception, its type; its
 * message only when it has no stack trace; then its frames: the in-app ones (of those, only the
 * resolved ones when any frame resolved), or the first frame when none is in-app. A frame counts
 * its source file and module, then its resolved function name, or else its mangled name, line,
 * column and language. So a message that varies (ids, counts) does not split an issue that has a
 * stack, and a minified build that changes does not either once its frames resolve.
 */
export function fingerprintOf(list: ParsedException[]): string {
  const h = createHash('sha512');
  for (const e of list) {
    h.update(e.type);
    if (!e.frames) {
      h.update(e.value);
      continue;
    }
    const frames = e.frames;
    if (!frames.some((f) => f.in_app)) {
      if (frames[0]) frameInto(h, frames[0]);
      continue;
    }
    const anyResolved = frames.some((f) => f.resolved);
    for (const f of frames) if (f.in_app && (!anyResolved || f.resolved)) frameInto(h, f);
  }
  return h.digest('hex');
}

function frameInto(h: ReturnType<typeof createHash>, f: ResolvedFrame): void {
  if (f.source !== null) h.update(f.source);
  if (f.module !== null) h.update(f.module);
  if (f.resolved_name !== null) {
    h.update(f.resolved_name);
    return;
  }
  h.update(f.mangled_name);
  if (f.line !== null) h.update(String(f.line));
  if (f.column !== null) h.update(String(f.column));
  h.update(f.lang);
}
