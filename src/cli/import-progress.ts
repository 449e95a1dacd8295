/**
 * What `burrow import` says while it runs: a bar with the total, the rate and the time left when
 * stderr is a terminal, a plain line every few seconds otherwise (logs, CI), and always a final
 * line with the same counts as the printed summary.
 */
export interface ProgressOptions {
  /** Rows in the file (counted before sending), or null when unknown. */
  total: number | null;
  tty: boolean;
  write: (text: string) => void;
  now?: () => number;
  /** Terminal width for the bar. */
  columns?: number;
  /** Between plain lines; default 2 s. */
  plainEveryMs?: number;
}

export interface Progress {
  /** Rows handled so far: imported and rejected. */
  update(imported: number, rejected: number): void;
  finish(summary: { rows: number; imported: number; rejected: number; seconds: number; rate: number }): void;
}

const group = (n: number) => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const every = options.tty ? 100 : (options.plainEveryMs ?? 2000);
  let last = Number.NEGATIVE_INFINITY;
  let drawn = false;

  const describe = (imported: number, rejected: number) => {
    const done = imported + rejected;
    const seconds = (now() - started) / 1000;
    const rate = done / Math.max(seconds, 0.001);
    const total = options.total;
    const left = total !== null && rate > 0 ? (total - done) / rate : Number.NaN;
    return { done, rate, total, left };
  };

  return {
    update(imported, rejected) {
      const t = now();
      if (t - last < every) return;
      last = t;
      const { done, rate, total, left } = describe(imported, rejected);
      const of = total !== null ? `/${group(total)}` : '';
      const rejects = rejected > 0 ? `, ${group(rejected)} rejected` : '';
      if (!options.tty) {
        const pct = total ? ` (${Math.floor((100 * done) / total)}%)` : '';
        options.write(
          `import: ${group(done)}${of} rows${pct}${rejects}, ${group(rate)} rows/s${total !== null ? `, ${duration(left)} left` : ''}\n`,
        );
        return;
      }
      const fraction = total ? Math.min(1, done / total) : 0;
      const width = Math.max(10, Math.min(30, (options.columns ?? 80) - 60));
      const filled = Math.round(fraction * width);
      const bar = total
        ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}% `
        : '';
      const eta = total !== null ? ` · ${duration(left)} left` : '';
      options.write(`\r\x1b[2K${bar}${group(done)}${of} rows${rejects} · ${group(rate)} rows/s${eta}`);
      drawn = true;
    },
    finish(summary) {
      const line = `imported ${group(summary.imported)} events, rejected ${group(summary.rejected)} (${group(summary.rows)} rows in ${summary.seconds.toFixed(2)} s, ${group(summary.rate)} events/s)\n`;
      options.write(options.tty && drawn ? `\r\x1b[2K${line}` : line);
    },
  };
}
