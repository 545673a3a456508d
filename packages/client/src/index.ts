export {
  type AppRouter,
  callOptions,
  createPaywireClient,
  type PaywireCallOptions,
  type PaywireClient,
  type PaywireClientOptions,
  type RouterInputs,
  type RouterOutputs,
} from './client.ts';
