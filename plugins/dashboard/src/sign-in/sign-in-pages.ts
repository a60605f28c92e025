import { html, type SafeHtml } from '@gw/kernel';
import { csrfField } from '../web/components.js';

/** Step 1: the e-mail address the person was invited with. */
export function emailForm(csrf: string, options: { error?: string; email?: string } = {}): SafeHtml {
  return html`<h1>Sign in</h1>
<p>Sign in with the e-mail address you were invited with. We will send you a one-time code. Only invited people can sign in.</p>
${alert(options.error)}
<form method="post" action="/dashboard/sign-in/email">
${csrfField({ csrf })}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${options.email ?? ''}"${options.error ? html` aria-describedby="form-error"` : null}>
<button type="submit">Send code</button>
</form>`;
}

/** Step 2: the code. The same page whether or not the address is invited. */
export function codeForm(csrf: string, options: { error?: string; operators?: readonly { id: string; name: string }[] } = {}): SafeHtml {
  return html`<h1>Enter your code</h1>
<p>If the address is invited, a 6-digit code is on its way. It expires in a few minutes.</p>
${alert(options.error)}
<form method="post" action="/dashboard/sign-in/code">
${csrfField({ csrf })}
<label for="code">One-time code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required maxlength="7"${options.error ? html` aria-describedby="form-error"` : null}>
${options.operators ? operatorChoice(options.operators) : null}
<button type="submit">Sign in</button>
</form>
<p class="note"><a href="/dashboard/sign-in?again=1">Use another address or get a new code</a></p>`;
}

/** The answer once an address reached its cap of wrong codes (every code refused until `retryAfter`). */
export function lockedMessage(retryAfter: number): string {
  return `Too many wrong codes were entered for this address. Sign-in for it is locked; try again in ${Math.max(1, Math.ceil(retryAfter / 60))} minutes.`;
}

/** The operators a right code may sign in to, when the address is a user of several (issue 33 item 18). */
function operatorChoice(operators: readonly { id: string; name: string }[]): SafeHtml {
  return html`<fieldset><legend>Operator to sign in to</legend>
${operators.map((o, i) => html`<label class="choice"><input type="radio" name="operator" value="${o.id}"${i === 0 ? html` checked` : null}> ${o.name}</label>`)}
</fieldset>`;
}

function alert(message: string | undefined): SafeHtml | null {
  return message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : null;
}
