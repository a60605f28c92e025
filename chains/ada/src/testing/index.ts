export * from './cip30-sign-data.js';
export * from './koios-replay.js';
