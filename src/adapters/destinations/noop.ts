import type { Destination } from '../../domain/batch-exports/destinations/types.js';

/** PostHog's NoOp destination: reads the window and writes nowhere (useful to try a schedule). */
export const noopDestination: Destination = {
  fields: { arg: { type: 'str', default: '' } },
  steps: [],
  async open() {
    return {
      async write() {
        return 0;
      },
      async close() {
        return 0;
      },
      async abort() {},
    };
  },
};
