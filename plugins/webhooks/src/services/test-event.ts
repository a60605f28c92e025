import { newId, type AuditLog, type RateLimiter } from '@gw/kernel';
import type { Actor } from '@gw/kernel';
import type { ApiKeyService, ProjectService } from '@gw/plugin-tenancy/contract';
import { webhooksErrors } from '../errors.js';
import { partnerView, type WebhookSender } from './webhook-sender.js';
import type { WebhooksConfig } from '../config.js';

/** The `event_type` of a test event; not an invoice event, so receivers may ignore it. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Test events per project and minute (each is an outbound request). */
const TESTS_PER_MINUTE = 10;

/** What a test send did: the event sent and the receiver's answer. */
export interface TestEventResult {
  readonly event_id: string;
  readonly target_url: string;
  readonly ok: boolean;
  readonly http_status: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
  readonly response_excerpt: string | null;
}

/**
 * "Send a test event" (issue 20): one signed POST of a `webhook.test` envelope to the project's
 * default webhook URL, now, with the same sender, headers and signature as a delivery, and the
 * answer returned. It is not an invoice event: nothing is queued, retried or kept in the delivery
 * log; the audit log records it (`webhook.test`, with the outcome).
 */
export class WebhookTestEvents {
  constructor(
    private readonly deps: {
      audit: AuditLog;
      rateLimiter: RateLimiter;
      tenancyProjects: ProjectService;
      tenancyApiKeys: ApiKeyService;
      webhooksConfig: WebhooksConfig;
      webhooksSender: WebhookSender;
    },
  ) {}

  async send(projectId: string, actor: Actor): Promise<TestEventResult> {
    const project = await this.deps.tenancyProjects.get(projectId);
    if (!project.webhook_url) throw webhooksErrors.webhook_url_missing();
    await this.deps.rateLimiter.consume({ key: `webhooks.test:${projectId}`, limit: TESTS_PER_MINUTE, windowSeconds: 60 });
    const secrets = await this.deps.tenancyApiKeys.liveSecrets(projectId);
    const id = newId();
    const body = JSON.stringify({
      event_id: id,
      event_type: TEST_EVENT_TYPE,
      mode: project.kind,
      created_at_iso: new Date().toISOString(),
      data: { project_id: project.id, message: 'A test event sent by the operator. It is not about any invoice.' },
    });
    // Shown in the dashboard to a project's members too: reduced like the delivery log.
    const sent = await this.deps.webhooksSender.postSigned(
      { url: project.webhook_url, body, eventId: id, eventType: TEST_EVENT_TYPE, attempt: 1, kind: project.kind },
      secrets,
    );
    const outcome = partnerView(sent, this.deps.webhooksConfig.privateAttemptDetails === true);
    const result: TestEventResult = {
      event_id: id,
      target_url: project.webhook_url,
      ok: outcome.ok,
      http_status: outcome.httpStatus,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      response_excerpt: outcome.responseExcerpt,
    };
    await this.deps.audit.record({
      ...actor,
      action: 'webhook.test',
      projectId,
      target: `project:${projectId}`,
      details: { event_id: id, ok: result.ok, http_status: result.http_status, error: result.error },
    });
    return result;
  }
}
