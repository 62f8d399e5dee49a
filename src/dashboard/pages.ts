import { html } from './html.js';
import { layout } from './layout.js';

// The dashboard's small pages: the sign-in form and a message (an error, a refusal).

export function loginPage(opts: { github: boolean; message?: string; next?: string }, base: string): string {
  const body = html`<h2>Sign in</h2>
    ${opts.message ? html`<p class="notice">${opts.message}</p>` : ''}
    <p>This dashboard is for the people the operator allows.</p>
    ${opts.github ? html`<p><a class="button" href="${base}/auth/github">Sign in with GitHub</a> <span class="muted">(members of an account slopgate is installed on)</span></p>` : ''}
    <form method="post" action="${base}/login">
      <label>Operator token <input type="password" name="token" autocomplete="current-password" required /></label>
      <button type="submit">Sign in</button>
    </form>`;
  return layout('Sign in', null, body, base);
}

export function messagePage(title: string, message: string, base: string): string {
  return layout(
    title,
    null,
    html`<h2>${title}</h2>
      <p>${message}</p>
      <p><a href="${base}/login">sign in</a></p>`,
    base,
  );
}
