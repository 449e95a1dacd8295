import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, get } from '../../api';
import { useSession } from '../../session';
import { type Experiment, metricEvents } from './types';

/**
 * PostHog accepts metrics on events the project has never received (the code that sends them
 * may ship with the experiment), so Burrow does too; the page says so instead, since such a
 * metric reads 0 for every variant until the event arrives.
 */
export function UnseenEvents({ experiment }: { experiment: Experiment }) {
  const { team } = useSession();
  const [unseen, setUnseen] = useState<string[]>([]);
  const names = [
    ...new Set(
      [...experiment.metrics, ...experiment.metrics_secondary]
        .flatMap((m) => metricEvents(m))
        .filter((e) => e !== 'All events'),
    ),
  ].slice(0, 50);
  const key = names.join('\u0000');
  useEffect(() => {
    let live = true;
    Promise.all(
      names.map((name) =>
        get(`/api/projects/${team.id}/event_definitions/by_name/?name=${encodeURIComponent(name)}`).then(
          () => null,
          (e) => (e instanceof ApiFailure && e.status === 404 ? name : null),
        ),
      ),
    ).then((r) => {
      if (live) setUnseen(r.filter((n): n is string => n !== null));
    });
    return () => {
      live = false;
    };
  }, [team.id, key]);
  if (unseen.length === 0) return null;
  return (
    <p class="notice" role="status">
      <span>
        {unseen.length === 1 ? 'The event ' : 'The events '}
        {unseen.map((n, i) => (
          <span key={n}>
            {i > 0 && ', '}
            <code>{n}</code>
          </span>
        ))}{' '}
        {unseen.length === 1 ? 'has' : 'have'} never been seen in this project: metrics on{' '}
        {unseen.length === 1 ? 'it' : 'them'} read 0 until{' '}
        {unseen.length === 1 ? 'it arrives' : 'they arrive'}.
      </span>
    </p>
  );
}
