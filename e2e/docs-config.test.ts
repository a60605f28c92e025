import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { checkTestNetworks, enabledChainModules, KernelConfigSchema, loadConfig, loadPlugins } from '@gw/kernel';
import { chains, plugins } from '@gw/app-gateway';
import { ROOT } from '@gw/testing';

/** Every Markdown file an operator reads: docs/, the README, the plugins' and chains' READMEs. */
function markdownFiles(): string[] {
  const files = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  files.push('README.md');
  for (const parent of ['plugins', 'chains']) {
    for (const dir of readdirSync(join(ROOT, parent))) if (existsSync(join(ROOT, parent, dir, 'README.md'))) files.push(join(parent, dir, 'README.md'));
  }
  return files;
}

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly marked: boolean;
  readonly text: string;
}

function fencedBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^\s*```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const indent = lines[i]!.indexOf('```');
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i += 1) body.push(lines[i]!.slice(indent));
    blocks.push({ file, line: start + 1, lang: open[1]!, marked: start > 0 && lines[start - 1]!.trim() === '<!-- config -->', text: body.join('\n') });
  }
  return blocks;
}

const blocks = markdownFiles().flatMap(fencedBlocks);
const kernelKeys = new Set(Object.keys(KernelConfigSchema.properties));

test('config examples in the docs are JSON marked <!-- config -->, never YAML', (t) => {
  const yaml = blocks.filter((b) => /^ya?ml$/.test(b.lang));
  t.deepEqual(
    yaml.map((b) => `${b.file}:${b.line}`),
    [],
    'the loader reads JSON: show config as JSON',
  );
  // A JSON object whose keys are all config keys is a config example and must be marked (so it is tested).
  const unmarked = blocks.filter((b) => {
    if (b.lang !== 'json' || b.marked) return false;
    try {
      const value = JSON.parse(b.text) as unknown;
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length > 0 &&
        Object.keys(value).every((k) => kernelKeys.has(k))
      );
    } catch {
      return false;
    }
  });
  t.deepEqual(
    unmarked.map((b) => `${b.file}:${b.line}`),
    [],
  );
  t.true(blocks.filter((b) => b.marked).length >= 3);
});

test("every marked config example loads through the config loader and the plugins' schemas", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-docs-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const networks = new Map(
    chains.map((c) => [c.definition.id as string, new Set([c.definition.networks.mainnet.id, ...c.definition.networks.testnets.map((n) => n.id)])]),
  );
  for (const block of blocks.filter((b) => b.marked)) {
    const where = `${block.file}:${block.line}`;
    t.is(block.lang, 'json', where);
    const file = join(dir, 'gateway.config.json');
    writeFileSync(file, block.text);
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig({ env: {}, file });
      loadPlugins(plugins, config);
      // chains.enabled must name chains of the build (start-up refuses others).
      enabledChainModules(chains, config.chains.enabled);
      // chains.testNetworks must name test networks of chains of the build (start-up refuses others).
      checkTestNetworks(chains, config.chains.testNetworks);
    } catch (error) {
      t.fail(`${where}: ${(error as Error).message}`);
      continue;
    }
    t.pass(where);
    // Watched networks must exist (the watcher registry refuses unknown ones at start).
    const watched = (config.plugins['watchers']?.['chains'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [chain, byNetwork] of Object.entries(watched)) {
      t.true(networks.has(chain), `${where}: unknown chain ${chain}`);
      for (const network of Object.keys(byNetwork)) t.true(networks.get(chain)?.has(network), `${where}: ${chain} has no network ${network}`);
    }
  }
});
