/**
 * The generators take retry safety from the document's `x-retry-safe`, not from the method: a
 * document that marks a POST safe and a GET unsafe gets exactly that in both SDKs' tables. And the
 * committed tables are this build's, so the suite itself catches a stale Python or TS table.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { documentOfThisBuild } from '@gw/app-gateway/openapi-document';
import { renderOperations, renderPythonOperations } from '../scripts/render-operations.ts';

const signed = [{ signedProjectId: [], signedTimestamp: [], signedSignature: [] }];
const op = (operationId: string, retrySafe?: boolean) => ({
  operationId,
  security: signed,
  responses: { 200: {} },
  ...(retrySafe === undefined ? {} : { 'x-retry-safe': retrySafe }),
});
const document = (postSafe?: boolean) => ({
  paths: {
    '/api/v1/things': { get: op('getThings', false), post: op('postThings', postSafe) },
    '/api/v1/things/{id}/cancel': { post: op('postThingsByIdCancel', false) },
  },
});

test("the TypeScript table carries each operation's x-retry-safe", (t) => {
  const text = renderOperations(document(true));
  t.regex(text, /getThings: \{ method: 'GET', path: '\/api\/v1\/things', params: \[\], retrySafe: false \}/);
  t.regex(text, /postThings: \{ method: 'POST', path: '\/api\/v1\/things', params: \[\], retrySafe: true \}/);
  t.regex(text, /postThingsByIdCancel: \{ method: 'POST', .*, retrySafe: false \},\n/);
});

test('the Python table lists exactly the operations with x-retry-safe true', (t) => {
  const text = renderPythonOperations(document(true));
  t.regex(text, /RETRY_SAFE = frozenset\(\{\n {4}"postThings",\n\}\)/);
});

test('an operation without x-retry-safe is refused, not read as unsafe', (t) => {
  t.throws(() => renderOperations(document()), { message: 'POST /api/v1/things has no boolean x-retry-safe' });
  t.throws(() => renderPythonOperations(document()), { message: 'POST /api/v1/things has no boolean x-retry-safe' });
});

test("the committed TypeScript and Python tables are those of this build's document (what --check checks)", (t) => {
  const document = documentOfThisBuild();
  const committed = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  t.is(committed('client/src/generated/operations.ts'), renderOperations(document), 'run pnpm client:generate');
  t.is(committed('python/gateway_client/_operations.py'), renderPythonOperations(document), 'run pnpm client:generate');
});
