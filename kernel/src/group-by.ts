/** `values` by `key`, each group in the values' order; linear (no copying per value). */
export function groupBy<T, K>(values: Iterable<T>, key: (value: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const value of values) {
    const k = key(value);
    const group = groups.get(k);
    if (group) group.push(value);
    else groups.set(k, [value]);
  }
  return groups;
}
