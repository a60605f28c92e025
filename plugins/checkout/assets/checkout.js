// Payer page behaviour on top of the server-rendered page (the checkout page, and any page built
// with payerPage({ script: true })): live status (server-sent events, long polling where
// EventSource is missing or keeps failing), copy buttons, the countdown and the return to the
// partner. Without this script the page still works: it reloads itself for status.
(function () {
  'use strict';
  var body = document.body;
  var root = document.documentElement;
  root.classList.add('js');

  function copyButtons(scope) {
    var buttons = scope.querySelectorAll('button.copy');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (event) {
        var button = event.currentTarget;
        var text = button.getAttribute('data-copy') || '';
        var label = button.textContent;
        var done = function () {
          button.textContent = button.getAttribute('data-copied') || label;
          setTimeout(function () {
            button.textContent = label;
          }, 2000);
        };
        if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () {});
      });
    }
  }
  copyButtons(document);

  // Countdown to expires_at.
  var countdown = document.getElementById('countdown');
  var expires = Date.parse(body.getAttribute('data-expires') || '');
  var format = body.getAttribute('data-countdown-format') || '{minutes}:{seconds}';
  function tick() {
    if (!countdown || isNaN(expires)) return;
    var waiting = body.getAttribute('data-final') !== 'true';
    var left = Math.max(0, Math.floor((expires - Date.now()) / 1000));
    countdown.hidden = !waiting;
    countdown.textContent = format.replace('{minutes}', String(Math.floor(left / 60))).replace('{seconds}', String(left % 60).padStart(2, '0'));
  }
  tick();
  setInterval(tick, 1000);

  var returning = false;
  function maybeReturn(url) {
    if (!url || returning) return;
    returning = true;
    var delay = Number(body.getAttribute('data-return-delay') || '3');
    setTimeout(function () {
      window.location.assign(url);
    }, delay * 1000);
  }

  function apply(update) {
    if (!update || update.key === body.getAttribute('data-key')) return;
    body.setAttribute('data-key', update.key);
    body.setAttribute('data-status', update.status);
    body.setAttribute('data-final', String(update.final));
    var region = document.getElementById('status');
    if (region) {
      region.innerHTML = update.html;
      copyButtons(region);
    }
    // The QR code and wallet link ask for what is still due: replaced with the status.
    var request = document.getElementById('payment-request');
    if (request && typeof update.request === 'string') request.innerHTML = update.request;
    var buttons = document.querySelectorAll('button[data-simulation]');
    for (var i = 0; i < buttons.length; i++) {
      var allowed = (update.simulations || []).indexOf(buttons[i].getAttribute('data-simulation')) >= 0;
      buttons[i].disabled = !allowed;
    }
    tick();
    if (update.redirect) maybeReturn(update.redirect);
  }

  function longPoll() {
    if (body.getAttribute('data-final') === 'true') return;
    var url = body.getAttribute('data-poll') + '&known=' + encodeURIComponent(body.getAttribute('data-key') || '');
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status);
        return response.json();
      })
      .then(function (update) {
        apply(update);
        setTimeout(longPoll, 250);
      })
      .catch(function () {
        setTimeout(longPoll, 5000);
      });
  }

  function stream() {
    // Only the checkout page follows a status; other payer pages load the script for copy buttons.
    if (!body.getAttribute('data-events') || body.getAttribute('data-final') === 'true') return;
    if (!window.EventSource) return longPoll();
    var failures = 0;
    var source = new EventSource(body.getAttribute('data-events'));
    source.addEventListener('status', function (event) {
      failures = 0;
      var update = JSON.parse(event.data);
      apply(update);
      if (update.final) source.close();
    });
    source.addEventListener('error', function () {
      failures += 1;
      // A proxy that breaks event streams: fall back to long polling.
      if (failures >= 3 || source.readyState === EventSource.CLOSED) {
        source.close();
        longPoll();
      }
    });
  }

  var initialReturn = body.getAttribute('data-return');
  if (initialReturn) maybeReturn(initialReturn);
  stream();
})();
