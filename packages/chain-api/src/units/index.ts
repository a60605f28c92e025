export * from './decimal-units.js';
