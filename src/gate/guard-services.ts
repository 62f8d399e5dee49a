import type { Guard, GuardServiceName, GuardServices } from '../core/guard.js';
import { IN_A_THREAD } from './thread-placement.js';

/** A guard read a run service it does not name in its `needs`. */
export class UndeclaredService extends Error {
  constructor(guardId: string, service: string) {
    super(`${guardId} reads the run service '${service}' but does not name it in its needs.services (src/core/guard.ts GuardNeeds)`);
    this.name = 'UndeclaredService';
  }
}

const SERVICE_NAMES = Object.keys(IN_A_THREAD) as GuardServiceName[]; // cast: the keys of a Record over the names

/**
 * The services one guard is handed: those its `needs` name (when the run holds them); reading any other
 * throws {@link UndeclaredService}, so a guard test that reaches an undeclared read fails with the name
 * of the service instead of the guard silently seeing nothing. The other names are not enumerable, so
 * spreading the view copies only what the guard may read. A guard without `needs` gets them all.
 */
export function servicesFor(guard: Guard, services: GuardServices): GuardServices {
  const needs = guard.needs;
  if (!needs) return services;
  const view: GuardServices = {};
  for (const name of SERVICE_NAMES) {
    if (needs.services.includes(name)) {
      if (services[name] !== undefined) Object.defineProperty(view, name, { value: services[name], enumerable: true });
    } else {
      Object.defineProperty(view, name, {
        enumerable: false,
        get() {
          throw new UndeclaredService(guard.id, name);
        },
      });
    }
  }
  return view;
}
