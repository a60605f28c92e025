/** Runs the Node.js receiver of docs/webhooks.md with the repo's node and checks it over HTTP. */
import test from 'ava';
import { extractSnippet, readDocs } from './helpers.js';
import { receiverSuite } from './receiver-suite.js';

receiverSuite(test, 'node', process.execPath, 'receiver.mjs', () => extractSnippet(readDocs(), 'node'));
