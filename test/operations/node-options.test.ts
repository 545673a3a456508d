import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceNodeOptions } from '../../infra/node-options.ts';

describe('the heap settings core and facade run with', () => {
  it('are the same in the image as in npm start and the benchmarks', () => {
    const containerfile = readFileSync(new URL('../../infra/Containerfile', import.meta.url), 'utf8');
    expect(/NODE_OPTIONS="([^"]*)"/.exec(containerfile)?.[1]).toBe(serviceNodeOptions);
  });
});
