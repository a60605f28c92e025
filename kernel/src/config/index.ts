export * from './config-error.js';
export * from './kernel-config.js';
export * from './load-config.js';
export * from './validate-config.js';
export * from './run-mode.js';
export { configSlice } from './config-slice.js';
