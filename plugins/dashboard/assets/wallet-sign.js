// Operator dashboard: sign a wallet ownership challenge with a browser wallet extension, where
// one is present (progressive enhancement; pasting a signature always works without it).
// EIP-1193 (window.ethereum) for eth/polygon/bsc, TronLink (window.tronWeb) for tron, CIP-30
// (window.cardano) for ada, an injected TON Connect bridge for ton. No inline script anywhere.
(function () {
  'use strict';
  var EVM = { eth: true, polygon: true, bsc: true };
  var TON_WALLETS = ['tonkeeper', 'mytonwallet', 'tonwallet', 'openmask'];

  function hexOfText(text) {
    var bytes = new TextEncoder().encode(text);
    var out = '';
    for (var i = 0; i < bytes.length; i++) out += bytes[i].toString(16).padStart(2, '0');
    return out;
  }
  function cardanoWallet() {
    var c = window.cardano;
    if (!c) return null;
    for (var name in c) if (c[name] && typeof c[name].enable === 'function') return c[name];
    return null;
  }
  function tonBridge() {
    for (var i = 0; i < TON_WALLETS.length; i++) {
      var w = window[TON_WALLETS[i]];
      if (w && w.tonconnect && typeof w.tonconnect.send === 'function') return w.tonconnect;
    }
    return null;
  }
  function available(chain) {
    if (EVM[chain]) return !!(window.ethereum && window.ethereum.request);
    if (chain === 'tron') return !!(window.tronWeb && window.tronWeb.trx && window.tronWeb.trx.signMessageV2);
    if (chain === 'ada') return !!cardanoWallet();
    if (chain === 'ton') return !!tonBridge();
    return false;
  }
  function sign(chain, message, address) {
    if (EVM[chain]) {
      return window.ethereum.request({ method: 'eth_requestAccounts' }).then(function (accounts) {
        var match = (accounts || []).filter(function (a) {
          return String(a).toLowerCase() === address.toLowerCase();
        })[0];
        if (!match) throw new Error('The wallet did not offer ' + address + '; select that account in the extension and try again.');
        return window.ethereum.request({ method: 'personal_sign', params: ['0x' + hexOfText(message), match] });
      });
    }
    if (chain === 'tron') return window.tronWeb.trx.signMessageV2(message);
    if (chain === 'ada') {
      return cardanoWallet()
        .enable()
        .then(function (api) {
          return api.signData(address, hexOfText(message));
        })
        .then(function (result) {
          return JSON.stringify({ signature: result.signature, key: result.key });
        });
    }
    if (chain === 'ton') {
      var bridge = tonBridge();
      return bridge.send({ method: 'signData', params: [JSON.stringify({ type: 'text', text: message })], id: String(Date.now()) }).then(function (answer) {
        if (answer && answer.error) throw new Error(answer.error.message || 'The wallet refused.');
        return JSON.stringify(answer && answer.result ? answer.result : answer);
      });
    }
    return Promise.reject(new Error('No wallet extension for ' + chain + '.'));
  }

  function init() {
    var boxes = document.querySelectorAll('.wallet-sign[data-chain]');
    Array.prototype.forEach.call(boxes, function (box) {
      var chain = box.getAttribute('data-chain');
      if (!available(chain)) return;
      box.hidden = false;
      var button = box.querySelector('.wallet-sign-button');
      var status = box.querySelector('.wallet-sign-status');
      button.addEventListener('click', function () {
        var message = document.getElementById(box.getAttribute('data-message-field')).value;
        var target = document.getElementById(box.getAttribute('data-signature-field'));
        status.textContent = 'Waiting for the wallet…';
        button.disabled = true;
        sign(chain, message, box.getAttribute('data-address'))
          .then(
            function (signature) {
              target.value = typeof signature === 'string' ? signature : JSON.stringify(signature);
              status.textContent = 'Signed. Check the signature field, then press "Verify the signature".';
              target.focus();
            },
            function (error) {
              status.textContent = 'Not signed: ' + (error && error.message ? error.message : String(error));
            },
          )
          .then(function () {
            button.disabled = false;
          });
      });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
