import { cleanText } from '../kernel/text.js';
import type { FieldErrors } from './accounts-service.js';
import { IDP_CSS_VERSION } from './styles.js';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The OAuth parameters a form carries from the authorize link to its POST. */
export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  response_type: string;
  scope: string;
  state?: string;
  /** An invite code from the app's invite link, carried from page to page (docs/registration.md). */
  invite?: string;
}

export function authorizeQuery(params: AuthorizeParams): string {
  const q = new URLSearchParams({
    response_type: params.response_type,
    client_id: params.client_id,
    redirect_uri: params.redirect_uri,
    scope: params.scope,
  });
  if (params.state !== undefined) q.set('state', params.state);
  if (params.invite !== undefined) q.set('invite', params.invite);
  return q.toString();
}

const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'%3E%3Ctext y='.9em' font-size='90'%3E%F0%9F%8D%BA%3C/text%3E%3C/svg%3E";

/** The product's tagline, shown under the name until the operator describes their server (withServerName). */
const BRAND_TAGLINE = '<p class="brand-tagline">Share your shower beer moments</p>';

/**
 * A page of the sign-in service. Indexable, with a description: a front door to the product
 * like the landing page (Lighthouse's SEO audits, docs/performance.md); the forms carry the
 * OAuth request in hidden fields and a CSRF token, and nothing of anyone's account.
 */
function layout(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="description" content="Sign in to Shower Beer, or create an account, to share your shower beer moments.">
<title>${escapeHtml(title)} · Shower Beer</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="/oauth2/assets/idp.css?v=${IDP_CSS_VERSION}">
</head>
<body>
<header class="brand">
<span class="brand-mug" aria-hidden="true">🍺</span>
<p class="brand-name">Shower Beer</p>
${BRAND_TAGLINE}
</header>
<main class="card"><div class="card-body">
${main}
</div></main>
</body>
</html>
`;
}

const alert = (message: string | undefined) =>
  message ? `<div class="alert" role="alert">${escapeHtml(message)}</div>\n` : '';

function hiddenFields(params: AuthorizeParams, csrfToken: string, withInvite = false): string {
  const fields: [string, string | undefined][] = [
    ['invite', withInvite ? params.invite : undefined],
    ['response_type', params.response_type],
    ['client_id', params.client_id],
    ['redirect_uri', params.redirect_uri],
    ['scope', params.scope],
    ['state', params.state],
    ['csrf_token', csrfToken],
  ];
  return fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('\n');
}

interface FieldOptions {
  id: string;
  label: string;
  type: 'text' | 'email' | 'password';
  autocomplete: string;
  value?: string;
  error?: string;
  hint?: string;
  extra?: string;
}

/**
 * What a one-line field shows back after a refused submit: cleaned as the API cleans text
 * (kernel/text.ts: no control, direction or invisible characters, NFC), and on one line.
 * A name typed with U+202E comes back without it, so the page never shows it reversed.
 */
export const echoValue = (value: string) => cleanText(value).replace(/[\n\t\u200C\u200D]/g, '');

function field(o: FieldOptions): string {
  const described = [o.error ? `${o.id}-error` : '', o.hint ? `${o.id}-hint` : ''].filter(Boolean).join(' ');
  return `<div class="field">
<label for="${o.id}">${escapeHtml(o.label)}</label>
<input id="${o.id}" name="${o.id}" type="${o.type}" autocomplete="${o.autocomplete}" required${
    o.value !== undefined && o.type !== 'password' ? ` value="${escapeHtml(echoValue(o.value))}"` : ''
  }${o.error ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}${o.extra ? ` ${o.extra}` : ''}>
${o.hint ? `<p class="hint" id="${o.id}-hint">${escapeHtml(o.hint)}</p>\n` : ''}${
    o.error ? `<p class="field-error" id="${o.id}-error">${escapeHtml(o.error)}</p>\n` : ''
  }</div>`;
}

export interface SignInPageOptions {
  params: AuthorizeParams;
  csrfToken: string;
  identifier?: string;
  error?: string;
}

export function signInPage(o: SignInPageOptions): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p class="lead">Welcome back! Sign in to share and cheers.</p>
${alert(o.error)}<form method="post" action="/oauth2/authorize" novalidate>
${hiddenFields(o.params, o.csrfToken, true)}
${field({ id: 'username', label: 'Username or email', type: 'text', autocomplete: 'username', value: o.identifier, extra: 'autocapitalize="none" spellcheck="false" maxlength="254"' })}
${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' })}
<p class="forgot"><a href="/oauth2/forgot?${escapeHtml(authorizeQuery(o.params))}">Forgot password?</a></p>
<button class="button" type="submit">Sign in</button>
</form>
<p class="switch">New here? <a href="/oauth2/signup?${escapeHtml(authorizeQuery(o.params))}">Create account</a></p>`,
  );
}

export interface SignUpPageOptions {
  params: AuthorizeParams;
  csrfToken: string;
  username?: string;
  email?: string;
  errors?: FieldErrors;
  error?: string;
  /** Who may join (registration/instance-repository.ts): the fields and rules the page shows follow it. */
  join?: { mode: 'open' | 'approval' | 'invite'; rules: string[]; serverName: string; membersCanInvite: boolean; reason?: string };
  /** Why the invite code was refused: shown under the invite field, which is marked and focused. */
  inviteError?: string;
  /** "I agree to these rules" was ticked when the form was sent: a refusal keeps it ticked. */
  agreed?: boolean;
}

/** What a stranger on an invite-only server needs to know: that it is, and whom to ask (members, when they may make links). */
export const INVITE_TEXTS = {
  lead: (serverName: string) => `${serverName} is invite-only: you join with an invite link from someone on it.`,
  missing: (serverName: string) => `${serverName} is invite-only: an account here needs the code of an invite link.`,
  ask: (join: { serverName: string; membersCanInvite: boolean }) =>
    `No link yet? Ask ${join.membersCanInvite ? `someone on ${join.serverName}` : `the operator of ${join.serverName}`} for one, then open it: it fills in the code for you.`,
} as const;

/** The invite field (invite mode, or approval mode where an invite skips the wait), the reason, the rules to agree to. */
function joinFields(o: SignUpPageOptions): string {
  const join = o.join;
  if (!join) return '';
  const parts: string[] = [];
  if (join.mode === 'invite') {
    parts.push(field({ id: 'invite', label: 'Invite code', type: 'text', autocomplete: 'off', value: o.params.invite, error: o.inviteError, hint: 'From the invite link someone on this server sent you.', extra: `autocapitalize="none" spellcheck="false" maxlength="100"${o.inviteError ? ' autofocus' : ''}` }));
  } else if (o.params.invite !== undefined) {
    parts.push(`<input type="hidden" name="invite" value="${escapeHtml(o.params.invite)}">`);
  }
  if (join.mode === 'approval' && o.params.invite === undefined) {
    parts.push(`<div class="field">
<label for="reason">Why do you want to join?</label>
<textarea id="reason" name="reason" rows="3" maxlength="500" aria-describedby="reason-hint">${escapeHtml(join.reason ?? '')}</textarea>
<p class="hint" id="reason-hint">An operator reads this before letting your account in.</p>
</div>`);
  }
  if (join.rules.length > 0) {
    parts.push(`<section class="rules" aria-labelledby="rules-heading">
<h2 id="rules-heading">Rules of ${escapeHtml(join.serverName)}</h2>
<ol>${join.rules.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ol>
<div class="check"><input id="agree" name="agree" type="checkbox" value="yes" required${o.agreed ? ' checked' : ''}><label for="agree">I agree to these rules</label></div>
</section>`);
  }
  return parts.join('\n');
}

export function signUpPage(o: SignUpPageOptions): string {
  const errors = o.errors ?? {};
  const refused = o.inviteError !== undefined || Object.keys(errors).length > 0;
  const summary = o.error ?? (refused ? 'Please fix the highlighted fields.' : undefined);
  // An invite-only server says so before anyone types (issue 48); once refused for it, the alert does.
  const lead =
    o.join?.mode === 'invite' && !o.params.invite && o.inviteError === undefined
      ? INVITE_TEXTS.lead(o.join.serverName)
      : 'Join in and share your first shower beer moment.';
  // A refused form keeps the name, the e-mail and the ticked rules; never the password, and says so where it is typed.
  const passwordHint = `${summary !== undefined ? 'Type it again: a form that comes back never keeps the password. ' : ''}At least 8 characters, and not a common password: a few unrelated words work well.`;
  return layout(
    'Create account',
    `<h1>Create account</h1>
<p class="lead">${escapeHtml(lead)}</p>
${alert(summary)}<form method="post" action="/oauth2/signup" novalidate>
${hiddenFields(o.params, o.csrfToken)}
${field({ id: 'username', label: 'Username', type: 'text', autocomplete: 'username', value: o.username, error: errors.username, hint: '3 to 30 characters: letters, digits, _ . -', extra: 'autocapitalize="none" spellcheck="false" minlength="3" maxlength="30"' })}
${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'email', value: o.email, error: errors.email, extra: 'maxlength="254"' })}
${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', error: errors.password, hint: passwordHint, extra: 'minlength="8"' })}
${joinFields(o)}
<button class="button" type="submit">Create account</button>
</form>
<p class="switch">Already have an account? <a href="/oauth2/authorize?${escapeHtml(authorizeQuery(o.params))}">Sign in</a></p>`,
  );
}

/**
 * A page as this server names itself: the operator page's name (server/src/registration/instance-repository.ts)
 * in the header and the tab's title, in place of the product's.
 */
export function withServerName(page: string, server: { name: string; description: string }): string {
  const text = escapeHtml(server.name);
  // The operator's description replaces the product's tagline (the spec names no tagline: the
  // product's stays on a server that has no description of its own).
  const description = server.description.trim();
  const named =
    server.name === 'Shower Beer'
      ? page
      : page
          .replace('<p class="brand-name">Shower Beer</p>', () => `<p class="brand-name">${text}</p>`)
          .replace(/ · Shower Beer<\/title>/, () => ` · ${text}</title>`)
          .replace(/(<meta name="description" content="Sign in to )Shower Beer/, (_m, head: string) => `${head}${text}`);
  // "Go to <name>": where every message page's link leads is this server, by its own name.
  const linked = named.replace(/>Go to Shower Beer</g, () => `>Go to ${text}<`);
  return description === ''
    ? linked
    : linked.replace(BRAND_TAGLINE, () => `<p class="brand-tagline">${escapeHtml(description)}</p>`);
}

export interface MessagePageOptions {
  title: string;
  message: string;
  /** Where the person can go from here. */
  link?: { href: string; text: string };
}

export function messagePage(o: MessagePageOptions): string {
  return layout(
    o.title,
    `<h1>${escapeHtml(o.title)}</h1>
<p class="lead">${escapeHtml(o.message)}</p>
${o.link ? `<a class="button" href="${escapeHtml(o.link.href)}">${escapeHtml(o.link.text)}</a>` : ''}`,
  );
}

export interface ForgotPageOptions {
  params: AuthorizeParams;
  csrfToken: string;
  /** false without SMTP_URL: the page says to ask an operator instead of showing a form. */
  canEmail: boolean;
  identifier?: string;
  error?: string;
  /** Who runs the server and how to reach them (the operator page's contact, else the operators' usernames). */
  operator?: OperatorContact;
}

/** The operator page's contact ('' when none) and the operators' usernames (registration/instance-routes.ts, operatorNames). */
export interface OperatorContact {
  contact: string;
  names: string[];
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/**
 * Whom to ask, as HTML: "its operators at <a href=mailto:…>…</a>" with a contact (an e-mail
 * address becomes a link, other text stays text), "its operator, @olga," without one, else
 * "its operator" (issue 48: the page used to name nobody).
 */
function whomToAsk(o?: OperatorContact): string {
  if (o && o.contact !== '') {
    const shown = EMAIL.test(o.contact) ? `<a href="mailto:${escapeHtml(o.contact)}">${escapeHtml(o.contact)}</a>` : `<strong>${escapeHtml(o.contact)}</strong>`;
    return `its operators at ${shown}`;
  }
  const names = (o?.names ?? []).map((n) => `<strong>@${escapeHtml(n)}</strong>`);
  if (names.length === 0) return 'its operator';
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
  return `its ${names.length === 1 ? 'operator' : 'operators'}, ${listed},`;
}

const signInLink = (params: AuthorizeParams, text: string) =>
  `<p class="switch"><a href="/oauth2/authorize?${escapeHtml(authorizeQuery(params))}">${escapeHtml(text)}</a></p>`;

/** "Forgot password?": asks for a name or e-mail to send a reset link to, or, without e-mail, says whom to ask. */
export function forgotPage(o: ForgotPageOptions): string {
  if (!o.canEmail) {
    return layout(
      'Forgot password?',
      `<h1>Forgot password?</h1>
<p class="lead">This server does not send email. Ask ${whomToAsk(o.operator)} for a password reset link: they can make one for your account on the operator page. The link works once, for 24 hours.</p>
${signInLink(o.params, 'Back to sign in')}`,
    );
  }
  return layout(
    'Forgot password?',
    `<h1>Forgot password?</h1>
<p class="lead">Type your username or email. If it belongs to an account here, we email that account a link to choose a new password.</p>
${alert(o.error)}<form method="post" action="/oauth2/forgot" novalidate>
${hiddenFields(o.params, o.csrfToken)}
${field({ id: 'username', label: 'Username or email', type: 'text', autocomplete: 'username', value: o.identifier, extra: 'autocapitalize="none" spellcheck="false" maxlength="254"' })}
<button class="button" type="submit">Send reset link</button>
</form>
<p class="hint">No longer have that email? Ask ${whomToAsk(o.operator)} for a reset link.</p>
${signInLink(o.params, 'Back to sign in')}`,
  );
}

export const FORGOT_TEXTS = {
  sent:
    'If an account here has that username or email, we have sent a link to choose a new password to its email address. The link works once, for 24 hours. No email after a few minutes? Check your spam folder, or ask the operator of this server for a reset link.',
} as const;

/** The same answer whether or not an account matched. */
export function forgotSentPage(params: AuthorizeParams): string {
  return layout(
    'Check your email',
    `<h1>Check your email</h1>
<p class="lead">${escapeHtml(FORGOT_TEXTS.sent)}</p>
${signInLink(params, 'Back to sign in')}`,
  );
}

export interface ResetPageOptions {
  token: string;
  csrfToken: string;
  username: string;
  error?: string;
}

/** The page a reset link opens: a new password for the account it names. */
export function resetPage(o: ResetPageOptions): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>
<p class="lead">For the account <strong>${escapeHtml(o.username)}</strong>. Every device signed in with the old password will be signed out.</p>
${alert(o.error ? 'Please fix the highlighted field.' : undefined)}<form method="post" action="/oauth2/reset" novalidate>
<input type="hidden" name="token" value="${escapeHtml(o.token)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(o.csrfToken)}">
${field({ id: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', error: o.error, hint: 'At least 8 characters, and not a common password: a few unrelated words work well.', extra: 'minlength="8"' })}
<button class="button" type="submit">Set new password</button>
</form>`,
  );
}
