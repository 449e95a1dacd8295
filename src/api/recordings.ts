import type { Config } from '../config.js';
import type { PlaylistCounter } from '../domain/recordings/counter-loop.js';
import type { ApiPlugin } from './context.js';
import { playlistBulkRoutes } from './playlist-bulk.js';
import { playlistRecordingRoutes } from './playlist-recordings.js';
import { playlistRoutes } from './session-recording-playlists.js';
import { recordingRoutes } from './session-recordings.js';

/** Recordings and playlists; `counter` is the background loop behind playlists' `recordings_counts`. */
export const sessionRecordingRoutes: ApiPlugin<{
  config: Config;
  counter: Pick<PlaylistCounter, 'nudge'>;
}> = async (app, options) => {
  await app.register(playlistRoutes, options);
  await app.register(playlistRecordingRoutes, options);
  await app.register(playlistBulkRoutes, options);
  await app.register(recordingRoutes, options);
};
