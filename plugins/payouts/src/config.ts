import Type, { type Static } from 'typebox';

const USD = Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,2})?$', description: 'A USD value, decimal string.' });

/** `plugins.payouts` (issue 37). */
export const PayoutsConfigSchema = Type.Object(
  {
    claimProofAboveUsd: Type.Optional({
      ...USD,
      description:
        'Above this USD value a payer claiming a refund must also sign a message with the address (the chain’s message signature); a project’s policy may set its own. Default 1000.',
    }),
    claimEmail: Type.Optional(
      Type.Boolean({ description: 'E-mail the claim link to the payer when a refund is created with `email` (through the sign-in mailer). Default true.' }),
    ),
  },
  { additionalProperties: false },
);
export type PayoutsConfig = Static<typeof PayoutsConfigSchema>;
