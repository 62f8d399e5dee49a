import type { Store } from '../../store/store.js';

/**
 * Remembers webhook delivery ids (`X-GitHub-Delivery`, the same on a redelivery) so each delivery is
 * handled once: an in-memory LRU for this process (checked while the webhook is answered), plus the
 * store when there is one (checked in the background), which also covers several App processes
 * behind one load balancer.
 */
export class DeliveryDedupe {
  private readonly seen = new Map<string, true>();

  constructor(
    private readonly store?: Pick<Store, 'recordDelivery'>,
    private readonly capacity = 10_000,
  ) {}

  /** True the first time an id is seen; false for a redelivery. */
  async firstTime(id: string | undefined): Promise<boolean> {
    return this.firstInProcess(id) && (await this.claimInStore(id));
  }

  /** In memory only (no I/O): true the first time this process sees `id`. */
  firstInProcess(id: string | undefined): boolean {
    if (!id) return true;
    if (this.seen.has(id)) return false;
    this.remember(id);
    return true;
  }

  /**
   * The store's verdict, shared by every App process: true unless another process recorded `id`
   * first (the primary key decides a race). Without a store, or when it is down, true.
   */
  async claimInStore(id: string | undefined): Promise<boolean> {
    if (!id || !this.store) return true;
    try {
      return await this.store.recordDelivery(id);
    } catch {
      return true; // the store is down: better to gate twice than not at all
    }
  }

  private remember(id: string): void {
    this.seen.set(id, true);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}
