/**
 * An object-shaped cache that keeps at most a fixed number of entries, evicting the oldest first.
 * jsonpath-plus keeps every parsed path and every filter script in one shared plain object for
 * the life of the process; swapping this in for it bounds that memory without changing how
 * jsonpath-plus reads and writes its cache (`cache[key]`, `cache[key] = value`).
 */

/**
 * A cache object holding at most `limit` entries. Reading, writing, `in`, `delete` and
 * `Object.keys` work as on a plain object; any key (`__proto__` included) is only a key.
 */
export function createBoundedCache(limit: number): Record<string, unknown> {
  const entries = new Map<string, unknown>();
  const target = Object.create(null) as Record<string, unknown>;
  return new Proxy(target, {
    get: (_t, key) => (typeof key === 'string' ? entries.get(key) : undefined),
    set: (_t, key, value) => {
      if (typeof key !== 'string') return false;
      // Written again, a key counts as new: it leaves last.
      entries.delete(key);
      entries.set(key, value);
      while (entries.size > limit) entries.delete(entries.keys().next().value as string);
      return true;
    },
    has: (_t, key) => typeof key === 'string' && entries.has(key),
    deleteProperty: (_t, key) => {
      if (typeof key === 'string') entries.delete(key);
      return true;
    },
    ownKeys: () => [...entries.keys()],
    getOwnPropertyDescriptor: (_t, key) =>
      typeof key === 'string' && entries.has(key) ? { value: entries.get(key), writable: true, enumerable: true, configurable: true } : undefined,
    defineProperty: () => false,
  });
}
