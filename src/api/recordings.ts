import type { Config } from '../config.js';
import { type PlaylistCounter, startPlaylistCounter } from '../domain/recordings/counter-loop.js';
import type { ApiPlugin } from './context.js';
import { playlistBulkRoutes } from './playlist-bulk.js';
import { playlistRecordingRoutes } from './playlist-recordings.js';
import { playlistRoutes } from './session-recording-playlists.js';
import { recordingRoutes } from './session-recordings.js';

/** Recordings and playlists, and the background counter behind playlists' `recordings_counts`. */
export const sessionRecordingRoutes: ApiPlugin<{ config: Config }> = async (app, options) => {
  let running: PlaylistCounter | null = null;
  const counter = { nudge: () => running?.nudge(), stop: async () => running?.stop() };
  // Started once the server is ready, so that a failed start leaves no timer behind.
  app.addHook('onReady', async () => {
    running = startPlaylistCounter(options.deps, {
      intervalMs: options.config.playlistCountIntervalMs,
      maxAgeMs: options.config.playlistCountMaxAgeMs,
      batch: 50,
      onError: (err, playlist) => app.log.warn({ err, playlist: playlist.shortId }, 'playlist count failed'),
      onPassError: (err) => app.log.error({ err }, 'playlist counter pass failed'),
    });
  });
  app.addHook('onClose', async () => counter.stop());
  await app.register(playlistRoutes, { ...options, counter });
  await app.register(playlistRecordingRoutes, options);
  await app.register(playlistBulkRoutes, options);
  await app.register(recordingRoutes, options);
};
