export * from './html.js';
export * from './page-headers.js';
export * from './static-assets.js';
