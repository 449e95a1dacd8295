import { StepFailure, type TestStep } from '../../domain/batch-exports/destinations/types.js';
import { assertHostAllowed, BlockedHostError, type NetworkPolicy } from '../network.js';
import { parseUrl } from './http.js';
import { destinationRequest } from './http-request.js';

function url(raw: unknown): URL {
  try {
    return parseUrl(raw);
  } catch {
    throw new StepFailure(`Invalid destination URL: ${String(raw)}`);
  }
}

/** The URL must be allowed and answer; the token must be one the destination knows (asked via /flags). */
export function httpSteps(policy: NetworkPolicy): TestStep[] {
  return [
    {
      name: 'Check destination URL',
      description: 'Ensure the URL is valid, allowed, and that the destination answers.',
      needs: ['url'],
      async run(config, signal) {
        const target = url(config.url);
        try {
          await assertHostAllowed(policy, target.hostname);
          await destinationRequest(policy, new URL('/_health', target), { method: 'GET', signal });
        } catch (error) {
          if (error instanceof BlockedHostError) throw new StepFailure(error.message);
          throw new StepFailure(`Could not reach '${target.origin}': ${(error as Error).message}`);
        }
      },
    },
    {
      name: 'Verify project API token',
      description: 'Ensure the destination accepts the project API token.',
      needs: ['url', 'token'],
      async run(config, signal) {
        const target = url(config.url);
        await assertHostAllowed(policy, target.hostname).catch((e: Error) => {
          throw new StepFailure(e.message);
        });
        const flags = new URL(
          'flags/?v=2',
          new URL('.', new URL(target.pathname.replace(/batch\/?$/, ''), target)),
        );
        const res = await destinationRequest(policy, flags, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: config.token, distinct_id: 'burrow-batch-export-test' }),
          signal,
        }).catch((e: Error) => {
          throw e instanceof BlockedHostError ? new StepFailure(e.message) : e;
        });
        if (res.status === 401)
          throw new StepFailure('The destination does not accept this project API token');
        if (res.status < 200 || res.status >= 300)
          throw new StepFailure(`The destination answered ${res.status}`);
      },
    },
  ];
}
