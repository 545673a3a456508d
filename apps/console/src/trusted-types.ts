/**
 * The page requires Trusted Types for its script sinks (docs/console.md, Content-Security-Policy). ZRender,
 * ECharts' renderer, clears a chart's element with `innerHTML = ''`; this default policy lets exactly that
 * through and refuses any other markup, so no string ever becomes HTML.
 */
interface TrustedTypesFactory {
  createPolicy(name: string, rules: { createHTML(input: string): string }): unknown;
}

const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
factory?.createPolicy('default', {
  createHTML(input) {
    if (input === '') return input;
    throw new TypeError('the console writes no HTML from strings');
  },
});
