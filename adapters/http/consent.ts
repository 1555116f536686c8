// The consent page: server-rendered HTML, no script, readable on a phone.
import { SCOPE_WORDS, type OAuthScope } from "../../domain/oauth.ts";

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** The authorization request's parameters, carried through the page's forms unchanged. */
export type RequestFields = Record<string, string>;

export interface ConsentView {
  clientName: string;
  redirectHost: string;
  scopes: OAuthScope[];
  fields: RequestFields;
  csrf: string;
  /** Null: the sign-in form is shown first. */
  user: { name: string; email: string } | null;
  /** A sentence above the form (a refused key, say). */
  notice?: string;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f1ec;color:#1d1b16}
main{max-width:32rem;margin:0 auto;padding:1.25rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .75rem}
p{margin:.5rem 0}
ul{padding-left:0;list-style:none;margin:.75rem 0}
li{padding:.5rem 0;border-top:1px solid #e6e2d8}
label{display:block}
.scope{display:flex;gap:.6rem;align-items:flex-start}
.scope input{margin-top:.3rem;width:1.2rem;height:1.2rem;flex:none}
input[type=password]{width:100%;font:inherit;padding:.7rem;border:1px solid #b9b2a2;border-radius:8px;margin:.4rem 0 .8rem}
.buttons{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
button{font:inherit;font-weight:600;padding:.75rem 1.25rem;border-radius:8px;border:1px solid #5b4a2a;min-height:44px;flex:1 1 8rem;cursor:pointer}
.primary{background:#5b4a2a;color:#fff}
.secondary{background:#fff;color:#5b4a2a}
.notice{background:#fdecea;border:1px solid #e3a59d;border-radius:8px;padding:.6rem .8rem}
.small{font-size:.875rem;color:#5f5a4e}
code{font-size:.9em;background:#f3f1ec;padding:.1em .3em;border-radius:4px;word-break:break-all}
`;

export function pageShell(title: string, nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body><main><div class="card">
${body}
</div></main></body>
</html>`;
}

const hidden = (fields: RequestFields, csrf: string) =>
  [...Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`), `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`].join("\n");

export function consentPage(view: ConsentView, nonce: string): string {
  const name = escapeHtml(view.clientName);
  const notice = view.notice ? `<p class="notice" role="alert">${escapeHtml(view.notice)}</p>` : "";
  const scopes = view.scopes
    .map((scope) =>
      view.user
        ? `<li><label class="scope"><input type="checkbox" name="grant_scope" value="${scope}" checked><span>${escapeHtml(SCOPE_WORDS[scope])}</span></label></li>`
        : `<li>${escapeHtml(SCOPE_WORDS[scope])}</li>`,
    )
    .join("\n");
  const heading = `<h1>Allow ${name} to use your Campaign Memory?</h1>
<p><strong>${name}</strong> is asking for access to your account. It will be able to:</p>
<ul>
${scopes}
</ul>`;
  const outro = `<p>When you answer, you will be sent back to <strong>${escapeHtml(view.redirectHost)}</strong>.</p>
<p class="small">The name is chosen by the application itself. Allow only applications you trust; you can revoke access at any time.</p>`;
  // Signed in, the scopes are checkboxes of the answer's form; before, a plain list.
  const body = view.user
    ? `<form method="post" action="/oauth/authorize">
${hidden(view.fields, view.csrf)}
${heading}
${outro}
<p>Signed in as <strong>${escapeHtml(view.user.name)}</strong> (${escapeHtml(view.user.email)}). Untick what you do not want to allow.</p>
<div class="buttons">
<button class="primary" type="submit" name="action" value="approve">Allow</button>
<button class="secondary" type="submit" name="action" value="deny">Deny</button>
</div>
</form>`
    : `${heading}
${outro}
<form method="post" action="/oauth/authorize">
${hidden(view.fields, view.csrf)}
<label for="api_key"><strong>Sign in</strong> by pasting one of your API keys, or a sign-in link from <code>bun run cms login-link --user ID</code>:</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" autocapitalize="off" required>
<div class="buttons">
<button class="primary" type="submit" name="action" value="signin">Sign in</button>
</div>
</form>
<form method="post" action="/oauth/authorize">
${hidden(view.fields, view.csrf)}
<div class="buttons"><button class="secondary" type="submit" name="action" value="deny">Deny</button></div>
</form>`;
  return pageShell(`Allow ${view.clientName}?`, nonce, `${notice}\n${body}`);
}

export const messagePage = (title: string, message: string, nonce: string): string =>
  pageShell(title, nonce, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);

export function signinLinkPage(code: string, csrf: string, nonce: string, notice?: string): string {
  return pageShell(
    "Sign in to Campaign Memory",
    nonce,
    `${notice ? `<p class="notice" role="alert">${escapeHtml(notice)}</p>` : ""}
<h1>Sign in to Campaign Memory</h1>
<p>This one-time link signs this browser in, so you can allow applications to use your account.</p>
<form method="post" action="/oauth/signin">
<input type="hidden" name="code" value="${escapeHtml(code)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<div class="buttons"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}
