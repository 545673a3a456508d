/**
 * The V8 heap settings core and facade run with, wherever they run: `npm start`, the benchmarks, and the image
 * (infra/Containerfile sets the same NODE_OPTIONS, which the Kubernetes manifests inherit). Young-generation
 * semi-spaces of 8 MB instead of V8's default, and an old generation capped at 128 MB: measured on the sale
 * benchmark at 256 connections (docs/benchmarks.md, "Young generation"), 2 MB semi-spaces kept the process
 * smaller but cost about a third more CPU per sale in scavenges; V8's default cost the least CPU and let the
 * single process reach 342 MB; 8 MB costs within a few percent of the default and stays near 225 MB.
 * NODE_OPTIONS set in the environment replaces them.
 */
export const serviceNodeOptions = '--max-semi-space-size=8 --max-old-space-size=128';
