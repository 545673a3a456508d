import { DomainError, type EvidenceMediaType } from '@paywire/contracts';
import type { Mode } from '../context.ts';

/** The signatures a representment file may start with: PDF, TIFF (either byte order), PNG, JPEG. */
const signatures: readonly { mediaType: EvidenceMediaType; magic: readonly number[] }[] = [
  { mediaType: 'application/pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { mediaType: 'image/tiff', magic: [0x49, 0x49, 0x2a, 0x00] }, // II*\0
  { mediaType: 'image/tiff', magic: [0x4d, 0x4d, 0x00, 0x2a] }, // MM\0*
  { mediaType: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
];

/** The original's limits: 9 MB in production, 0.2 MB in its sandbox (docs/chargebacks.md, Representment). */
export const evidenceLimitBytes: Readonly<Record<Mode, number>> = {
  live: 9 * 1024 * 1024,
  sandbox: 200 * 1024,
};

const fileProperty = 'representment_file';

/**
 * The file's media type, read from its first bytes: a name or a declared type proves nothing. Refuses an
 * empty or oversized file (413) and any other content (415), naming the form field.
 */
export function evidenceMediaType(content: Buffer, mode: Mode): EvidenceMediaType {
  const limit = evidenceLimitBytes[mode];
  if (content.length > limit) {
    throw new DomainError(
      'REQUEST_ENTITY_TOO_LARGE',
      `${fileProperty}: must be at most ${limit} bytes in ${mode} mode`,
      { name: fileProperty, messageValue: String(content.length) },
    );
  }
  const found = signatures.find(({ magic }) => magic.every((byte, index) => content[index] === byte));
  if (!found) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `${fileProperty}: must be a PDF, TIFF, PNG or JPEG file`,
      {
        name: fileProperty,
      },
    );
  }
  return found.mediaType;
}
