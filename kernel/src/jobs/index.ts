export * from './job-definition.js';
export * from './job-queue.js';
