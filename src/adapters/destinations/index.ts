import type { Destinations } from '../../domain/batch-exports/destinations/types.js';
import type { NetworkPolicy } from '../network.js';
import { httpDestination } from './http.js';
import { noopDestination } from './noop.js';
import { postgresDestination } from './postgres.js';
import { s3Destination } from './s3.js';
import type { S3Options } from './s3-client.js';

/** `pageRows` also sizes Parquet row groups (one per page). */
export function destinations(policy: NetworkPolicy, pageRows: number, s3: S3Options): Destinations {
  return {
    Postgres: postgresDestination(policy),
    S3: s3Destination(policy, pageRows, s3),
    HTTP: httpDestination(policy),
    NoOp: noopDestination,
  };
}
