import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPES, channelType } from '../../src/hogql/channel-type.js';
import { CASES } from './channel-cases.js';

describe('$channel_type rules', () => {
  it.each(CASES.map(([input, label]) => [JSON.stringify(input), input, label] as const))(
    '%s',
    (_name, input, label) => {
      expect(channelType(input)).toBe(label);
      expect(CHANNEL_TYPES).toContain(label);
    },
  );
});
