import { originalPositionFor, sourceContentFor, TraceMap } from '@jridgewell/trace-mapping';
import type { MetaDb } from '../../store/meta/db.js';
import { type SymbolSetRecord, symbolSetByRef } from '../../store/meta/error-tracking.js';
import type { ContextLine, ParsedException, ResolvedFrame } from './exception-list.js';
import type { Symbolicate } from './ingest-step.js';
import { decodeSymbolData } from './symbol-data.js';
import { readSetBytes } from './symbol-sets.js';
import type { SymbolStorage } from './symbol-storage.js';

/**
 * Parsing a map is synchronous: maps larger than this are not parsed at ingestion (the frame says
 * so), so one exception never holds the event loop for long.
 */
export const MAX_PARSED_MAP_BYTES = 20 * 1024 * 1024;
/** Parsed maps kept per node, and their total source bytes. */
const MAX_MAPS = 32;
const MAX_CACHED_BYTES = 200 * 1024 * 1024;
/** How long a chunk id's symbol set (or its absence) is trusted. */
const REF_TTL_MS = 30_000;
const CONTEXT_LINES = 5;
/** Frames per event that carry source lines (they are stored on the event: ~3 KB each at most). */
const MAX_FRAMES_WITH_CONTEXT = 30;
const MAX_CONTEXT_LINE = 300;

interface Loaded {
  map: TraceMap | null;
  /** The minified source, to find where a mangled function is defined. */
  source: string;
  /** Mangled function name -> original name (null: not found), per map. */
  names: Map<string, string | null>;
  failure: string | null;
  bytes: number;
}

/**
 * Minified browser frames through the project's uploaded source maps (`chunk_id` → symbol set):
 * the original file, line, column, function name and the lines around it. A frame whose chunk has
 * no symbol set, or whose map is unreadable, stays as it was and says why.
 */
export function createSymbolicator(deps: {
  meta: MetaDb;
  storage: SymbolStorage;
  now: () => Date;
}): Symbolicate {
  const refs = new Map<string, { set: SymbolSetRecord | undefined; at: number }>();
  const maps = new Map<string, Loaded>();
  let cachedBytes = 0;

  async function setFor(teamId: number, ref: string) {
    const key = `${teamId}:${ref}`;
    const now = deps.now().getTime();
    const hit = refs.get(key);
    if (hit && now - hit.at < REF_TTL_MS) return hit.set;
    const set = await symbolSetByRef(deps.meta, teamId, ref);
    if (refs.size >= 10_000) refs.clear();
    refs.set(key, { set, at: now });
    return set;
  }

  async function mapFor(set: SymbolSetRecord): Promise<Loaded> {
    const key = `${set.id}:${set.contentHash ?? ''}`;
    const hit = maps.get(key);
    if (hit) {
      maps.delete(key);
      maps.set(key, hit);
      return hit;
    }
    let loaded: Loaded;
    try {
      const bytes = await readSetBytes(deps.storage, set);
      // A zstd set is measured once decompressed (what parsing and the cache hold).
      const decoded = bytes.length > MAX_PARSED_MAP_BYTES ? null : await decodeSymbolData(bytes);
      const size = decoded ? decoded.minifiedSource.length + decoded.sourcemap.length : bytes.length;
      if (!decoded || size > MAX_PARSED_MAP_BYTES) {
        loaded = { ...EMPTY(), failure: 'Source map too large to resolve at ingestion' };
      } else {
        const map = new TraceMap(decoded.sourcemap);
        loaded = { map, source: decoded.minifiedSource, names: new Map(), failure: null, bytes: size };
      }
    } catch {
      loaded = { ...EMPTY(), failure: 'Invalid source map' };
    }
    maps.set(key, loaded);
    cachedBytes += loaded.bytes;
    while (maps.size > MAX_MAPS || cachedBytes > MAX_CACHED_BYTES) {
      const [oldKey, old] = maps.entries().next().value as [string, Loaded];
      maps.delete(oldKey);
      cachedBytes -= old.bytes;
    }
    return loaded;
  }

  function resolve(frame: ResolvedFrame, loaded: Loaded, withContext: boolean): void {
    const map = loaded.map as TraceMap;
    if (frame.line === null || frame.column === null) {
      frame.resolve_failure = 'The frame has no line and column';
      return;
    }
    // Browsers' columns are 1-based, source maps' 0-based.
    const pos = originalPositionFor(map, { line: frame.line, column: Math.max(frame.column - 1, 0) });
    if (pos.source === null || pos.line === null) {
      frame.resolve_failure = 'No mapping for this position in the source map';
      return;
    }
    frame.source = pos.source;
    frame.line = pos.line;
    frame.column = pos.column + 1;
    frame.resolved_name = pos.name ?? originalName(loaded, frame.mangled_name) ?? frame.mangled_name;
    frame.resolved = true;
    frame.resolve_failure = null;
    frame.in_app = !pos.source.includes('node_modules');
    if (!withContext || !frame.in_app) return;
    const content = sourceContentFor(map, pos.source);
    if (content) frame.context = contextOf(content, pos.line);
  }

  return async (teamId: number, list: ParsedException[]) => {
    let contexts = 0;
    for (const e of list) {
      for (const frame of e.frames ?? []) {
        if (frame.platform !== 'web:javascript' || !frame.chunk_id) continue;
        const set = await setFor(teamId, frame.chunk_id);
        if (!set?.storagePtr || set.storagePtr.startsWith('pending:')) continue;
        const loaded = await mapFor(set);
        if (!loaded.map) {
          frame.resolve_failure = loaded.failure;
          continue;
        }
        resolve(frame, loaded, contexts < MAX_FRAMES_WITH_CONTEXT);
        if (frame.context) contexts++;
      }
    }
  };
}

const EMPTY = (): Loaded => ({ map: null, source: '', names: new Map(), failure: null, bytes: 0 });
const MAX_NAMES = 10_000;

/**
 * The original name of a minified function: the throw site's mapping names no function, so the
 * name is read where the mangled function is defined (`function u(`, `u=function`, `u=(`).
 */
function originalName(loaded: Loaded, mangled: string): string | null {
  if (!/^[A-Za-z_$][\w$]{0,100}$/.test(mangled) || !loaded.map) return null;
  const known = loaded.names.get(mangled);
  if (known !== undefined) return known;
  let index = -1;
  let offset = 0;
  for (const pattern of [`function ${mangled}(`, `${mangled}=function`, `${mangled}=(`]) {
    index = loaded.source.indexOf(pattern);
    if (index >= 0) {
      offset = pattern.startsWith('function ') ? 'function '.length : 0;
      break;
    }
  }
  let name: string | null = null;
  if (index >= 0) {
    const at = index + offset;
    const before = loaded.source.lastIndexOf('\n', at);
    const line = countLines(loaded.source, at);
    const pos = originalPositionFor(loaded.map, { line, column: at - before - 1 });
    name = pos.name ?? null;
  }
  if (loaded.names.size >= MAX_NAMES) loaded.names.clear();
  loaded.names.set(mangled, name);
  return name;
}

function countLines(text: string, end: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function contextOf(content: string, line: number): ResolvedFrame['context'] {
  const lines = content.split('\n', line + CONTEXT_LINES);
  const at = (n: number): ContextLine => ({
    number: n,
    line: (lines[n - 1] ?? '').slice(0, MAX_CONTEXT_LINE),
  });
  const before: ContextLine[] = [];
  for (let n = Math.max(1, line - CONTEXT_LINES); n < line; n++) before.push(at(n));
  const after: ContextLine[] = [];
  for (let n = line + 1; n <= Math.min(lines.length, line + CONTEXT_LINES); n++) after.push(at(n));
  return { before, line: at(line), after };
}
