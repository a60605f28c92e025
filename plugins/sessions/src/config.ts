import Type, { type Static } from 'typebox';

/** The bounds of a session's lifetime, in seconds: the default and every `expires_in` lie within them. */
export const SESSION_LIFETIME = { min: 300, max: 604_800 } as const;

/** `plugins.sessions` (issue 38). */
export const SessionsConfigSchema = Type.Object(
  {
    expiresInSeconds: Type.Integer({
      minimum: SESSION_LIFETIME.min,
      maximum: SESSION_LIFETIME.max,
      default: 3600,
      description: 'How long a checkout session stays open when the request gives no expires_in (a payment link’s sessions always), in seconds.',
    }),
    maxLineItems: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most line_items a session or payment link may carry.' }),
  },
  { additionalProperties: false },
);
export type SessionsConfig = Static<typeof SessionsConfigSchema>;
