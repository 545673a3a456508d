import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DomainError } from '@paywire/contracts';

/** What a shopper's browser needs validated: the event's validationURL and the merchant's page. */
export interface SessionRequest {
  validationUrl: string;
  domainName: string;
  displayName: string;
}

/** Apple's merchant validation, as Paywire (the platform integrator) asks it for its merchants. */
export interface ApplePayGateway {
  /** Apple's opaque merchant session object, as the JSON text Apple answered. */
  startSession(request: SessionRequest): Promise<string>;
}

export interface ApplePayGatewaySettings {
  /** Paywire's merchant identifier at Apple, under which its merchants' domains are registered. */
  merchantIdentifier?: string | undefined;
  /** The merchant identity certificate and its private key (PEM): the TLS client certificate Apple requires. */
  identityCertificate?: string | undefined;
  identityKey?: string | undefined;
  /**
   * Where every session request goes instead of the event's validationURL (tests: a fake gateway). The
   * validationURL is still checked to be Apple's.
   */
  url?: string | undefined;
  /** How long Apple may take to answer (default 10 000 ms). */
  timeoutMs?: number;
}

/**
 * Apple's payment session hosts, as Apple publishes them for merchant validation (production, its pods and
 * China's, and the sandbox's `-cert` hosts). A validationURL elsewhere is refused: Paywire never posts its
 * identity certificate to a host a caller chose.
 */
const appleGatewayHost =
  /^(?:cn-)?apple-pay-gateway(?:-(?:cert|nc-pod\d|pr-pod\d|sh-pod\d|tj-pod\d))?\.apple\.com$/;
const appleSessionPath = /^\/paymentservices\/(?:startSession|paymentSession)$/;

const failed = (description: string) => new DomainError('APPLE_PAY_SESSION_FAILED', description);

/** Whether a validationURL is one of Apple's session endpoints. */
export function isAppleValidationUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (
    url.protocol === 'https:' &&
    url.port === '' &&
    url.username === '' &&
    appleGatewayHost.test(url.hostname) &&
    appleSessionPath.test(url.pathname)
  );
}

/** The largest session object Apple answers is a few kilobytes; more is not Apple. */
const maxAnswerBytes = 64 * 1024;

/**
 * Apple's merchant validation over HTTPS with the identity certificate: POST the validationURL with
 * `{merchantIdentifier, displayName, initiative: "web", initiativeContext}` and read the session object.
 * Apple refusing (any status but 200, or no JSON object): APPLE_PAY_SESSION_FAILED; no answer at all: 503.
 */
export function applePayGateway(settings: ApplePayGatewaySettings): ApplePayGateway {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  return {
    startSession({ validationUrl, domainName, displayName }) {
      if (!isAppleValidationUrl(validationUrl))
        throw new DomainError(
          'VALIDATION_GENERAL_FAILURE',
          'validationUrl: is not an Apple Pay session URL',
          {
            name: 'validationUrl',
            messageValue: validationUrl,
          },
        );
      const { merchantIdentifier } = settings;
      if (!merchantIdentifier)
        throw failed('Apple Pay sessions are not configured on this Paywire (APPLE_PAY_MERCHANT_IDENTIFIER)');
      const target = new URL(settings.url ?? validationUrl);
      const body = JSON.stringify({
        merchantIdentifier,
        displayName,
        initiative: 'web',
        initiativeContext: domainName,
      });
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<string>((resolve, reject) => {
        const outgoing = send(
          target,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            timeout: timeoutMs,
            ...(settings.identityCertificate && settings.identityKey
              ? { cert: settings.identityCertificate, key: settings.identityKey }
              : {}),
          },
          (answer) => {
            const chunks: Buffer[] = [];
            let size = 0;
            answer.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxAnswerBytes) answer.destroy(failed('Apple Pay answered more than a session'));
              else chunks.push(chunk);
            });
            answer.on('error', reject);
            answer.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (answer.statusCode !== 200)
                return reject(failed(`Apple Pay refused the session (HTTP ${answer.statusCode})`));
              try {
                const session: unknown = JSON.parse(text);
                if (typeof session === 'object' && session !== null && !Array.isArray(session))
                  return resolve(text);
              } catch {}
              reject(failed('Apple Pay answered no session object'));
            });
          },
        );
        const unavailable = (cause: unknown) => {
          const error = new DomainError('SERVICE_UNAVAILABLE', 'Apple Pay did not answer; retry later');
          error.cause = cause;
          reject(error);
        };
        outgoing.on('timeout', () => outgoing.destroy(new Error('Apple Pay session request timed out')));
        outgoing.on('error', (error) => (error instanceof DomainError ? reject(error) : unavailable(error)));
        outgoing.end(body);
      });
    },
  };
}

declare module '../context.ts' {
  interface CoreServices {
    /** Apple's merchant validation, for Apple Pay on the web sessions (wallets/onboarding.ts). */
    applePay: ApplePayGateway;
  }
}
