export * from './types.js';
export { MemoryQueue, type MemoryQueueOptions } from './memory-queue.js';
export { PgQueue, type PgQueueOptions } from './pg-queue.js';
export { createQueue, queueOptionsFromEnv, type QueueOptions } from './create-queue.js';
export { registerJobHandler, registeredJobHandler } from './handlers.js';
export { runWorker, type WorkerOptions } from './worker.js';
