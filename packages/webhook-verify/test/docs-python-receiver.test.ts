/** Runs the Python receiver of docs/webhooks.md with python3 and checks it over HTTP. */
import test from 'ava';
import { extractSnippet, readDocs } from './helpers.js';
import { receiverSuite } from './receiver-suite.js';

receiverSuite(test, 'python', 'python3', 'receiver.py', () => extractSnippet(readDocs(), 'python'));
