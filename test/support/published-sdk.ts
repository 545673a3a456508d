import { BlueSnapConfig, BlueSnapGateway } from 'bluesnap';
import type { Stack } from './stack.ts';

/**
 * The original's published Node SDK (bluesnap@0.3.4), unchanged, pointed at a running stack: the SDK only
 * knows the original's two hosts, and a config whose base URL is ours is all it takes.
 */
class PaywireConfig extends BlueSnapConfig {
  readonly origin: string;
  constructor(origin: string, username: string, password: string) {
    super('Sandbox', username, password, '3.0');
    this.origin = origin;
  }
  override getBaseUrl(): string {
    return this.origin;
  }
}

/** The SDK's gateway acting as the stack's merchant. */
export function publishedSdk(stack: Stack): BlueSnapGateway {
  const { username, password } = stack.merchant;
  return new BlueSnapGateway(new PaywireConfig(new URL(stack.baseUrl).origin, username, password));
}
