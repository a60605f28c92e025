export * from './app-error.js';
export * from './define-errors.js';
export * from './core-errors.js';
