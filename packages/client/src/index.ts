export {
  type AppRouter,
  callOptions,
  createLocalPaywireClient,
  createPaywireClient,
  type LocalPaywireClientOptions,
  type PaywireCallOptions,
  type PaywireClient,
  type PaywireClientOptions,
  type RouterInputs,
  type RouterOutputs,
} from './client.ts';
