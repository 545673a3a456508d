/**
 * The V8 heap settings core and facade run with, wherever they run: `npm start`, the benchmarks, and the image
 * (infra/Containerfile sets the same NODE_OPTIONS, which the Kubernetes manifests inherit). Young-generation
 * semi-spaces of 2 MB instead of V8's 16, and an old generation capped at 128 MB, keep each process under
 * 200 MB resident after the sale benchmark at 256 connections (README, Benchmarks); V8's defaults let a
 * process grow to 330-430 MB there, and a cap of 160 MB still let core reach 220 MB. Core's live heap is
 * about 35 MB idle. NODE_OPTIONS set in the environment replaces them.
 */
export const serviceNodeOptions = '--max-semi-space-size=2 --max-old-space-size=128';
