import { html, type Html } from './html.js';

/** Where PRs and check runs live on the code host (`https://github.com`); absent for a CLI store. */
export interface Links {
  web?: string;
}

/** The page around a body: the header with who is signed in, the styles and the chart scripts. */
export function layout(title: string, who: string | null, body: Html, base: string): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · slopgate</title>
        <link rel="stylesheet" href="${base}/assets/uPlot.min.css" />
        <link rel="stylesheet" href="${base}/assets/dashboard.css" />
      </head>
      <body>
        <header>
          <a class="brand" href="${base}">slopgate</a>
          <span class="muted">read-only dashboard</span
          >${who ? html`<span class="who">signed in as <b>${who}</b> · <a href="${base}/logout">sign out</a></span>` : ''}
        </header>
        <main>${body}</main>
        <script src="${base}/assets/uPlot.iife.min.js"></script>
        <script src="${base}/assets/charts.js"></script>
      </body>
    </html> `.text;
}

/** A PR as a link to the code host, or as plain text when there is no host to link to. */
export function prLink(links: Links, repo: string, pr: number | null): Html {
  if (pr === null) return html`<span class="muted">no PR</span>`;
  if (!links.web || !/^[\w.-]+\/[\w.-]+$/.test(repo)) return html`${repo}#${pr}`;
  return html`<a href="${links.web}/${repo}/pull/${pr}" rel="noreferrer">${repo}#${pr}</a>`;
}

/** The check run as a link to the code host, or a dash. */
export function checkLink(links: Links, repo: string, checkRunId: number | null): Html {
  if (checkRunId === null || !links.web) return html`<span class="muted">–</span>`;
  return html`<a href="${links.web}/${repo}/runs/${checkRunId}" rel="noreferrer">check run</a>`;
}

/** An outcome or a conclusion as a coloured badge. */
export function badge(kind: string): Html {
  const cls = kind === 'STUCK' || kind === 'action_required' ? 'badge red' : kind === 'PASS' ? 'badge green' : 'badge';
  return html`<span class="${cls}" data-kind="${kind}">${kind}</span>`;
}
