export * from './decimal-units.js';
export * from './units-columns.js';
