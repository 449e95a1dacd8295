import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type FileHandle, open, readdir, readFile, rename, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * A node-local append-only journal of opaque records, in segment files. Capture appends a group of
 * records with one `writev` and one `fdatasync` and only then answers; a background writer
 * inserts them into the engine and records how far it got in a checkpoint. Positions are byte
 * offsets in the journal as a whole (segment files are named by the position they start at), so
 * they only grow and a position alone says which segment holds it.
 *
 * A record on disk: magic (u32), payload length (u32), CRC-32 of the payload (u32), payload. A
 * record cut short by a crash (its group's fsync never returned, so nobody was answered for it)
 * fails its length or CRC check and is cut off at the next open.
 */

const MAGIC = 0x424a4c31; // 'BJL1'
const HEADER_BYTES = 12;
/** A new segment is started past this size, so inserted ones can be deleted whole. */
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
const SEGMENT = /^(\d{20})\.seg$/;
const CHECKPOINT = 'checkpoint.json';
const LOCK = 'lock';

export interface JournalRecord {
  /** Position of the record's first byte, and just past its last. */
  start: number;
  end: number;
  payload: Buffer;
}

/**
 * How far the engine holds the journal: every record before `inserted` is in. `partial`: the batch
 * from `inserted` to `partial.end` was being inserted and these of its tables are already in.
 */
export interface Checkpoint {
  inserted: number;
  partial?: { end: number; done: string[] } | undefined;
}

export interface CaptureJournal {
  readonly dir: string;
  /** Just past the last record appended and synced. */
  head(): number;
  /**
   * Appends records, each given as the chunks of its payload, with one write and one fdatasync;
   * resolves with each record's end position once they are durable.
   */
  append(records: Buffer[][]): Promise<number[]>;
  /** Every complete record from `position` (a record boundary) to the head. */
  readFrom(position: number): Promise<JournalRecord[]>;
  checkpoint(): Checkpoint;
  /** Writes the checkpoint (a new file renamed over the old: never half written). */
  saveCheckpoint(checkpoint: Checkpoint, sync: boolean): Promise<void>;
  /** Deletes segments whose every record lies before `position`. */
  release(position: number): Promise<void>;
  close(): Promise<void>;
}

/** Journals open in this process: two nodes on one directory would interleave their records. */
const openDirs = new Set<string>();

const segmentName = (start: number) => `${String(start).padStart(20, '0')}.seg`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory for this process; a lock left by a dead process (kill -9) is taken over. */
function lock(dir: string): void {
  if (openDirs.has(dir)) throw new Error(`the capture journal ${dir} is already open in this process`);
  const path = join(dir, LOCK);
  if (existsSync(path)) {
    const pid = Number(readFileSync(path, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new Error(`the capture journal ${dir} is in use by process ${pid} (CAPTURE_JOURNAL_DIR)`);
    }
  }
  writeFileSync(path, `${process.pid}\n`);
  openDirs.add(dir);
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Complete records of one segment's bytes; `valid` is where the last complete one ends. */
function parse(bytes: Buffer, base: number, from: number): { records: JournalRecord[]; valid: number } {
  const records: JournalRecord[] = [];
  let offset = Math.max(0, from - base);
  while (offset + HEADER_BYTES <= bytes.length) {
    if (bytes.readUInt32LE(offset) !== MAGIC) break;
    const length = bytes.readUInt32LE(offset + 4);
    const end = offset + HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(offset + HEADER_BYTES, end);
    if (crc32(payload) !== bytes.readUInt32LE(offset + 8)) break;
    records.push({ start: base + offset, end: base + end, payload });
    offset = end;
  }
  return { records, valid: offset };
}

export async function openCaptureJournal(
  dir: string,
  options: { segmentBytes?: number } = {},
): Promise<CaptureJournal> {
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  mkdirSync(dir, { recursive: true });
  lock(dir);
  let checkpoint: Checkpoint = { inserted: 0 };
  try {
    checkpoint = JSON.parse(await readFile(join(dir, CHECKPOINT), 'utf8')) as Checkpoint;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      openDirs.delete(dir);
      throw error;
    }
  }
  const starts = await segmentStarts(dir);
  /** Segment files, by start: kept here so that each insert's release needs no directory listing. */
  const segments = [...starts];

  // The tail of the last segment: cut off a record a crash left half written.
  let head = checkpoint.inserted;
  const last = starts.at(-1);
  if (last !== undefined) {
    const path = join(dir, segmentName(last));
    const bytes = await readFile(path);
    const { valid } = parse(bytes, last, last);
    if (valid < bytes.length) await truncate(path, valid);
    head = Math.max(head, last + valid);
  }
  let current: { start: number; handle: FileHandle; size: number } | undefined;
  let closed = false;
  let broken: Error | undefined;

  async function currentSegment() {
    if (current && current.size < segmentBytes) return current;
    if (current) await current.handle.close();
    const start = head;
    const handle = await open(join(dir, segmentName(start)), 'a');
    // The new file's name must survive a crash as its records do.
    await syncDir(dir);
    if (segments.at(-1) !== start) segments.push(start);
    current = { start, handle, size: (await handle.stat()).size };
    if (current.size !== 0) head = start + current.size;
    return current;
  }
  // Appends continue in the last segment if it has room.
  if (last !== undefined && head - last < segmentBytes) {
    const handle = await open(join(dir, segmentName(last)), 'a');
    current = { start: last, handle, size: head - last };
  }

  return {
    dir,
    head: () => head,
    async append(records) {
      if (closed) throw new Error('the capture journal is closed');
      const segment = await currentSegment();
      const buffers: Buffer[] = [];
      const ends: number[] = [];
      let total = 0;
      for (const chunks of records) {
        let length = 0;
        let crc = 0;
        for (const chunk of chunks) {
          length += chunk.length;
          crc = crc32(chunk, crc);
        }
        const header = Buffer.allocUnsafe(HEADER_BYTES);
        header.writeUInt32LE(MAGIC, 0);
        header.writeUInt32LE(length, 4);
        header.writeUInt32LE(crc, 8);
        buffers.push(header, ...chunks.filter((c) => c.length > 0));
        total += HEADER_BYTES + length;
        ends.push(head + total);
      }
      if (broken) throw broken;
      try {
        let written = 0;
        while (written < total) {
          const { bytesWritten } = await segment.handle.writev(
            written === 0 ? buffers : rest(buffers, written),
          );
          if (bytesWritten <= 0) throw new Error('the capture journal write made no progress');
          written += bytesWritten;
        }
        await segment.handle.datasync();
      } catch (error) {
        // Nobody is answered for this group; its bytes must not sit before the next group's, or a
        // replay would stop at them. If even that fails, no further append is accepted.
        await segment.handle.truncate(segment.size).catch((e: unknown) => {
          broken = e instanceof Error ? e : new Error(String(e));
        });
        throw error;
      }
      segment.size += total;
      head += total;
      return ends;
    },
    async readFrom(position) {
      const records: JournalRecord[] = [];
      const names = await segmentStarts(dir);
      for (let i = 0; i < names.length; i++) {
        const start = names[i] as number;
        const next = names[i + 1];
        if (next !== undefined && next <= position) continue;
        const bytes = await readFile(join(dir, segmentName(start)));
        const parsed = parse(bytes, start, Math.max(start, position));
        if (parsed.valid < bytes.length && next !== undefined) {
          throw new Error(`the capture journal segment ${segmentName(start)} is damaged at ${parsed.valid}`);
        }
        records.push(...parsed.records);
      }
      return records;
    },
    checkpoint: () => checkpoint,
    async saveCheckpoint(next, sync) {
      const tmp = join(dir, `${CHECKPOINT}.tmp`);
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(JSON.stringify(next));
        if (sync) await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(tmp, join(dir, CHECKPOINT));
      checkpoint = next;
    },
    async release(position) {
      // A segment goes once the next one starts at or before `position`; never the one appended to.
      while (segments.length > 1 && (segments[1] as number) <= position && segments[0] !== current?.start) {
        await rm(join(dir, segmentName(segments[0] as number)), { force: true });
        segments.shift();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await current?.handle.close();
      // Everything inserted: the segments can go (the next start continues from the checkpoint).
      if (checkpoint.inserted >= head) {
        for (const name of await readdir(dir)) {
          if (SEGMENT.test(name)) await rm(join(dir, name), { force: true });
        }
      }
      await rm(join(dir, LOCK), { force: true });
      openDirs.delete(dir);
    },
  };
}

async function segmentStarts(dir: string): Promise<number[]> {
  return (await readdir(dir))
    .map((name) => SEGMENT.exec(name)?.[1])
    .filter((s): s is string => s !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The buffers past the first `skip` bytes (after a short write). */
function rest(buffers: Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  let left = skip;
  for (const b of buffers) {
    if (left >= b.length) {
      left -= b.length;
      continue;
    }
    out.push(left > 0 ? b.subarray(left) : b);
    left = 0;
  }
  return out;
}
