/** The fields `keys` names of `value`, copied as they are: a row's columns that a view answers under the same names. */
export function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = value[key];
  return picked;
}
