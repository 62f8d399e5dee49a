import type { Db } from './db.js';

/**
 * Records a webhook delivery id. Returns true the first time an id is seen and false for a
 * redelivery, also when two processes receive the same delivery at the same moment (the primary key
 * decides; exactly one of them gets true).
 */
export async function recordDelivery(db: Db, id: string, at: Date = new Date()): Promise<boolean> {
  if (!id) throw new Error('recordDelivery: empty delivery id');
  const r = await db.query('INSERT INTO deliveries (id, received_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, at]);
  return r.affected === 1;
}

/** Forgets delivery ids older than `olderThan` (GitHub redelivers for days, not months). Returns how many. */
export async function pruneDeliveries(db: Db, olderThan: Date): Promise<number> {
  const r = await db.query('DELETE FROM deliveries WHERE received_at < $1', [olderThan]);
  return r.affected;
}
