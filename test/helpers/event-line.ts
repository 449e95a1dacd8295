import { randomUUID } from 'node:crypto';
import { eventLine } from '../../src/domain/ingest/rows.js';

/**
 * One `events` row of project 7 encoded exactly as capture encodes it (`eventLine`), without its
 * newline: what the destinations matcher reads.
 */
export const encodedEvent = (
  event: string,
  properties: Record<string, unknown> = {},
  personProperties: Record<string, unknown> = {},
  distinctId = 'd',
) =>
  eventLine(
    7,
    { uuid: randomUUID(), event, distinctId, properties, timestamp: '2026-11-29T10:00:00.000Z' },
    {
      personId: randomUUID(),
      personProperties,
      personCreatedAt: '2026-11-29T10:00:00.000Z',
      groups: ['', '', '', '', ''],
    },
    '2026-11-29 10:00:00.000',
  ).trimEnd();
