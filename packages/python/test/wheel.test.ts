/**
 * The Python client as a partner installs it (issue 42 item 3): the wheel built with Debian's build
 * tools offline (scripts/build-wheel.ts), installed by pip from the file alone (`--no-index`) into
 * a fresh venv in a scratch directory outside the workspace, and used from there against a running
 * gateway: a script creates and drives a sandbox invoice, another verifies the signature of the
 * webhook the gateway delivered for it.
 */
import test from 'ava';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { Receiver, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { stopAll } from '@gw/testing';
import { buildWheel, DEBIAN_PYTHON } from '../scripts/build-wheel.ts';

const workspace = realpathSync(fileURLToPath(new URL('../../..', import.meta.url)));
let gw: TestKernel, receiver: Receiver, account: SandboxClient, scratch: string;

test.before(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'gw-python-wheel-install-')));
  gw = await startSandboxKernel();
  receiver = await Receiver.start();
  account = await sandboxClient(gw, receiver);
});
test.after.always(async () => {
  await stopAll(gw, receiver);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/**
 * Runs `script` with `interpreter` (the venv's) in isolated mode (-I: no PYTHONPATH, no user site)
 * from the scratch directory, its arguments as JSON in argv[1]; resolves with its JSON output.
 * Asynchronously: the gateway it calls runs in this process.
 */
async function python(interpreter: string, script: string, input: unknown): Promise<unknown> {
  const path = join(scratch, 'script.py');
  writeFileSync(path, script);
  const { stdout } = await promisify(execFile)(interpreter, ['-I', path, JSON.stringify(input)], {
    cwd: scratch,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin' },
  });
  return JSON.parse(stdout);
}

test('the wheel builds offline, pip installs it from the file into a venv outside the workspace, and it creates an invoice and verifies a real webhook there', async (t) => {
  const wheel = buildWheel(join(scratch, 'dist'));
  t.regex(wheel, /gateway_client-0\.1\.0-py3-none-any\.whl$/);
  t.false(wheel.startsWith(workspace));

  const venv = join(scratch, 'venv');
  execFileSync(DEBIAN_PYTHON, ['-m', 'venv', venv], { stdio: 'pipe' });
  const pip = execFileSync(join(venv, 'bin', 'pip'), ['install', '--no-index', '--disable-pip-version-check', wheel], {
    cwd: scratch,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', PIP_NO_INDEX: '1' },
  });
  t.regex(pip, /Successfully installed gateway-client-0\.1\.0/);
  const interpreter = join(venv, 'bin', 'python');

  const created = (await python(
    interpreter,
    `import json, sys, gateway_client
from gateway_client import GatewayClient
args = json.loads(sys.argv[1])
gateway = GatewayClient(args["url"], args["project_id"], args["secret"])
invoice = gateway.invoices.create(external_id=args["external_id"], coin="eth", amount_crypto="0.05")
detected = gateway.sandbox.simulate.detect(invoice["id"])
print(json.dumps({"module": gateway_client.__file__, "version": gateway_client.__version__, "invoice": invoice, "retrieved": gateway.invoices.retrieve(invoice["id"]), "event_id": detected["event_id"]}))
`,
    { url: gw.url, project_id: account.projectId, secret: account.secret, external_id: `wheel-${Date.now()}` },
  )) as { module: string; version: string; invoice: { id: string; status: string; project_id: string }; retrieved: { status: string }; event_id: string };
  t.true(created.module.startsWith(join(venv, 'lib')), `imported from the venv: ${created.module}`);
  t.is(created.version, '0.1.0');
  t.is(created.invoice.project_id, account.projectId);
  t.is(created.invoice.status, 'pending');
  t.is(created.retrieved.status, 'detected');
  const stored = await account.call('GET', `/invoices/${created.invoice.id}`);
  t.like(stored.body, { id: created.invoice.id, status: 'detected', project_id: account.projectId }, 'the gateway has it, as the script left it');

  const delivery = await waitFor(async () => receiver.forEvent(created.event_id)[0], 20_000, 'the detected delivery');
  const verify = `import json, sys
from gateway_client import WebhookVerificationError, construct_event, verify_webhook
args = json.loads(sys.argv[1])
event = construct_event(header=args["header"], raw_body=args["body"].encode("utf-8"), secrets=[args["secret"]])
tampered = verify_webhook(header=args["header"], raw_body=args["body"] + " ", secrets=[args["secret"]])
try:
    construct_event(header=args["header"], raw_body=args["body"], secrets=["another-secret"])
    wrong_secret = "accepted"
except WebhookVerificationError as error:
    wrong_secret = error.reason
print(json.dumps({"event_id": event["event_id"], "event_type": event["event_type"], "invoice_id": event["data"]["invoice_id"], "tampered": tampered, "wrong_secret": wrong_secret}))
`;
  const verified = await python(interpreter, verify, { header: delivery.headers['x-service-signature'], body: delivery.body, secret: account.secret });
  t.deepEqual(verified, {
    event_id: created.event_id,
    event_type: 'invoice.detected',
    invoice_id: created.invoice.id,
    tampered: { ok: false, reason: 'signature_mismatch' },
    wrong_secret: 'signature_mismatch',
  });
});
