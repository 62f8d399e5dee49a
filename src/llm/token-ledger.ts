import { addUsage, emptyUsage } from './chat-http.js';
import type { TokenUsage } from './port.js';

/** Tokens spent in one run, summed per purpose (`refine`, `qa.questioner`, …); failed requests count too. */
export class TokenLedger {
  readonly #byPurpose = new Map<string, TokenUsage>();

  add(purpose: string, usage: TokenUsage): void {
    this.#byPurpose.set(purpose, addUsage(this.#byPurpose.get(purpose) ?? emptyUsage(), usage));
  }

  total(): TokenUsage {
    let sum = emptyUsage();
    for (const usage of this.#byPurpose.values()) sum = addUsage(sum, usage);
    return sum;
  }

  byPurpose(): Record<string, TokenUsage> {
    return Object.fromEntries([...this.#byPurpose].map(([purpose, usage]) => [purpose, { ...usage }]));
  }
}
