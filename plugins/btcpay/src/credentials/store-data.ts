/**
 * A project as BTCPay's `StoreData`: its id and name, and for every store setting the value that
 * says what this gateway does (there is nothing to configure per store through Greenfield).
 * docs/btcpay-compatibility.md explains each.
 */
export function storeData(project: { readonly id: string; readonly name: string }, defaultPaymentMethod: string | null): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    website: null,
    supportUrl: null,
    logoUrl: null,
    cssUrl: null,
    paymentSoundUrl: null,
    brandColor: null,
    applyBrandColorToBackend: false,
    defaultCurrency: 'USD',
    additionalTrackedRates: [],
    // The checkout sessions' default lifetime (plugins.sessions.expiresInSeconds by default).
    invoiceExpiration: 3600,
    refundBOLT11Expiration: 30,
    displayExpirationTimer: 300,
    monitoringExpiration: 86400,
    // Confirmations follow the project's per-chain policy; MediumSpeed is the nearest of BTCPay's words.
    speedPolicy: 'MediumSpeed',
    lightningDescriptionTemplate: null,
    paymentTolerance: 0,
    archived: false,
    anyoneCanCreateInvoice: false,
    receipt: null,
    lightningAmountInSatoshi: false,
    lightningPrivateRouteHints: false,
    onChainWithLnInvoiceFallback: false,
    redirectAutomatically: false,
    showRecommendedFee: false,
    recommendedFeeBlockTarget: 1,
    defaultLang: 'en',
    htmlTitle: null,
    networkFeeMode: 'Never',
    payJoinEnabled: false,
    autoDetectLanguage: false,
    showPayInWalletButton: true,
    showStoreHeader: true,
    celebratePayment: false,
    playSoundOnPayment: false,
    // The payer picks the coin on the hosted page; only then is its payment address made.
    lazyPaymentMethods: true,
    ...(defaultPaymentMethod === null ? {} : { defaultPaymentMethod }),
    paymentMethodCriteria: null,
  };
}
