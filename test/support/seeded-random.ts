/**
 * A small seeded generator (mulberry32) for property tests, so a failure can be replayed with its seed:
 * each call gives an integer from 0 to `below` - 1.
 */
export function seededRandom(seed: number): (below: number) => number {
  let state = seed;
  return (below: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}
