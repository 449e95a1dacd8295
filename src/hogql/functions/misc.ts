import { CI, type FunctionTable, table } from './define.js';

export const MISC: FunctionTable = table({
  isFinite: [1, 1],
  isInfinite: [1, 1],
  ifNotFinite: [2, 2],
  isNaN: [1, 1],
  bar: [3, 4],
  transform: [3, 4],
  formatReadableDecimalSize: [1, 1],
  formatReadableSize: [1, 1],
  formatReadableQuantity: [1, 1],
  formatReadableTimeDelta: [1, 3],
  least: [2, null, CI],
  greatest: [2, null, CI],
  indexHint: [1, 1],
  // IP addresses ($ip)
  isIPv4String: [1, 1],
  isIPv6String: [1, 1],
  isIPAddressInRange: [2, 2],
  IPv4NumToString: [1, 1],
  IPv4StringToNumOrNull: [1, 1],
  IPv6StringToNumOrNull: [1, 1],
  toIPv4OrNull: [1, 1],
  toIPv6OrNull: [1, 1],
});

export const GEO: FunctionTable = table({
  greatCircleDistance: [4, 4],
  geoDistance: [4, 4],
  greatCircleAngle: [4, 4],
  pointInEllipses: [6, null],
  pointInPolygon: [2, null],
  geohashEncode: [2, 3],
  geohashDecode: [1, 1],
  geohashesInBox: [5, 5],
});

/** Vector norms and distances. */
export const DISTANCES: FunctionTable = table({
  L1Norm: [1, 1],
  L2Norm: [1, 1],
  LinfNorm: [1, 1],
  LpNorm: [2, 2],
  L1Distance: [2, 2],
  L2Distance: [2, 2],
  LinfDistance: [2, 2],
  LpDistance: [3, 3],
  L1Normalize: [1, 1],
  L2Normalize: [1, 1],
  LinfNormalize: [1, 1],
  LpNormalize: [2, 2],
  cosineDistance: [2, 2],
});
