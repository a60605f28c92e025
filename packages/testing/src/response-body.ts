/** The body of an HTTP answer as tests read it: its text, and its JSON value when it is JSON (undefined when empty). */
export async function responseBody(response: Response): Promise<{ text: string; body: unknown }> {
  const text = await response.text();
  try {
    return { text, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { text, body: text }; // not JSON
  }
}
