/** A configuration problem. Start-up stops and prints the message, which names the key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
