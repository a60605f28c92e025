export * from './errors/index.js';
export * from './units/index.js';
export * from './chain.js';
