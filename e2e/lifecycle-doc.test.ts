import test from 'ava';
import { readFileSync } from 'node:fs';
import { LIFECYCLE_DOC, lifecycleDocument } from '@gw/scripts/generate-lifecycle-doc';

// Here rather than beside the invoices plugin's transition table: the generator is a workspace script
// that reads the invoices and sandbox plugins, so a test of the plugin importing it would be a cycle.
test('docs/invoice-lifecycle.md is the document the table generates', (t) => {
  t.is(readFileSync(LIFECYCLE_DOC, 'utf8'), lifecycleDocument());
});
