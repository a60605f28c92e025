/**
 * Regenerates the "## Commands" section of docs/cli.md from the CLI's own help output (the
 * composition's plugins and the kernel's commands), so the reference never drifts from the code.
 *
 *   node --import tsx scripts/generate-cli-doc.ts           rewrites the section
 *   node --import tsx scripts/generate-cli-doc.ts --check   exits 1 when docs/cli.md is stale
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chains, plugins } from '@gw/app-gateway';
import { PARTNER_COMMANDS, runCli } from '@gw/app-cli';
import { writeOrCheckGenerated } from './generated-file.js';

const OUTPUT = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const HEADING = '## Commands';

async function help(argv: string[]): Promise<string> {
  const out: string[] = [];
  await runCli(argv, { plugins, chains, io: { out: (s) => out.push(s), err: (s) => out.push(s) } });
  return out.join('\n').trimEnd();
}

const overview = await help(['--help']);
const sections: string[] = [`${HEADING}\n\n\`\`\`\n${overview}\n\`\`\`\n`];
// A noun may be two words (`oauth apps list`): the verb is the last word before the column gap.
// The partner commands follow the operator commands, with their own help sections.
const operatorOverview = overview.split('\nPartner commands')[0]!;
// A one-word command (`doctor`) is its own noun.
const commands = [...operatorOverview.matchAll(/^ {2}(\S+(?: \S+)*?) {2,}/gm)].map((m) => {
  const words = m[1]!.split(' ');
  return words.length === 1 ? ([words[0]!, ''] as const) : ([words.slice(0, -1).join(' '), words.at(-1)!] as const);
});
let noun = '';
for (const [n, verb] of commands) {
  if (n !== noun) {
    noun = n;
    sections.push(`### ${noun}\n`);
  }
  const name = verb ? `${noun} ${verb}` : noun;
  sections.push(`#### \`${name}\`\n\n\`\`\`\n${await help([...name.split(' '), '--help'])}\n\`\`\`\n`);
}
sections.push('### Partner commands\n');
for (const name of PARTNER_COMMANDS) sections.push(`#### \`${name}\`\n\n\`\`\`\n${await help([name, '--help'])}\n\`\`\`\n`);
const current = readFileSync(OUTPUT, 'utf8');
const start = current.indexOf(HEADING);
if (start < 0) throw new Error(`docs/cli.md has no "${HEADING}" section`);
const next = `${current.slice(0, start)}${sections.join('\n')}`;
if (!writeOrCheckGenerated('docs/cli.md', next, 'npx -y pnpm@10.34.9 docs:cli')) process.exit(1);
