import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * card-rules.js, the browser's copy of the card rules, is generated from contracts' cards.ts (brands by
 * prefix, Luhn, CVV length): the hosted fields page cannot import TypeScript and must not keep rules of its
 * own. card-rules.test.ts fails when the committed file is stale. Regenerate with
 *   node apps/facade/src/hosted-fields/generate-card-rules.ts
 */

const require = createRequire(import.meta.url);
export const cardRulesPath = join(import.meta.dirname, 'card-rules.js');
const cardsSourcePath = join(dirname(require.resolve('@paywire/contracts')), 'cards.ts');

export function generateCardRules(): string {
  const source = readFileSync(cardsSourcePath, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
    },
  });
  // A browser module served on its own: it may import nothing (cards.ts is self-contained, and must stay so).
  if (/^\s*(?:import\b|export\s+(?:\*|\{[^}]*\}\s*from\b))/m.test(outputText)) {
    throw new Error('packages/contracts/src/cards.ts must not import anything: the browser serves it alone');
  }
  const header =
    '// GENERATED from packages/contracts/src/cards.ts by generate-card-rules.ts; do not edit.\n' +
    '// Regenerate: node apps/facade/src/hosted-fields/generate-card-rules.ts\n';
  const biome = join(dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${cardRulesPath}`], {
    input: header + outputText,
    encoding: 'utf8',
  });
}

if (import.meta.main) {
  writeFileSync(cardRulesPath, generateCardRules());
  process.stdout.write(`wrote ${cardRulesPath}\n`);
}
