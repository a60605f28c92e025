// Operator dashboard: progressive enhancement only. Every form works without this file.
// Served by the gateway under a Content Security Policy without 'unsafe-inline': no inline
// handlers anywhere, everything is wired here by data attributes.
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  // <button data-copy="field-id">: copies the value (or text) of that element.
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = 'value' in source ? source.value : source.textContent;
    var done = function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () {
        button.textContent = label;
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {
        source.select && source.select();
      });
    } else if (source.select) {
      source.select();
      try {
        document.execCommand('copy');
        done();
      } catch (e) {
        /* the text stays selected for the person to copy */
      }
    }
  });

  // <form data-confirm="question">: asks before submitting. A single-use form (it carries `_once`:
  // its result shows a secret once) is sent once: after a double click the browser would show the
  // answer to the second send, "already sent", in place of the page with the secret.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) {
      event.preventDefault();
      return;
    }
    if (form.querySelector('input[name="_once"]')) {
      if (form.hasAttribute('data-sent')) event.preventDefault();
      else form.setAttribute('data-sent', '');
    }
  });

  // <select data-autosubmit>: submits its form on change (the form's button is hidden with JS).
  document.addEventListener('change', function (event) {
    var select = event.target;
    if (select instanceof HTMLSelectElement && select.hasAttribute('data-autosubmit') && select.form && select.value) select.form.submit();
  });
})();
