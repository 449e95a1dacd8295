import { useEffect, useState } from 'preact/hooks';
import { get } from '../../api';
import { ListTable } from '../../components/list-table';
import { formatDateTime, zoneLabel } from '../../components/time';
import { useSession } from '../../session';

/** How often an open destination page reads its logs and counts again. */
const REFRESH_MS = 3000;

/** A counter that moves every few seconds while the page is visible, to reload what it keys. */
export function useTick(ms = REFRESH_MS) {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => {
      if (!document.hidden) setTick((n) => n + 1);
    }, ms);
    return () => clearInterval(t);
  }, [ms]);
  return tick;
}

/** Loads `path` again on every tick, keeping the last answer shown while the next is on its way. */
function usePolled<T>(path: string, tick: number) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    get<T>(path).then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return { data, error };
}

const METRIC_LABELS: Record<string, string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  filtered: 'Filtered',
  masked: 'Masked',
  disabled_permanently: 'Disabled',
};

/** Delivery counts per day over the last 7 days (`metrics/`, by metric name), and their totals. */
export function DeliveryCounts({ base, tick }: { base: string; tick: number }) {
  const { data, error } = usePolled<{ labels: string[]; series: Array<{ name: string; values: number[] }> }>(
    `${base}metrics/?interval=day&breakdown_by=name&after=-7d`,
    tick,
  );
  const series = data?.series ?? [];
  const byName = new Map(series.map((s) => [s.name, s.values]));
  // Succeeded and failed always; the others only when they happened.
  const names = [
    'succeeded',
    'failed',
    ...series.map((s) => s.name).filter((n) => n !== 'succeeded' && n !== 'failed'),
  ];
  const total = (n: string) => (byName.get(n) ?? []).reduce((a, b) => a + b, 0);
  const days = data ? data.labels.map((label, i) => ({ label, i })).reverse() : null;
  return (
    <section class="card" aria-labelledby="delivery-heading">
      <h2 id="delivery-heading">Deliveries</h2>
      {data && (
        <p class="delivery-totals">
          Last 7 days: <strong>{total('succeeded')}</strong> succeeded, <strong>{total('failed')}</strong>{' '}
          failed
        </p>
      )}
      <div class="table-scroll">
        <ListTable
          items={days}
          error={error}
          loading={<div class="skeleton" style={{ height: '80px' }} />}
          columns={['Day (UTC)', ...names.map((n) => METRIC_LABELS[n] ?? n)]}
          rowKey={(d) => d.label}
          tableClass="events numeric"
          cells={(d) => (
            <>
              <td>{d.label}</td>
              {names.map((n) => (
                <td key={n}>{byName.get(n)?.[d.i] ?? 0}</td>
              ))}
            </>
          )}
        />
      </div>
    </section>
  );
}

interface LogLine {
  instance_id: string;
  timestamp: string;
  level: string;
  message: string;
}

/** The destination's newest log lines (`logs/`), filtered by level. */
export function Logs({ base, tick }: { base: string; tick: number }) {
  const { team } = useSession();
  const [level, setLevel] = useState('');
  const { data, error } = usePolled<{ results: LogLine[] }>(
    `${base}logs/?limit=100${level ? `&level=${level}` : ''}`,
    tick,
  );
  return (
    <section class="card" aria-labelledby="logs-heading">
      <div class="row wrap" style={{ justifyContent: 'space-between', marginTop: 0 }}>
        <h2 id="logs-heading">Logs</h2>
        <label>
          Level
          <select value={level} onChange={(e) => setLevel(e.currentTarget.value)}>
            <option value="">All</option>
            <option value="ERROR">Errors</option>
            <option value="WARN,ERROR">Warnings and errors</option>
            <option value="INFO,WARN,ERROR">Info and above</option>
          </select>
        </label>
      </div>
      <div class="table-scroll">
        <ListTable
          items={data?.results ?? null}
          error={error}
          loading={<div class="skeleton" style={{ height: '80px' }} />}
          empty="No log lines yet: they appear as events are delivered."
          columns={['Level', `Time (${zoneLabel(team.timezone)})`, 'Message']}
          rowKey={(l) => `${l.timestamp}-${l.instance_id}-${l.message}`}
          tableClass="events logs stack"
          cells={(l) => (
            <>
              <td>
                <span class={`level level-${l.level.toLowerCase()}`}>{l.level}</span>
              </td>
              <td>{formatDateTime(l.timestamp, team.timezone)}</td>
              <td class="message">{l.message}</td>
            </>
          )}
        />
      </div>
    </section>
  );
}
