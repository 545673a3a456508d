import type { AdyenCredentials } from '@paywire/contracts';
import { bindings, type CardVault } from '../../security/card-vault.ts';

/** Whose credentials a sealing holds: opened for another account (a copied column), it is refused. */
interface Owner {
  merchantId: number;
  name: string;
}

export function sealCredentials(vault: CardVault, owner: Owner, credentials: AdyenCredentials): string {
  return vault.seal(
    JSON.stringify({ merchantId: owner.merchantId, account: owner.name, credentials }),
    bindings.account(owner.merchantId, owner.name),
  );
}

export function openCredentials(
  vault: CardVault,
  account: Owner & { sealedCredentials?: string | null },
): AdyenCredentials | null {
  if (!account.sealedCredentials) return null;
  const sealed = JSON.parse(
    vault.open(account.sealedCredentials, bindings.account(account.merchantId, account.name)),
  ) as {
    merchantId: number;
    account: string;
    credentials: AdyenCredentials;
  };
  if (sealed.merchantId !== account.merchantId || sealed.account !== account.name)
    throw new Error(`processor account ${account.name}: its credentials were sealed for another account`);
  return sealed.credentials;
}
