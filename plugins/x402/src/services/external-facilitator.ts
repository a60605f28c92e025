import type { X402Config } from '../config.js';
import type { FacilitatorRequest, SettleResponse, SupportedResponse, VerifyResponse } from '../protocol/messages.js';

/**
 * An external x402 facilitator (`plugins.x402.facilitator`): the settlement mode of an operator who
 * holds no key. The gateway verifies every payment itself first, then asks the facilitator to
 * verify and settle it; a facilitator that fails or answers what is no protocol message is
 * `unexpected_settle_error` (`unexpected_verify_error`), never a 500.
 */
export class ExternalFacilitator {
  constructor(private readonly deps: { x402Config: X402Config }) {}

  async verify(request: FacilitatorRequest): Promise<VerifyResponse> {
    void request;
    void this.deps;
    throw new Error('ExternalFacilitator.verify: not built yet');
  }

  async settle(request: FacilitatorRequest): Promise<SettleResponse> {
    void request;
    throw new Error('ExternalFacilitator.settle: not built yet');
  }

  async supported(): Promise<SupportedResponse> {
    throw new Error('ExternalFacilitator.supported: not built yet');
  }
}
