export { bootCore } from './boot.ts';
export {
  bootstrapAdminCredential,
  issueCallerCredential,
  listCallerCredentials,
  replaceCallerCredential,
  revokeCallerCredentials,
  rotateCallerCredential,
} from './callers/service.ts';
export { ensureSampleProduct } from './catalog/service.ts';
export { openDatabase } from './database.ts';
export { migrate } from './db/orm.ts';
export { type CoreEnv, type KeyEnv, loadCoreEnv, loadKeyEnv } from './env.ts';
export { sweepExpiredRecords } from './idempotency/sweep.ts';
export { sendFollower } from './jobs/boss.ts';
export { keyProviderOf } from './keys/configured.ts';
export { createPkcs11Kek, destroyPkcs11Kek, type Pkcs11Settings } from './keys/pkcs11.ts';
export { fileKeyProvider, KeyConfigurationError, type KeyProvider } from './keys/provider.ts';
export {
  reencryptRun,
  referencesPerKey,
  requestReencryption,
} from './keys/reencrypt.ts';
export { openVault } from './keys/ring.ts';
export { type KeyView, keyStatus, type RotationView } from './keys/status.ts';
export { refusedIban, sandboxPayoutBank } from './marketplace/payout-bank.ts';
export { upsertMerchant } from './merchants/service.ts';
export { coreRegistry } from './metrics.ts';
export { linkPartner, type PartnerLink, partnerLinks, unlinkPartner } from './partners/links.ts';
export { recoverAttempts } from './payments/recovery.ts';
export {
  addProcessorAccount,
  disableProcessorAccount,
  listProcessorAccounts,
  routeProcessors,
} from './processors/accounts/service.ts';
export type { AuthorizationRequest, Processor } from './processors/processor.ts';
export {
  createSandboxProcessor,
  type SandboxAuthorization,
  type SandboxProcessor,
} from './processors/sandbox/processor.ts';
export { type RetentionSweep, sweepRetention } from './retention/sweep.ts';
export { type AppRouter, appRouter, createCaller } from './router.ts';
export { type AuditVerdict, verifyAuditTrail } from './security/audit/log.ts';
export { type AuditOrigin, operatorOrigin } from './security/audit/trail.ts';
export { accountFingerprintInput, bindings, type CardVault, createCardVault } from './security/card-vault.ts';
export type { ScryptCost } from './security/passwords.ts';
export { type CoreOptions, type RunningCore, startCore } from './server.ts';
export {
  configureWalletKeys,
  parseGoogleRootKeys,
  parsePemCertificates,
  type WalletTrust,
  walletKeysView,
} from './wallets/keys.ts';
