<?php
/*
 * The calls BTCPay's WooCommerce plugin (btcpayserver/woocommerce-greenfield-plugin) makes through
 * BTCPay's PHP client (btcpayserver/btcpayserver-greenfield-php), with the arguments it passes and
 * the checks it makes on each answer, one step of a shop's life per invocation (the payments a test
 * simulates fall between them). Issue 39: the client, unchanged, against this gateway.
 *
 *   php woocommerce-sequence.php <step>
 *
 * Environment: GREENFIELD_PHP (the client's directory, loaded as its examples/manual_autoloading.php
 * does), BTCPAY_URL (the BTCPay server URL the shop is given: the gateway's `{base_url}/btcpay`),
 * BTCPAY_KEY (the API key), STEP_INPUT (a JSON object: what the shop stored from earlier steps).
 * Prints one JSON object on stdout; an exception the plugin does not catch prints
 * {"uncaught": {class, status, body}} and exits 1. PHP's notices go to stderr.
 *
 * Steps, named after the plugin's code paths:
 *   authorize-url   the settings page's "Generate API key" button: ApiKey::getAuthorizeUrl with the plugin's
 *                   permissions, application name, strict and selectiveStores, and its callback as redirect.
 *   connect         the settings page after the authorization redirect: GreenfieldApiHelper::checkApiKeyWorks,
 *                   GlobalSettings::save (ApiKey::getCurrent and the permission checks of
 *                   GreenfieldApiAuthorization, Server::getInfo),
 *                   GreenfieldApiHelper::supportedPaymentMethods (StorePaymentMethod::getPaymentMethods).
 *   register-webhook GreenfieldApiWebhook::registerWebhook (Webhook::createWebhook), as saving the settings does.
 *   webhook-recheck GreenfieldApiWebhook::webhookExists, then the 1.0.3 update's getWebhook + updateWebhook.
 *   checkout        AbstractGateway::process_payment: createInvoice (fiat amount, order number as
 *                   orderId, metadata, checkout options), then a second visit: validInvoiceExists
 *                   (Invoice::getInvoice) and the redirect it gives (getInvoiceRedirectUrl).
 *   order-payments  the webhook handler's reads: invoiceIsFullyPaid (getInvoice) and
 *                   updateWCOrderPayments (Invoice::getPaymentMethods and every getter it calls).
 *   mark-invalid    AbstractGateway::markInvoiceInvalid: Invoice::markInvoiceStatus(..., 'Invalid').
 *   refund          AbstractGateway::process_refund: serverSupportsRefunds, apiKeyHasRefundPermission,
 *                   PullPayment::createPullPayment; then the pull payment read back.
 *   refund-invoice  Invoice::refundInvoice (the client's refund of an invoice), read back with
 *                   PullPayment::getPullPayment and getPayouts.
 *   webhooks        AbstractGateway::processWebhook on each delivery the shop received: the BTCPay-Sig
 *                   check (Webhook::isIncomingWebhookRequestValid with the stored secret) and the
 *                   fields processOrderStatus reads for the event's type.
 *   bad-input       calls that must fail as BTCPay fails them: each case's exception class, status and body.
 */

declare(strict_types=1);

ini_set('display_errors', 'stderr');
error_reporting(E_ALL & ~E_DEPRECATED);

$library = getenv('GREENFIELD_PHP');
if (!$library || !is_file($library . '/src/autoload.php')) {
    fwrite(STDERR, "GREENFIELD_PHP must name the greenfield-php directory\n");
    exit(2);
}
// As the client's examples/manual_autoloading.php loads it, without composer.
require $library . '/src/autoload.php';

use BTCPayServer\Client\ApiKey;
use BTCPayServer\Client\Invoice;
use BTCPayServer\Client\InvoiceCheckoutOptions;
use BTCPayServer\Client\PullPayment;
use BTCPayServer\Client\Server;
use BTCPayServer\Client\Store;
use BTCPayServer\Client\StorePaymentMethod;
use BTCPayServer\Client\Webhook;
use BTCPayServer\Exception\RequestException;
use BTCPayServer\Http\CurlClient;
use BTCPayServer\Util\PreciseNumber;

/** GreenfieldApiAuthorization's lists. */
const REQUIRED_PERMISSIONS = [
    'btcpay.store.canviewinvoices',
    'btcpay.store.cancreateinvoice',
    'btcpay.store.canviewstoresettings',
    'btcpay.store.canmodifyinvoices',
];
const OPTIONAL_PERMISSIONS = [
    'btcpay.store.cancreatenonapprovedpullpayments',
    'btcpay.store.webhooks.canmodifywebhooks',
];
/** GreenfieldApiWebhook::WEBHOOK_EVENTS. */
const WEBHOOK_EVENTS = [
    'InvoiceReceivedPayment',
    'InvoicePaymentSettled',
    'InvoiceProcessing',
    'InvoiceExpired',
    'InvoiceSettled',
    'InvoiceInvalid',
];

$url = rtrim((string) getenv('BTCPAY_URL'), '/');
$key = (string) getenv('BTCPAY_KEY');
$input = json_decode(getenv('STEP_INPUT') ?: '{}', true, 512, JSON_THROW_ON_ERROR);
$step = $argv[1] ?? '';

/** The permission names of a key without their `:storeId`. */
function permissionNames(array $permissions): array
{
    return array_map(static fn (string $p) => explode(':', $p)[0], $permissions);
}

/** GreenfieldApiAuthorization::hasSingleStore. */
function hasSingleStore(array $permissions): bool
{
    $storeId = null;
    foreach ($permissions as $perm) {
        $exploded = explode(':', $perm);
        if (count($exploded) !== 2) {
            return false;
        }
        if ($storeId !== null && $storeId !== $exploded[1]) {
            return false;
        }
        $storeId = $exploded[1];
    }
    return true;
}

/** GreenfieldApiAuthorization::hasRequiredPermissions: exactly the required ones, beside the optional ones. */
function hasRequiredPermissions(array $permissions): bool
{
    $names = array_diff(permissionNames($permissions), OPTIONAL_PERMISSIONS);
    return empty(array_merge(array_diff(REQUIRED_PERMISSIONS, $names), array_diff($names, REQUIRED_PERMISSIONS)));
}

/** What a failed request answered: the exception's class, the status and the JSON body in its message. */
function failure(\Throwable $e): array
{
    $body = null;
    if ($e instanceof RequestException) {
        $at = strpos($e->getMessage(), '): ');
        $raw = $at === false ? '' : substr($e->getMessage(), $at + 3);
        $body = json_decode($raw, true) ?? $raw;
    }
    return ['class' => get_class($e), 'status' => $e->getCode(), 'body' => $body, 'message' => $body === null ? $e->getMessage() : null];
}

/** GreenfieldApiHelper::supportedPaymentMethods: the store's enabled methods as the plugin's gateway symbols. */
function supportedPaymentMethods(string $url, string $key, string $storeId): array
{
    $symbols = [];
    foreach ((new StorePaymentMethod($url, $key))->getPaymentMethods($storeId) as $pm) {
        if ($pm->isEnabled() && $pmName = $pm->getData()['paymentMethod']) {
            // sanitize_html_class(str_replace('-', '_', $pmName)): WordPress keeps [A-Za-z0-9_-].
            $symbols[] = preg_replace('/[^A-Za-z0-9_-]/', '', str_replace('-', '_', $pmName));
        }
    }
    return $symbols;
}

/** AbstractGateway::createInvoice for an order of `$order` (number, total, currency, …). */
function createInvoice(string $url, string $key, string $storeId, array $order): \BTCPayServer\Result\Invoice
{
    $metadata = [];
    if (!empty($order['sendCustomerData'])) {
        $metadata += [
            'buyerEmail' => $order['email'],
            'buyerName' => $order['name'],
            'buyerAddress1' => '1 Main Street',
            'buyerAddress2' => '',
            'buyerCity' => 'Lisbon',
            'buyerState' => '',
            'buyerZip' => '1000-001',
            'buyerCountry' => 'PT',
        ];
    }
    $metadata['taxIncluded'] = $order['tax'];
    $metadata['posData'] = json_encode(['WooCommerce' => [
        'Order ID' => $order['id'],
        'Order Number' => $order['number'],
        'Order URL' => $order['editUrl'],
        'Plugin Version' => '2.7.1',
    ]], JSON_THROW_ON_ERROR);
    $metadata['orderUrl'] = $order['editUrl'];

    $checkoutOptions = new InvoiceCheckoutOptions();
    $checkoutOptions->setRedirectURL($order['returnUrl']);
    if (!empty($order['speedPolicy'])) {
        $checkoutOptions->setSpeedPolicy($order['speedPolicy']);
    }
    if (!empty($order['paymentMethods'])) {
        $checkoutOptions->setPaymentMethods($order['paymentMethods']);
    }
    // The plugin leaves the expiration to the store; a shop built on the client may set it.
    if (isset($order['expirationMinutes'])) {
        $checkoutOptions->setExpirationMinutes((int) $order['expirationMinutes']);
    }

    return (new Invoice($url, $key))->createInvoice(
        $storeId,
        $order['currency'],
        PreciseNumber::parseString($order['total']),
        (string) $order['number'],
        null,
        $metadata,
        $checkoutOptions
    );
}

/** The getters of a Result\Invoice the plugin and its order screens use. */
function invoiceView(\BTCPayServer\Result\Invoice $invoice): array
{
    return [
        'data' => $invoice->getData(),
        'id' => $invoice->getId(),
        'amount' => (string) $invoice->getAmount(),
        'currency' => $invoice->getCurrency(),
        'checkoutLink' => $invoice->getCheckoutLink(),
        'status' => $invoice->getStatus(),
        'createdTime' => $invoice->getCreatedTime(),
        'expirationTime' => $invoice->getExpirationTime(),
        'isNew' => $invoice->isNew(),
        'isSettled' => $invoice->isSettled(),
        'isProcessing' => $invoice->isProcessing(),
        'isExpired' => $invoice->isExpired(),
        'isInvalid' => $invoice->isInvalid(),
        'isMarked' => $invoice->isMarked(),
        'isOverpaid' => $invoice->isOverpaid(),
        'isPartiallyPaid' => $invoice->isPartiallyPaid(),
        'isPaidLate' => $invoice->isPaidLate(),
        'isArchived' => $invoice->isArchived(),
        'availableStatusesForManualMarking' => $invoice->getAvailableStatusesForManualMarking(),
    ];
}

/** The getters of a Result\PullPayment the plugin's refund note uses, and the others it has. */
function pullPaymentView(\BTCPayServer\Result\PullPayment $pp): array
{
    return [
        'data' => $pp->getData(),
        'id' => $pp->getId(),
        'viewLink' => $pp->getViewLink(),
        'name' => $pp->getName(),
        'currency' => $pp->getCurrency(),
        'amount' => (string) $pp->getAmount(),
        'archived' => $pp->isArchived(),
    ];
}

function steps(string $step, string $url, string $key, array $input): array
{
    switch ($step) {
        case 'connect':
            // The authorization redirect's check: the key lists at least one store.
            $stores = (new Store($url, $key))->getStores();
            $apiKey = (new ApiKey($url, $key))->getCurrent();
            $permissions = $apiKey->getPermissions();
            $storeId = explode(':', $permissions[0])[1] ?? null;
            $serverInfo = (new Server($url, $key))->getInfo();
            return [
                'stores' => array_map(static fn ($s) => ['id' => $s->getId(), 'name' => $s->getName(), 'data' => $s->getData()], $stores),
                'apiKey' => ['data' => $apiKey->getData(), 'label' => $apiKey->getLabel(), 'permissions' => $permissions],
                'hasSingleStore' => hasSingleStore($permissions),
                'hasRequiredPermissions' => hasRequiredPermissions($permissions),
                'hasRefundsPermission' => in_array('btcpay.store.cancreatenonapprovedpullpayments', permissionNames($permissions), true),
                'hasWebhookPermission' => in_array('btcpay.store.webhooks.canmodifywebhooks', permissionNames($permissions), true),
                'storeId' => $storeId,
                'server' => [
                    'data' => $serverInfo->getData(),
                    'version' => $serverInfo->getVersion(),
                    'fullySynched' => (int) $serverInfo->getData()['fullySynched'] === 1,
                    'supportsRefunds' => !version_compare($serverInfo->getVersion(), '1.7.6', '<'),
                    'supportedPaymentMethods' => $serverInfo->getSupportedPaymentMethods(),
                ],
                'paymentMethods' => supportedPaymentMethods($url, $key, $storeId),
            ];

        case 'authorize-url':
            // BTCPayServerWCPlugin::processAjaxApiUrl: the page the merchant's browser is sent to for a key.
            return ['url' => ApiKey::getAuthorizeUrl(
                $url,
                array_merge(REQUIRED_PERMISSIONS, OPTIONAL_PERMISSIONS),
                'WooCommerce',
                true,
                true,
                $input['redirect'],
                null
            )];

        case 'register-webhook':
            $webhook = (new Webhook($url, $key))->createWebhook($input['storeId'], $input['webhookUrl'], WEBHOOK_EVENTS, null);
            // What update_option('btcpay_gf_webhook', …) stores, and the getters of the result.
            return [
                'id' => $webhook->getData()['id'],
                'secret' => $webhook->getData()['secret'],
                'url' => $webhook->getData()['url'],
                'enabled' => $webhook->isEnabled(),
                'automaticRedelivery' => $webhook->hasAutomaticRedelivery(),
                'secretGetter' => $webhook->getSecret(),
                'data' => $webhook->getData(),
            ];

        case 'webhook-recheck':
            $client = new Webhook($url, $key);
            $stored = $input['webhook'];
            $existing = $client->getWebhook($input['storeId'], $stored['id']);
            $exists = $existing->getData()['id'] === $stored['id'] && strpos($existing->getData()['url'], $stored['url']) !== false;
            // updates/update-1.0.3.php: subscribe again to the plugin's events, passing the stored secret.
            $updated = $client->updateWebhook(
                $input['storeId'],
                $existing->getUrl(),
                $existing->getId(),
                WEBHOOK_EVENTS,
                $existing->getData()['enabled'],
                $existing->getData()['automaticRedelivery'],
                $stored['secret']
            );
            return [
                'exists' => $exists,
                'existing' => $existing->getData(),
                'updated' => $updated->getData(),
                'events' => $updated->getAuthorizedEvents()->getData(),
            ];

        case 'checkout':
            $invoice = createInvoice($url, $key, $input['storeId'], $input['order']);
            // The payer comes back to the checkout: validInvoiceExists reads the invoice again.
            $again = (new Invoice($url, $key))->getInvoice($input['storeId'], $invoice->getData()['id']);
            $valid = !in_array($again->getData()['status'], ['Expired', 'Invalid'], true);
            return [
                'created' => invoiceView($invoice),
                'reread' => invoiceView($again),
                'validInvoiceExists' => $valid,
                // process_payment's redirect: the checkout link, or for an existing invoice getInvoiceRedirectUrl.
                'redirect' => $invoice->getData()['checkoutLink'],
                'existingRedirect' => $url . '/i/' . urlencode($invoice->getData()['id']),
            ];

        case 'order-payments':
            $client = new Invoice($url, $key);
            $invoice = $client->getInvoice($input['storeId'], $input['invoiceId']);
            $methods = [];
            foreach ($client->getPaymentMethods($input['storeId'], $input['invoiceId']) as $payment) {
                $method = ['data' => $payment->getData(), 'paymentMethod' => $payment->getPaymentMethod(), 'cryptoCode' => $payment->getCryptoCode(),
                    'paymentMethodPaid' => $payment->getPaymentMethodPaid(), 'destination' => $payment->getDestination()];
                // updateWCOrderPayments: only methods with payments, every getter it stores.
                if ((float) $payment->getPaymentMethodPaid() > 0.0) {
                    $method['order'] = [
                        'total_paid' => $payment->getTotalPaid(),
                        'total_amount' => $payment->getAmount(),
                        'total_due' => $payment->getDue(),
                        'total_fee' => $payment->getNetworkFee(),
                        'rate' => $payment->getRate(),
                        'payments' => array_map(static fn ($trx) => [
                            'id' => $trx->getTransactionId(),
                            'timestamp' => $trx->getReceivedTimestamp(),
                            'destination' => $trx->getDestination(),
                            'amount' => $trx->getValue(),
                            'status' => $trx->getStatus(),
                            'networkFee' => $trx->getFee(),
                        ], $payment->getPayments()),
                    ];
                }
                $methods[] = $method;
            }
            return ['invoice' => invoiceView($invoice), 'invoiceIsFullyPaid' => $invoice->isSettled(), 'paymentMethods' => $methods];

        case 'mark-invalid':
            $marked = (new Invoice($url, $key))->markInvoiceStatus($input['storeId'], $input['invoiceId'], 'Invalid');
            return ['invoice' => invoiceView($marked)];

        case 'refund':
            $serverInfo = (new Server($url, $key))->getInfo();
            $apiKey = (new ApiKey($url, $key))->getCurrent();
            $refundName = substr('Refund of order ' . $input['orderNumber'] . '; ' . $input['reason'], 0, 50);
            $paymentMethods = array_values(array_diff($input['paymentMethods'], ['BTC_LNURLPAY', 'BTC_LNURL', 'XMR_CHAIN']));
            $pullPayment = (new PullPayment($url, $key))->createPullPayment(
                $input['storeId'],
                $refundName,
                PreciseNumber::parseString($input['amount']),
                $input['currency'],
                null,
                null,
                false,
                null,
                null,
                $paymentMethods
            );
            return [
                'serverSupportsRefunds' => !version_compare($serverInfo->getVersion(), '1.7.6', '<'),
                'apiKeyHasRefundPermission' => in_array('btcpay.store.cancreatenonapprovedpullpayments', permissionNames($apiKey->getPermissions()), true),
                'pullPayment' => pullPaymentView($pullPayment),
                'reread' => pullPaymentView((new PullPayment($url, $key))->getPullPayment($pullPayment->getId())),
            ];

        case 'refund-invoice':
            $pullPayment = (new Invoice($url, $key))->refundInvoice(
                $input['storeId'],
                $input['invoiceId'],
                $input['refundVariant'],
                $input['paymentMethod'],
                $input['name'] ?? null,
                $input['description'] ?? null,
                0.0,
                isset($input['customAmount']) ? PreciseNumber::parseString($input['customAmount']) : null,
                $input['customCurrency'] ?? null
            );
            $client = new PullPayment($url, $key);
            return [
                'pullPayment' => pullPaymentView($pullPayment),
                'reread' => pullPaymentView($client->getPullPayment($pullPayment->getId())),
                'payouts' => $client->getPayouts($pullPayment->getId(), false)->getData(),
            ];

        case 'webhooks':
            // processOrderStatus: the fields each event type is read for (isset() ones may be absent).
            $reads = [
                'InvoiceReceivedPayment' => ['afterExpiration'],
                'InvoicePaymentSettled' => [],
                'InvoiceProcessing' => [],
                'InvoiceInvalid' => ['manuallyMarked'],
                'InvoiceExpired' => ['partiallyPaid'],
                'InvoiceSettled' => [],
            ];
            $results = [];
            foreach ($input['deliveries'] as $delivery) {
                $valid = Webhook::isIncomingWebhookRequestValid($delivery['body'], $delivery['signature'] ?? '', $input['secret']);
                $postData = json_decode($delivery['body'], false, 512, JSON_THROW_ON_ERROR);
                $missing = [];
                foreach (array_merge(['invoiceId', 'type'], $reads[$postData->type ?? ''] ?? []) as $field) {
                    if (!property_exists($postData, $field)) {
                        $missing[] = $field;
                    }
                }
                $results[] = [
                    'valid' => $valid,
                    'type' => $postData->type ?? null,
                    'invoiceId' => $postData->invoiceId ?? null,
                    'handled' => in_array($postData->type ?? null, WEBHOOK_EVENTS, true),
                    'missing' => $missing,
                ];
            }
            return ['deliveries' => $results];

        case 'bad-input':
            $cases = [
                // A key without btcpay.store.cancreateinvoice.
                'wrong-permission' => static fn () => (new Invoice($url, $input['limitedKey']))->createInvoice($input['storeId'], 'EUR', PreciseNumber::parseString('10')),
                // A store of another operator, with this key.
                'another-operators-store' => static fn () => (new Invoice($url, $key))->createInvoice($input['otherStoreId'], 'EUR', PreciseNumber::parseString('10')),
                'another-operators-store-read' => static fn () => (new Store($url, $key))->getStore($input['otherStoreId']),
                'another-operators-invoice' => static fn () => (new Invoice($url, $key))->getInvoice($input['storeId'], $input['otherInvoiceId']),
                'unknown-invoice' => static fn () => (new Invoice($url, $key))->getInvoice($input['storeId'], 'no-such-invoice'),
                'unknown-key' => static fn () => (new Invoice($url, 'not-a-key'))->getInvoice($input['storeId'], 'no-such-invoice'),
                'negative-amount' => static fn () => (new Invoice($url, $key))->createInvoice($input['storeId'], 'EUR', PreciseNumber::parseString('-5')),
                'unknown-payment-method' => static fn () => (new Invoice($url, $key))->createInvoice($input['storeId'], 'EUR', PreciseNumber::parseString('5'), null, null, null,
                    (new InvoiceCheckoutOptions())->setPaymentMethods(['NOPE-CHAIN'])),
                'mark-unknown-status' => static fn () => (new Invoice($url, $key))->markInvoiceStatus($input['storeId'], $input['invoiceId'], 'Paid'),
                'webhook-bad-url' => static fn () => (new Webhook($url, $key))->createWebhook($input['storeId'], 'not a url', WEBHOOK_EVENTS, null),
                'unknown-webhook' => static fn () => (new Webhook($url, $key))->getWebhook($input['storeId'], 'no-such-webhook'),
                // The client's own HTTP client with a body that is not JSON.
                'malformed-json' => static function () use ($url, $key, $input) {
                    $response = (new CurlClient())->request('POST', $url . '/api/v1/stores/' . urlencode($input['storeId']) . '/invoices',
                        ['Accept' => 'application/json', 'Content-Type' => 'application/json', 'Authorization' => 'token ' . $key], '{"amount": "10", "currency": ');
                    return ['class' => null, 'status' => $response->getStatus(), 'body' => json_decode($response->getBody(), true) ?? $response->getBody()];
                },
            ];
            $results = [];
            foreach ($cases as $name => $call) {
                try {
                    $answer = $call();
                    $results[$name] = is_array($answer) ? $answer : ['class' => null, 'status' => 200, 'body' => $answer->getData()];
                } catch (\Throwable $e) {
                    $results[$name] = failure($e);
                }
            }
            return $results;
    }
    throw new \InvalidArgumentException('unknown step: ' . $step);
}

try {
    echo json_encode(steps($step, $url, $key, $input), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\n";
} catch (\Throwable $e) {
    echo json_encode(['uncaught' => failure($e) + ['trace' => $e->getTraceAsString()]], JSON_UNESCAPED_SLASHES), "\n";
    exit(1);
}
