import type { ReviewHost } from './review-host.js';

/**
 * An optional capability of a code host: marking review threads resolved (GitHub's
 * `resolveReviewThread`). Where a host lacks it, or the operator turned it off, the comments of fixed
 * findings are hidden with {@link ReviewHost.hideStaleComments} instead.
 */
export interface ThreadResolver {
  /**
   * Resolves the open threads these comments started; returns how many it resolved or, where the host
   * refused (GitHub wants contents: write), hid instead.
   */
  resolveThreads(number: number, comments: { id: number; nodeId: string }[]): Promise<number>;
}

export function canResolveThreads(host: ReviewHost): host is ReviewHost & ThreadResolver {
  return 'resolveThreads' in host && typeof host.resolveThreads === 'function';
}
